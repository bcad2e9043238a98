/**
 * compareArms on inputs whose every figure can be worked out by hand (tables of inputs against full outputs), its
 * verdict sentences, pass@k and pass^k, clusters, determinism, and each bad input's coded error with its message.
 */
import { describe, expect, it } from "vitest";
import { passAtK } from "../../src/eval/stats/pass-k.ts";
import { decideVerdict, type VerdictFacts, verdictText } from "../../src/eval/stats/verdict.ts";
import { type ArmTrial, compareArms, isWorkflowError } from "../../src/index.ts";

/** `n` cases of one trial each per arm, with the arms' passes given per case. */
function oneTrialEach(a: boolean[], b: boolean[]): ArmTrial[] {
	return a.flatMap((pass, c) => [
		{ arm: "A", caseId: `c${c}`, pass, costUsd: 0.1, durationMs: 100 * (c + 1) },
		{ arm: "B", caseId: `c${c}`, pass: b[c] ?? false, costUsd: 0.2, durationMs: 1000 },
	]);
}

/** Cases × trials for arms A and B, from strings of P (pass) and F per case. */
function fromPatterns(a: string[], b: string[], extra: (arm: string, c: number) => Partial<ArmTrial> = () => ({})) {
	const trials: ArmTrial[] = [];
	for (const [arm, cases] of [
		["A", a],
		["B", b],
	] as const) {
		cases.forEach((pattern, c) => {
			for (const mark of pattern) trials.push({ arm, caseId: `c${c}`, pass: mark === "P", ...extra(arm, c) });
		});
	}
	return trials;
}

// Quantiles from tables: t(9) at 0.975, z at 0.8, z at 0.975.
const T9 = 2.262157;
const Z80 = 0.841621;
const Z975 = 1.959964;

