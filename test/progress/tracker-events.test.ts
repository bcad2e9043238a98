import { describe, expect, it } from "vitest";
import { createWorkflowProgressTracker } from "../../src/progress/index.ts";
import { eventBuilder, META, T0 } from "./event-builder.ts";

function tracked(options: Parameters<typeof createWorkflowProgressTracker>[0] = {}) {
	const tracker = createWorkflowProgressTracker({ now: () => T0, ...options });
	const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
	return { tracker, run };
}

describe("createWorkflowProgressTracker", () => {
	it("before any event: a running envelope with the initial meta and its declared phases pending", () => {
		const { tracker } = tracked({ initialMeta: META });
		const envelope = tracker.getEnvelope();
		expect(envelope.status).toBe("running");
		expect(envelope.meta?.name).toBe("review-and-fix");
		expect(envelope.phases.map((p) => [p.title, p.status, p.declared])).toEqual([
			["review", "pending", true],
			["fix", "pending", true],
			["verify", "pending", true],
		]);
		expect(envelope.phases[1]?.detail).toBe("one agent per finding");
		expect(envelope.agentCalls).toEqual([]);
		expect(envelope.totals).toEqual({
			agents: { queued: 0, running: 0, completed: 0, failed: 0, stopped: 0, total: 0 },
			tokens: 0,
			toolUses: 0,
			cost: { usd: 0 },
		});
	});

	it("parallel agents: queued, then running with activity, then completed with previews, tokens and times", () => {
		const { tracker, run } = tracked();
		run.runStart();
		run.phaseStart("review");
		for (const i of [0, 1, 2]) run.queued(i, `Review part ${i}`, { phase: "review", agentType: "reviewer" });

		let envelope = tracker.getEnvelope();
		expect(envelope.totals.agents).toMatchObject({ queued: 3, running: 0, total: 3 });
		expect(envelope.phases[0]).toMatchObject({ title: "review", status: "running", agents: { queued: 3, total: 3 } });
		expect(envelope.currentPhase).toBe("review");
		expect(envelope.agentCalls.map((c) => c.status)).toEqual(["queued", "queued", "queued"]);

		run.tick(100).started(0);
		run.tick(100).started(1);
		run.child(1, { status: "active", activity: "reading 3 files…", tokens: 1200, toolUses: 2 });
		envelope = tracker.getEnvelope();
		expect(envelope.totals.agents).toMatchObject({ queued: 1, running: 2 });
		expect(envelope.currentTask).toBe("Review part 1");
		expect(envelope.agentCalls[1]).toMatchObject({
			status: "running",
			activity: "active",
			activityText: "reading 3 files…",
			agentId: "agent-1",
			tokens: 1200,
			toolUses: 2,
			startedAt: T0 + 200,
			elapsedMs: 0,
		});
		expect(envelope.agents.map((a) => a.id)).toEqual(["agent-1"]);
		expect(envelope.totals.tokens).toBe(1200);

		run.tick(500).finished(0, "No issues found", { tokens: 3000, toolUses: 5 });
		envelope = tracker.getEnvelope();
		expect(envelope.agentCalls[0]).toMatchObject({
			status: "completed",
			resultPreview: "No issues found",
			tokens: 3000,
			toolUses: 5,
			elapsedMs: 600,
			endedAt: T0 + 700,
		});
		// The still-running call's clock is "as of" the latest event.
		expect(envelope.agentCalls[1]?.elapsedMs).toBe(500);
		expect(envelope.totals).toMatchObject({ tokens: 4200, toolUses: 7 });
		expect(envelope.currentTask).toBe("Review part 1");

		run.tick(100).finished(1, "One bug", { tokens: 2000, toolUses: 3 });
		run.started(2);
		run.tick(300).finished(2, "Two bugs", { tokens: 1000 });
		run.phaseEnd("review");
		run.runEnd("completed", { result: { bugs: 3 } });
		envelope = tracker.getEnvelope();
		expect(envelope.status).toBe("completed");
		expect(envelope.result).toEqual({ bugs: 3 });
		expect(envelope.duration).toBe(1100);
		expect(envelope.endedAt).toBe(T0 + 1100);
		expect(envelope.totals).toEqual({
			agents: { queued: 0, running: 0, completed: 3, failed: 0, stopped: 0, total: 3 },
			tokens: 6000,
			// The last call reported no tool uses: 5 + 3 + 0.
			toolUses: 8,
			cost: { usd: 0 },
		});
		expect(envelope.phases.find((p) => p.title === "review")).toMatchObject({ status: "done", elapsedMs: 1100 });
		expect(envelope.currentTask).toBeUndefined();
	});

	it("phases: declared ones first in meta order, undeclared ones after as they appear, each with its own clock", () => {
		const { tracker, run } = tracked();
		run.runStart();
		run.phaseStart("setup");
		run.tick(1000).phaseEnd("setup");
		run.phaseStart("fix");
		run.queued(0, "Fix A", { phase: "fix" });
		run.queued(1, "Scan", { phase: "extra" });
		run.tick(500);
		run.started(0);
		let envelope = tracker.getEnvelope();
		expect(envelope.phases.map((p) => [p.title, p.status])).toEqual([
			["review", "pending"],
			["fix", "running"],
			["verify", "pending"],
			["setup", "done"],
			["extra", "running"],
		]);
		expect(envelope.phases.find((p) => p.title === "setup")).toMatchObject({ declared: false, elapsedMs: 1000 });
		expect(envelope.phases.find((p) => p.title === "fix")).toMatchObject({ elapsedMs: 500, agents: { running: 1 } });

		run.tick(2000).finished(0, "fixed");
		run.phaseEnd("fix");
		run.tick(4000).log("later");
		envelope = tracker.getEnvelope();
		// Frozen once the phase went idle, however long the run goes on.
		expect(envelope.phases.find((p) => p.title === "fix")).toMatchObject({ status: "done", elapsedMs: 2500 });
		expect(envelope.phases.find((p) => p.title === "setup")?.elapsedMs).toBe(1000);
	});

	it("phase(name, fn) nesting: the current phase returns to the parent when the inner one ends", () => {
		const { tracker, run } = tracked();
		run.runStart();
		run.phaseStart("fix");
		run.phaseStart("verify", "fix");
		expect(tracker.getEnvelope().currentPhase).toBe("verify");
		run.phaseEnd("verify");
		expect(tracker.getEnvelope().currentPhase).toBe("fix");
	});

	it("failures: failed calls and null slots show live with their causes; run_end's census replaces them", () => {
		const { tracker, run } = tracked();
		run.runStart();
		run.phaseStart("fix");
		run.queued(0, "Fix typo", { phase: "fix" });
		run.queued(1, "Fix crash", { phase: "fix" });
		run.started(0);
		run.started(1);
		run.tick(100).failed(0, "provider error 500");
		run.slotFailed("parallel", 0, "provider error 500", "fix");
		let envelope = tracker.getEnvelope();
		expect(envelope.agentCalls[0]).toMatchObject({ status: "failed", error: "provider error 500", elapsedMs: 100 });
		expect(envelope.failures).toEqual([
			{
				kind: "agent",
				index: 0,
				key: "key-0",
				label: "Fix typo",
				agentType: "general-purpose",
				phase: "fix",
				cause: "provider error 500",
			},
			{ kind: "parallel", index: 0, phase: "fix", cause: "provider error 500" },
		]);
		expect(envelope.totals.agents).toMatchObject({ failed: 1, running: 1 });
		expect(envelope.phases.find((p) => p.title === "fix")?.status).toBe("running");

		run.tick(100).finished(1, "ok");
		run.phaseEnd("fix");
		expect(tracker.getEnvelope().phases.find((p) => p.title === "fix")?.status).toBe("failed");

		const census = [{ kind: "agent" as const, index: 0, label: "Fix typo", cause: "provider error 500 (census)" }];
		run.runEnd("failed", { error: { code: "script_error", message: "boom (4:7)" }, failures: census });
		envelope = tracker.getEnvelope();
		expect(envelope.status).toBe("failed");
		expect(envelope.error).toEqual({ code: "script_error", message: "boom (4:7)" });
		expect(envelope.failures).toEqual(census);
	});

	it("a thrown agent() error and a refused call are recorded with their code, and count as failed", () => {
		const { tracker, run } = tracked();
		run.runStart();
		run.queued(0, "Review", { agentType: "reviwer" });
		run.failed(0, "Unknown agent type `reviwer`", { code: "agent_type_unknown", thrown: true, skipped: true });
		const call = tracker.getEnvelope().agentCalls[0];
		expect(call).toMatchObject({ status: "failed", code: "agent_type_unknown", thrown: true, skipped: true });
		expect(call?.elapsedMs).toBeUndefined();
	});

	it("cancel: cancelled calls are stopped, unsettled ones are settled at run_end, the current phase fails", () => {
		const { tracker, run } = tracked();
		run.runStart();
		run.phaseStart("fix");
		for (const i of [0, 1, 2, 3]) run.queued(i, `Fix ${i}`, { phase: "fix" });
		run.started(0);
		run.started(1);
		run.tick(1000).failed(0, "The workflow was cancelled", { code: "cancelled" });
		run.failed(2, "The workflow was cancelled", { code: "cancelled", skipped: true });
		// Calls 1 (running) and 3 (queued) never get their own end event.
		run.runEnd("stopped", { error: { code: "cancelled", message: "The workflow was cancelled" } });
		const envelope = tracker.getEnvelope();
		expect(envelope.status).toBe("stopped");
		expect(envelope.agentCalls.map((c) => c.status)).toEqual(["stopped", "stopped", "stopped", "stopped"]);
		expect(envelope.agentCalls[1]).toMatchObject({ elapsedMs: 1000, endedAt: T0 + 1000 });
		expect(envelope.agentCalls[3]?.error).toBe("The workflow ended before this call finished");
		expect(envelope.totals.agents).toMatchObject({ stopped: 4, queued: 0, running: 0 });
		expect(envelope.phases.find((p) => p.title === "fix")).toMatchObject({ status: "failed", elapsedMs: 1000 });
		expect(envelope.phases.find((p) => p.title === "verify")?.status).toBe("pending");
	});

	it("a retry keeps the call running on its next attempt and says why", () => {
		const { tracker, run } = tracked();
		run.runStart();
		run.queued(0, "Extract");
		run.started(0);
		run.retry(0, 2, "schema not met: /title is required");
		expect(tracker.getEnvelope().agentCalls[0]).toMatchObject({
			status: "running",
			attempt: 2,
			activityText: "retrying: schema not met: /title is required",
		});
	});

	it("logs: keeps the most recent ones, oldest first, and counts the dropped ones", () => {
		const { tracker, run } = tracked({ maxLogs: 3 });
		run.runStart();
		for (let i = 0; i < 7; i++) run.log(`entry ${i}`, i === 6 ? "warn" : "info", { i });
		const envelope = tracker.getEnvelope();
		expect(envelope.logs.map((l) => l.message)).toEqual(["entry 4", "entry 5", "entry 6"]);
		expect(envelope.logs[2]).toMatchObject({ level: "warn", data: { i: 6 } });
		expect(envelope.droppedLogs).toBe(4);
	});

	it("caps result previews and errors at maxPreviewChars", () => {
		const { tracker, run } = tracked({ maxPreviewChars: 10 });
		run.runStart();
		run.queued(0, "A");
		run.queued(1, "B");
		run.finished(0, "x".repeat(50));
		run.failed(1, "y".repeat(50));
		const [a, b] = tracker.getEnvelope().agentCalls;
		expect(a?.resultPreview).toBe(`${"x".repeat(9)}…`);
		expect(b?.error).toBe(`${"y".repeat(9)}…`);
	});
});
