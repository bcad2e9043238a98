/**
 * The exact McNemar test, for one trial per case in both arms: only the discordant cases (one arm passed, the other
 * failed) carry information, and under "no difference" each is equally likely to go either way.
 */
import { type ArmTally, caseValue } from "./cases.ts";
import { binomialCdf } from "./distributions.ts";

/** Whether every shared case has exactly one trial in both arms, so McNemar applies. */
export function oneTrialPerCase(baseline: ArmTally, arm: ArmTally): boolean {
	for (const tally of arm.cases.values()) {
		const base = baseline.cases.get(tally.caseId);
		if (base && (base.trials !== 1 || tally.trials !== 1)) return false;
	}
	return true;
}

/** The exact two-sided McNemar p-value over the shared cases. */
export function mcnemarP(baseline: ArmTally, arm: ArmTally): number {
	let armOnly = 0;
	let baselineOnly = 0;
	for (const tally of arm.cases.values()) {
		const base = baseline.cases.get(tally.caseId);
		if (!base) continue;
		const difference = caseValue(tally, "pass") - caseValue(base, "pass");
		if (difference > 0) armOnly += 1;
		else if (difference < 0) baselineOnly += 1;
	}
	const discordant = armOnly + baselineOnly;
	if (discordant === 0) return 1;
	return Math.min(1, 2 * binomialCdf(Math.min(armOnly, baselineOnly), discordant, 0.5));
}
