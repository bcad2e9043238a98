/**
 * A real run's plan, made in the background: `plan.json` in the run's folder, progress measured against it, and a
 * second run's time left learnt from the first run's event log; a run whose dry run fails goes on with no plan.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DurableRun } from "../../../src/host/durable-run.ts";
import { slowMarkRecorder } from "../../../src/host/run-plan.ts";
import { startToolRun } from "../../../src/pi/runs/tool-run.ts";
import { createWorkflowProgressTracker } from "../../../src/progress/index.ts";
import { createRunStore, type RunStore, readEventLog, readPlanFile } from "../../../src/runs/index.ts";
import { createFakeRunner, type FakeAnswer } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";
import { eventBuilder, T0 } from "../../progress/event-builder.ts";

checkSandboxLeaks();

const SWEEP = `export const meta = { name: "sweep", description: "read then sum", phases: [{ title: "read" }, { title: "sum" }] };
phase("read");
const notes = await parallel(["a", "b", "c"].map((x) => () => agent("read " + x, { label: "read file", agentType: "scout" })));
phase("sum");
return await agent("sum " + notes.join(), { label: "summarize" });
`;

describe("startToolRun with a plan", () => {
	let cwd: string;
	let root: string;
	let store: RunStore;
	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-plan-project-"));
		root = mkdtempSync(join(tmpdir(), "wf-plan-runs-"));
		store = createRunStore({ cwd, root });
	});
	afterEach(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(root, { recursive: true, force: true });
	});

	async function ran(script: string, answer: (prompt: string) => FakeAnswer, slowMultiple?: number) {
		const fake = createFakeRunner((request) => answer(request.prompt));
		const source = { script, filename: "sweep.js" };
		const durable = DurableRun.fresh(store, source);
		const run = startToolRun({
			source: script,
			options: { agentRunner: fake.runner, filename: "sweep.js", cwd, agentTypes: ["general-purpose", "scout"] },
			durable,
			record: source,
			ctx: { hasUI: false, mode: "print", cwd } as unknown as ExtensionContext,
			ui: { widgetKey: "w", statusKey: "s" },
			...(slowMultiple !== undefined ? { slowMultiple } : {}),
			plan: {
				dry: async () => ({ cwd, agentTypes: ["general-purpose", "scout"] }),
				estimate: { cwd, runsRoot: root },
				// The fake children answer at once: the run's end waits for its plan rather than ending without one.
				graceMs: 600_000,
			},
		});
		const outcome = await run.finished;
		const dir = join(root, outcome.saved.runId ?? "missing");
		const record = await store.open(outcome.saved.runId ?? "missing");
		return { outcome, dir: record.dir ?? dir };
	}

	it("writes plan.json per phase and measures the run's progress against it; the next run's time left is known", async () => {
		const first = await ran(SWEEP, (prompt) => `seen ${prompt}`);
		expect(first.outcome.result.status).toBe("completed");
		const plan = await readPlanFile(first.dir);
		expect(plan).toMatchObject({
			version: 1,
			workflow: "sweep",
			phases: [
				{
					phase: "read",
					calls: [{ phase: "read", label: "read file", agentType: "scout", count: 3 }],
					low: 3,
					high: 3,
				},
				{ phase: "sum", calls: [{ phase: "sum", label: "summarize", agentType: "general-purpose", count: 1 }] },
			],
			total: { low: 4, high: 4 },
		});
		expect(first.outcome.envelope.forecast).toMatchObject({
			done: 4,
			expected: 4,
			fraction: 1,
			expectedBasis: "plan",
			grown: false,
		});
		expect(first.outcome.envelope.phases.map((p) => [p.title, p.forecast?.done, p.forecast?.expected])).toEqual([
			["read", 3, 3],
			["sum", 1, 1],
		]);
		// The second run learns from the first's event log: its calls' usual durations are known.
		const second = await ran(SWEEP, (prompt) => `seen ${prompt}`);
		const calls = second.outcome.envelope.agentCalls;
		expect(calls.every((call) => typeof call.usualMs === "number")).toBe(true);
	});

	it("a script whose dry run fails: no plan.json, and the run goes on and completes", async () => {
		// The stand-in answer is not the real one: the dry run throws where the real run goes on.
		const script = `export const meta = { name: "picky", description: "needs a real answer" };
const answer = await agent("say ok", { label: "ask" });
if (answer !== "ok") throw new Error("not ok");
return answer;
`;
		// And the session's `workflows.slowMultiple` reaches the run's tracker.
		const run = await ran(script, () => "ok", 3);
		expect(run.outcome.result.status).toBe("completed");
		expect(run.outcome.envelope.forecast?.slowMultiple).toBe(3);
		expect(existsSync(join(run.dir, "plan.json"))).toBe(false);
		expect(await readPlanFile(run.dir)).toBeUndefined();
		expect(run.outcome.envelope.forecast?.expectedBasis).toBe("seen");
	});
});

describe("slowMarkRecorder", () => {
	it("writes a call's slow mark to the run's event log once, with how long it took and how long it usually takes", async () => {
		const cwd = mkdtempSync(join(tmpdir(), "wf-plan-project-"));
		const root = mkdtempSync(join(tmpdir(), "wf-plan-runs-"));
		try {
			const store = createRunStore({ cwd, root });
			const durable = DurableRun.fresh(store, { script: SWEEP, filename: "sweep.js" });
			const tracker = createWorkflowProgressTracker({ now: () => T0 });
			tracker.forecastWith(undefined, {
				calls: [{ workflow: "sweep", phase: "read", label: "read file", agentType: "scout", durationMs: 1000 }],
				phases: [],
				runs: [],
			});
			const record = slowMarkRecorder(durable);
			const run = eventBuilder(T0, (event) => {
				durable.progress(event, { script: SWEEP, filename: "sweep.js" });
				tracker.updateFromProgressEvent(event);
				record(tracker.getEnvelope());
			});
			run.runStart({ name: "sweep", description: "read then sum" });
			run.phaseStart("read");
			run.queued(0, "read file", { phase: "read", agentType: "scout" });
			run.started(0);
			run.tick(10_000);
			run.finished(0, "late");
			run.log("after");
			run.runEnd("completed");
			await durable.finish(
				{
					status: "completed",
					failures: [],
					counts: { calls: 1, started: 1, completed: 1, failed: 0, skipped: 0 },
					usage: { input: 0, output: 0, total: 0 },
					cost: { usd: 0 },
					droppedLogs: 0,
					durationMs: 10_000,
				},
				"done",
			);
			const log = await readEventLog((await store.open(durable.runId ?? "")).dir);
			expect(log.problems).toEqual([]);
			expect(log.events.filter((e) => e.type === "call_slow")).toEqual([
				{
					type: "call_slow",
					time: T0 + 10_000,
					session: 1,
					key: "key-0",
					index: 0,
					label: "read file",
					phase: "read",
					elapsedMs: 10_000,
					usualMs: 1000,
				},
			]);
		} finally {
			rmSync(cwd, { recursive: true, force: true });
			rmSync(root, { recursive: true, force: true });
		}
	});
});
