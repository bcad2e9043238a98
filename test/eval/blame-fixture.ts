/** The three-call workflow the blame tests plant bad answers in, the grader that judges its runs, and how one is recorded. */
import { createPiAgentRunner } from "../../src/children/agent-runner.ts";
import { recordedTrials } from "../../src/eval/recorded-trial.ts";
import type { ScriptFile } from "../../src/eval/spec.ts";
import type { WorkflowRunResult } from "../../src/runtime/index.ts";
import type { AgentDirs } from "../agents/agent-files.ts";
import type { FauxHarness } from "../helpers/faux.ts";

/** research → draft (from the notes) → check (the notes): a swap of `research` changes both later prompts. */
export const WORKFLOW = `export const meta = { name: "write", description: "research, draft, check" };
const notes = await agent("research " + args.topic, { label: "research" });
const draft = await agent("draft " + args.topic + " from: " + notes, { label: "draft" });
const verdict = await agent("check " + args.topic + " against: " + notes, { label: "check" });
return { notes, draft, verdict };
`;

/** What a person would check: no bad part, and the checker said ok. */
export const GRADER = `export const meta = { name: "grade", description: "no bad part, checked ok" };
const o = args.output;
if (args.status !== "completed" || o === null) return { pass: false, reason: "the run " + args.status };
const bad = ["notes", "draft"].filter((part) => String(o[part]).includes("BAD"));
if (o.verdict !== "ok") bad.push("verdict");
return { pass: bad.length === 0, reason: bad.length ? "bad: " + bad.join(", ") : "good" };
`;

/**
 * One run of `script` on `topic` recorded as an eval trial (case `caseId`, arm A, trial 1) by real pi children on the
 * faux provider: its record's id and result.
 */
export async function recordTrialRun(
	dirs: AgentDirs,
	faux: FauxHarness,
	script: ScriptFile,
	topic: string,
	caseId = topic,
): Promise<{ runId: string; result: WorkflowRunResult }> {
	const run = recordedTrials({
		cwd: dirs.cwd,
		agentDir: dirs.agentDir,
		setUp: async () => ({
			runner: createPiAgentRunner({
				cwd: dirs.cwd,
				agentDir: dirs.agentDir,
				modelRuntime: faux.modelRuntime,
				defaultModel: faux.model,
			}),
		}),
	});
	const { runId, result } = await run({
		key: { caseId, arm: "A", trial: 1 },
		arm: { workflow: "write.js" },
		script,
		args: { topic },
		signal: new AbortController().signal,
	});
	if (runId === undefined) throw new Error("the run has no record");
	return { runId, result };
}
