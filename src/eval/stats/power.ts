/**
 * The smallest difference an eval could have seen: the true difference its test would call 80 % of the time, from
 * the spread of the case differences it measured (never below what trial-to-trial noise alone leaves), so that "no
 * detectable difference" from 8 cases reads as "could not tell", not as "the same".
 */
import type { ArmTally } from "./cases.ts";
import { normalQuantile } from "./distributions.ts";
import { type ClusterTotal, clusterRatio, critical } from "./intervals.ts";

/** The power the smallest detectable difference is stated at. */
export const POWER = 0.8;

/** The smallest difference (arm − baseline) detected with 80 % power at `confidence`, from the paired totals. */
export function smallestDetectable(
	paired: readonly ClusterTotal[],
	noiseFloor: number,
	confidence: number,
	metric: "pass" | "score",
): number {
	const { variance, clusters } = clusterRatio(paired);
	const error = Math.max(Math.sqrt(variance), noiseFloor);
	const difference = (critical(confidence, clusters) + normalQuantile(POWER)) * error;
	return metric === "pass" ? Math.min(1, difference) : difference;
}

/**
 * The standard error trial noise alone gives the difference over the shared cases, as if every trial were
 * independent: for pass rates from the pooled rate (shrunk off 0 and 1, where it would promise a certainty no
 * finite eval has), for scores from the pooled variance.
 */
export function noiseFloor(baseline: ArmTally, arm: ArmTally, metric: "pass" | "score"): number {
	const shared = (trial: { caseId: string }) => baseline.cases.has(trial.caseId) && arm.cases.has(trial.caseId);
	const baseTrials = baseline.trials.filter(shared);
	const armTrials = arm.trials.filter(shared);
	const inverse = 1 / baseTrials.length + 1 / armTrials.length;
	const all = [...baseTrials, ...armTrials];
	if (metric === "pass") {
		const rate = (all.filter((trial) => trial.pass).length + 1) / (all.length + 2);
		return Math.sqrt(rate * (1 - rate) * inverse);
	}
	const scores = all.map((trial) => trial.score ?? 0);
	const mean = scores.reduce((sum, score) => sum + score, 0) / scores.length;
	const variance = scores.reduce((sum, score) => sum + (score - mean) ** 2, 0) / Math.max(1, scores.length - 1);
	return Math.sqrt(variance * inverse);
}