describe("compareArms", () => {
	it("on 10 cases × 1 trial where B passes every case and A none: every figure as worked by hand", () => {
		const result = compareArms({ baseline: "A", trials: oneTrialEach(Array(10).fill(false), Array(10).fill(true)) });
		// Wilson at 0/10 and 10/10 with the 10 cases as units: [0, z²/(10 + z²)] and [10/(10 + z²), 1].
		const edge = (Z975 * Z975) / (10 + Z975 * Z975);
		expect(result.arms.A).toEqual({
			cases: 10,
			trials: 10,
			passRate: 0,
			passInterval: [0, expect.closeTo(edge, 6)],
			passAtK: 0,
			passHatK: 0,
			k: 1,
			costUsd: expect.closeTo(1, 9),
			costPerTrial: expect.closeTo(0.1, 9),
			costPerPass: null,
			medianDurationMs: 550,
		});
		expect(result.arms.B).toEqual({
			cases: 10,
			trials: 10,
			passRate: 1,
			passInterval: [expect.closeTo(1 - edge, 6), 1],
			passAtK: 1,
			passHatK: 1,
			k: 1,
			costUsd: expect.closeTo(2, 9),
			costPerTrial: expect.closeTo(0.2, 9),
			costPerPass: expect.closeTo(0.2, 9),
			medianDurationMs: 1000,
		});
		// Exact McNemar: 10 discordant cases all one way, p = 2 × 0.5^10. The case differences never vary, so the
		// bootstrap alone would say [1, 1]; trial noise widens it: each case's rate shrunk to 0.25 or 0.75 by half a
		// pass, variance 2 × 0.1875 per case, SE √(10 × 0.375)/10, ± t(9) of it. The smallest detectable difference
		// comes from trial noise too: pooled rate 11/22, SE √(0.25 × (1/10 + 1/10)).
		const half = (T9 * Math.sqrt(10 * 0.375)) / 10;
		expect(result.comparisons).toEqual([
			{
				arm: "B",
				baseline: "A",
				metric: "pass",
				difference: 1,
				interval: [expect.closeTo(1 - half, 5), 1],
				p: 2 * 0.5 ** 10,
				verdict: "better",
				smallestDetectable: expect.closeTo(Math.min(1, (T9 + Z80) * Math.sqrt(0.05)), 5),
				text: "B is better: +100 points (95 %: +56 to +100)",
			},
		]);
	});

	it("exact McNemar at one trial per case: p from the discordant cases only", () => {
		const table: [a: string, b: string, p: number][] = [
			["FFFFFFFFFF", "PPPPPPPPPP", 2 / 1024],
			["PFFFFFFFFF", "FPPPPPPPPP", (2 * 11) / 1024],
			["PPPFFFPP", "FFFPPPPP", 1],
			["PPPP", "PPPP", 1],
		];
		for (const [a, b, p] of table) {
			const trials = oneTrialEach(
				[...a].map((m) => m === "P"),
				[...b].map((m) => m === "P"),
			);
			expect(compareArms({ baseline: "A", trials }).comparisons[0]?.p, `${a} vs ${b}`).toBeCloseTo(p, 9);
		}
	});

	it("pass@k and pass^k at k = trials per case (the fewest, when cases differ)", () => {
		const result = compareArms({ baseline: "A", trials: fromPatterns(["PPPF", "PF", "FF"], ["PP", "PP", "PP"]) });
		// k = 2. pass@2: 1 − C(n−c,2)/C(n,2) → 1, 1, 0. pass^2: C(c,2)/C(n,2) → 3/6, 0, 0.
		expect(result.arms.A).toMatchObject({ k: 2, passAtK: 2 / 3, passHatK: 0.5 / 3 });
		expect(result.arms.B).toMatchObject({ k: 2, passAtK: 1, passHatK: 1 });
	});

	it("pass@k and pass^k by the unbiased estimators: 6 passes in 10 trials", () => {
		// pass^2 = C(6,2)/C(10,2) = 15/45; pass^8 = C(6,8)/C(10,8) = 0; pass@4 = 1 − C(4,4)/C(10,4) = 1 − 1/210.
		const tally = { caseId: "c", trials: 10, passes: 6, scoreSum: 0, scored: 0 };
		expect(passAtK([tally], 1)).toEqual({ passAtK: expect.closeTo(0.6, 12), passHatK: expect.closeTo(0.6, 12) });
		expect(passAtK([tally], 2).passHatK).toBeCloseTo(15 / 45, 12);
		expect(passAtK([tally], 8).passHatK).toBe(0);
		expect(passAtK([tally], 4).passAtK).toBeCloseTo(1 - 1 / 210, 12);
		expect(passAtK([tally], 5).passAtK).toBe(1);
	});

	it("with `margin`: arms that never differ are non-inferior when trial noise allows it, said in points", () => {
		const same = Array(30).fill("PPF");
		// Identical cases, yet 3 trials each leave noise: rate shrunk to 2.5/4, variance 2 × 0.234375/3 per case,
		// SE √(30 × 0.15625)/30, ± t(29) = 2.045230 of it: about ±15 points.
		const half = (2.04523 * Math.sqrt(30 * 0.15625)) / 30;
		for (const [margin, verdict, text] of [
			[0.2, "non-inferior", "B is not worse than A by more than 20 points: 0 points (95 %: −15 to +15)"],
			[0.05, "no detectable difference", "B against A: no detectable difference (−15 to +15); with 30 cases"],
		] as const) {
			const [comparison] = compareArms({ baseline: "A", trials: fromPatterns(same, same), margin }).comparisons;
			expect(comparison).toMatchObject({
				difference: 0,
				interval: [expect.closeTo(-half, 5), expect.closeTo(half, 5)],
				p: 1,
				verdict,
			});
			expect(comparison?.text.startsWith(text), comparison?.text).toBe(true);
		}
	});

	it("without a margin, a small eval says what it could have seen, so no difference is not read as the same", () => {
		const trials = fromPatterns(
			["PPF", "PFF", "PPP", "FFF", "PFP", "FPF", "PPF", "FFP"],
			["PFF", "PPF", "PPP", "FFF", "PPP", "FFF", "PPF", "FPF"],
		);
		const [comparison] = compareArms({ baseline: "A", trials, seed: 3 }).comparisons;
		expect(comparison?.verdict).toBe("no detectable difference");
		expect(comparison?.text).toMatch(
			/^B against A: no detectable difference \((−\d+|0|\+\d+) to \+\d+\); with 8 cases × 3 trials, this eval could only have seen a difference of about \d+ points or more \(at 80 % power\), so a smaller one may be there unseen$/,
		);
		expect(comparison?.smallestDetectable).toBeGreaterThan(0.25);
	});

	it("scores: a second comparison on score when every trial has one, with the arm's mean and interval", () => {
		const trials = fromPatterns(["PP", "PF", "FF"], ["PP", "PP", "PF"], (arm, c) => ({
			score: arm === "A" ? 0.2 * c : 0.2 * c + 0.1,
		}));
		const result = compareArms({ baseline: "A", trials });
		expect(result.arms.A?.meanScore).toBeCloseTo(0.2, 12);
		expect(result.arms.B?.meanScore).toBeCloseTo(0.3, 12);
		// Case means 0, 0.2, 0.4: a t interval with 2 degrees of freedom, 0.2 ± 4.302653 × 0.2/√3.
		expect(result.arms.A?.scoreInterval?.[0]).toBeCloseTo(0.2 - (4.302653 * 0.2) / Math.sqrt(3), 5);
		expect(result.comparisons.map((c) => [c.metric, c.difference])).toEqual([
			["pass", expect.closeTo(1 / 3, 12)],
			["score", expect.closeTo(0.1, 12)],
		]);
		expect(result.comparisons[1]?.text).toMatch(/^B against A on score: no detectable difference \(\+10 to \+10\)/);
	});

	it("cases of one cluster are resampled together: a cluster of look-alike cases widens the interval", () => {
		const a = ["PFF", "PFF", "PFF", "PFF", "PFF", "PPF", "FFF", "PPF", "PFF", "FFF"];
		const b = ["PPP", "PPP", "PPP", "PPP", "PPP", "PFF", "FFF", "PPF", "PFF", "PFF"];
		const alone = compareArms({ baseline: "A", trials: fromPatterns(a, b) }).comparisons[0];
		const clustered = compareArms({
			baseline: "A",
			trials: fromPatterns(a, b, (_arm, c) => ({ cluster: c < 5 ? "same-repo" : `repo-${c}` })),
		}).comparisons[0];
		const width = (interval: [number, number] | undefined) => (interval ? interval[1] - interval[0] : 0);
		expect(clustered?.difference).toBeCloseTo(alone?.difference ?? 0, 12);
		expect(width(clustered?.interval)).toBeGreaterThan(width(alone?.interval) * 1.3);
		expect(clustered?.p).toBeGreaterThan(alone?.p ?? 1);
	});

	it("an arm may be called anything, `__proto__` too: it is an arm of the result like the others", () => {
		const trials: ArmTrial[] = [
			{ arm: "__proto__", caseId: "c", pass: true },
			{ arm: "B", caseId: "c", pass: false },
		];
		const result = compareArms({ baseline: "__proto__", trials });
		expect(Object.keys(result.arms)).toEqual(["__proto__", "B"]);
		expect(Object.getPrototypeOf(result.arms)).toBe(Object.prototype);
		expect(result.comparisons.map((c) => [c.arm, c.baseline])).toEqual([["B", "__proto__"]]);
	});

	it("the same seed gives the same answer; every number is finite", () => {
		const a = ["PPF", "PFF", "PPP", "FFF", "PFP", "FPF", "PPF", "FFP", "PFF", "PPF", "FFF", "PPP", "PFF", "FFP"];
		const b = ["PPP", "PPF", "PPP", "FFP", "PPP", "FFF", "PPP", "FPF", "PPF", "PPP", "FFF", "PPP", "PPF", "PFP"];
		const first = compareArms({ baseline: "A", trials: fromPatterns(a, b), seed: 42 });
		expect(compareArms({ baseline: "A", trials: fromPatterns(a, b), seed: 42 })).toEqual(first);
		const numbers = JSON.stringify(first).match(/-?\d[\d.e+-]*|null|NaN|Infinity/g) ?? [];
		expect(numbers.filter((n) => !Number.isFinite(Number(n)) && n !== "null")).toEqual([]);
	});
});

