/**
 * Progress against the plan through the tracker: a run that outgrows its plan (the fraction never goes backwards),
 * the slow mark for a call delayed 10×, and time left at 25, 50 and 75 % of a fourth run's calls, learnt from three
 * earlier runs' event streams (their timing read by the run store's own `runTiming`) with a clock the test moves.
 */
import { describe, expect, it } from "vitest";
import type { WorkflowProgressEnvelope } from "../../src/progress/envelope.ts";
import type { ProgressPlan } from "../../src/progress/forecast.ts";
import { createWorkflowProgressTracker } from "../../src/progress/index.ts";
import { runTiming } from "../../src/runs/timing-history.ts";
import type { WorkflowProgressEvent } from "../../src/runtime/core/events.ts";
import type { WorkflowMeta } from "../../src/runtime/core/types.ts";
import { eventBuilder, T0 } from "./event-builder.ts";

const META: WorkflowMeta = {
	name: "sweep",
	description: "read then sum",
	phases: [{ title: "read" }, { title: "sum" }],
};
const PLAN: ProgressPlan = {
	calls: [
		{ phase: "read", label: "read file", agentType: "scout", count: 8 },
		{ phase: "sum", label: "summarize", agentType: "general-purpose", count: 1 },
	],
};

/** A small seeded generator, so every run's latencies are known to the test. */
function seeded(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state * 1664525 + 1013904223) >>> 0;
		return state / 2 ** 32;
	};
}

interface SimCall {
	index: number;
	phase: string;
	label: string;
	agentType: string;
	start: number;
	end: number;
}

/**
 * One run of the workflow with known latencies: `reads` calls of about 1 s each, 4 at once, then one summary of about
 * 3 s; each latency jittered ±20 % by `seed`. Gives the calls' start and end times (ms from the run's start).
 */
function schedule(reads: number, seed: number): SimCall[] {
	const random = seeded(seed);
	const jitter = (ms: number) => Math.round(ms * (0.8 + 0.4 * random()));
	const slots = [0, 0, 0, 0];
	const calls: SimCall[] = [];
	for (let i = 0; i < reads; i++) {
		const slot = slots.indexOf(Math.min(...slots));
		const start = slots[slot] ?? 0;
		const end = start + jitter(1000);
		slots[slot] = end;
		calls.push({ index: i, phase: "read", label: "read file", agentType: "scout", start, end });
	}
	const start = Math.max(...slots);
	calls.push({
		index: reads,
		phase: "sum",
		label: "summarize",
		agentType: "general-purpose",
		start,
		end: start + jitter(3000),
	});
	return calls;
}

/** Emits the run's events in time order into `sink`; `after` sees each event once it is folded. */
function play(calls: SimCall[], sink: (event: WorkflowProgressEvent) => void, after?: () => void): number {
	const run = eventBuilder(T0, (event) => {
		sink(event);
		after?.();
	});
	const moments = calls.flatMap((call) => [
		{
			at: call.start,
			order: 1,
			act: () => {
				run.queued(call.index, call.label, call);
				run.started(call.index);
			},
		},
		{ at: call.end, order: 0, act: () => run.finished(call.index, "ok") },
	]);
	moments.sort((a, b) => a.at - b.at || a.order - b.order);
	run.runStart(META);
	let phase: string | undefined;
	for (const moment of moments) {
		run.tick(moment.at - (run.time - T0));
		const call = calls.find((c) => c.start === moment.at && moment.order === 1);
		if (call && call.phase !== phase) {
			if (phase) run.phaseEnd(phase);
			phase = call.phase;
			run.phaseStart(phase);
		}
		moment.act();
	}
	if (phase) run.phaseEnd(phase);
	run.runEnd("completed");
	return run.time;
}

function historyOf(seeds: number[]) {
	const timing = { calls: [], phases: [], runs: [] } as ReturnType<typeof runTiming>;
	for (const seed of seeds) {
		const events: WorkflowProgressEvent[] = [];
		play(schedule(8, seed), (event) => events.push(event));
		const run = runTiming(events);
		timing.calls.push(...run.calls);
		timing.phases.push(...run.phases);
		timing.runs.push(...run.runs);
	}
	return timing;
}

