/**
 * The tracker's forecast kept up to date as events arrive: after every event of generated runs (phases, a parallel
 * fan-out four at once, retries, failed and stopped calls, calls replayed by a resume, a plan with a phase the run
 * never reaches, a run that outgrows its plan, a plan that arrives mid-run), the envelope's forecast and marks equal
 * what `Forecaster.forecast` computes from scratch over the same calls; and an envelope reads the calls that changed
 * and the running ones, not the whole run.
 */
import { describe, expect, it } from "vitest";
import type { WorkflowProgressEnvelope } from "../../src/progress/envelope.ts";
import {
	DEFAULT_SLOW_MULTIPLE,
	Forecaster,
	heldFraction,
	type ProgressPlan,
	type ProgressTiming,
	slowMark,
	usualDuration,
	usualRunDuration,
} from "../../src/progress/forecast.ts";
import { runCall, runForecast } from "../../src/progress/forecast-book.ts";
import { forecastReads } from "../../src/progress/forecast-tally.ts";
import { createWorkflowProgressTracker, type WorkflowProgressTracker } from "../../src/progress/index.ts";
import type { WorkflowProgressEvent } from "../../src/runtime/core/events.ts";
import type { WorkflowMeta } from "../../src/runtime/core/types.ts";
import { eventBuilder, T0 } from "./event-builder.ts";

const META: WorkflowMeta = {
	name: "audit",
	description: "list, review, fix",
	phases: [{ title: "scan" }, { title: "review" }, { title: "fix" }, { title: "report" }],
};

/** Two groups of the same label in one phase, a phase the run never reaches, and a call outside any phase. */
const PLAN: ProgressPlan = {
	calls: [
		{ phase: "scan", label: "list files", agentType: "scout", count: 1 },
		{ phase: "review", label: "review file", agentType: "reviewer", count: 8 },
		{ phase: "review", label: "review file", agentType: "reviewer", model: "p/big", count: 2 },
		{ phase: "fix", label: "fix finding", agentType: "general-purpose", count: 4 },
		{ phase: "report", label: "write report", agentType: "writer", count: 2 },
		{ label: "summary", agentType: "writer", count: 1 },
	],
};

/** This workflow's earlier calls for most kinds, the project's for the writer (by model), none for the checker. */
const TIMING: ProgressTiming = {
	calls: [
		{ workflow: "audit", phase: "scan", label: "list files", agentType: "scout", durationMs: 400 },
		{ workflow: "audit", phase: "review", label: "review file", agentType: "reviewer", durationMs: 1000 },
		{ workflow: "audit", phase: "review", label: "review file", agentType: "reviewer", durationMs: 1300 },
		{ workflow: "audit", phase: "review", label: "review file", agentType: "reviewer", durationMs: 800 },
		{ workflow: "audit", phase: "fix", label: "fix finding", agentType: "general-purpose", durationMs: 2500 },
		{ workflow: "other", label: "draft", agentType: "writer", durationMs: 3000 },
		{ workflow: "other", label: "draft", agentType: "writer", durationMs: 4000 },
		{ workflow: "other", label: "draft", agentType: "writer", model: "p/big", durationMs: 9000 },
	],
	phases: [
		{ workflow: "audit", phase: "review", concurrency: 3.5 },
		{ workflow: "audit", phase: "fix", concurrency: 1 },
	],
	runs: [{ workflow: "audit", durationMs: 9000 }],
};

function seeded(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state * 1664525 + 1013904223) >>> 0;
		return state / 2 ** 32;
	};
}

type Outcome = "ok" | "failed" | "retried" | "replayed" | "stopped" | "slow";

interface GenCall {
	index: number;
	phase?: string;
	label: string;
	agentType: string;
	durationMs: number;
	outcome: Outcome;
	/** The model the child reports it runs on once started (another kind for the forecast). */
	model?: string;
}

/**
 * A resumed audit: one scan, `reviews` reviews (the first three replayed), three fixes and a check the plan does not
 * have (stopped), and a summary outside any phase whose child runs on another model than the one asked for.
 */
function generate(seed: number, reviews: number): GenCall[] {
	const random = seeded(seed);
	const calls: GenCall[] = [];
	const add = (call: Omit<GenCall, "index">) => calls.push({ index: calls.length, ...call });
	add({ phase: "scan", label: "list files", agentType: "scout", durationMs: 300, outcome: "ok" });
	for (let i = 0; i < reviews; i++) {
		const roll = random();
		const outcome: Outcome =
			i < 3 ? "replayed" : roll < 0.1 ? "failed" : roll < 0.2 ? "retried" : roll < 0.25 ? "slow" : "ok";
		add({
			phase: "review",
			label: "review file",
			agentType: "reviewer",
			durationMs: 500 + Math.round(1000 * random()),
			outcome,
			...(random() < 0.3 ? { model: "p/big" } : {}),
		});
	}
	for (let i = 0; i < 3; i++)
		add({
			phase: "fix",
			label: "fix finding",
			agentType: "general-purpose",
			durationMs: 1500 + Math.round(2000 * random()),
			outcome: "ok",
		});
	add({ phase: "fix", label: "double-check", agentType: "checker", durationMs: 1000, outcome: "stopped" });
	add({ label: "summary", agentType: "writer", durationMs: 2000, outcome: "ok", model: "p/big" });
	return calls;
}

