/**
 * Trials folded per arm and per case: the case (or its cluster) is the unit every interval and test resamples, so
 * this is the one place trials are counted.
 */
import { twoClustersError } from "./check.ts";
import type { ClusterTotal } from "./intervals.ts";
import type { ArmTrial } from "./types.ts";

/** One arm's trials on one case. */
export interface CaseTally {
	caseId: string;
	trials: number;
	passes: number;
	/** Sum of the trials' scores, and how many had one. */
	scoreSum: number;
	scored: number;
}

/** One arm: its trials and their tallies by case, in first-seen order. */
export interface ArmTally {
	trials: ArmTrial[];
	cases: Map<string, CaseTally>;
}

/** Every arm's tallies (in first-seen order) and each case's cluster. */
export interface Tallies {
	arms: Map<string, ArmTally>;
	/** A case's cluster: its trials' `cluster`, or the case itself (a key no `cluster` string can equal). */
	clusterOf: Map<string, string>;
}

/** The trials tallied. Throws `compare_arms_invalid` for a case given two clusters. */
export function tallyTrials(trials: readonly ArmTrial[]): Tallies {
	const arms = new Map<string, ArmTally>();
	const named = new Map<string, string>();
	trials.forEach((trial, index) => {
		const arm = arms.get(trial.arm) ?? { trials: [], cases: new Map<string, CaseTally>() };
		arms.set(trial.arm, arm);
		arm.trials.push(trial);
		const tally = arm.cases.get(trial.caseId) ?? {
			caseId: trial.caseId,
			trials: 0,
			passes: 0,
			scoreSum: 0,
			scored: 0,
		};
		arm.cases.set(trial.caseId, tally);
		tally.trials += 1;
		if (trial.pass) tally.passes += 1;
		if (trial.score !== undefined) {
			tally.scoreSum += trial.score;
			tally.scored += 1;
		}
		if (trial.cluster === undefined) return;
		const before = named.get(trial.caseId);
		if (before === undefined) named.set(trial.caseId, trial.cluster);
		else if (before !== trial.cluster) throw twoClustersError(trial.caseId, before, trial.cluster, index);
	});
	const clusterOf = new Map<string, string>();
	for (const arm of arms.values()) {
		for (const caseId of arm.cases.keys()) {
			const cluster = named.get(caseId);
			clusterOf.set(caseId, cluster === undefined ? `\0case ${caseId}` : `cluster ${cluster}`);
		}
	}
	return { arms, clusterOf };
}

/** The case's figure on a metric: its pass rate, or its mean score. */
export function caseValue(tally: CaseTally, metric: "pass" | "score"): number {
	return metric === "pass" ? tally.passes / tally.trials : tally.scoreSum / tally.scored;
}

/** Whether every trial of the arm has a score. */
export function allScored(arm: ArmTally): boolean {
	for (const tally of arm.cases.values()) if (tally.scored !== tally.trials) return false;
	return true;
}

/** Cases summed per cluster: `share` gives each case's part of its cluster's total. */
export function clusterTotals(
	cases: Iterable<CaseTally>,
	clusterOf: ReadonlyMap<string, string>,
	share: (tally: CaseTally) => ClusterTotal,
): ClusterTotal[] {
	const totals = new Map<string, ClusterTotal>();
	for (const tally of cases) {
		const key = clusterOf.get(tally.caseId) ?? tally.caseId;
		const { sum, size } = share(tally);
		const total = totals.get(key);
		if (total) {
			total.sum += sum;
			total.size += size;
		} else totals.set(key, { sum, size });
	}
	return [...totals.values()];
}
