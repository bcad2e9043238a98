import { Container, stripTerminalSequences, visibleWidth } from "@earendil-works/pi-tui";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createWorkflowProgressTracker, type WorkflowProgressEnvelope } from "../../src/progress/index.ts";
import { STAR_FRAMES, WorkflowProgressWidget } from "../../src/progress/widget.ts";
import { controlsIn, HOSTILE, HOSTILE_BLOCK, HOSTILE_LINE, unpainted } from "../helpers/controls.ts";
import { eventBuilder, META, T0 } from "./event-builder.ts";
import { darkTheme } from "./theme.ts";

const theme = darkTheme();
const widgets: WorkflowProgressWidget[] = [];

afterEach(() => {
	for (const widget of widgets.splice(0)) widget.dispose();
	vi.useRealTimers();
});

function makeWidget(envelope: WorkflowProgressEnvelope, now: () => number, tui = { requestRender: () => {} }) {
	const widget = new WorkflowProgressWidget(tui, theme, envelope, { now });
	widgets.push(widget);
	return widget;
}

/** Renders through a real pi-tui container, as pi's widget area does. */
function renderLines(widget: WorkflowProgressWidget, width: number): string[] {
	const container = new Container();
	container.addChild(widget);
	return [...container.render(width)];
}

const plain = (lines: string[]) => lines.map((line) => stripTerminalSequences(line));

/** The review-and-fix run in the middle of its fix phase, at T0 + 14.1 s. */
function midRun() {
	const tracker = createWorkflowProgressTracker({ now: () => T0 });
	const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
	run.runStart(META);
	run.phaseStart("review");
	run.queued(0, "Review the diff", { phase: "review", agentType: "reviewer" });
	run.started(0);
	run.tick(12_100).finished(0, "3 findings", { tokens: 33_800, toolUses: 5 });
	run.phaseEnd("review");
	run.phaseStart("fix", undefined);
	for (let i = 1; i <= 12; i++) run.queued(i, `Fix finding ${i}`, { phase: "fix" });
	for (let i = 1; i <= 5; i++) run.started(i);
	run.tick(2000).finished(1, "fixed", { tokens: 1000, toolUses: 2 });
	run.failed(2, "provider error 500: overloaded");
	run.child(3, { activity: "editing 2 files…", tokens: 12_400, toolUses: 3 });
	run.child(4, { status: "stalled", activity: "waiting on bash", tokens: 400 });
	run.log("finding 2 failed", "warn");
	return { tracker, run };
}

/** 500 calls: 100 done, 3 failed, 6 running, the rest queued. */
function bigRun() {
	const tracker = createWorkflowProgressTracker({ now: () => T0 });
	const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
	run.runStart(META);
	run.phaseStart("fix");
	for (let i = 0; i < 500; i++) run.queued(i, `Fix item ${i}`, { phase: "fix" });
	for (let i = 0; i < 103; i++) {
		run.started(i);
		if (i < 100) run.tick(10).finished(i, "ok", { tokens: 100 });
		else run.tick(10).failed(i, `item ${i} broke`);
	}
	for (let i = 103; i < 109; i++) run.started(i);
	return tracker.getEnvelope();
}

