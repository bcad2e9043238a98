import type { Component } from "@earendil-works/pi-tui";
import { stripTerminalSequences } from "@earendil-works/pi-tui";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createWorkflowProgressTracker, type WorkflowProgressToolResult } from "../../src/progress/index.ts";
import {
	createWorkflowProgressUi,
	type WorkflowProgressUi,
	type WorkflowProgressUiContext,
} from "../../src/progress/ui.ts";
import { eventBuilder, META, T0 } from "./event-builder.ts";
import { darkTheme } from "./theme.ts";

type Disposable = Component & { dispose?(): void };
type WidgetCall = { key: string; content: string[] | "component" | undefined };

/** A stand-in for pi's `ctx.ui` that records calls and, like pi's TUI, builds and disposes component widgets. */
function fakeContext(mode: string, hasUI = true) {
	const widgetCalls: WidgetCall[] = [];
	const statusCalls: Array<{ key: string; text: string | undefined }> = [];
	const mounted = new Map<string, Disposable>();
	const requestRender = vi.fn();
	const theme = darkTheme();
	const setWidget = (key: string, content: unknown) => {
		mounted.get(key)?.dispose?.();
		mounted.delete(key);
		if (typeof content === "function") {
			const component = (content as (tui: unknown, theme: unknown) => Disposable)({ requestRender }, theme);
			mounted.set(key, component);
			widgetCalls.push({ key, content: "component" });
		} else {
			widgetCalls.push({ key, content: content as string[] | undefined });
		}
	};
	const ctx: WorkflowProgressUiContext = {
		hasUI,
		mode,
		ui: { setWidget, setStatus: (key, text) => statusCalls.push({ key, text }) },
	};
	return { ctx, widgetCalls, statusCalls, mounted, requestRender };
}

let controllers: WorkflowProgressUi[] = [];

beforeEach(() => {
	vi.useFakeTimers({ now: T0 });
});

afterEach(() => {
	for (const controller of controllers) controller.dispose();
	controllers = [];
	expect(vi.getTimerCount(), "timers left behind").toBe(0);
	vi.useRealTimers();
});

function setup(mode = "tui", hasUI = true, options: { widgetKey?: string; statusKey?: string } = {}) {
	const fake = fakeContext(mode, hasUI);
	const updates: WorkflowProgressToolResult[] = [];
	const controller = createWorkflowProgressUi(fake.ctx, { onUpdate: (partial) => updates.push(partial), ...options });
	controllers.push(controller);
	const tracker = createWorkflowProgressTracker({ now: () => T0 });
	// Events carry the fake clock's time, so the tracker and the throttle agree on "now".
	const run = eventBuilder(T0, (event) => {
		tracker.updateFromProgressEvent({ ...event, time: Date.now() });
		controller.update(tracker.getEnvelope());
	});
	return { ...fake, controller, tracker, run, updates };
}