describe("decideVerdict", () => {
	const table: [p: number, interval: [number, number], margin: number | undefined, verdict: string][] = [
		[0.01, [0.05, 0.3], undefined, "better"],
		[0.01, [-0.3, -0.05], undefined, "worse"],
		[0.2, [-0.05, 0.3], undefined, "no detectable difference"],
		[0.2, [-0.04, 0.3], 0.05, "non-inferior"],
		[0.2, [-0.06, 0.3], 0.05, "no detectable difference"],
		[0.01, [0.05, 0.3], 0.05, "better"],
		// A p-value and an interval that disagree (the interval clear of 0, p not under 5 %): no claim.
		[0.07, [0.01, 0.3], undefined, "no detectable difference"],
	];
	for (const [p, interval, margin, verdict] of table) {
		it(`p ${p}, interval ${interval.join(" to ")}, margin ${margin}: ${verdict}`, () => {
			expect(decideVerdict(p, interval, 0.95, margin)).toBe(verdict);
		});
	}
});

describe("verdictText", () => {
	const base: VerdictFacts = {
		arm: "B",
		baseline: "A",
		metric: "pass",
		verdict: "better",
		difference: 0.22,
		interval: [0.09, 0.35],
		confidence: 0.95,
		margin: undefined,
		smallestDetectable: 0.31,
		points: true,
		cases: 8,
		trialsPerCase: [3, 3],
	};
	const table: [Partial<VerdictFacts>, string][] = [
		[{}, "B is better: +22 points (95 %: +9 to +35)"],
		[{ verdict: "worse", difference: -0.12, interval: [-0.2, -0.04] }, "B is worse: −12 points (95 %: −20 to −4)"],
		[
			{ verdict: "non-inferior", difference: -0.01, interval: [-0.04, 0.03], margin: 0.05 },
			"B is not worse than A by more than 5 points: −1 point (95 %: −4 to +3)",
		],
		[
			{ verdict: "no detectable difference", difference: 0.02, interval: [-0.06, 0.11] },
			"B against A: no detectable difference (−6 to +11); with 8 cases × 3 trials, this eval could only have seen a difference of about 31 points or more (at 80 % power), so a smaller one may be there unseen",
		],
		[
			{ verdict: "no detectable difference", interval: [-0.06, 0.11], cases: 1, trialsPerCase: [1, 2] },
			"B against A: no detectable difference (−6 to +11); with 1 case × 1–2 trials, this eval could only have seen a difference of about 31 points or more (at 80 % power), so a smaller one may be there unseen",
		],
		[{ confidence: 0.9 }, "B is better: +22 points (90 %: +9 to +35)"],
		[
			{ metric: "score", points: false, difference: 1.5, interval: [0.25, 2.75] },
			"B is better on score: +1.50 (95 %: +0.25 to +2.75)",
		],
	];
	for (const [facts, text] of table) {
		it(text, () => {
			expect(verdictText({ ...base, ...facts })).toBe(text);
		});
	}
});

