/**
 * Shared setup of the runner tests: a faux harness, temp project dirs, a session tracker, and a request builder.
 * `teardown()` fails the test when a child session was left undisposed or still streaming.
 */
import type { AgentSession } from "@earendil-works/pi-coding-agent";
import { loadAgentTypes } from "../../src/agents/agent-types.ts";
import { createPiAgentRunner, type PiAgentRunnerOptions } from "../../src/children/agent-runner.ts";
import type {
	WorkflowAgentChild,
	WorkflowAgentRequest,
	WorkflowAgentRunnerContext,
} from "../../src/runtime/core/types.ts";
import { type AgentDirs, createAgentDirs } from "../agents/agent-files.ts";
import { createFauxHarness, createSessionTracker, type FauxHarness } from "../helpers/faux.ts";

export interface RunnerFixture {
	faux: FauxHarness;
	dirs: AgentDirs;
	tracker: ReturnType<typeof createSessionTracker>;
	/** Every child report, in order. */
	reports: WorkflowAgentChild[];
	/** A runner over the fixture's dirs (agent files are read now, so write them first). */
	runner(options?: Partial<PiAgentRunnerOptions>): ReturnType<typeof createPiAgentRunner>;
	request(overrides?: Partial<WorkflowAgentRequest>): WorkflowAgentRequest;
	context(signal?: AbortSignal): WorkflowAgentRunnerContext;
	teardown(): void;
}

export async function createRunnerFixture(): Promise<RunnerFixture> {
	const faux = await createFauxHarness();
	const dirs = createAgentDirs();
	const tracker = createSessionTracker();
	const reports: WorkflowAgentChild[] = [];
	return {
		faux,
		dirs,
		tracker,
		reports,
		runner(options = {}) {
			return createPiAgentRunner({
				cwd: dirs.cwd,
				agentDir: dirs.agentDir,
				modelRuntime: faux.modelRuntime,
				defaultModel: faux.model,
				agentTypes: loadAgentTypes({ cwd: dirs.cwd, agentDir: dirs.agentDir }).types,
				hooks: tracker.hooks,
				...options,
			});
		},
		request(overrides = {}) {
			return {
				key: "call-0",
				index: 0,
				attempt: 1,
				prompt: "Say hello",
				agentType: "general-purpose",
				label: "hello",
				description: "hello",
				cwd: dirs.cwd,
				...overrides,
			};
		},
		context(signal = new AbortController().signal) {
			return { signal, reportChild: (child) => reports.push(child) };
		},
		teardown() {
			const leaked: AgentSession[] = [...tracker.live];
			const streaming = tracker.created.filter((session) => session.isStreaming);
			faux.dispose();
			dirs.dispose();
			if (leaked.length > 0) throw new Error(`${leaked.length} child session(s) were not disposed`);
			if (streaming.length > 0) throw new Error(`${streaming.length} child session(s) are still streaming`);
		},
	};
}

/** The statuses a child went through, without repeats. */
export function statusesOf(reports: readonly WorkflowAgentChild[], id?: string): string[] {
	const statuses: string[] = [];
	for (const report of reports) {
		if (id !== undefined && report.id !== id) continue;
		if (statuses.at(-1) !== report.status) statuses.push(report.status);
	}
	return statuses;
}
