/** What an eval file says, once read and checked: its cases, its arms, and how to run and grade them. */
import type { JsonValue } from "../runtime/core/types.ts";

/** A script and the name its positions give (an arm's, a grader's). */
export interface ScriptFile {
	source: string;
	filename: string;
}

/** One input the arms are run on. */
export interface EvalCase {
	/** Unique within the eval; how `--cases` and the scorecard name it. */
	id: string;
	/** The workflow's `args` (an arm's own `args` are merged over them). Default: none. */
	args?: JsonValue;
	/** What the grader compares the output with. Default: none. */
	expect?: JsonValue;
	/** Cases sharing a cluster are resampled together by the statistics. Default: the case is its own cluster. */
	cluster?: string;
}

/** One version of the workflow under test. */
export interface EvalArm {
	/** A path (relative to the eval file) or a saved workflow's name. */
	workflow: string;
	/** The script as it is at this git revision of the repository it lives in. Default: the file as it is now. */
	rev?: string;
	/** The children's model, `provider/id[:thinking]`. Default: what `pi-workflows run` would use. */
	model?: string;
	/** `small=provider/id,big=provider/id`: the models `agent()` option `tier` names. Default: the setting. */
	modelTiers?: string;
	/** Children running at once within one trial. Default: 4. */
	concurrency?: number;
	/** Merged over each case's `args` (objects key by key; anything else replaces them). Default: none. */
	args?: JsonValue;
}

/** A checked eval file. */
export interface EvalSpec {
	/** Default: the file's name without `.eval.json`. */
	name: string;
	/** The eval file, absolute: paths in it are relative to its folder. */
	file: string;
	cases: EvalCase[];
	/** Arm name → arm, in the file's order. */
	arms: Record<string, EvalArm>;
	/** The arm the others are compared with. Default: the first arm. */
	baseline: string;
	/** Independent runs of each case in each arm. Default: 3. */
	trials: number;
	/** The grader script's path (relative to the eval file). Default: none: a trial passes when its run completed. */
	grader?: string;
	/**
	 * The grader compares the two arms' outputs of each case and trial (`{ case, a, b }` in a random order, recorded)
	 * instead of grading one run: a trial passes when its arm won. Needs exactly two arms. Default: false.
	 */
	pairwise?: true;
	/** The whole eval's cap in US dollars, arms and grading together. Default: none. */
	maxCostUsd?: number;
	/** Trials running at once. Default: 2. */
	concurrency: number;
}

export const DEFAULT_TRIALS = 3;
export const DEFAULT_EVAL_CONCURRENCY = 2;
/** The most trials one eval may plan: a typo in `trials` should not plan a million runs. */
export const MAX_EVAL_TRIALS = 100_000;
