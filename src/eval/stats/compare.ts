/**
 * `compareArms`: graded trials of several arms over shared cases → each arm's figures and, for each arm but the
 * baseline, its difference from the baseline paired by case, with an interval, a p-value, a verdict in words and
 * the smallest difference the eval could have seen. Pure and synchronous; the same seed gives the same answer.
 */

import { type ArmTally, allScored, type Tallies, tallyTrials } from "./cases.ts";
import { type CheckedOptions, checkOptions, noBaselineError, noSharedCaseError } from "./check.ts";
import { critical } from "./intervals.ts";
import { mcnemarP, oneTrialPerCase } from "./mcnemar.ts";
import { bootstrapInterval, meanDifference, pairedTotals, signFlipP, withinCaseError } from "./paired.ts";
import { noiseFloor, smallestDetectable } from "./power.ts";
import { seededRandom } from "./random.ts";
import { summarizeArm } from "./summary.ts";
import type { ArmComparison, ArmSummary, CompareArmsOptions, CompareArmsResult, Interval } from "./types.ts";
import { decideVerdict, verdictText } from "./verdict.ts";

/**
 * Each arm's figures and each arm against the baseline, paired by case: a `"pass"` comparison always, and a
 * `"score"` one when every trial of both arms has a score. Cases only one of the two arms ran are left out of
 * their comparison (not of the arm's figures).
 *
 * Contract: throws `compare_arms_invalid` (a `WorkflowError`) for input it cannot compare; every number it returns
 * is finite.
 */
export function compareArms(options: CompareArmsOptions): CompareArmsResult {
	const checked = checkOptions(options);
	const tallies = tallyTrials(checked.trials);
	const baseline = tallies.arms.get(checked.baseline);
	if (!baseline) throw noBaselineError(checked.baseline, [...tallies.arms.keys()]);
	// fromEntries defines own properties, so an arm named `__proto__` is an arm like any other.
	const arms: Record<string, ArmSummary> = Object.fromEntries(
		[...tallies.arms].map(([name, arm]) => [name, summarizeArm(arm, tallies.clusterOf, checked.confidence)]),
	);
	const comparisons: ArmComparison[] = [];
	for (const [name, arm] of tallies.arms) {
		if (name === checked.baseline) continue;
		if (![...arm.cases.keys()].some((caseId) => baseline.cases.has(caseId))) {
			throw noSharedCaseError(name, checked.baseline, [...arm.cases.keys()]);
		}
		comparisons.push(compareOne(name, arm, baseline, tallies, checked, "pass"));
		if (allScored(arm) && allScored(baseline))
			comparisons.push(compareOne(name, arm, baseline, tallies, checked, "score"));
	}
	return { arms, comparisons };
}

function compareOne(
	name: string,
	arm: ArmTally,
	baseline: ArmTally,
	tallies: Tallies,
	options: CheckedOptions,
	metric: "pass" | "score",
): ArmComparison {
	const { confidence, margin } = options;
	// One stream per comparison, from the seed, the arm's name and the metric: adding an arm leaves the others' numbers.
	const random = seededRandom(options.seed ^ hash(`${name}\0${metric}`));
	const paired = pairedTotals(baseline, arm, tallies.clusterOf, metric);
	const difference = meanDifference(paired);
	const interval = atLeastTrialNoise(
		bootstrapInterval(paired, confidence, random),
		difference,
		metric,
		() => critical(confidence, paired.length) * withinCaseError(baseline, arm),
	);
	const singleCaseClusters = paired.every((total) => total.size === 1);
	const p =
		metric === "pass" && singleCaseClusters && oneTrialPerCase(baseline, arm)
			? mcnemarP(baseline, arm)
			: signFlipP(paired, random);
	const verdict = decideVerdict(p, interval, confidence, margin);
	const smallest = smallestDetectable(paired, noiseFloor(baseline, arm, metric), confidence, metric);
	const text = verdictText({
		arm: name,
		baseline: options.baseline,
		metric,
		verdict,
		difference,
		interval,
		confidence,
		margin,
		smallestDetectable: smallest,
		points: metric === "pass" || scoresWithinOne(arm, baseline),
		cases: paired.reduce((sum, total) => sum + total.size, 0),
		trialsPerCase: trialsPerCase(baseline, arm),
	});
	return {
		arm: name,
		baseline: options.baseline,
		metric,
		difference,
		interval,
		p,
		verdict,
		smallestDetectable: smallest,
		text,
	};
}

/** The interval widened to ± `half()` around the difference where narrower (pass rates only, kept within ±1). */
function atLeastTrialNoise(
	interval: Interval,
	difference: number,
	metric: "pass" | "score",
	half: () => number,
): Interval {
	if (metric !== "pass") return interval;
	const floor = half();
	return [
		Math.max(-1, Math.min(interval[0], difference - floor)),
		Math.min(1, Math.max(interval[1], difference + floor)),
	];
}

/** Whether every score of both arms lies in 0–1, so score differences read as points. */
function scoresWithinOne(...arms: ArmTally[]): boolean {
	return arms.every((arm) =>
		arm.trials.every((trial) => trial.score === undefined || (trial.score >= 0 && trial.score <= 1)),
	);
}

/** The fewest and most trials one shared case had in either arm. */
function trialsPerCase(baseline: ArmTally, arm: ArmTally): [number, number] {
	const counts: number[] = [];
	for (const tally of arm.cases.values()) {
		const base = baseline.cases.get(tally.caseId);
		if (base) counts.push(tally.trials, base.trials);
	}
	return [Math.min(...counts), Math.max(...counts)];
}

/** FNV-1a: a stable 32-bit number from a string, to give each comparison its own random stream. */
function hash(text: string): number {
	let value = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) value = Math.imul(value ^ text.charCodeAt(i), 0x01000193);
	return value | 0;
}
