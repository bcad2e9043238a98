/**
 * The shapes of `compareArms`: graded trials in, per-arm figures and verdicts against the baseline out. The eval
 * command and the host API share them, so `eval --json` carries the same `comparisons`.
 */

/** One graded run of one arm on one case. */
export interface ArmTrial {
	/** The arm's name (as in the eval file's `arms`). */
	arm: string;
	/** The case's id; trials of different arms with the same id are paired. */
	caseId: string;
	/** Whether the grader passed the run. */
	pass: boolean;
	/** The grader's score, when it gives one (any finite number; 0–1 reads as points). */
	score?: number;
	/** What the run spent, in dollars. Default: 0. */
	costUsd?: number;
	/** How long the run took, in milliseconds. */
	durationMs?: number;
	/** Cases of one cluster are resampled together (cases drawn from one repo, one template). Default: the case. */
	cluster?: string;
}

/** What `compareArms` is asked. */
export interface CompareArmsOptions {
	/** The arm every other arm is compared with. */
	baseline: string;
	/** Every graded trial of every arm. */
	trials: readonly ArmTrial[];
	/** The intervals' confidence level, in (0, 1). Default: 0.95. */
	confidence?: number;
	/**
	 * The non-inferiority margin, in the units of `difference` (a fraction for pass rates: 0.05 is 5 points). With
	 * it, an arm whose interval stays above −margin is "non-inferior". Default: none.
	 */
	margin?: number;
	/** The random source's seed (resampling, permutations): the same seed gives the same answer. Default: 1. */
	seed?: number;
}

/** A closed interval `[lo, hi]`. */
export type Interval = [lo: number, hi: number];

/** One arm's figures over all its trials. */
export interface ArmSummary {
	/** Distinct cases the arm ran. */
	cases: number;
	/** Trials the arm ran. */
	trials: number;
	/** Passing trials ÷ trials. */
	passRate: number;
	/** `passRate`'s interval at the confidence asked, counting cases (not trials) as the independent units. */
	passInterval: Interval;
	/** The mean of the grader's scores, when every trial of the arm has one. */
	meanScore?: number;
	/** `meanScore`'s interval, cases as the units. */
	scoreInterval?: Interval;
	/** The chance that at least one of k trials of a case passes (unbiased estimate, averaged over cases). */
	passAtK: number;
	/** pass^k: the chance that all k trials of a case pass (unbiased estimate, averaged over cases). */
	passHatK: number;
	/** k: the fewest trials the arm ran on one case. */
	k: number;
	/** Dollars spent over all trials. */
	costUsd: number;
	/** `costUsd` ÷ trials. */
	costPerTrial: number;
	/** `costUsd` ÷ passing trials; null when no trial passed. */
	costPerPass: number | null;
	/** The median of the trials' `durationMs`; null when no trial gave one. */
	medianDurationMs: number | null;
}

/** What a comparison concludes. */
export type ComparisonVerdict = "better" | "worse" | "no detectable difference" | "non-inferior";

/** One arm against the baseline on one metric, paired by case. */
export interface ArmComparison {
	/** The arm compared. */
	arm: string;
	/** The baseline it is compared with. */
	baseline: string;
	/** `"pass"`: pass rates; `"score"`: mean scores (only when every trial of both arms has a score). */
	metric: "pass" | "score";
	/** The arm's figure minus the baseline's, averaged over the cases both ran (a fraction for `"pass"`). */
	difference: number;
	/** `difference`'s interval at the confidence asked, from resampling whole cases (or clusters). */
	interval: Interval;
	/** The two-sided p-value of "no difference": exact McNemar for one trial per case, else whole-case sign flips. */
	p: number;
	/** What the numbers support, in words a CI gate can match. */
	verdict: ComparisonVerdict;
	/** The smallest true difference this eval would have found 80 % of the time, from its cases and trials. */
	smallestDetectable: number;
	/** The verdict as a sentence: "B is better: +22 points (95 %: +9 to +35)". */
	text: string;
}

/** What `compareArms` answers. */
export interface CompareArmsResult {
	/** Each arm's figures, by arm name. */
	arms: Record<string, ArmSummary>;
	/** Each arm but the baseline against the baseline, in the order the arms first appear in `trials`. */
	comparisons: ArmComparison[];
}