/**
 * Plays the calls phase after phase, each phase's calls queued at once and run four at a time (replayed ones
 * answered from the journal at once); `after` runs once each event is folded.
 */
function play(calls: GenCall[], sink: (event: WorkflowProgressEvent) => void, after: (seq: number) => void): void {
	let seq = 0;
	const run = eventBuilder(T0, (event) => {
		sink(event);
		after(seq++);
	});
	const moments: { at: number; act: () => void }[] = [];
	let at = 0;
	const groups = new Map<string | undefined, GenCall[]>();
	for (const call of calls) groups.set(call.phase, [...(groups.get(call.phase) ?? []), call]);
	for (const [phase, group] of groups) {
		const start = at;
		moments.push({
			at: start,
			act: () => {
				if (phase !== undefined) run.phaseStart(phase);
				for (const call of group) run.queued(call.index, call.label, call);
			},
		});
		const slots = [start, start, start, start];
		let end = start;
		for (const call of group) {
			if (call.outcome === "replayed") {
				moments.push({ at: start, act: () => run.finished(call.index, "from the journal", { cached: true }) });
				continue;
			}
			const slot = slots.indexOf(Math.min(...slots));
			const begin = slots[slot] ?? start;
			const finish = begin + call.durationMs * (call.outcome === "slow" ? 10 : 1);
			slots[slot] = finish;
			end = Math.max(end, finish);
			moments.push({
				at: begin,
				act: () => {
					run.started(call.index);
					if (call.model !== undefined) run.child(call.index, { model: call.model, startedAt: run.time });
				},
			});
			if (call.outcome === "retried")
				moments.push({ at: begin + call.durationMs / 2, act: () => run.retry(call.index, 2, "stalled") });
			moments.push({
				at: finish,
				act: () => {
					if (call.outcome === "failed") run.failed(call.index, "bad answer", { code: "schema_invalid" });
					else if (call.outcome === "stopped") run.failed(call.index, "stopped", { code: "cancelled" });
					else run.finished(call.index, "ok");
				},
			});
		}
		moments.push({ at: end, act: () => phase !== undefined && run.phaseEnd(phase) });
		at = end + 50;
	}
	// Stable: moments at the same time keep the order they were made in.
	const ordered = moments
		.map((moment, order) => ({ ...moment, order }))
		.sort((a, b) => a.at - b.at || a.order - b.order);
	run.runStart(META);
	for (const moment of ordered) {
		run.tick(moment.at - (run.time - T0));
		moment.act();
	}
	run.runEnd("completed");
}

/**
 * What the envelope's forecast should be, from scratch: `Forecaster.forecast` over the envelope's calls, the
 * fraction held since the first plan or history was given, and each call's usual duration looked up when the call
 * was first seen since then (or since the run's name came).
 */
class FromScratch {
	plan: ProgressPlan | undefined;
	timing: ProgressTiming | undefined;
	private shown = 0;
	private workflow: string | undefined;
	private usual = new Map<string, { ms: number } | undefined>();

	given(plan: ProgressPlan | undefined, timing: ProgressTiming | undefined): void {
		this.plan = plan ?? this.plan;
		this.timing = timing ?? this.timing;
		this.usual.clear();
	}

	check(envelope: WorkflowProgressEnvelope, at: string): void {
		const workflow = envelope.meta?.name;
		if (workflow !== this.workflow) {
			this.workflow = workflow;
			this.usual.clear();
		}
		const timing = this.timing;
		const calls = envelope.agentCalls.map((call) => {
			const { usualMs, slow, ...bare } = call;
			if (call.cached || call.skipped) return bare;
			if (!this.usual.has(call.key)) this.usual.set(call.key, timing && usualDuration(call, workflow, timing));
			const usual = this.usual.get(call.key);
			if (!usual) return bare;
			const mark = slowMark(call.elapsedMs ?? 0, usual.ms, DEFAULT_SLOW_MULTIPLE);
			return { ...bare, usualMs: usual.ms, ...(mark ? { slow: mark } : {}) };
		});
		expect(envelope.agentCalls, `${at}: the calls' usual durations and slow marks`).toEqual(calls);
		const forecast = new Forecaster(this.plan, timing, workflow).forecast(envelope.agentCalls.map(runCall));
		const running = envelope.status === "running";
		const completed = envelope.status === "completed";
		const fraction = completed ? 1 : heldFraction(forecast.done, forecast.expected, this.shown);
		if (running) this.shown = fraction;
		const usualRun = timing && usualRunDuration(workflow, timing);
		const slow = running ? slowMark(envelope.duration, usualRun, DEFAULT_SLOW_MULTIPLE) : undefined;
		expect(envelope.forecast, `${at}: the run's forecast`).toEqual(
			runForecast(forecast, {
				fraction,
				planned: this.plan !== undefined,
				completed,
				running,
				slow,
				slowMultiple: DEFAULT_SLOW_MULTIPLE,
			}),
		);
		const byPhase = new Map(forecast.phases.map((p) => [p.phase, p]));
		for (const phase of envelope.phases) {
			const found = byPhase.get(phase.title);
			expect(phase.forecast, `${at}: phase ${phase.title}`).toEqual(
				found && {
					done: found.done,
					expected: found.expected,
					remainingMs: found.remainingMs,
					basis: found.basis,
				},
			);
		}
	}
}

