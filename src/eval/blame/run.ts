/**
 * The host API's blame: `blameRun` reads the failed run and the passing one (a run id, or a cassette) from the run
 * store without writing to either, and blames the failed run's calls by replay (`blame.ts`).
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { errorMessage, WorkflowError } from "../../errors.ts";
import { loadRunCassette, type ReplayCassette } from "../../host/cassette.ts";
import { createWorkflowResolver } from "../../host/script-source.ts";
import { createRunStore, defaultRunsRoot } from "../../runs/index.ts";
import { stableJson } from "../../runtime/core/json.ts";
import type { WorkflowAgentRunner } from "../../runtime/core/types.ts";
import { createGrader } from "../grader.ts";
import type { EvalCase, ScriptFile } from "../spec.ts";
import { RunAnswers } from "./answers.ts";
import { type BlameReport, blame } from "./blame.ts";

export interface BlameRunOptions {
	/** The project the runs belong to. */
	cwd: string;
	/** The run that failed. */
	failedRunId: string;
	/**
	 * A passing run of the same workflow and args: its id, or its cassette (`loadRunCassette`, a `.cassette.json`).
	 * Absent: each call is swapped for a dry run's answer, which shows only whether the call's shape matters.
	 */
	with?: string | ReplayCassette;
	/** The grader: its script, or its path (relative to `cwd`). It is given `args` as `eval`'s grader is. Default: none, a run passes when it completed. */
	grader?: ScriptFile | string;
	/** What the grader gets as `args.case` (an eval case's `expect`…), over `{ id: <failedRunId>, args: <the run's args> }`. */
	evalCase?: Partial<EvalCase>;
	/** Children of a model-graded grader (its cost is reported). Default: none, a grader's `agent()` fails. */
	graderRunner?: WorkflowAgentRunner;
	/** Where run records live. Default: `<agentDir>/workflow-runs`. */
	runsRoot?: string;
	signal?: AbortSignal;
}

/** Blames a failed run's `agent()` calls against a passing run; no child starts, no tool runs, nothing is written. */
export async function blameRun(options: BlameRunOptions): Promise<BlameReport> {
	const runsRoot = options.runsRoot ?? defaultRunsRoot();
	const places = { cwd: options.cwd, runsRoot };
	const failed = await loadRunCassette({ ...places, runId: options.failedRunId });
	const passing =
		typeof options.with === "string" ? await loadRunCassette({ ...places, runId: options.with }) : options.with;
	if (passing) checkSameCase(failed, passing);
	const store = createRunStore({ cwd: options.cwd, root: runsRoot });
	const scriptOf = async (runId: string): Promise<ScriptFile> => {
		const record = await store.open(runId);
		return { source: await record.readScript(), filename: record.info.filename ?? record.scriptPath };
	};
	const script = await scriptOf(options.failedRunId);
	// A cassette keeps no script: its run is replayed with the failed run's.
	const passingScript = typeof options.with === "string" ? await scriptOf(options.with) : script;
	const grader = options.grader !== undefined ? graderScript(options.grader, options.cwd) : undefined;
	return blame({
		script,
		passingScript,
		...(failed.args !== undefined ? { args: failed.args } : {}),
		cwd: options.cwd,
		failed: new RunAnswers(failed),
		...(passing ? { passing: new RunAnswers(passing) } : {}),
		grade: createGrader({
			...(grader ? { script: grader } : {}),
			cwd: options.cwd,
			agentRunner: options.graderRunner ?? NO_MODEL,
			...(options.signal ? { signal: options.signal } : {}),
		}),
		evalCase: { id: failed.runId, ...(failed.args !== undefined ? { args: failed.args } : {}), ...options.evalCase },
		resolveWorkflow: createWorkflowResolver({ agentDir: dirname(runsRoot) }),
		...(options.signal ? { signal: options.signal } : {}),
	});
}

/** A model-graded grader's `agent()` without a `graderRunner`: blame stays free unless the host lends one. */
const NO_MODEL: WorkflowAgentRunner = async () => {
	throw new Error(
		"blame gives its grader no model, so that it costs nothing: grade with a code grader (the host API's blameRun takes a graderRunner for a model-graded one)",
	);
};

/** Two runs of different workflows or args have no calls in common to swap. */
function checkSameCase(failed: ReplayCassette, passing: ReplayCassette): void {
	if (failed.runId === passing.runId) {
		throw new WorkflowError(
			"blame_runs_differ",
			`Run ${failed.runId} was given as both the failed and the passing run. Pass --with a run that passed (pi-workflows runs lists them)`,
			{ details: { failed: failed.runId, passing: passing.runId } },
		);
	}
	const what =
		failed.name !== passing.name
			? `are of different workflows (${JSON.stringify(failed.name ?? null)} and ${JSON.stringify(passing.name ?? null)})`
			: stableJson(failed.args ?? null) !== stableJson(passing.args ?? null)
				? `differ in args (${cut(stableJson(failed.args ?? null))} and ${cut(stableJson(passing.args ?? null))})`
				: undefined;
	if (what === undefined) return;
	throw new WorkflowError(
		"blame_runs_differ",
		`Runs ${failed.runId} and ${passing.runId} ${what}: blame swaps answers between runs of the same workflow and args. Pass --with a passing run of the same case`,
		{ details: { failed: failed.runId, passing: passing.runId } },
	);
}

function graderScript(grader: ScriptFile | string, cwd: string): ScriptFile {
	if (typeof grader !== "string") return grader;
	const path = resolve(cwd, grader);
	try {
		return { source: readFileSync(path, "utf8"), filename: path };
	} catch (error) {
		throw new WorkflowError(
			"workflow_not_found",
			`Cannot read the grader ${path} (${errorMessage(error)}). Name a grader script that exists`,
			{ details: { path } },
		);
	}
}

function cut(text: string): string {
	return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
