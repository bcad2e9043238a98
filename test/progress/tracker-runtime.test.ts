/**
 * The tracker on event streams recorded from real `runWorkflowScript` runs (real QuickJS sandbox, real queue), with
 * a small runner that reports child activity the way a host runner does.
 */
import { describe, expect, it } from "vitest";
import {
	createWorkflowProgressTracker,
	formatWorkflowProgress,
	type WorkflowProgressEnvelope,
} from "../../src/progress/index.ts";
import {
	runWorkflowScript,
	type WorkflowAgentRunner,
	type WorkflowJournalEntry,
	type WorkflowProgressEvent,
	type WorkflowRunResult,
} from "../../src/runtime/index.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const SCRIPT = `export const meta = {
  name: "review-and-fix",
  description: "Review a change and fix what is found",
  phases: [{ title: "review" }, { title: "fix", detail: "one agent per finding" }, { title: "verify" }],
};
phase("review");
log("starting review", { parts: 3 });
const reviews = await parallel([0, 1, 2].map((i) => () => agent("Review part " + i, { label: "review " + i, agent: "reviewer" })));
phase("fix");
const fixes = await pipeline(["a", "bad", "c"],
  (item) => agent("Fix " + item, { label: "fix " + item }),
  (fixed, item) => agent("Check " + item, { label: "check " + item }));
return { reviews, fixes };
`;

/** Answers after a short pause, reporting the child as starting and then active; prompts with "bad" fail. */
const runner: WorkflowAgentRunner = async (request, { signal, reportChild }) => {
	const id = `child-${request.index}`;
	const base = { id, type: request.agentType, description: request.description, startedAt: Date.now() };
	reportChild({ ...base, status: "starting" });
	await new Promise((resolve) => setTimeout(resolve, 5));
	reportChild({ ...base, status: "active", activity: `working on ${request.label}`, tokens: 40, toolUses: 1 });
	await new Promise((resolve) => setTimeout(resolve, 5));
	if (signal.aborted) return { id, type: request.agentType, status: "stopped", error: "stopped" };
	const usage = { input: 60, output: 40, total: 100 };
	if (request.prompt.includes("bad"))
		return { id, type: request.agentType, status: "failed", error: "could not fix", usage };
	return { id, type: request.agentType, status: "completed", result: `ok: ${request.label}`, usage, toolUses: 2 };
};

/** Runs the script, feeding a live tracker and recording every event and a few envelopes along the way. */
async function recordRun(
	source: string,
	agentRunner: WorkflowAgentRunner,
	signal?: AbortSignal,
	onEvent?: (event: WorkflowProgressEvent) => void,
) {
	const events: WorkflowProgressEvent[] = [];
	const tracker = createWorkflowProgressTracker();
	const snapshots = new Map<string, WorkflowProgressEnvelope>();
	const result: WorkflowRunResult = await runWorkflowScript(source, {
		agentRunner,
		...(signal ? { signal } : {}),
		onProgress: (event) => {
			events.push(event);
			tracker.updateFromProgressEvent(event);
			onEvent?.(event);
			if (event.type === "phase_end") snapshots.set(`end of ${event.phase}`, tracker.getEnvelope());
			if (event.type === "agent_child" && event.child.status === "active" && !snapshots.has("first active")) {
				snapshots.set("first active", tracker.getEnvelope());
			}
		},
	});
	return { events, tracker, snapshots, result };
}

describe("createWorkflowProgressTracker on a recorded runtime run", () => {
	it("parallel, pipeline, phases and a failure: the envelope at several points and at the end", async () => {
		const { events, tracker, snapshots, result } = await recordRun(SCRIPT, runner);
		expect(result.status).toBe("completed");

		const active = snapshots.get("first active");
		expect(active?.currentPhase).toBe("review");
		expect(active?.agentCalls.find((c) => c.activity === "active")).toMatchObject({
			status: "running",
			agentType: "reviewer",
			activityText: expect.stringMatching(/^working on review \d$/),
			tokens: 40,
		});

		const review = snapshots.get("end of review");
		expect(review?.phases[0]).toMatchObject({ title: "review", status: "done", agents: { completed: 3, total: 3 } });
		// A plain phase("fix") ends "review" first, then starts "fix".
		expect(review?.phases[1]).toMatchObject({ title: "fix", status: "pending" });
		expect(review?.logs.map((log) => log.message)).toEqual(["starting review"]);

		const end = tracker.complete(result).envelope;
		expect(end.status).toBe("completed");
		expect(end.phases.map((p) => [p.title, p.status, p.agents.completed, p.agents.failed])).toEqual([
			["review", "done", 3, 0],
			// The "bad" item's fix failed, so its check never ran: 2 fixes + 2 checks completed.
			["fix", "failed", 4, 1],
			["verify", "pending", 0, 0],
		]);
		expect(end.totals.agents).toEqual({ queued: 0, running: 0, completed: 7, failed: 1, stopped: 0, total: 8 });
		expect(end.totals.tokens).toBe(result.usage.total);
		expect(end.agentCalls.find((c) => c.label === "fix bad")).toMatchObject({
			status: "failed",
			error: "could not fix",
		});
		expect(end.agentCalls.find((c) => c.label === "review 0")).toMatchObject({
			status: "completed",
			resultPreview: "ok: review 0",
			agentId: "child-0",
			toolUses: 2,
		});
		expect(end.failures.map((f) => [f.kind, f.label ?? "", f.cause])).toEqual(
			result.failures.map((f) => [f.kind, f.label ?? "", f.cause]),
		);
		expect(end.failures.some((f) => f.kind === "agent" && f.label === "fix bad")).toBe(true);
		expect(end.result).toEqual(result.value);
		expect(end.duration).toBe(result.durationMs);
		expect(end.agents).toHaveLength(8);
		expect(formatWorkflowProgress(end)).toContain("✗ #");

		// Rebuilt from the recording alone, a fresh tracker agrees with the live one.
		const replay = createWorkflowProgressTracker();
		for (const event of events) replay.updateFromProgressEvent(event);
		expect(replay.getEnvelope()).toEqual(tracker.getEnvelope());
	});

	it("cancel: aborting mid-run ends with every call stopped and the running phase cut short", async () => {
		const controller = new AbortController();
		let started = 0;
		let queued = 0;
		// Abort once all ten calls are made and the queue is full (4 at once by default): 4 running, 6 queued.
		const maybeAbort = () => {
			if (started === 4 && queued === 10 && !controller.signal.aborted) setTimeout(() => controller.abort(), 0);
		};
		const hanging: WorkflowAgentRunner = (request, { signal, reportChild }) => {
			started++;
			reportChild({
				id: `c${request.index}`,
				type: request.agentType,
				status: "active",
				description: request.label,
			});
			maybeAbort();
			return new Promise((resolve) => {
				signal.addEventListener(
					"abort",
					() => resolve({ id: `c${request.index}`, type: request.agentType, status: "stopped", error: "stopped" }),
					{
						once: true,
					},
				);
			});
		};
		const source = `export const meta = { name: "fan-out", description: "many agents", phases: [{ title: "work" }] };
