/**
 * The estimate before launch as a table: each basis (this workflow's calls, the project's by type and model, the
 * catalog price, none), the range maths (the middle half), the sums per phase and in all, and the words.
 */
import { describe, expect, it } from "vitest";
import {
	type EstimateSources,
	estimateCalls,
	estimateOverCap,
	estimateText,
	middleHalf,
	type PlannedCalls,
} from "../../src/host/estimate.ts";
import type { CallCostSample, CostHistory } from "../../src/runs/index.ts";

/** Calls of one kind, one per cost given (tokens 1000 per cent, so both ranges can be checked). */
function samples(
	like: Omit<CallCostSample, "runId" | "usd" | "tokens">,
	usds: (number | undefined)[],
): CallCostSample[] {
	return usds.map((usd, i) => ({
		runId: `wf-20261201-10000${i}-aaaaaa`,
		...like,
		...(usd !== undefined ? { usd, tokens: Math.round(usd * 100_000) } : { tokens: 500 }),
	}));
}

const HISTORY: CostHistory = {
	calls: [
		...samples(
			{ workflow: "review", phase: "plan", label: "reviewer", agentType: "general-purpose", model: "a/big" },
			[0.1, 0.2, 0.3, 0.4, 0.5],
		),
		// An unpriced call is no sample for dollars.
		...samples({ workflow: "review", phase: "plan", label: "reviewer", model: "a/big" }, [undefined]),
		...samples(
			{ workflow: "other", phase: "scan", label: "scanner", agentType: "explorer", model: "a/small" },
			[0.01, 0.02, 0.03, 0.04],
		),
	],
	runs: [],
};

const PRICE = (model: string) => (model === "a/priced" ? { input: 3, output: 15 } : undefined);

const cases: {
	name: string;
	planned: PlannedCalls[];
	sources: Partial<EstimateSources>;
	source: string;
	samples: number;
	usd: [number, number];
	tokens: [number, number];
	basis: string;
}[] = [
	{
		name: "this workflow's calls of the same phase and label, times the count",
		planned: [{ phase: "plan", label: "reviewer", count: 2 }],
		sources: { workflow: "review" },
		source: "workflow",
		samples: 5,
		// Middle half of 0.1…0.5 is 0.2–0.4, twice.
		usd: [0.4, 0.8],
		tokens: [40_000, 80_000],
		basis: "5 earlier calls of workflow `review` (phase plan, label reviewer)",
	},
	{
		name: "no label given (a fan-out's items): every call of the phase",
		planned: [{ phase: "plan", count: 1 }],
		sources: { workflow: "review" },
		source: "workflow",
		samples: 5,
		usd: [0.2, 0.4],
		tokens: [20_000, 40_000],
		basis: "5 earlier calls of workflow `review` (phase plan)",
	},
	{
		name: "a label this workflow never used: the project's calls of its type on its model",
		planned: [{ phase: "scan", label: "new", agentType: "explorer", model: "a/small", count: 4 }],
		sources: { workflow: "review" },
		source: "project",
		samples: 4,
		// Middle half of 0.01…0.04 is 0.0175–0.0325, four times.
		usd: [0.07, 0.13],
		tokens: [7_000, 13_000],
		basis: "project history: 4 calls of type explorer on a/small",
	},
	{
		name: "no model named: the default model's",
		planned: [{ agentType: "general-purpose" }],
		sources: { defaultModel: "a/big" },
		source: "project",
		samples: 5,
		usd: [0.2, 0.4],
		tokens: [20_000, 40_000],
		basis: "project history: 5 calls of type general-purpose on a/big",
	},
	{
		name: "no history for the model: its catalog price times the default size, half to twice",
		planned: [{ agentType: "general-purpose", model: "a/priced", count: 10 }],
		sources: { priceOf: PRICE },
		source: "catalog",
		samples: 0,
		// (20000 × $3 + 2000 × $15) per million = $0.09 a child.
		usd: [0.45, 1.8],
		tokens: [110_000, 440_000],
		basis: "catalog price of a/priced ($3/$15 per million input/output tokens) × a default 20.0k input/2.0k output tokens per child, half to twice that (no history)",
	},
	{
		name: "a continued call, from the catalog: its input adds one default child per earlier call of its chain",
		planned: [{ agentType: "general-purpose", model: "a/priced", carried: 2 }],
		sources: { priceOf: PRICE },
		source: "catalog",
		samples: 0,
		// Input 20000 + 2 × 22000 = 64000: (64000 × $3 + 2000 × $15) per million = $0.222.
		usd: [0.111, 0.444],
		tokens: [33_000, 132_000],
		basis: "catalog price of a/priced ($3/$15 per million input/output tokens) × a default 20.0k input/2.0k output tokens per child, its input plus 2 earlier calls' conversation, half to twice that (no history)",
	},
	{
		name: "a continued call, from the project's fresh calls: one more of them per earlier call of its chain",
		planned: [{ label: "new", agentType: "explorer", model: "a/small", carried: 1 }],
		sources: { workflow: "review" },
		source: "project",
		samples: 4,
		// Middle half of 0.01…0.04 is 0.0175–0.0325, twice.
		usd: [0.035, 0.065],
		tokens: [3_500, 6_500],
		basis: "project history: 4 calls of type explorer on a/small, ×2 for carrying 1 earlier call's conversation",
	},
	{
		name: "no history and no price: no estimate",
		planned: [{ model: "a/unknown", count: 3 }],
		sources: { priceOf: PRICE },
		source: "none",
		samples: 0,
		usd: [0, 0],
		tokens: [0, 0],
		basis: "no estimate: no earlier calls like these and no price known for a/unknown",
	},
];

