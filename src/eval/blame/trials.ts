/**
 * An eval's failing trials blamed: each against a passing trial of its case (its own arm's first, else another
 * arm's of the same workflow and args), and per arm how often each call was decisive, so "the drafter fails 7 of 9
 * times" is one line of the scorecard.
 */
import { errorMessage, isWorkflowError } from "../../errors.ts";
import type { EvalCase, ScriptFile } from "../spec.ts";
import type { TrialRecord } from "../trials.ts";
import { blameRun } from "./run.ts";
import { blameSentence } from "./text.ts";

/** One failing trial's blame. */
export interface TrialBlame {
	caseId: string;
	arm: string;
	trial: number;
	runId: string;
	/** The passing trial its answers were taken from; absent when none could be used. */
	against?: { arm: string; trial: number; runId: string };
	/** Calls whose swap alone passes, by label. */
	decisive: string[];
	/** Pairs that pass only swapped together, when no single call did. */
	decisivePairs: [string, string][];
	/** In words: what decided it, or why it was not blamed. */
	sentence: string;
	/** Why nothing was blamed (the passing trial fails the grader on replay…), when so. */
	problem?: string;
}

/** One arm's failing trials: how many were blamed, and how often each call (by label) was decisive. */
export interface ArmBlame {
	failing: number;
	blamed: number;
	decisive: Record<string, number>;
}

export interface EvalBlame {
	trials: TrialBlame[];
	arms: Record<string, ArmBlame>;
}

export interface BlameTrialsOptions {
	cwd: string;
	runsRoot: string;
	cases: readonly EvalCase[];
	/** The eval's grader; absent: a run passes when it completed. */
	grader?: ScriptFile;
	signal?: AbortSignal;
}

export async function blameFailingTrials(
	trials: readonly TrialRecord[],
	options: BlameTrialsOptions,
): Promise<EvalBlame> {
	const blames: TrialBlame[] = [];
	const arms: Record<string, ArmBlame> = Object.create(null);
	for (const trial of trials) {
		if (trial.grade?.pass !== false || trial.runId === undefined) continue;
		const blamed = await blameTrial({ ...trial, runId: trial.runId }, trials, options);
		blames.push(blamed);
		arms[trial.arm] ??= { failing: 0, blamed: 0, decisive: {} };
		const arm = arms[trial.arm] as ArmBlame;
		arm.failing++;
		if (blamed.against && blamed.problem === undefined) arm.blamed++;
		for (const label of blamed.decisive) arm.decisive[label] = (arm.decisive[label] ?? 0) + 1;
	}
	return { trials: blames, arms };
}

async function blameTrial(
	trial: TrialRecord & { runId: string },
	trials: readonly TrialRecord[],
	options: BlameTrialsOptions,
): Promise<TrialBlame> {
	const head = { caseId: trial.caseId, arm: trial.arm, trial: trial.trial, runId: trial.runId };
	const passing = trials
		.filter((other) => other.caseId === trial.caseId && other.grade?.pass === true && other.runId !== undefined)
		.sort((a, b) => Number(b.arm === trial.arm) - Number(a.arm === trial.arm));
	const evalCase = options.cases.find((c) => c.id === trial.caseId) ?? { id: trial.caseId };
	for (const other of passing) {
		try {
			const report = await blameRun({
				cwd: options.cwd,
				runsRoot: options.runsRoot,
				failedRunId: trial.runId,
				with: other.runId as string,
				...(options.grader ? { grader: options.grader } : {}),
				evalCase,
				...(options.signal ? { signal: options.signal } : {}),
			});
			return {
				...head,
				against: { arm: other.arm, trial: other.trial, runId: other.runId as string },
				decisive: report.calls.filter((call) => call.effect === "decisive").map((call) => call.label),
				decisivePairs: report.pairs?.decisive ?? [],
				sentence: blameSentence(report),
				...(report.problem ? { problem: report.problem } : {}),
			};
		} catch (error) {
			// Another arm's trial may be of another script or other args: the next passing trial may fit.
			if (isWorkflowError(error) && error.code === "blame_runs_differ") continue;
			return { ...head, decisive: [], decisivePairs: [], sentence: `not blamed: ${errorMessage(error)}` };
		}
	}
	return {
		...head,
		decisive: [],
		decisivePairs: [],
		sentence: "not blamed: no passing trial of this case with the same workflow and args to take answers from",
	};
}
