import { describe, expect, it } from "vitest";
import { WorkflowError } from "../../src/errors.ts";
import { createWorkflowProgressTracker } from "../../src/progress/index.ts";
import { eventBuilder, META, T0 } from "./event-builder.ts";

function tracked(options: Parameters<typeof createWorkflowProgressTracker>[0] = {}) {
	const tracker = createWorkflowProgressTracker({ now: () => T0, ...options });
	const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
	return { tracker, run };
}

describe("createWorkflowProgressTracker: out-of-order and duplicate reports", () => {
	it("a child report before its call's events makes a placeholder that the call's events complete", () => {
		const { tracker, run } = tracked();
		run.runStart();
		run.define(5, "Fix crash", { phase: "fix", agentType: "fixer" });
		tracker.updateChildAgent(run.childReport(5, { status: "active", activity: "editing", tokens: 500 }));
		let envelope = tracker.getEnvelope();
		expect(envelope.agentCalls).toHaveLength(1);
		expect(envelope.agentCalls[0]).toMatchObject({
			key: "key-5",
			index: 5,
			status: "running",
			activityText: "editing",
		});
		expect(envelope.totals.agents).toMatchObject({ running: 1, total: 1 });

		// The queued and started events arrive late: they fill in identity and never move the call backwards.
		run.tick(10).queued(5, "Fix crash", { phase: "fix", agentType: "fixer" });
		run.started(5);
		envelope = tracker.getEnvelope();
		expect(envelope.agentCalls).toHaveLength(1);
		expect(envelope.agentCalls[0]).toMatchObject({
			status: "running",
			phase: "fix",
			agentType: "fixer",
			promptPreview: "Prompt for Fix crash",
		});
		expect(envelope.totals.agents).toMatchObject({ queued: 0, running: 1, total: 1 });
		expect(envelope.phases.find((p) => p.title === "fix")?.agents).toMatchObject({ running: 1, total: 1 });

		run.tick(100).finished(5, "done", { tokens: 900 });
		envelope = tracker.getEnvelope();
		expect(envelope.totals).toMatchObject({ tokens: 900, agents: { completed: 1, running: 0, total: 1 } });
	});

	it("a placeholder without a phase moves its counts to the phase its events name", () => {
		const { tracker, run } = tracked();
		run.runStart();
		run.define(0, "Scan", { phase: "review" });
		tracker.updateChildAgent({ ...run.childReport(0), callKey: "key-0" });
		run.queued(0, "Scan", { phase: "review" });
		const review = tracker.getEnvelope().phases.find((p) => p.title === "review");
		expect(review?.agents).toMatchObject({ running: 1, total: 1 });
		expect(tracker.getEnvelope().totals.agents.total).toBe(1);
	});

	it("a late child report after the call finished updates the child but never reopens the call", () => {
		const { tracker, run } = tracked();
		run.runStart();
		run.queued(0, "A");
		run.started(0);
		run.child(0, { tokens: 100 });
		run.tick(50).finished(0, "ok", { tokens: 400 });
		run.child(0, { status: "active", tokens: 100 });
		const envelope = tracker.getEnvelope();
		expect(envelope.agentCalls[0]).toMatchObject({ status: "completed", tokens: 400 });
		expect(envelope.totals).toMatchObject({ tokens: 400, agents: { completed: 1, running: 0 } });
	});

	it("the same report through updateChildAgent and an agent_child event counts once", () => {
		const { tracker, run } = tracked();
		run.runStart();
		run.queued(0, "A");
		run.started(0);
		const report = run.childReport(0, { tokens: 700, toolUses: 4 });
		tracker.updateChildAgent(report);
		run.child(0, { tokens: 700, toolUses: 4 });
		tracker.updateChildAgent(report);
		const envelope = tracker.getEnvelope();
		expect(envelope.totals).toMatchObject({ tokens: 700, toolUses: 4 });
		expect(envelope.agents).toHaveLength(1);
	});

	it("a child report with no call key shows among agents only", () => {
		const { tracker } = tracked();
		tracker.updateChildAgent({ id: "solo", type: "scout", status: "starting", description: "Look around" });
		const envelope = tracker.getEnvelope();
		expect(envelope.agents).toEqual([{ id: "solo", type: "scout", status: "starting", description: "Look around" }]);
		expect(envelope.agentCalls).toEqual([]);
	});

	it("run_start after undeclared phases still puts the declared phases first", () => {
		const { tracker, run } = tracked();
		run.phaseStart("warmup");
		run.runStart(META);
		expect(tracker.getEnvelope().phases.map((p) => p.title)).toEqual(["review", "fix", "verify", "warmup"]);
	});
});

