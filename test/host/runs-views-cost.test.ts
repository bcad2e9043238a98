/**
 * What runs cost, as `/workflows`, `workflow_runs` and `pi-workflows runs` list them and as one run is described:
 * a live run's spend so far, a finished run's snapshot (with what its replays had cost), an interrupted run's journal,
 * and a background run's completion message.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RunRegistry } from "../../src/host/registry.ts";
import { describeRun, listRuns } from "../../src/host/views.ts";
import { completionMessage } from "../../src/pi/runs/messages.ts";
import { createWorkflowProgressTracker } from "../../src/progress/index.ts";
import { createRunStore, type RunStore } from "../../src/runs/index.ts";
import { runWorkflowScript, type WorkflowRunResult } from "../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const RESULT: WorkflowRunResult = {
	status: "failed",
	meta: { name: "priced", description: "d" },
	error: { code: "budget_exhausted", message: "Cost cap reached" },
	failures: [],
	counts: { calls: 3, started: 2, completed: 2, failed: 0, skipped: 1 },
	usage: { input: 10, output: 10, total: 20 },
	cost: { usd: 0.42 },
	replayedCost: { usd: 0.3 },
	droppedLogs: 0,
	durationMs: 1000,
};

describe("the cost of runs in lists and views", () => {
	let cwd: string;
	let root: string;
	let store: RunStore;
	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-views-cost-project-"));
		root = mkdtempSync(join(tmpdir(), "wf-views-cost-runs-"));
		store = createRunStore({ cwd, root });
	});
	afterEach(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(root, { recursive: true, force: true });
	});

	it("a finished run: its spend and, with its replays, the whole record's; the detail says both", async () => {
		const record = await store.create({ script: "x", meta: { name: "priced", description: "d" } });
		await record.writeSnapshot(RESULT);
		const [row] = await listRuns(store, new RunRegistry());
		expect(row?.text).toMatch(
			/ · priced · failed · .* · 2 agents done · 20 tokens · \$0\.42 \(with replayed calls \$0\.72\) · \d+(\.\d)? (B|KiB)$/,
		);
		expect(await describeRun(store, new RunRegistry(), record.id)).toContain(
			"Agents: 2 completed, 0 failed, 1 skipped of 3 · 20 tokens · $0.42 (with replayed calls $0.72)",
		);
	});

	it("an interrupted run: what its journal's finished calls cost, unknown parts included", async () => {
		const record = await store.create({ script: "x", meta: { name: "crashed", description: "d" } });
		const journal = await record.journal();
		await journal.record({ key: "a", value: "x", cost: { usd: 0.05 } });
		await journal.record({ key: "b", value: "y", cost: { usd: 0, unpriced: 2 } });
		await journal.close();
		const [row] = await listRuns(store, new RunRegistry());
		expect(row?.text).toMatch(
			/ · crashed · interrupted · .* · 2 agents done · 0 tokens · \$0\.05 \+ unknown · \d+(\.\d)? (B|KiB)$/,
		);
	});

	it("a live run: what it spent so far", async () => {
		const tracker = createWorkflowProgressTracker();
		const fake = createFakeRunner(() => ({ text: "ok", costUsd: 0.2 }));
		await runWorkflowScript(`${HEADER}await agent("a"); return 1;`, {
			agentRunner: fake.runner,
			onProgress: (event) => {
				if (event.type !== "run_end") tracker.updateFromProgressEvent(event);
			},
		});
		const registry = new RunRegistry();
		registry.add({
			id: "wf-20260101-000000-abcdef",
			name: "live",
			background: true,
			startedAt: Date.now(),
			envelope: () => tracker.getEnvelope(),
			stop: () => {},
			settled: Promise.resolve(),
		});
		const [row] = await listRuns(store, registry);
		expect(row?.text).toMatch(
			/^wf-20260101-000000-abcdef · live · running \(background\) · .* · 1\/1 agents · 10 tokens · \$0\.20$/,
		);
	});

	it("a background run's completion message: its summary and text carry the cost", async () => {
		const tracker = createWorkflowProgressTracker();
		const fake = createFakeRunner(() => ({ text: "ok", costUsd: 0.2, model: "p/m" }));
		const result = await runWorkflowScript(`${HEADER}return await agent("a");`, {
			agentRunner: fake.runner,
			onProgress: (event) => tracker.updateFromProgressEvent(event),
		});
		const outcome = { ...tracker.complete(result), result, saved: { runId: "wf-1", saved: 1 } };
		const message = completionMessage(outcome, undefined);
		expect(message.details.summary).toMatch(/completed in .*: 1 agent \(1 completed\), 10 tokens, \$0\.20$/);
		expect(message.content).toContain("Cost: $0.20 (estimated from catalog prices)");
		expect(message.content).toMatch(/#1 a \(general-purpose\) · completed · p\/m · 10 tokens · \$0\.20/);
	});
});