describe("estimateCalls", () => {
	it.each(cases)("$name", ({ planned, sources, source, samples: n, usd, tokens, basis }) => {
		const estimate = estimateCalls(planned, { history: HISTORY, ...sources });
		const [group] = estimate.groups;
		expect(group?.basis).toEqual({ source, samples: n, text: basis });
		expect(estimate.total.usd.low).toBeCloseTo(usd[0], 10);
		expect(estimate.total.usd.high).toBeCloseTo(usd[1], 10);
		expect(estimate.total.tokens.low).toBeCloseTo(tokens[0], 6);
		expect(estimate.total.tokens.high).toBeCloseTo(tokens[1], 6);
		expect(estimate.total.unestimated).toBe(source === "none" ? estimate.total.calls : 0);
	});

	it("phases in plan order, each the sum of its calls; like calls given one by one are one group", () => {
		const planned: PlannedCalls[] = [
			{ phase: "plan", label: "reviewer" },
			{ phase: "scan", label: "x", agentType: "explorer", model: "a/small" },
			{ phase: "plan", label: "reviewer" },
			{ model: "a/unknown" },
		];
		const estimate = estimateCalls(planned, { workflow: "review", history: HISTORY });
		expect(estimate.groups.map((group) => [group.phase, group.count, group.basis.source])).toEqual([
			["plan", 2, "workflow"],
			["scan", 1, "project"],
			[undefined, 1, "none"],
		]);
		expect(estimate.phases.map((phase) => [phase.phase, phase.calls, phase.unestimated])).toEqual([
			["plan", 2, 0],
			["scan", 1, 0],
			[undefined, 1, 1],
		]);
		expect(estimate.total.calls).toBe(4);
		expect(estimate.total.usd.low).toBeCloseTo(0.4 + 0.0175, 10);
		expect(estimate.total.usd.high).toBeCloseTo(0.8 + 0.0325, 10);
		expect(estimateText(estimate)).toBe(
			[
				"Estimated cost (the middle half of what like calls cost): $0.42–$0.83, 41.8k–83.3k tokens for 4 calls (1 without an estimate: more than this)",
				"  phase plan: $0.40–$0.80, 40.0k–80.0k tokens for 2 calls",
				"  phase scan: $0.018–$0.033, 1.8k–3.3k tokens for 1 call",
				"  outside phases: no estimate for 1 call",
				"Basis: 5 earlier calls of workflow `review` (phase plan, label reviewer); project history: 4 calls of type explorer on a/small; no estimate: no earlier calls like these and no price known for a/unknown",
			].join("\n"),
		);
	});

	it("from history and catalog prices together: the heading says both", () => {
		const estimate = estimateCalls([{ phase: "plan", label: "reviewer", model: "a/m" }, { model: "a/priced" }], {
			workflow: "review",
			history: HISTORY,
			priceOf: PRICE,
		});
		expect(estimate.groups.map((group) => group.basis.source)).toEqual(["workflow", "catalog"]);
		expect(estimateText(estimate).split("\n")[0]).toMatch(
			/^Estimated cost \(the middle half of what like calls cost; catalog prices × a default size, half to twice that, for calls with no history\): /,
		);
	});

	it("one phase-less part: no phase lines; from catalog prices alone, the heading says so", () => {
		const estimate = estimateCalls([{ model: "a/priced" }], { history: { calls: [], runs: [] }, priceOf: PRICE });
		expect(estimateText(estimate).split("\n")).toEqual([
			"Estimated cost (catalog prices × a default size per child, half to twice that: no history): $0.045–$0.18, 11.0k–44.0k tokens for 1 call",
			"Basis: catalog price of a/priced ($3/$15 per million input/output tokens) × a default 20.0k input/2.0k output tokens per child, half to twice that (no history)",
		]);
	});

	it("with no basis for any call, the heading claims no figures: it says only that there is no estimate", () => {
		const estimate = estimateCalls([{ model: "a/unknown" }], { history: { calls: [], runs: [] } });
		expect(estimateText(estimate).split("\n")).toEqual([
			"Estimated cost: no estimate for 1 call",
			"Basis: no estimate: no earlier calls like these and no price known for a/unknown",
		]);
	});
});

describe("middleHalf", () => {
	it.each([
		{ values: [], low: 0, high: 0 },
		{ values: [5], low: 5, high: 5 },
		{ values: [4, 1, 3, 2], low: 1.75, high: 3.25 },
		{ values: [1, 1, 1, 1, 100], low: 1, high: 1 },
		{ values: [10, 20], low: 12.5, high: 17.5 },
	])("$values → $low–$high", ({ values, low, high }) => {
		expect(middleHalf(values)).toEqual({ low, high });
	});
});

describe("estimateOverCap", () => {
	it.each([
		{ usd: { low: 0.4, high: 0.55 }, cap: 0.3, spent: 0, says: "estimated $0.40–$0.55, over the cap $0.30" },
		{
			usd: { low: 0.2, high: 0.55 },
			cap: 0.3,
			spent: 0,
			says: "estimated $0.20–$0.55, which may go over the cap $0.30",
		},
		{
			usd: { low: 0.2, high: 0.3 },
			cap: 0.4,
			spent: 0.15,
			says: "estimated $0.35–$0.45 with the $0.15 spent so far, which may go over the cap $0.40",
		},
		{ usd: { low: 0.2, high: 0.3 }, cap: 0.3, spent: 0, says: undefined },
		{ usd: { low: 0.2, high: 0.3 }, cap: undefined, spent: 0, says: undefined },
	])("$usd.low–$usd.high, cap $cap, spent $spent", ({ usd, cap, spent, says }) => {
		expect(estimateOverCap(usd, cap, spent)).toBe(says);
	});
});
