import { describe, expect, it } from "vitest";
import { formatDuration, formatTokens } from "../../src/progress/format.ts";
import {
	createWorkflowProgressTracker,
	formatWorkflowProgress,
	summarizeWorkflowProgress,
} from "../../src/progress/index.ts";
import { visibleText } from "../../src/progress/visible-text.ts";
import { eventBuilder, META, T0 } from "./event-builder.ts";

function tracked() {
	const tracker = createWorkflowProgressTracker({ now: () => T0 });
	const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
	run.runStart(META);
	return { tracker, run };
}

describe("formatWorkflowProgress", () => {
	it("a small run: every call on its own line, phases with counts and times, failures with causes, recent log", () => {
		const { tracker, run } = tracked();
		run.phaseStart("review");
		run.queued(0, "Review the diff", { phase: "review", agentType: "reviewer" });
		run.started(0);
		run.tick(12_100).finished(0, "3 findings", { tokens: 33_800, toolUses: 5 });
		run.phaseEnd("review");
		run.phaseStart("fix");
		run.queued(1, "Fix typo", { phase: "fix" });
		run.queued(2, "Fix crash", { phase: "fix" });
		run.queued(3, "Fix docs", { phase: "fix" });
		run.started(1);
		run.started(2);
		run.child(2, { activity: "editing src/app.ts", tokens: 1200, toolUses: 2 });
		run.tick(2000).failed(1, "provider error 500");
		run.log("finding 1 failed", "warn");
		expect(formatWorkflowProgress(tracker.getEnvelope())).toBe(
			[
				"Workflow review-and-fix: running (phase: fix) · 14.1s",
				"Agents: 4 (1 running, 1 queued, 1 completed, 1 failed) · 7 tool uses · 35.0k tokens",
				"Phases:",
				"  ✓ review: 1 completed · 12.1s",
				"  ▸ fix: 1 running, 1 queued, 1 failed · 2.0s",
				"  ○ verify: pending",
				"Agents:",
				"  ✓ #1 Review the diff (reviewer) · completed · 5 tool uses · 33.8k tokens · 12.1s",
				"  ✗ #2 Fix typo (general-purpose) · failed: provider error 500 · 2.0s",
				"  ▸ #3 Fix crash (general-purpose) · active, editing src/app.ts, idle 2.0s · 2 tool uses · 1.2k tokens · 2.0s",
				"  · #4 Fix docs (general-purpose) · queued",
				"Failures (1):",
				"  ✗ #2 Fix typo (general-purpose, fix): provider error 500",
				"Log (last 1 of 1):",
				"  warn: finding 1 failed",
			].join("\n"),
		);
	});

	it("a big run: running calls listed, the rest collapsed into counts", () => {
		const { tracker, run } = tracked();
		for (let i = 0; i < 500; i++) run.queued(i, `Item ${i}`);
		for (let i = 0; i < 200; i++) {
			run.started(i);
			run.finished(i, "ok");
		}
		for (let i = 200; i < 210; i++) run.started(i);
		const lines = formatWorkflowProgress(tracker.getEnvelope(), { maxRunning: 3 }).split("\n");
		expect(lines.slice(lines.indexOf("Running:"))).toEqual([
			"Running:",
			"  ▸ #208 Item 207 (general-purpose) · running · 0ms",
			"  ▸ #209 Item 208 (general-purpose) · running · 0ms",
			"  ▸ #210 Item 209 (general-purpose) · running · 0ms",
			"  … 7 more running",
			"Others: 290 queued, 200 completed",
		]);
	});

	it("an ended run: outcome, error with code, and the census (capped)", () => {
		const { tracker, run } = tracked();
		const failures = Array.from({ length: 7 }, (_, i) => ({
			kind: "parallel" as const,
			index: i,
			cause: `slot ${i} broke`,
		}));
		run.tick(1500).runEnd("failed", {
			error: { code: "script_error", message: "x is not defined (12:3)" },
			failures,
		});
		const lines = formatWorkflowProgress(tracker.getEnvelope(), { maxFailures: 2 }).split("\n");
		expect(lines[0]).toBe("Workflow review-and-fix: failed · 1.5s");
		expect(lines.slice(-5)).toEqual([
			"Failures (7):",
			"  ✗ parallel[0]: slot 0 broke",
			"  ✗ parallel[1]: slot 1 broke",
			"  … 5 more",
			"Error [script_error]: x is not defined (12:3)",
		]);
	});

	it("with now: running items show live times, finished ones stay frozen", () => {
		const { tracker, run } = tracked();
		run.queued(0, "A");
		run.queued(1, "B");
		run.started(0);
		run.started(1);
		run.tick(1000).finished(0, "ok");
		const text = formatWorkflowProgress(tracker.getEnvelope(), { now: T0 + 61_000 });
		expect(text).toContain("✓ #1 A (general-purpose) · completed · 1.0s");
		expect(text).toContain("▸ #2 B (general-purpose) · running · 1m 01s");
		expect(text.split("\n")[0]).toBe("Workflow review-and-fix: running · 1m 01s");
	});
});

describe("summarizeWorkflowProgress", () => {
	it.each([
		[
			"running",
			(run: ReturnType<typeof tracked>["run"]) => run.phaseStart("fix"),
			"Workflow review-and-fix running (fix) for 0ms: no agents",
		],
		[
			"stopped",
			(run: ReturnType<typeof tracked>["run"]) => run.tick(2000).runEnd("stopped"),
			"Workflow review-and-fix was stopped after 2.0s: no agents",
		],
		[
			"completed",
			(run: ReturnType<typeof tracked>["run"]) => run.tick(65_000).runEnd("completed"),
			"Workflow review-and-fix completed in 1m 05s: no agents",
		],
	])("%s", (_status, act, expected) => {
		const { tracker, run } = tracked();
		act(run);
		expect(summarizeWorkflowProgress(tracker.getEnvelope())).toBe(expected);
	});
});

describe("formatDuration and formatTokens", () => {
	it.each([
		[0, "0ms"],
		[999, "999ms"],
		[1000, "1.0s"],
		[59_999, "59.9s"],
		[60_000, "1m 00s"],
		[3_599_000, "59m 59s"],
		[3_600_000, "1h 00m"],
	])("formatDuration(%i) is %s", (ms, text) => {
		expect(formatDuration(ms)).toBe(text);
	});

	it.each([
		[950, "950"],
		[12_400, "12.4k"],
		[1_200_000, "1.2M"],
	])("formatTokens(%i) is %s", (tokens, text) => {
		expect(formatTokens(tokens)).toBe(text);
	});
});

describe("visibleText", () => {
	it("shows C0, DEL, C1 and bidi controls as text, keeps tabs and newlines, and changes nothing the second time", () => {
		const text = "a\x1b[2K\rb\x07\x00\x7f\x9b6n\u202etxt.exe\u2066\u200f\tc\nd";
		const shown = "a^[[2K^Mb^G^@^?\\u009b6n\\u202etxt.exe\\u2066\\u200f\tc\nd";
		expect(visibleText(text)).toBe(shown);
		expect(visibleText(shown)).toBe(shown);
		expect(visibleText("plain — ✓ 日本")).toBe("plain — ✓ 日本");
	});
});
