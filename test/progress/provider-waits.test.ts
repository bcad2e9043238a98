/**
 * What people see of a provider wait and a fallback model: the envelope (tracker), the progress text, the widget
 * with its live countdown, and the status line.
 */
import { stripTerminalSequences, visibleWidth } from "@earendil-works/pi-tui";
import { describe, expect, it } from "vitest";
import { summarizeWorkflowProgress } from "../../src/progress/format.ts";
import { createWorkflowProgressTracker, formatWorkflowProgress } from "../../src/progress/index.ts";
import { createWorkflowProgressUi } from "../../src/progress/ui.ts";
import { WorkflowProgressWidget, widgetLines } from "../../src/progress/widget.ts";
import { eventBuilder, T0 } from "./event-builder.ts";
import { darkTheme } from "./theme.ts";

const META = { name: "fixes", description: "d" };

/** Two calls: #1 met a rate limit 2 s in, #2 waits behind it. */
function waiting() {
	const tracker = createWorkflowProgressTracker({ now: () => T0 });
	const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
	run.runStart(META);
	run.queued(0, "fix a");
	run.queued(1, "fix b");
	run.started(0);
	run.tick(2000).child(0, { status: "failed", error: "429" });
	run.waitStarted(40_000, { index: 0 });
	return { tracker, run };
}

const plain = (text: string) => stripTerminalSequences(text);

describe("provider waits in progress", () => {
	it("the envelope holds the wait in force and the run's totals; the waiting call says so", () => {
		const { tracker, run } = waiting();
		const envelope = tracker.getEnvelope();
		expect(envelope.providerWait).toEqual({
			kind: "rate_limit",
			message: '429 {"type":"error","error":{"type":"rate_limit_error"}}',
			since: T0 + 2000,
			until: T0 + 42_000,
			label: "fix a",
		});
		expect(envelope.providerWaits).toEqual({ count: 1, totalMs: 40_000, maxMs: 1_800_000 });
		expect(envelope.agentCalls[0]).toMatchObject({
			status: "running",
			activity: "waiting",
			activityText: "for the provider, rate limited",
		});
		run.tick(40_000).waitEnded(40_000);
		expect(tracker.getEnvelope().providerWait).toBeUndefined();
		expect(tracker.getEnvelope().providerWaits).toEqual({ count: 1, totalMs: 40_000, maxMs: 1_800_000 });
	});

	it("a lengthened wait stays one wait, from its first start", () => {
		const { tracker, run } = waiting();
		run.tick(1000).waitStarted(60_000, { lengthened: true, totalWaitMs: 61_000 });
		expect(tracker.getEnvelope().providerWait).toMatchObject({ since: T0 + 2000, until: T0 + 63_000 });
		expect(tracker.getEnvelope().providerWaits).toMatchObject({ count: 1, totalMs: 61_000 });
	});

	it("the progress text and the summary say the run waits, and until when", () => {
		const { tracker } = waiting();
		const envelope = tracker.getEnvelope();
		const text = formatWorkflowProgress(envelope, { now: T0 + 12_000 });
		expect(text.split("\n").slice(0, 3)).toEqual([
			"Workflow fixes: running · 12.0s",
			'Waiting for the provider: rate limited, next try in 30.0s (429 {"type":"error","error":{"type":"rate_limit_error"}})',
			"Agents: 2 (1 running, 1 queued)",
		]);
		expect(text).toContain("Provider waits: 1, 40.0s in all of at most 30m 00s");
		expect(text).toContain("#1 fix a (general-purpose) · waiting, for the provider, rate limited");
		expect(summarizeWorkflowProgress(envelope)).toBe(
			"Workflow fixes running for 2.0s: 2 agents (1 running, 1 queued); waiting for the provider: rate limited, next try in 40.0s",
		);
	});

	it("the widget shows the wait under its header, with a countdown that moves, fitted to the width", () => {
		const { tracker } = waiting();
		const envelope = tracker.getEnvelope();
		const at = (now: number, width = 80) =>
			widgetLines(envelope, now, (_style, text) => text, width).map((line) => plain(line));
		expect(at(T0 + 2000, 200)[1]).toBe(
			'  ⏸ waiting for the provider: rate limited, next try in 40.0s · 429 {"type":"error","error":{"type":"rate_limit_error"}}',
		);
		expect(at(T0 + 32_000)[1]).toMatch(/^ {2}⏸ waiting for the provider: rate limited, next try in 10\.0s/);
		// Narrower: the message goes first, and the component cuts what still does not fit.
		expect(at(T0 + 2000, 70)[1]).toBe("  ⏸ waiting for the provider: rate limited, next try in 40.0s");
		const widget = new WorkflowProgressWidget({ requestRender: () => {} }, darkTheme(), envelope, {
			now: () => T0 + 2000,
		});
		try {
			for (const line of widget.render(50)) expect(visibleWidth(line)).toBeLessThanOrEqual(50);
		} finally {
			widget.dispose();
		}
	});

	it("the status line says the run waits for the provider", () => {
		const { tracker } = waiting();
		const statuses: (string | undefined)[] = [];
		const ui = createWorkflowProgressUi(
			{
				hasUI: true,
				mode: "rpc",
				ui: { setWidget: () => {}, setStatus: (_key, text) => statuses.push(text) },
			},
			{ throttleMs: 0 },
		);
		ui.update(tracker.getEnvelope());
		ui.dispose();
		expect(statuses[0]).toBe(
			"workflow fixes · 0/2 agents · 1 running · waiting for the provider: rate limited, next try in 40.0s",
		);
	});

	it("a call on a fallback model shows the model answering, in the text and the widget", () => {
		const tracker = createWorkflowProgressTracker({ now: () => T0 });
		const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
		run.runStart(META);
		run.queued(0, "fix a");
		run.started(0);
		run.child(0, { status: "starting", model: "faux/faux-1" });
		run.tick(100).child(0, { status: "active", model: "faux/faux-2", fallbackFrom: ["faux/faux-1"] });
		const envelope = tracker.getEnvelope();
		expect(envelope.agentCalls[0]).toMatchObject({ model: "faux/faux-2", fallbackFrom: ["faux/faux-1"] });
		const lines = widgetLines(envelope, T0 + 100, (_style, text) => text, 120).map(plain);
		expect(lines[1]).toContain("on faux/faux-2");
		expect(formatWorkflowProgress(envelope)).toContain("· on faux/faux-2 after faux/faux-1 met a provider limit");
	});
});