phase("work");
return await parallel(Array.from({ length: 10 }, (_, i) => () => agent("task " + i)));`;
		const { tracker, result } = await recordRun(source, hanging, controller.signal, (event) => {
			if (event.type === "agent_queued") queued++;
			maybeAbort();
		});
		expect(result.status).toBe("stopped");
		const end = tracker.getEnvelope();
		expect(end.status).toBe("stopped");
		expect(end.totals.agents).toEqual({ queued: 0, running: 0, completed: 0, failed: 0, stopped: 10, total: 10 });
		expect(end.agentCalls.filter((call) => call.skipped)).toHaveLength(6);
		expect(end.agentCalls.filter((call) => call.skipped).every((call) => call.elapsedMs === undefined)).toBe(true);
		expect(end.phases[0]).toMatchObject({ title: "work", status: "failed", agents: { stopped: 10 } });
		expect(end.error).toMatchObject({ code: "cancelled" });
	});
});

describe("tracker on a resumed run", () => {
	it("marks replayed calls cached, completed with attempt 0, and the text says replayed", async () => {
		const entries = new Map<string, WorkflowJournalEntry>();
		const journal = {
			lookup: (key: string) => entries.get(key),
			record: async (entry: WorkflowJournalEntry) => {
				entries.set(entry.key, entry);
			},
		};
		const body = `export const meta = { name: "r", description: "d" };
return [await agent("kept", { label: "kept" }), await agent("new " + args.v, { label: "changed" })];`;
		await runWorkflowScript(body, { agentRunner: runner, journal, args: { v: 1 } });
		const tracker = createWorkflowProgressTracker();
		const result = await runWorkflowScript(body, {
			agentRunner: runner,
			journal,
			args: { v: 2 },
			onProgress: (event) => tracker.updateFromProgressEvent(event),
		});
		const { envelope } = tracker.complete(result);
		expect(envelope.agentCalls.map((call) => [call.label, call.status, call.cached ?? false, call.attempt])).toEqual([
			["kept", "completed", true, 0],
			["changed", "completed", false, 1],
		]);
		const text = formatWorkflowProgress(envelope);
		expect(text).toMatch(/✓ #1 kept \(general-purpose\) · replayed/);
		expect(text).not.toMatch(/#1 changed.*replayed/);
	});
});
