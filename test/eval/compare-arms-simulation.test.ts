/**
 * compareArms against the bounds of issue 44 §2, by simulation with a fixed seed: with no true difference but a
 * case-by-arm interaction (each case favours one arm, neither on average), at most about 5 % of evals may say
 * "better" or "worse"; with a planted 15-point effect over 50 cases × 3 trials, at least 80 % must say "better".
 */
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { describe, expect, it } from "vitest";
import { type ArmTrial, compareArms } from "../../src/index.ts";

const EVALS = 1000;
const TRIALS_PER_CASE = 3;

/** Trials of arms A and B over `cases` cases, each case's pass chances drawn by `rates`. */
function simulatedTrials(cases: number, random: () => number, rates: () => [a: number, b: number]): ArmTrial[] {
	const trials: ArmTrial[] = [];
	for (let c = 0; c < cases; c++) {
		const [a, b] = rates();
		for (let t = 0; t < TRIALS_PER_CASE; t++) {
			trials.push({ arm: "A", caseId: `case-${c}`, pass: random() < a });
			trials.push({ arm: "B", caseId: `case-${c}`, pass: random() < b });
		}
	}
	return trials;
}

/** How many of EVALS simulated evals end in each verdict, and how many intervals hold the true difference. */
function verdicts(cases: number, seed: number, truth: number, rates: (random: () => number) => [number, number]) {
	const generator = xoroshiro128plus(seed);
	const random = () => uniformFloat64(generator);
	const counts: Record<string, number> = { covered: 0 };
	for (let e = 0; e < EVALS; e++) {
		const trials = simulatedTrials(cases, random, () => rates(random));
		const [comparison] = compareArms({ baseline: "A", trials, seed: e }).comparisons;
		const verdict = comparison?.verdict ?? "none";
		counts[verdict] = (counts[verdict] ?? 0) + 1;
		const [lo, hi] = comparison?.interval ?? [0, 0];
		if (lo <= truth && truth <= hi) counts.covered += 1;
	}
	return counts;
}

/** No difference on average: a case's chance is p ± δ, the arm it favours drawn at random. */
function interaction(random: () => number): [number, number] {
	const p = 0.2 + 0.6 * random();
	const delta = (random() < 0.5 ? -1 : 1) * 0.2 * random();
	return [p + delta, p - delta];
}

/** Arm B 15 points above A on every case. */
function planted(random: () => number): [number, number] {
	const p = 0.85 * random();
	return [p, p + 0.15];
}

describe("compareArms, simulated", () => {
	for (const cases of [20, 50]) {
		it(`with no true difference but a case-by-arm interaction over ${cases} cases × 3 trials: at most about 5 % say better or worse, and the 95 % intervals hold 0 about 95 % of the time`, () => {
			const counts = verdicts(cases, 44_000 + cases, 0, interaction);
			const decided = (counts.better ?? 0) + (counts.worse ?? 0);
			expect(decided / EVALS, JSON.stringify(counts)).toBeLessThanOrEqual(0.06);
			expect((counts.covered ?? 0) / EVALS, JSON.stringify(counts)).toBeGreaterThanOrEqual(0.92);
		});
	}

	it("with a planted 15-point effect over 50 cases × 3 trials: at least 80 % say better", () => {
		const counts = verdicts(50, 44_150, 0.15, planted);
		expect((counts.better ?? 0) / EVALS, JSON.stringify(counts)).toBeGreaterThanOrEqual(0.8);
		expect(counts.worse ?? 0).toBe(0);
		expect((counts.covered ?? 0) / EVALS, JSON.stringify(counts)).toBeGreaterThanOrEqual(0.92);
	});
});
