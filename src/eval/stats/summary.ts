/** One arm's figures: its pass rate and score with intervals, pass@k and pass^k, cost and duration. */
import { type ArmTally, allScored, clusterTotals } from "./cases.ts";
import { median } from "./distributions.ts";
import { meanInterval, passRateInterval } from "./intervals.ts";
import { passAtK } from "./pass-k.ts";
import type { ArmSummary } from "./types.ts";

/** The arm's figures at `confidence`. */
export function summarizeArm(arm: ArmTally, clusterOf: ReadonlyMap<string, string>, confidence: number): ArmSummary {
	const cases = [...arm.cases.values()];
	const trials = arm.trials.length;
	const passes = cases.reduce((sum, tally) => sum + tally.passes, 0);
	const k = Math.min(...cases.map((tally) => tally.trials));
	const costUsd = arm.trials.reduce((sum, trial) => sum + (trial.costUsd ?? 0), 0);
	const durations = arm.trials.flatMap((trial) => (trial.durationMs === undefined ? [] : [trial.durationMs]));
	const passTotals = clusterTotals(cases, clusterOf, (tally) => ({ sum: tally.passes, size: tally.trials }));
	return {
		cases: cases.length,
		trials,
		passRate: passes / trials,
		passInterval: passRateInterval(passTotals, confidence),
		...scoreFigures(arm, clusterOf, confidence),
		...passAtK(cases, k),
		k,
		costUsd,
		costPerTrial: costUsd / trials,
		costPerPass: passes === 0 ? null : costUsd / passes,
		medianDurationMs: durations.length === 0 ? null : median(durations),
	};
}

function scoreFigures(
	arm: ArmTally,
	clusterOf: ReadonlyMap<string, string>,
	confidence: number,
): Pick<ArmSummary, "meanScore" | "scoreInterval"> {
	if (!allScored(arm)) return {};
	const totals = clusterTotals(arm.cases.values(), clusterOf, (tally) => ({
		sum: tally.scoreSum,
		size: tally.scored,
	}));
	const sum = totals.reduce((all, total) => all + total.sum, 0);
	return { meanScore: sum / arm.trials.length, scoreInterval: meanInterval(totals, confidence) };
}