describe("createWorkflowProgressUi: in the TUI", () => {
	it("mounts one themed component widget under the default key and sets the status line", () => {
		const { run, widgetCalls, statusCalls, mounted, updates } = setup();
		run.runStart(META);
		expect(widgetCalls).toEqual([{ key: "workflow-progress", content: "component" }]);
		expect(statusCalls).toEqual([{ key: "workflow", text: "workflow review-and-fix" }]);
		expect(updates).toHaveLength(1);
		expect(updates[0]?.content[0]?.text).toMatch(/^Workflow review-and-fix running/);
		const lines = mounted.get("workflow-progress")?.render(80) ?? [];
		expect(stripTerminalSequences(lines[0] ?? "")).toMatch(/review-and-fix/);

		vi.advanceTimersByTime(200);
		run.phaseStart("review");
		run.queued(0, "Review", { phase: "review" });
		vi.advanceTimersByTime(200);
		// Later envelopes go to the same component; pi is asked to redraw rather than given a new widget.
		expect(widgetCalls).toHaveLength(1);
		expect(statusCalls.at(-1)).toEqual({ key: "workflow", text: "workflow review-and-fix · review · 0/1 agents" });
	});

	it("uses the keys it is given", () => {
		const { run, widgetCalls, statusCalls } = setup("tui", true, { widgetKey: "my-widget", statusKey: "my-status" });
		run.runStart(META);
		expect(widgetCalls[0]?.key).toBe("my-widget");
		expect(statusCalls[0]?.key).toBe("my-status");
	});

	it("de-duplicates: an envelope whose only change is a clock sends nothing", () => {
		const { run, updates, statusCalls, requestRender } = setup();
		run.runStart(META);
		run.queued(0, "A");
		run.started(0);
		run.child(0, { activity: "thinking" });
		vi.advanceTimersByTime(500);
		const sent = updates.length;
		const statuses = statusCalls.length;
		const renders = requestRender.mock.calls.length;
		for (let i = 0; i < 5; i++) {
			vi.advanceTimersByTime(150);
			run.child(0, { activity: "thinking" });
		}
		vi.advanceTimersByTime(500);
		expect(updates).toHaveLength(sent);
		expect(statusCalls).toHaveLength(statuses);
		// Only the widget's own clock timer asked for redraws (every 100 ms), no envelope pushes.
		expect(requestRender.mock.calls.length - renders).toBe(12);
	});

	it("throttles to one flush per 100 ms, with a trailing flush carrying the last state", () => {
		const { run, updates } = setup();
		run.runStart(META);
		expect(updates).toHaveLength(1);
		for (let i = 0; i < 20; i++) run.queued(i, `Call ${i}`);
		expect(updates).toHaveLength(1);
		vi.advanceTimersByTime(99);
		expect(updates).toHaveLength(1);
		vi.advanceTimersByTime(1);
		expect(updates).toHaveLength(2);
		expect(updates[1]?.details.envelope.totals.agents.queued).toBe(20);

		// A steady stream of visible changes for one second: about ten flushes, never more than eleven.
		for (let i = 0; i < 100; i++) {
			vi.advanceTimersByTime(10);
			run.log(`step ${i}`);
		}
		vi.advanceTimersByTime(100);
		expect(updates.length - 2).toBeGreaterThanOrEqual(9);
		expect(updates.length - 2).toBeLessThanOrEqual(11);
		expect(updates.at(-1)?.details.envelope.logs.at(-1)?.message).toBe("step 99");
	});

	it("keeps finished phases' times frozen while the widget's clock runs", () => {
		const { run, mounted } = setup();
		run.runStart(META);
		run.phaseStart("review");
		vi.advanceTimersByTime(2500);
		run.phaseEnd("review");
		run.phaseStart("fix");
		vi.advanceTimersByTime(200);
		// Phase lines are indented under the header: "   <mark> <title> · <time>".
		const line = (title: string) =>
			(mounted.get("workflow-progress")?.render(100) ?? [])
				.map(stripTerminalSequences)
				.find((l) => l.startsWith(`   `) && l.slice(5).startsWith(`${title} `));
		expect(line("review")).toMatch(/2\.5s$/);
		expect(line("fix")).toMatch(/200ms$/);
		vi.advanceTimersByTime(10_000);
		expect(line("review")).toMatch(/2\.5s$/);
		expect(line("fix")).toMatch(/10\.2s$/);
	});

	it("remounts the widget if pi disposed it (another owner replaced the key)", () => {
		const { ctx, run, widgetCalls } = setup();
		run.runStart(META);
		ctx.ui.setWidget("workflow-progress", ["someone else"]);
		vi.advanceTimersByTime(200);
		run.log("again");
		expect(widgetCalls.map((c) => c.content)).toEqual(["component", ["someone else"], "component"]);
	});
});

