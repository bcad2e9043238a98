/**
 * Runs whose report grows with what they hold, for the tests of the report's size bound and scripts/report-sizes.ts:
 * a script that logs `logs` lines and calls `agents` agents (prompts of `promptChars` characters), through the real
 * sandbox and the store's event log, children a scripted runner; `resume: "edited"` resumes it once with every
 * prompt edited, so every call runs again with a "why" of its own.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRunStore, type RunRecord, type RunStore } from "../../src/runs/index.ts";
import type { WorkflowLimits } from "../../src/runtime/index.ts";
import { createFakeRunner } from "../helpers/fake-runner.ts";
import { runRecordedSession } from "./recorded-session.ts";

/** What to make. */
export interface LogRunOptions {
	/** `log()` lines (every 100th a warning). Default 0. */
	logs?: number;
	/** Agent calls, in one `parallel`. Default 1. */
	agents?: number;
	/** Characters of each prompt. Default: a short one. */
	promptChars?: number;
	/** Resume once with every prompt edited. Default: no resume. */
	resume?: "edited";
}

/** The run made, and how to remove it. */
export interface LogRun {
	store: RunStore;
	record: RunRecord;
	dispose(): void;
}

function script(options: LogRunOptions, edit: string): string {
	const pad = Math.max(0, (options.promptChars ?? 0) - 40);
	return `export const meta = { name: "log-run", description: "Many log lines and agents" };
phase("work");
for (let i = 0; i < ${options.logs ?? 0}; i++) {
	(i % 100 === 99 ? console.warn : log)("progress line " + i + " of the loop");
	// A pause now and then: 100,000 lines in one stretch pass the sandbox's time slice.
	if (i % 1000 === 999) await sleep(0);
}
const answers = await parallel(Array.from({ length: ${options.agents ?? 1} }, (_, i) => () => agent(${JSON.stringify(edit)} + " check module " + i + " " + "x".repeat(${pad}), { label: "check " + i })));
return answers.length;
`;
}

/** Runs it on a fresh store in a temp folder. */
export async function runLogRun(options: LogRunOptions): Promise<LogRun> {
	const root = mkdtempSync(join(tmpdir(), "pi-workflows-log-run-"));
	const first = script(options, "Please");
	const store = createRunStore({ cwd: root, root: join(root, "runs") });
	const record = await store.create({ script: first, meta: { name: "log-run", description: "d" } });
	const fake = createFakeRunner((request) => ({ text: `done ${request.index}`, delayMs: 1, tokens: 100 }));
	const agents = options.agents ?? 1;
	const limits: Partial<WorkflowLimits> = { maxAgentCalls: agents, maxItems: Math.max(4096, agents) };
	try {
		await runRecordedSession(record, first, 1, { agentRunner: fake.runner, concurrency: 16, limits });
		if (options.resume === "edited")
			await runRecordedSession(record, script(options, "Kindly"), 2, {
				agentRunner: fake.runner,
				concurrency: 16,
				limits,
			});
	} catch (error) {
		rmSync(root, { recursive: true, force: true });
		throw error;
	}
	return { store, record, dispose: () => rmSync(root, { recursive: true, force: true }) };
}
