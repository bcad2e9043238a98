/**
 * The host API's eval: `evaluateWorkflows(spec, options)` runs an eval file (or a spec written in code) with the
 * caller's runner, as `pi-workflows eval` runs it with pi's: every trial a recorded run in the run store, graded,
 * kept in the eval store (so `pi-workflows eval --resume` and `--regrade` work on it too), then the scorecard.
 */
import { dirname, join } from "node:path";
import { defaultRunsRoot } from "../runs/index.ts";
import type { WorkflowAgentRunner } from "../runtime/core/types.ts";
import { readArmScripts, readGraderScript } from "./arm-source.ts";
import { blameFailingTrials } from "./blame/trials.ts";
import { evaluate } from "./evaluate.ts";
import { checkEvalSpec, readEvalFile } from "./file.ts";
import { createGrader } from "./grader.ts";
import { recordedTrials, type SetUpTrialRunner } from "./recorded-trial.ts";
import { type EvalScorecard, scorecardOf } from "./scorecard.ts";
import type { EvalArm } from "./spec.ts";
import { createEval, type EvalFolder, evalsRoot, openEval } from "./store.ts";
import type { TrialRecord } from "./trials.ts";

export interface EvaluateWorkflowsOptions {
	/** The project the runs belong to; a spec's relative paths are relative to it unless `file` says otherwise. */
	cwd: string;
	/** The children of every trial, and of a model-graded grader. */
	agentRunner: WorkflowAgentRunner;
	/** The children of one arm's trials instead (`arm` has its `model`, `modelTiers`…). Default: `agentRunner`. */
	armRunner?: (arm: EvalArm, name: string) => WorkflowAgentRunner;
	/**
	 * Each trial's runner set up with the hooks that record its children into the trial's run (conversations,
	 * worktrees, its event log), as `pi-workflows eval` and `/workflows eval` do. Default: `armRunner`/`agentRunner`.
	 */
	setUpTrial?: SetUpTrialRunner;
	/** pi's agent directory: the run store and the eval store live there. Default: `$PI_CODING_AGENT_DIR` or `~/.pi/agent`. */
	agentDir?: string;
	/** An eval to go on with (its id): its finished trials are kept, and `spec` is not read. */
	resume?: string;
	/** The whole eval's cap in US dollars. Default: the spec's `maxCostUsd`. */
	maxCostUsd?: number;
	signal?: AbortSignal;
	/** Each trial as it is saved. */
	onTrial?: (trial: TrialRecord, finished: number, planned: number) => void;
}

/**
 * `spec`: the path of an eval file (relative to `cwd`), or its content as an object (its paths relative to `cwd`).
 * Resolves with the scorecard; `exitCodeOf(card)` is the CLI's verdict.
 */
export async function evaluateWorkflows(
	spec: string | object | undefined,
	options: EvaluateWorkflowsOptions,
): Promise<EvalScorecard> {
	const agentDir = options.agentDir ?? dirname(defaultRunsRoot());
	const places = { cwd: options.cwd, agentDir };
	const folder =
		options.resume !== undefined
			? await openEval(evalsRoot(agentDir), options.resume)
			: await (async () => {
					const checked =
						typeof spec === "string"
							? readEvalFile(spec, options.cwd)
							: checkEvalSpec(spec, join(options.cwd, "eval.json"));
					return createEval(evalsRoot(agentDir), checked, readArmScripts(checked, places));
				})();
	try {
		return await runFolder(folder, options, agentDir);
	} finally {
		await folder.release();
	}
}

async function runFolder(
	folder: EvalFolder,
	options: EvaluateWorkflowsOptions,
	agentDir: string,
): Promise<EvalScorecard> {
	const { agentRunner, armRunner } = options;
	const grader = readGraderScript(folder.record.spec, { cwd: options.cwd, agentDir });
	const progress = await evaluate(folder, {
		runTrial: recordedTrials({
			cwd: options.cwd,
			agentDir,
			setUp:
				options.setUpTrial ??
				(async (request) => ({
					runner: armRunner ? armRunner(request.arm, request.key.arm) : agentRunner,
				})),
		}),
		grade: createGrader({
			...(grader ? { script: grader } : {}),
			agentRunner,
			cwd: options.cwd,
			...(options.signal ? { signal: options.signal } : {}),
		}),
		...(options.maxCostUsd !== undefined ? { maxCostUsd: options.maxCostUsd } : {}),
		...(options.signal ? { signal: options.signal } : {}),
		...(options.onTrial ? { onTrial: options.onTrial } : {}),
	});
	const card = scorecardOf(folder.id, folder.record.spec, progress);
	// A pairwise grader judges two arms' runs together: it cannot grade one replayed run.
	if (!folder.record.spec.pairwise)
		card.blame = await blameFailingTrials(card.trials, {
			cwd: options.cwd,
			runsRoot: join(agentDir, "workflow-runs"),
			cases: folder.record.spec.cases,
			...(grader ? { grader } : {}),
			...(options.signal ? { signal: options.signal } : {}),
		});
	return card;
}