describe("tracker.forecastWith", () => {
	it("time left at 25, 50 and 75 % of a fourth run's calls is within 25 % of the truth, from three earlier runs", () => {
		const tracker = createWorkflowProgressTracker({ now: () => T0 });
		tracker.forecastWith(PLAN, historyOf([1, 2, 3]));
		const calls = schedule(8, 4);
		const seen: { done: number; time: number; remainingMs: number | null }[] = [];
		const end = play(
			calls,
			(event) => tracker.updateFromProgressEvent(event),
			() => {
				const envelope = tracker.getEnvelope();
				const forecast = envelope.forecast;
				if (forecast && envelope.status === "running")
					seen.push({ done: forecast.done, time: envelope.updatedAt, remainingMs: forecast.remainingMs });
			},
		);
		const errors = [0.25, 0.5, 0.75].map((share) => {
			const done = Math.ceil(share * calls.length);
			// The moment the call that reaches the share finished.
			const at = seen.find((s) => s.done === done);
			if (!at || at.remainingMs === null) throw new Error(`no time left at ${done} calls: ${JSON.stringify(at)}`);
			const truth = end - at.time;
			return Math.abs(at.remainingMs - truth) / truth;
		});
		// Each of the three, not only their median: the seeded latencies make this exact, not a matter of luck.
		for (const error of errors)
			expect(error, `relative errors at 25/50/75 %: ${errors.map((e) => e.toFixed(3)).join(", ")}`).toBeLessThan(
				0.25,
			);
		expect(tracker.getEnvelope().forecast).toMatchObject({ fraction: 1, remainingMs: 0, done: 9, expected: 9 });
	});

	it("a run that makes more calls than its plan: the expected total grows and the fraction never goes backwards", () => {
		const tracker = createWorkflowProgressTracker({ now: () => T0 });
		tracker.forecastWith(PLAN, undefined);
		const envelopes: WorkflowProgressEnvelope[] = [];
		// Twenty reads where the plan said eight, the last twelve queued after half the planned ones finished.
		const calls = schedule(20, 7);
		play(
			calls,
			(event) => tracker.updateFromProgressEvent(event),
			() => envelopes.push(tracker.getEnvelope()),
		);
		const fractions = envelopes.map((e) => e.forecast?.fraction ?? Number.NaN);
		for (const [i, fraction] of fractions.entries()) {
			expect(
				fraction,
				`envelope ${i}: ${fractions.slice(Math.max(0, i - 2), i + 1).join(" → ")}`,
			).toBeGreaterThanOrEqual(fractions[i - 1] ?? 0);
		}
		const expected = envelopes.map((e) => e.forecast?.expected);
		expect(expected[0]).toBe(9);
		expect(expected.at(-1)).toBe(21);
		expect(envelopes.at(-2)?.forecast).toMatchObject({ grown: true, expectedBasis: "plan", remainingMs: null });
	});

	it("a call delayed 10× its usual duration is marked slow, with how long it took and how long it usually takes", () => {
		const tracker = createWorkflowProgressTracker({ now: () => T0 });
		tracker.forecastWith(PLAN, historyOf([1, 2, 3]));
		const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
		run.runStart(META);
		run.phaseStart("read");
		run.queued(0, "read file", { phase: "read", agentType: "scout" });
		run.queued(1, "read file", { phase: "read", agentType: "scout" });
		run.started(0);
		run.started(1);
		run.tick(1000);
		run.finished(0, "ok");
		let [first, second] = tracker.getEnvelope().agentCalls;
		expect(first?.slow).toBeUndefined();
		expect(second?.slow).toBeUndefined();
		const usual = first?.usualMs ?? 0;
		expect(usual).toBeGreaterThan(800);
		expect(usual).toBeLessThan(1200);
		run.tick(10 * usual - 1000);
		run.finished(1, "late");
		[first, second] = tracker.getEnvelope().agentCalls;
		expect(first?.slow).toBeUndefined();
		expect(second?.slow).toEqual({ elapsedMs: 10 * usual, usualMs: usual });
	});
});