describe("compareArms: bad input", () => {
	const ok: ArmTrial[] = [
		{ arm: "A", caseId: "c1", pass: true },
		{ arm: "B", caseId: "c1", pass: false },
	];
	const table: [name: string, options: unknown, message: string][] = [
		["not an object", 3, "`compareArms` takes an object `{ baseline, trials }`, found 3."],
		["no baseline", { trials: ok }, "`baseline` must be the name of an arm, found nothing."],
		[
			"trials not an array",
			{ baseline: "A", trials: {} },
			"`trials` must be an array of `{ arm, caseId, pass }`, found an object.",
		],
		[
			"confidence as a percentage",
			{ baseline: "A", trials: ok, confidence: 95 },
			"`confidence` must be a number between 0 and 1 (exclusive), found 95. Write 0.95 for 95 %.",
		],
		[
			"margin in points",
			{ baseline: "A", trials: ok, margin: 5 },
			"`margin` must be a number between 0 and 1 (exclusive), found 5. It is a fraction: write 0.05 for 5 points.",
		],
		["a fractional seed", { baseline: "A", trials: ok, seed: 1.5 }, "`seed` must be an integer, found 1.5."],
		[
			"a trial's pass as a string",
			{ baseline: "A", trials: [...ok, { arm: "B", caseId: "c2", pass: "yes" }] },
			'`trials[2].pass` must be true or false, found "yes". Give each trial its grader\'s verdict.',
		],
		[
			"a numeric caseId",
			{ baseline: "A", trials: [{ arm: "A", caseId: 7, pass: true }] },
			"`trials[0].caseId` must be a non-empty string, found 7.",
		],
		[
			"a NaN score",
			{ baseline: "A", trials: [{ ...ok[0], score: Number.NaN }] },
			"`trials[0].score` must be a finite number or absent, found NaN.",
		],
		[
			"a negative cost",
			{ baseline: "A", trials: [{ ...ok[0], costUsd: -1 }] },
			"`trials[0].costUsd` must be a number ≥ 0 or absent, found -1.",
		],
		[
			"no trials for the baseline",
			{ baseline: "main", trials: ok },
			"No trials for the baseline arm `main`: the trials name `A`, `B`. Set `baseline` to an arm the trials have, or add its trials.",
		],
		[
			"no trials at all",
			{ baseline: "A", trials: [] },
			"No trials for the baseline arm `A`: `trials` is empty. Set `baseline` to an arm the trials have, or add its trials.",
		],
		[
			"an arm with no shared case",
			{
				baseline: "A",
				trials: [ok[0], ...["x1", "x2", "x3", "x4"].map((caseId) => ({ arm: "B", caseId, pass: true }))],
			},
			"Arm `B` shares no case with the baseline `A` (it ran `x1`, `x2`, `x3` and 1 more): trials are paired by `caseId`, so run both arms on the same cases.",
		],
		[
			"a case in two clusters",
			{
				baseline: "A",
				trials: [
					{ ...ok[0], cluster: "r1" },
					{ ...ok[1], cluster: "r2" },
				],
			},
			"Case `c1` is in cluster `r1` and, in `trials[1]`, in `r2`: a case belongs to one cluster, so give all its trials the same `cluster`.",
		],
	];
	for (const [name, options, message] of table) {
		it(`${name}: compare_arms_invalid`, () => {
			let thrown: unknown;
			try {
				compareArms(options as Parameters<typeof compareArms>[0]);
			} catch (error) {
				thrown = error;
			}
			expect(isWorkflowError(thrown) && { code: thrown.code, message: thrown.message }).toEqual({
				code: "compare_arms_invalid",
				message,
			});
		});
	}
});
