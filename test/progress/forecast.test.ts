import { describe, expect, it } from "vitest";
import {
	type ForecastCall,
	Forecaster,
	heldFraction,
	median,
	type ProgressTiming,
	slowMark,
	TimingIndex,
	usualConcurrency,
	usualDuration,
} from "../../src/progress/forecast.ts";

const TIMING: ProgressTiming = {
	calls: [
		{ workflow: "wide", phase: "read", label: "read", agentType: "scout", durationMs: 1000 },
		{ workflow: "wide", phase: "read", label: "read", agentType: "scout", durationMs: 3000 },
		{ workflow: "wide", phase: "read", label: "read", agentType: "scout", durationMs: 2000 },
		{ workflow: "other", label: "x", agentType: "reviewer", model: "p/m", durationMs: 60_000 },
	],
	phases: [{ workflow: "wide", phase: "read", concurrency: 2 }],
	runs: [{ workflow: "wide", durationMs: 10_000 }],
};

describe("median", () => {
	it.each([
		[[], undefined],
		[[5], 5],
		[[3, 1, 2], 2],
		[[4, 1, 3, 2], 2.5],
	])("of %j is %j", (values, expected) => {
		expect(median(values)).toBe(expected);
	});
});

describe("Forecaster.forecast", () => {
	const plan = {
		calls: [
			{ phase: "read", label: "read", agentType: "scout", count: 4 },
			{ phase: "judge", label: "judge", agentType: "reviewer", model: "p/m", count: 1 },
		],
	};

	it("before any call: the plan's calls expected, time left from this workflow's median over its concurrency, then the project's", () => {
		const forecast = new Forecaster(plan, TIMING, "wide").forecast([]);
		expect(forecast).toEqual({
			done: 0,
			expected: 5,
			grown: false,
			// read: 4 × 2000 ms over 2 at once = 4000; judge: the project's reviewer on p/m, 60000, alone.
			remainingMs: 64_000,
			basis: "project",
			phases: [
				{ phase: "read", done: 0, expected: 4, remainingMs: 4000, basis: "workflow" },
				{ phase: "judge", done: 0, expected: 1, remainingMs: 60_000, basis: "project" },
			],
		});
	});

	it("a running call counts its usual duration less its time so far; a call over it counts nothing left", () => {
		const forecast = new Forecaster(plan, TIMING, "wide").forecast([
			{ phase: "read", label: "read", agentType: "scout", status: "completed" },
			{ phase: "read", label: "read", agentType: "scout", status: "running", elapsedMs: 500 },
			{ phase: "read", label: "read", agentType: "scout", status: "running", elapsedMs: 9000 },
		]);
		// One unstarted (2000) + 1500 + 0, over 2 at once, but never below the longest (2000).
		expect(forecast.phases[0]).toEqual({ phase: "read", done: 1, expected: 4, remainingMs: 2000, basis: "workflow" });
	});

	it("more calls than planned: the expected total grows with them and `grown` says so", () => {
		const calls = Array.from({ length: 6 }, () => ({
			phase: "read",
			label: "read",
			agentType: "scout",
			status: "completed" as const,
		}));
		const forecast = new Forecaster(plan, TIMING, "wide").forecast([
			...calls,
			{ phase: "read", label: "extra", agentType: "scout", status: "queued" },
		]);
		expect(forecast).toMatchObject({ done: 6, expected: 8, grown: true });
		expect(forecast.phases[0]).toMatchObject({ expected: 7, done: 6 });
	});

	it("no history like a call still to run, or no plan: time left is not known (null), never a made-up figure", () => {
		const unknownType = { calls: [{ label: "new", agentType: "nobody-ran-this", count: 1 }] };
		expect(new Forecaster(unknownType, TIMING, "wide").forecast([])).toMatchObject({
			expected: 1,
			remainingMs: null,
			basis: "none",
		});
		expect(
			new Forecaster(undefined, TIMING, "wide").forecast([
				{ phase: "read", label: "read", agentType: "scout", status: "running", elapsedMs: 0 },
			]),
		).toMatchObject({ done: 0, expected: 1, remainingMs: null, basis: "none" });
		expect(new Forecaster(plan, undefined, "wide").forecast([])).toMatchObject({ remainingMs: null });
	});
});

describe("TimingIndex", () => {
	/** Samples of each way a lookup can go: by label and phase, by label alone, by agent type and model, by type. */
	const history: ProgressTiming = {
		...TIMING,
		calls: [
			...TIMING.calls,
			{ workflow: "wide", label: "read", agentType: "scout", durationMs: 7000 },
			{ workflow: "wide", phase: "", label: "tidy", agentType: "scout", durationMs: 500 },
			{ workflow: "wide", phase: "judge", label: "judge", agentType: "reviewer", model: "", durationMs: 4000 },
			{ label: "x", agentType: "reviewer", durationMs: 30_000 },
			{ workflow: "other", phase: "read", label: "read", agentType: "scout", model: "p/m", durationMs: 90_000 },
		],
		phases: [...TIMING.phases, { workflow: "other", phase: "judge", concurrency: 3 }],
	};
	const kinds: ForecastCall[] = [];
	for (const phase of [undefined, "", "read", "judge", "fix"])
		for (const label of ["read", "tidy", "judge", "x", "new"])
			for (const agentType of ["scout", "reviewer", "nobody"])
				for (const model of [undefined, "", "p/m"])
					kinds.push({
						...(phase !== undefined ? { phase } : {}),
						label,
						agentType,
						...(model !== undefined ? { model } : {}),
					});

	it.each(["wide", "other", undefined])(
		"answers as usualDuration and usualConcurrency for every kind of call (workflow %s)",
		(workflow) => {
			const index = new TimingIndex(history, workflow);
			for (const call of kinds)
				expect(index.usualOf(call), JSON.stringify(call)).toEqual(usualDuration(call, workflow, history));
			for (const phase of [undefined, "", "read", "judge", "fix"])
				expect(index.concurrencyOf(phase), String(phase)).toBe(usualConcurrency(phase, workflow, history));
		},
	);
});

describe("heldFraction", () => {
	it("holds the fraction shown while the expected total grows faster than the work, then follows it again", () => {
		expect(heldFraction(5, 10, 0)).toBe(0.5);
		expect(heldFraction(6, 20, 0.5)).toBe(0.5);
		expect(heldFraction(15, 20, 0.5)).toBe(0.75);
		expect(heldFraction(0, 0, 0)).toBe(0);
	});
});

describe("slowMark", () => {
	it("marks past the multiple of the usual duration, and only then", () => {
		expect(slowMark(6 * 60_000, 60_000, 5)).toEqual({ elapsedMs: 360_000, usualMs: 60_000 });
		expect(slowMark(5 * 60_000, 60_000, 5)).toBeUndefined();
		expect(slowMark(10_000, undefined, 5)).toBeUndefined();
	});
});
