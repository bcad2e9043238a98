/**
 * Costs where tokens are shown: the progress text (run, phase with its cap, each call with its model, a replay's
 * saving, unknown prices), the one-line summary, the widget (`$0.42`, kept when the line must shrink) and the
 * status line's signature, from hand-built event streams.
 */
import { visibleWidth } from "@earendil-works/pi-tui";
import { describe, expect, it } from "vitest";
import { formatCost, formatUsd } from "../../src/progress/cost-text.ts";
import {
	createWorkflowProgressTracker,
	formatWorkflowProgress,
	summarizeWorkflowProgress,
} from "../../src/progress/index.ts";
import { visibleSignature } from "../../src/progress/ui.ts";
import { widgetLines } from "../../src/progress/widget.ts";
import { eventBuilder, META, T0 } from "./event-builder.ts";

const plainPaint = (_style: string, text: string) => text;

/** A resumed run under a $1 cap: one call replayed, one on a priced model, one on a model with no price. */
function costedRun() {
	const tracker = createWorkflowProgressTracker({ now: () => T0 });
	const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
	run.runStart(META, 1);
	run.phaseStart("review", undefined, { costUsd: 0.5 });
	run.queued(0, "Review the diff", { phase: "review" });
	run.finished(0, "3 findings", { tokens: 9000, cost: { usd: 0.03 }, model: "anthropic/claude-sonnet", cached: true });
	run.queued(1, "Second look", { phase: "review" });
	run.started(1);
	run.tick(2000).finished(1, "fine", { tokens: 12_000, cost: { usd: 0.42 }, model: "anthropic/claude-sonnet" });
	run.phaseEnd("review");
	run.phaseStart("fix");
	run.queued(2, "Fix finding 1", { phase: "fix" });
	run.started(2);
	run.tick(1500).child(2, { model: "local/llama", tokens: 3000, cost: { usd: 0, unpriced: 2 } });
	return { tracker, run };
}

