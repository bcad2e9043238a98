/**
 * The run a newcomer meets first, made for real (pi children on the faux provider, the real sandbox, the run store):
 * one call on a model with no price, one on a priced model, one that fails; the script then throws, so the first
 * session fails; a resume of the same script replays the first two and runs the third, which now answers. Costs are
 * partly unknown, calls outnumber the last session's, and the first session's failure is history the page must keep.
 */
import { join } from "node:path";
import { loadAgentTypes } from "../../src/agents/agent-types.ts";
import { createPiAgentRunner } from "../../src/children/agent-runner.ts";
import { createRunStore, type RunRecord, type RunStore } from "../../src/runs/index.ts";
import { createAgentDirs } from "../agents/agent-files.ts";
import { createFauxHarness, fauxAssistantMessage } from "../helpers/faux.ts";
import { runRecordedSession } from "./recorded-session.ts";

const META = { name: "newcomer", description: "Three steps" };

export const NEWCOMER_SCRIPT = `export const meta = { name: "newcomer", description: "Three steps" };
phase("work");
const one = await agent("Step one", { label: "one" });
const two = await agent("Step two", { label: "two", model: "faux/faux-priced" });
const three = await agent("Step three", { label: "three", retries: 0 });
if (!three) throw new Error("step three gave nothing");
return [one, two, three].join(" ");
`;

/** The run made, and how to remove it. */
export interface NewcomerRun {
	store: RunStore;
	record: RunRecord;
	cwd: string;
	agentDir: string;
	dispose(): void;
}

/** The first session (fails at step three), then its resume (completes). */
export async function runNewcomer(): Promise<NewcomerRun> {
	const faux = await createFauxHarness();
	const dirs = createAgentDirs();
	try {
		faux.route("Step one", [fauxAssistantMessage("one done")]);
		faux.route("Step two", [fauxAssistantMessage("two done")]);
		faux.route("Step three", [
			fauxAssistantMessage([], { stopReason: "error", errorMessage: "400 invalid request" }),
			fauxAssistantMessage("three done"),
		]);
		const store = createRunStore({ cwd: dirs.cwd, root: join(dirs.agentDir, "workflow-runs") });
		const record = await store.create({ script: NEWCOMER_SCRIPT, filename: "newcomer.js", meta: META });
		const runner = createPiAgentRunner({
			cwd: dirs.cwd,
			agentDir: dirs.agentDir,
			modelRuntime: faux.modelRuntime,
			defaultModel: faux.model,
			agentTypes: loadAgentTypes({ cwd: dirs.cwd, agentDir: dirs.agentDir }).types,
		});
		await runRecordedSession(record, NEWCOMER_SCRIPT, 1, {
			agentRunner: runner,
			cwd: dirs.cwd,
			filename: "newcomer.js",
		});
		await runRecordedSession(record, NEWCOMER_SCRIPT, 2, {
			agentRunner: runner,
			cwd: dirs.cwd,
			filename: "newcomer.js",
		});
		return {
			store,
			record,
			cwd: dirs.cwd,
			agentDir: dirs.agentDir,
			dispose() {
				faux.dispose();
				dirs.dispose();
			},
		};
	} catch (error) {
		faux.dispose();
		dirs.dispose();
		throw error;
	}
}
