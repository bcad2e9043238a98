/**
 * Progress against the plan as a person sees it: the widget's header and phases ("3 of ~9 agents", "~N min left" or
 * "time left: not known yet"), the progress text the CLI and `/workflows` show, and the slow mark a running call
 * earns on its own clock ("slower than usual: 6 min, usually ~1 min").
 */
import { visibleWidth } from "@earendil-works/pi-tui";
import { describe, expect, it } from "vitest";
import type { ProgressPlan, ProgressTiming } from "../../src/progress/forecast.ts";
import { roughDuration } from "../../src/progress/forecast-text.ts";
import { createWorkflowProgressTracker, formatWorkflowProgress } from "../../src/progress/index.ts";
import { visibleSignature } from "../../src/progress/ui.ts";
import { widgetLines } from "../../src/progress/widget.ts";
import { eventBuilder, T0 } from "./event-builder.ts";

const META = { name: "sweep", description: "read then sum", phases: [{ title: "read" }, { title: "sum" }] };
const PLAN: ProgressPlan = {
	calls: [
		{ phase: "read", label: "read file", agentType: "scout", count: 8 },
		{ phase: "sum", label: "summarize", agentType: "general-purpose", count: 1 },
	],
};
const MINUTE = 60_000;
const TIMING: ProgressTiming = {
	calls: [
		{ workflow: "sweep", phase: "read", label: "read file", agentType: "scout", durationMs: MINUTE },
		{ workflow: "sweep", phase: "sum", label: "summarize", agentType: "general-purpose", durationMs: 2 * MINUTE },
	],
	phases: [{ workflow: "sweep", phase: "read", concurrency: 4 }],
	runs: [{ workflow: "sweep", durationMs: 4 * MINUTE }],
};

const plain = (_style: string, text: string) => text;

/** A run three reads in: two done, one running since the last event. */
function midRun(timing: ProgressTiming | undefined) {
	const tracker = createWorkflowProgressTracker({ now: () => T0 });
	tracker.forecastWith(PLAN, timing);
	const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
	run.runStart(META);
	run.phaseStart("read");
	for (const i of [0, 1, 2]) {
		run.queued(i, "read file", { phase: "read", agentType: "scout" });
		run.started(i);
	}
	run.tick(MINUTE);
	run.finished(0, "ok");
	run.finished(1, "ok");
	return { tracker, run };
}

describe("roughDuration", () => {
	it.each([
		[400, "1 s"],
		[40_000, "40 s"],
		[4 * MINUTE + 10_000, "4 min"],
		[80 * MINUTE, "1 h 20 min"],
		[120 * MINUTE, "2 h"],
	])("%i ms is %s", (ms, text) => {
		expect(roughDuration(ms)).toBe(text);
	});
});

describe("progress against the plan, shown", () => {
	it("the widget: calls done of expected in the header and per phase, and time left from this workflow's runs", () => {
		const { tracker } = midRun(TIMING);
		const envelope = tracker.getEnvelope();
		const lines = widgetLines(envelope, envelope.updatedAt, plain, 200);
		// Left: 5 unstarted reads (1 min each, 4 at once: 1.25 min; the running one has had its minute), then the
		// 2 min summary: 3.25 min.
		expect(lines[0]).toContain("2 of ~9 agents · ~3 min left");
		expect(lines[1]).toContain("read · 2 of ~8");
		expect(lines[2]).toContain("sum · 0 of ~1");
		// Two minutes later, with no event since, the clock takes them off.
		expect(widgetLines(envelope, envelope.updatedAt + 2 * MINUTE, plain, 200)[0]).toContain("~1 min left");
		for (const width of [30, 60, 90]) {
			for (const line of widgetLines(envelope, envelope.updatedAt, plain, width))
				expect(visibleWidth(line), line).toBeLessThanOrEqual(width);
		}
	});

	it("no history: 'time left: not known yet', never a figure; the text view says so too", () => {
		const { tracker } = midRun(undefined);
		const envelope = tracker.getEnvelope();
		expect(widgetLines(envelope, envelope.updatedAt, plain, 200)[0]).toContain(
			"2 of ~9 agents · time left: not known yet",
		);
		expect(formatWorkflowProgress(envelope, { now: envelope.updatedAt })).toContain(
			"Progress: 2 of ~9 calls (22%) · time left: not known yet",
		);
	});

	it("the text view: the fraction, time left and its basis, and each phase against its plan", () => {
		const { tracker } = midRun(TIMING);
		const envelope = tracker.getEnvelope();
		const text = formatWorkflowProgress(envelope, { now: envelope.updatedAt });
		expect(text).toContain("Progress: 2 of ~9 calls (22%) · ~3 min left (from this workflow's earlier runs)");
		expect(text).toContain("read: 1 running, 2 completed · 2 of ~8 · 1m 00s");
	});

	it("a running call past 5× its usual minute is marked slow on its own clock, in the widget and the text", () => {
		const { tracker } = midRun(TIMING);
		const envelope = tracker.getEnvelope();
		const later = envelope.updatedAt + 5 * MINUTE + 1000;
		const widget = widgetLines(envelope, later, plain, 200).join("\n");
		expect(widget).toContain("#3 read file");
		expect(widget).toContain("slower than usual: 6 min, usually ~1 min");
		expect(formatWorkflowProgress(envelope, { now: later })).toContain(
			"read file (scout) · running · 6m 01s · slower than usual: 6 min, usually ~1 min",
		);
		// Before 5×, no mark.
		expect(widgetLines(envelope, envelope.updatedAt + 3 * MINUTE, plain, 200).join("\n")).not.toContain("slower");
	});

	it("a plan that arrives with no event since changes what the widget draws, so pi is sent the update", () => {
		const tracker = createWorkflowProgressTracker({ now: () => T0 });
		const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
		run.runStart(META);
		run.phaseStart("read");
		run.queued(0, "read file", { phase: "read", agentType: "scout" });
		run.started(0);
		const before = visibleSignature(tracker.getEnvelope());
		tracker.forecastWith(PLAN, undefined);
		expect(visibleSignature(tracker.getEnvelope())).not.toBe(before);
	});
});