/** Folds a generated run into `tracker`, checking every envelope; `given` hands the tracker a plan at an event. */
function foldAndCheck(
	tracker: WorkflowProgressTracker,
	scratch: FromScratch,
	calls: GenCall[],
	given: (seq: number) => void = () => {},
): { envelopes: number; nulls: number; known: number } {
	let envelopes = 0;
	let nulls = 0;
	let known = 0;
	play(
		calls,
		(event) => tracker.updateFromProgressEvent(event),
		(seq) => {
			given(seq);
			const envelope = tracker.getEnvelope();
			scratch.check(envelope, `after event ${seq} (${envelope.agentCalls.length} calls)`);
			envelopes++;
			if (envelope.forecast?.remainingMs === null) nulls++;
			else known++;
		},
	);
	return { envelopes, nulls, known };
}

describe("the tracker's forecast, kept up to date as events arrive", () => {
	it.each([1, 2, 3])(
		"equals the forecast from scratch after every event (plan and history first, seed %i)",
		(seed) => {
			const tracker = createWorkflowProgressTracker({ now: () => T0 });
			const scratch = new FromScratch();
			tracker.forecastWith(PLAN, TIMING);
			scratch.given(PLAN, TIMING);
			const calls = generate(seed, 24);
			const seen = foldAndCheck(tracker, scratch, calls);
			// Both answers of time left were compared, not only "not known yet".
			expect(seen.known).toBeGreaterThan(10);
			expect(seen.nulls).toBeGreaterThan(0);
			const final = tracker.getEnvelope();
			expect(final.forecast).toMatchObject({ grown: true, fraction: 1, remainingMs: 0 });
			// The phase the run never reached still expects its planned calls.
			expect(final.phases.find((p) => p.title === "report")?.forecast).toMatchObject({ done: 0, expected: 2 });
			// Replayed calls count as done; failed and stopped ones too.
			expect(final.forecast?.done).toBe(calls.length);
		},
	);

	it("equals the forecast from scratch when the history comes first and the plan arrives mid-run", () => {
		const tracker = createWorkflowProgressTracker({ now: () => T0, initialMeta: META });
		const scratch = new FromScratch();
		tracker.forecastWith(undefined, TIMING);
		scratch.given(undefined, TIMING);
		const calls = generate(4, 12);
		foldAndCheck(tracker, scratch, calls, (seq) => {
			if (seq !== 20) return;
			tracker.forecastWith(PLAN, undefined);
			scratch.given(PLAN, undefined);
		});
		expect(tracker.getEnvelope().forecast).toMatchObject({ expectedBasis: "plan", fraction: 1 });
	});

	it("equals the forecast from scratch with a plan and no history", () => {
		const tracker = createWorkflowProgressTracker({ now: () => T0 });
		const scratch = new FromScratch();
		tracker.forecastWith(PLAN, undefined);
		scratch.given(PLAN, undefined);
		foldAndCheck(tracker, scratch, generate(5, 16));
	});
});

describe("what an envelope's forecast costs", () => {
	/** The most calls one envelope's forecast read, over a whole run of `reviews` reviews four at a time. */
	function mostReadPerEnvelope(reviews: number): number {
		const tracker = createWorkflowProgressTracker({ now: () => T0 });
		tracker.forecastWith(PLAN, TIMING);
		let most = 0;
		play(
			generate(6, reviews).map((call) => (call.outcome === "slow" ? { ...call, outcome: "ok" } : call)),
			(event) => tracker.updateFromProgressEvent(event),
			() => {
				const before = forecastReads.calls;
				tracker.getEnvelope();
				most = Math.max(most, forecastReads.calls - before);
			},
		);
		return most;
	}

	it("reads the calls that changed and the running ones, the same for a run of 1,000 calls as of 100", () => {
		const small = mostReadPerEnvelope(100);
		const large = mostReadPerEnvelope(1000);
		expect(large).toBe(small);
		// The call the event changed, and the four running at once: their snapshots (their clocks moved) and their
		// time left.
		expect(large).toBeLessThanOrEqual(1 + 2 * 4);
	});
});
