/**
 * pass@k and pass^k from n trials of a case with c passes, by the unbiased estimators (Chen et al. 2021 for pass@k):
 * pass@k = 1 − C(n−c, k)/C(n, k), pass^k = C(c, k)/C(n, k), each averaged over cases. The ratios of binomial
 * coefficients are taken as products, so they stay finite for any n.
 */
import type { CaseTally } from "./cases.ts";

/** C(m, k)/C(n, k) for m ≤ n, k ≤ n: the chance that k of the n trials drawn without replacement all fall in m. */
function allFrom(m: number, n: number, k: number): number {
	if (m < k) return 0;
	let ratio = 1;
	for (let i = 0; i < k; i++) ratio *= (m - i) / (n - i);
	return ratio;
}

/** pass@k and pass^k over the cases (each with at least k trials), averaged with equal weight per case. */
export function passAtK(cases: readonly CaseTally[], k: number): { passAtK: number; passHatK: number } {
	let atK = 0;
	let hatK = 0;
	for (const tally of cases) {
		atK += 1 - allFrom(tally.trials - tally.passes, tally.trials, k);
		hatK += allFrom(tally.passes, tally.trials, k);
	}
	return { passAtK: atK / cases.length, passHatK: hatK / cases.length };
}