describe("cost text", () => {
	it.each([
		[0, "$0.00"],
		[12.3, "$12.30"],
		[0.42, "$0.42"],
		[0.0146, "$0.015"],
		[0.00151875, "$0.0015"],
		[0.00004, "<$0.0001"],
	])("formatUsd(%d) is %s", (usd, text) => {
		expect(formatUsd(usd)).toBe(text);
	});

	it("a cost with an unknown part says so, and one with nothing known is unknown, never $0", () => {
		expect(formatCost({ usd: 0.42, unpriced: 1 })).toBe("$0.42 + unknown");
		expect(formatCost({ usd: 0, unpriced: 3 })).toBe("unknown");
		expect(formatCost({ usd: 0 })).toBe("$0.00");
	});

	it("the progress text: the run's cost and cap, each phase's, each call's with its model, a replay's saving", () => {
		const { tracker } = costedRun();
		const text = formatWorkflowProgress(tracker.getEnvelope());
		const lines = text.split("\n");
		expect(lines).toContain(
			"Cost: $0.42 + unknown of a $1.00 cap (estimated from catalog prices); 2 replies of models with no known price; replayed calls saved $0.03 (what they cost when they ran); with them, the record's calls cost $0.45 + unknown",
		);
		expect(lines).toContain("  ✓ review: 2 completed · 2.0s · $0.42 of $0.50");
		expect(lines).toContain("  ▸ fix: 1 running · 1.5s · cost unknown");
		expect(lines).toContain(
			"  ✓ #1 Review the diff (general-purpose) · replayed, saved $0.03 · anthropic/claude-sonnet · 9.0k tokens",
		);
		expect(lines).toContain(
			"  ✓ #2 Second look (general-purpose) · completed · anthropic/claude-sonnet · 12.0k tokens · $0.42 · 2.0s",
		);
		expect(lines).toContain(
			"  ▸ #3 Fix finding 1 (general-purpose) · active · local/llama · 3.0k tokens · cost unknown · 1.5s",
		);
	});

	it("the summary: what the run spent, and what its replays saved", () => {
		const { tracker, run } = costedRun();
		run.tick(500).finished(2, "fixed", { tokens: 3000, cost: { usd: 0, unpriced: 2 }, model: "local/llama" });
		const envelope = tracker.complete({
			status: "completed",
			failures: [],
			counts: { calls: 3, started: 3, completed: 3, failed: 0, skipped: 0 },
			usage: { input: 0, output: 24_000, total: 24_000 },
			cost: { usd: 0.42, unpriced: 2 },
			replayedCost: { usd: 0.03 },
			droppedLogs: 0,
			durationMs: 4000,
		}).envelope;
		expect(summarizeWorkflowProgress(envelope)).toBe(
			"Workflow review-and-fix completed in 4.0s: 3 agents: 1 replayed from the journal, 2 ran (2 completed), 24.0k tokens, $0.42 + unknown (replayed calls saved $0.03)",
		);
	});

	it("a replay of unknown price saves nothing worth a word: no 'saved unknown' on the call, the Cost line or the summary", () => {
		const tracker = createWorkflowProgressTracker({ now: () => T0 });
		const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
		run.runStart(META, 1);
		run.queued(0, "Review the diff");
		run.finished(0, "3 findings", {
			tokens: 9000,
			cost: { usd: 0, unpriced: 1 },
			model: "local/llama",
			cached: true,
		});
		run.queued(1, "Second look");
		run.started(1);
		run.tick(100).finished(1, "fine", { tokens: 10, cost: { usd: 0, unpriced: 1 }, model: "local/llama" });
		const envelope = tracker.complete({
			status: "completed",
			failures: [],
			counts: { calls: 2, started: 2, completed: 2, failed: 0, skipped: 0, replayed: 1 },
			usage: { input: 0, output: 9010, total: 9010 },
			cost: { usd: 0, unpriced: 1 },
			replayedCost: { usd: 0, unpriced: 1 },
			droppedLogs: 0,
			durationMs: 100,
		}).envelope;
		const text = `${formatWorkflowProgress(envelope)}\n${summarizeWorkflowProgress(envelope)}`;
		expect(text).not.toContain("saved");
		expect(text).toContain("  ✓ #1 Review the diff (general-purpose) · replayed · local/llama · 9.0k tokens");
		expect(text).toContain("Cost: unknown of a $1.00 cap; 1 reply of models with no known price\n");
		expect(summarizeWorkflowProgress(envelope)).toMatch(/, cost unknown$/);
	});

	it("a run with no cost at all shows none: no Cost line, nothing on the calls", () => {
		const tracker = createWorkflowProgressTracker({ now: () => T0 });
		const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
		run.runStart(META);
		run.queued(0, "A");
		run.started(0);
		run.tick(100).finished(0, "ok", { tokens: 10 });
		const text = formatWorkflowProgress(tracker.getEnvelope());
		expect(text).not.toContain("Cost");
		expect(text).not.toContain("$");
	});
});

describe("cost in the widget", () => {
	it("the header, the phases and the running call show dollars; every line fits its width", () => {
		const { tracker, run } = costedRun();
		const envelope = tracker.getEnvelope();
		const lines = widgetLines(envelope, run.time, plainPaint, 100);
		expect(lines[0]).toContain("$0.42 + unknown of $1.00");
		expect(lines.find((line) => line.trimStart().startsWith("✓ review"))).toContain("$0.42 of $0.50");
		expect(lines.find((line) => line.includes("#3 Fix finding 1"))).toContain("unknown");
		for (const width of [100, 60, 40]) {
			for (const line of widgetLines(envelope, run.time, plainPaint, width)) {
				expect(visibleWidth(line), line).toBeLessThanOrEqual(width);
			}
		}
	});

	it("a narrow header drops the tokens before the dollars", () => {
		const { tracker, run } = costedRun();
		const header = widgetLines(tracker.getEnvelope(), run.time, plainPaint, 62)[0] ?? "";
		expect(header).toContain("$0.42");
		expect(header).not.toContain("tok");
	});

	it("a new cost on a running call changes what the widget and status show", () => {
		const { tracker, run } = costedRun();
		const before = visibleSignature(tracker.getEnvelope());
		run.tick(10).child(2, { model: "local/llama", tokens: 3000, cost: { usd: 0.01, unpriced: 2 } });
		expect(visibleSignature(tracker.getEnvelope())).not.toBe(before);
	});
});