describe("createWorkflowProgressUi: clearing", () => {
	it.each(["completed", "stopped", "failed"] as const)(
		"on a %s envelope: sends it at once, then clears widget and status and stops every timer",
		(status) => {
			const { run, updates, widgetCalls, statusCalls, mounted } = setup();
			run.runStart(META);
			run.queued(0, "A");
			const widget = mounted.get("workflow-progress");
			run.runEnd(status);
			expect(updates.at(-1)?.details.envelope.status).toBe(status);
			expect(widgetCalls.at(-1)).toEqual({ key: "workflow-progress", content: undefined });
			expect(statusCalls.at(-1)).toEqual({ key: "workflow", text: undefined });
			expect((widget as { disposed?: boolean } | undefined)?.disposed).toBe(true);
			expect(vi.getTimerCount()).toBe(0);
		},
	);

	it("on an error envelope from tracker.error(): clears as well", () => {
		const { controller, tracker, run, widgetCalls } = setup();
		run.runStart(META);
		controller.update(tracker.error(new Error("host failed")).envelope);
		expect(widgetCalls.at(-1)?.content).toBeUndefined();
		expect(vi.getTimerCount()).toBe(0);
	});

	it("clear(): removes widget and status, cancels a pending trailing flush and the widget's clock", () => {
		const { controller, run, updates, widgetCalls, statusCalls } = setup();
		run.runStart(META);
		run.log("pending");
		expect(vi.getTimerCount()).toBe(2);
		controller.clear();
		expect(vi.getTimerCount()).toBe(0);
		expect(widgetCalls.at(-1)?.content).toBeUndefined();
		expect(statusCalls.at(-1)?.text).toBeUndefined();
		vi.advanceTimersByTime(1000);
		expect(updates).toHaveLength(1);
	});

	it("dispose(): later updates are ignored", () => {
		const { controller, run, updates, widgetCalls } = setup();
		controller.dispose();
		run.runStart(META);
		expect(updates).toHaveLength(0);
		expect(widgetCalls).toHaveLength(0);
	});
});

describe("createWorkflowProgressUi: without component widgets", () => {
	it("in RPC mode: plain string lines, at most 10, never a component", () => {
		const { run, widgetCalls } = setup("rpc");
		run.runStart({ ...META, phases: Array.from({ length: 8 }, (_, i) => ({ title: `phase ${i}` })) });
		for (let i = 0; i < 8; i++) {
			run.queued(i, `Call ${i}`);
			run.started(i);
			run.failed(i, `broke ${i}`);
		}
		vi.advanceTimersByTime(100);
		const last = widgetCalls.at(-1)?.content;
		expect(Array.isArray(last)).toBe(true);
		const lines = last as string[];
		expect(lines.length).toBeLessThanOrEqual(10);
		expect(lines[0]).toMatch(/^\S review-and-fix · 0\/8 agents · \S+$/);
		expect(lines.join("\n")).not.toContain("\u001b[");
		expect(widgetCalls.every((call) => call.content !== "component")).toBe(true);
	});

	it("without a UI (print mode): only onUpdate is called", () => {
		const { run, widgetCalls, statusCalls, updates } = setup("print", false);
		run.runStart(META);
		run.runEnd("completed", { result: { ok: true } });
		expect(widgetCalls).toEqual([]);
		expect(statusCalls).toEqual([]);
		expect(updates.map((u) => u.details.envelope.status)).toEqual(["running", "completed"]);
	});
});

describe("createWorkflowProgressUi: errors", () => {
	it("an onUpdate that throws during a trailing flush goes to onError instead of escaping a timer", () => {
		const { ctx } = fakeContext("tui");
		const onError = vi.fn();
		let calls = 0;
		const controller = createWorkflowProgressUi(ctx, {
			onUpdate: () => {
				calls++;
				if (calls === 2) throw new Error("listener broke");
			},
			onError,
		});
		controllers.push(controller);
		const tracker = createWorkflowProgressTracker({ now: () => T0 });
		const run = eventBuilder(T0, (event) => {
			tracker.updateFromProgressEvent(event);
			controller.update(tracker.getEnvelope());
		});
		run.runStart(META);
		run.log("second");
		vi.advanceTimersByTime(100);
		expect(onError).toHaveBeenCalledWith(new Error("listener broke"));
	});
});