describe("WorkflowProgressWidget.render", () => {
	it.each([40, 80, 120])(
		"at width %i: no line is wider, and the name, phases and running agents are visible",
		(width) => {
			const envelope = midRun().tracker.getEnvelope();
			const widget = makeWidget(envelope, () => envelope.updatedAt + 3000);
			const lines = renderLines(widget, width);
			for (const line of lines) expect(visibleWidth(line), JSON.stringify(line)).toBeLessThanOrEqual(width);
			const text = plain(lines).join("\n");
			expect(text).toContain("review-and-fix");
			for (const phase of ["review", "fix", "verify"])
				expect(text).toMatch(new RegExp(`[✓✗○${STAR_FRAMES.join("")}] ${phase}`));
			for (const label of ["Fix finding 3", "Fix finding 4", "Fix finding 5"]) expect(text).toContain(label);
			expect(text).toContain("provider er");
		},
	);

	it("at width 80: running agents show their activity, usage and live elapsed time", () => {
		const envelope = midRun().tracker.getEnvelope();
		const widget = makeWidget(envelope, () => envelope.updatedAt + 3000);
		const text = plain(renderLines(widget, 80));
		expect(text.find((line) => line.includes("Fix finding 3"))).toMatch(
			/#4 Fix finding 3 · active, editing 2 files… · idle 3\.0s · 12\.4k tok · 5\.0s$/,
		);
		expect(text.find((line) => line.includes("Fix finding 4"))).toMatch(
			/stalled, waiting on bash · idle 3\.0s · 400 tok · 5\.0s$/,
		);
		expect(text[0]).toMatch(/review-and-fix · fix · 2\/13 agents · 47\.6k tok · 17\.1s$/);
	});

	it("shows each running child's activity state and how long it has been idle; stalled and paused in the warning colour", () => {
		const tracker = createWorkflowProgressTracker({ now: () => T0 });
		const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
		run.runStart(META);
		const states = [
			["starting", "starting"],
			["stalled", "waiting for the model"],
			["quiet", "running npm test"],
			["paused", "waiting for a message"],
			["active", "writing"],
		] as const;
		for (const [index, [status]] of states.entries()) {
			run.queued(index, `child ${status}`);
			run.started(index);
		}
		// Each child last spoke 20 s after the one before it; the widget is drawn 0.5 s after the last.
		for (const [index, [status, activity]] of states.entries()) {
			run.child(index, { status, activity });
			run.tick(20_000);
		}
		const envelope = tracker.getEnvelope();
		const now = run.time - 20_000 + 500;
		const lines = renderLines(
			makeWidget(envelope, () => now),
			120,
		);
		const line = (status: string) => plain(lines).find((text) => text.includes(`child ${status}`)) ?? "";
		expect(line("starting")).toMatch(/#1 child starting · general-purpose · starting · idle 1m 20s · /);
		expect(line("stalled")).toMatch(
			/#2 child stalled · general-purpose · stalled, waiting for the model · idle 1m 00s · /,
		);
		expect(line("quiet")).toMatch(/#3 child quiet · general-purpose · quiet, running npm test · idle 40\.5s · /);
		expect(line("paused")).toMatch(
			/#4 child paused · general-purpose · paused, waiting for a message · idle 20\.5s · /,
		);
		// Half a second since its last activity: busy, not idle.
		expect(line("active")).toMatch(/#5 child active · general-purpose · active, writing · \d/);
		expect(line("active")).not.toContain("idle");
		const raw = (status: string) => lines.find((text) => text.includes(`child ${status}`)) ?? "";
		expect(raw("stalled")).toContain(theme.fg("warning", "stalled, waiting for the model"));
		expect(raw("paused")).toContain(theme.fg("warning", "idle 20.5s"));
		expect(raw("active")).toContain(theme.fg("success", "active, writing"));
	});

	it("uses the theme's colours (success for done, error for failed, accent for the spinner)", () => {
		const envelope = midRun().tracker.getEnvelope();
		const lines = renderLines(
			makeWidget(envelope, () => envelope.updatedAt),
			120,
		);
		const review = lines.find((line) => stripTerminalSequences(line).includes("✓ review")) ?? "";
		expect(review).toContain(theme.fg("success", "✓"));
		expect(lines.join("\n")).toContain(theme.fg("error", "✗"));
		expect(lines[0]).toContain(theme.getFgAnsi("accent"));
	});

	it.each([40, 80, 120])("with 500 agents at width %i: five running lines and one collapsed count line", (width) => {
		const envelope = bigRun();
		const lines = plain(
			renderLines(
				makeWidget(envelope, () => envelope.updatedAt),
				width,
			),
		);
		for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(width);
		expect(
			lines.filter((line) => /^ {3}\S #10[4-9] Fix item 10[3-8]\b/.test(line) && !line.includes("✗")),
		).toHaveLength(5);
		const collapsed = "   … 1 more running · 391 queued · 100 done · 3 failed";
		if (width >= 80) expect(lines).toContain(collapsed);
		else expect(lines.find((line) => line.startsWith("   … 1 more running"))).toBeDefined();
		expect(lines.length).toBeLessThanOrEqual(14);
	});

	it("with more phases than fit: keeps the running one and collapses the rest into a count", () => {
		const tracker = createWorkflowProgressTracker({ now: () => T0 });
		const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
		run.runStart({
			name: "many",
			description: "d",
			phases: Array.from({ length: 10 }, (_, i) => ({ title: `p${i}` })),
		});
		for (let i = 0; i < 9; i++) {
			run.phaseStart(`p${i}`);
			run.tick(10).phaseEnd(`p${i}`);
		}
		run.phaseStart("p9");
		const lines = plain(
			renderLines(
				makeWidget(tracker.getEnvelope(), () => T0),
				80,
			),
		);
		expect(lines.some((line) => line.includes(" p9"))).toBe(true);
		expect(lines).toContain("   … 5 more phases");
	});

	it("freezes finished phases and calls while running ones keep counting", () => {
		const envelope = midRun().tracker.getEnvelope();
		let now = envelope.updatedAt;
		const widget = makeWidget(envelope, () => now);
		const at = (time: number) => {
			now = time;
			return plain(renderLines(widget, 120));
		};
		const first = at(envelope.updatedAt + 1000);
		const later = at(envelope.updatedAt + 61_000);
		const line = (lines: string[], text: string) => lines.find((l) => l.includes(text));
		expect(line(first, "✓ review")).toMatch(/12\.1s$/);
		expect(line(later, "✓ review")).toMatch(/12\.1s$/);
		expect(line(first, "Fix finding 3")).toMatch(/3\.0s$/);
		expect(line(later, "Fix finding 3")).toMatch(/1m 03s$/);
		expect(later[0]).toMatch(/1m 15s$/);
	});

	it("once the run has ended: the header shows the outcome and the clock stops", () => {
		const { tracker, run } = midRun();
		run.tick(500).runEnd("completed", { result: 1 });
		const envelope = tracker.getEnvelope();
		let now = envelope.updatedAt;
		const widget = makeWidget(envelope, () => now);
		const first = plain(renderLines(widget, 80))[0];
		now += 60_000;
		expect(plain(renderLines(widget, 80))[0]).toBe(first);
		expect(first).toMatch(/^ ✓ review-and-fix · completed · .* 14\.6s$/);
	});

	it("animates the star spinner every 100 ms", () => {
		const envelope = midRun().tracker.getEnvelope();
		let now = 0;
		const widget = makeWidget(envelope, () => now);
		const frame = () => plain(renderLines(widget, 80))[0]?.slice(1, 2);
		const frames = new Set<string | undefined>();
		for (let i = 0; i < STAR_FRAMES.length; i++) {
			now = i * 100;
			frames.add(frame());
		}
		expect([...frames].sort()).toEqual([...new Set(STAR_FRAMES)].sort());
	});
});

describe("WorkflowProgressWidget timers", () => {
	it("asks the TUI to redraw every 100 ms while running, and stops when the run ends or on dispose", () => {
		vi.useFakeTimers();
		const { tracker, run } = midRun();
		const requestRender = vi.fn();
		const widget = makeWidget(tracker.getEnvelope(), Date.now, { requestRender });
		expect(vi.getTimerCount()).toBe(1);
		vi.advanceTimersByTime(350);
		expect(requestRender).toHaveBeenCalledTimes(3);

		run.runEnd("completed");
		widget.setEnvelope(tracker.getEnvelope());
		expect(vi.getTimerCount()).toBe(0);
		widget.setEnvelope(tracker.getEnvelope("running"));
		expect(vi.getTimerCount()).toBe(1);
		widget.dispose();
		expect(vi.getTimerCount()).toBe(0);
		expect(widget.disposed).toBe(true);
		const calls = requestRender.mock.calls.length;
		widget.setEnvelope(tracker.getEnvelope("running"));
		vi.advanceTimersByTime(500);
		expect(requestRender).toHaveBeenCalledTimes(calls);
	});
});

describe("WorkflowProgressWidget: what a script wrote is shown visible", () => {
	const bad = HOSTILE;

	/** A run whose phase, labels, question, failure and log all carry escapes, waiting on its question. */
	function hostileRun() {
		const tracker = createWorkflowProgressTracker({ now: () => T0 });
		const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
		run.runStart(META);
		run.phaseStart(`phase${bad}`);
		run.queued(0, `label${bad}`, { phase: `phase${bad}` });
		run.queued(1, `other${bad}`, { phase: `phase${bad}` });
		run.started(0);
		run.started(1);
		run.failed(1, `cause${bad}`);
		run.log(`log${bad}`, "warn");
		tracker.updateFromProgressEvent({
			type: "ask_started",
			time: T0,
			key: "ask#0",
			index: 0,
			question: `Delete the production database?${bad}`,
			choices: [`yes${bad}`, "no"],
		});
		return tracker.getEnvelope();
	}

	it("its lines carry the theme's colours and nothing of the script's escapes: ^[ and ^G instead", () => {
		const widget = makeWidget(hostileRun(), () => T0 + 1000);
		const lines = renderLines(widget, 300);
		// The theme's colours are its own escapes; anything else would be the script's.
		const text = lines.map(unpainted).join("\n");
		expect(controlsIn(text)).toEqual([]);
		const shown = HOSTILE_LINE;
		expect(text).toContain(`? Waiting for you: Delete the production database?${shown} (yes${HOSTILE_BLOCK} / no)`);
		expect(text).toContain(`phase${shown}`);
		expect(text).toContain(`#1 label${shown}`);
		expect(text).toContain(`other${shown}: cause${shown}`);
		expect(text).toContain(`› log${shown}`);
		for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(300);
		// Cut to a narrow width, the visible forms count as the characters they are.
		for (const line of renderLines(widget, 40)) expect(visibleWidth(line)).toBeLessThanOrEqual(40);
	});
});