describe("createWorkflowProgressTracker: cost stays flat", () => {
	it("getEnvelope without new events returns the cached envelope", () => {
		const { tracker, run } = tracked();
		run.runStart();
		run.queued(0, "A");
		expect(tracker.getEnvelope()).toBe(tracker.getEnvelope());
	});

	it("with 1,000 calls, an event rebuilds only the snapshots it touched (and the running ones)", () => {
		const { tracker, run } = tracked();
		run.runStart();
		for (let i = 0; i < 1000; i++) run.queued(i, `Item ${i}`, { phase: "fix" });
		for (let i = 0; i < 996; i++) {
			run.started(i);
			run.finished(i, "ok", { tokens: 10 });
		}
		run.started(996);
		const before = tracker.getEnvelope();
		run.tick(5).child(996, { activity: "thinking" });
		const after = tracker.getEnvelope();
		const changed = after.agentCalls.filter((call, i) => call !== before.agentCalls[i]).map((c) => c.index);
		expect(changed).toEqual([996]);
		expect(after.agentCalls[996]?.activityText).toBe("thinking");
		expect(after.totals.agents).toEqual({
			queued: 3,
			running: 1,
			completed: 996,
			failed: 0,
			stopped: 0,
			total: 1000,
		});
		expect(after.totals.tokens).toBe(9960);
		// The earlier envelope is a snapshot: the new event did not change it.
		expect(before.agentCalls[996]?.activityText).toBeUndefined();
	});
});

describe("tracker.complete", () => {
	it("ends the run from a run result when no run_end came, and returns a one-line summary", () => {
		const { tracker, run } = tracked({ initialMeta: META });
		run.queued(0, "A");
		run.started(0);
		run.tick(1500).finished(0, "ok", { tokens: 1200 });
		const { envelope, summary } = tracker.complete({
			status: "completed",
			value: { ok: true },
			failures: [],
			counts: { calls: 1, started: 1, completed: 1, failed: 0, skipped: 0 },
			usage: { input: 1000, output: 200, total: 1200 },
			cost: { usd: 0 },
			droppedLogs: 0,
			durationMs: 2000,
		});
		expect(envelope).toMatchObject({ status: "completed", result: { ok: true }, duration: 2000 });
		expect(summary).toBe("Workflow review-and-fix completed in 2.0s: 1 agent (1 completed), 1.2k tokens");
	});

	it("after run_end it changes nothing", () => {
		const { tracker, run } = tracked({ initialMeta: META });
		run.runStart();
		run.tick(300).runEnd("failed", { error: { code: "script_error", message: "boom (3:1)" } });
		const { envelope, summary } = tracker.complete({
			status: "completed",
			failures: [],
			counts: { calls: 0, started: 0, completed: 0, failed: 0, skipped: 0 },
			usage: { input: 0, output: 0, total: 0 },
			cost: { usd: 0 },
			droppedLogs: 0,
			durationMs: 999,
		});
		expect(envelope).toMatchObject({ status: "failed", duration: 300 });
		expect(summary).toBe("Workflow review-and-fix failed after 300ms: boom (3:1); no agents");
	});
});

describe("tracker.error", () => {
	it("ends the run with status error, the error's code and position, and settles running calls", () => {
		let clock = T0;
		const { tracker, run } = tracked({ initialMeta: META, now: () => clock });
		run.queued(0, "A");
		run.started(0);
		clock = T0 + 5000;
		const error = new WorkflowError("internal", "worker crashed", { location: { line: 2, column: 5 } });
		const { envelope, summary } = tracker.error(error);
		expect(envelope.status).toBe("error");
		expect(envelope.error).toEqual({ message: "worker crashed (2:5)", code: "internal", line: 2, column: 5 });
		expect(envelope.agentCalls[0]?.status).toBe("stopped");
		expect(envelope.duration).toBe(5000);
		expect(summary).toBe("Workflow review-and-fix errored after 5.0s: worker crashed (2:5); 1 agent (1 stopped)");
	});

	it("accepts anything thrown", () => {
		const { tracker } = tracked();
		expect(tracker.error("plain string").envelope.error).toEqual({ message: "plain string" });
	});
});

describe("tracker.getEnvelope", () => {
	it("with a status: reports that status without changing the tracker", () => {
		const { tracker, run } = tracked();
		run.runStart();
		expect(tracker.getEnvelope("stopped").status).toBe("stopped");
		expect(tracker.getEnvelope().status).toBe("running");
	});
});
