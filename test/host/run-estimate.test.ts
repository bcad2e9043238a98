/**
 * The estimate the fan-out question carries, from a history: the agents about to start (this workflow's calls of
 * the phase), the rest of the run from its earlier complete runs, and the cap; nothing when nothing is known.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
	estimateBeforeRun,
	estimateDryPlan,
	estimatePlannedRun,
	fanOutEstimateText,
} from "../../src/host/run-estimate.ts";
import type { CostHistory } from "../../src/runs/index.ts";
import type { WorkflowFanOutInfo, WorkflowRunResult } from "../../src/runtime/core/types.ts";
import { dryRunPlanText, dryRunWorkflowScript, shutdownSchemaWorker } from "../../src/runtime/index.ts";
import { tempStore } from "../runs/support.ts";

const RUN = "wf-20261201-100000-aaaaaa";

const HISTORY: CostHistory = {
	calls: [0.01, 0.02, 0.03, 0.04, 0.05].map((usd) => ({
		runId: RUN,
		workflow: "wide",
		phase: "fan",
		label: "item",
		model: "a/m",
		usd,
		tokens: usd * 100_000,
	})),
	runs: [0.5, 0.7, 0.9].map((usd) => ({ runId: RUN, workflow: "wide", usd, calls: 5 })),
};

function info(over: Partial<WorkflowFanOutInfo> = {}): WorkflowFanOutInfo {
	return {
		kind: "parallel",
		items: 30,
		agents: 30,
		workflow: "wide",
		phase: "fan",
		agentsRun: 2,
		spent: { usd: 0.1 },
		averageUsd: 0.05,
		signal: new AbortController().signal,
		...over,
	};
}

describe("fanOutEstimateText", () => {
	it("the agents from this workflow's calls of the phase, the rest from its earlier runs, and the cap", () => {
		expect(fanOutEstimateText(info({ costLimitUsd: 1 }), { history: HISTORY })).toBe(
			"These 30 agents: estimated $0.60–$1.20, 60.0k–120.0k tokens (5 earlier calls of workflow `wide` (phase fan)). " +
				"Earlier runs of `wide` cost $0.60–$0.80 in all (the middle half of 3 runs): about $0.50–$0.70 more after the $0.10 spent so far. " +
				"Estimated $0.70–$1.30 with the $0.10 spent so far, which may go over the cap $1.00.",
		);
	});

	it("another phase and no price: only the rest of the run; another workflow and no price: nothing", () => {
		expect(fanOutEstimateText(info({ phase: "other" }), { history: { calls: [], runs: HISTORY.runs } })).toBe(
			"Earlier runs of `wide` cost $0.60–$0.80 in all (the middle half of 3 runs): about $0.50–$0.70 more after the $0.10 spent so far.",
		);
		expect(fanOutEstimateText(info({ workflow: "new" }), { history: { calls: [], runs: HISTORY.runs } })).toBe(
			undefined,
		);
	});
});

describe("estimatePlannedRun from a poisoned history", () => {
	it("leaves out costs that are not finite, negative or past belief: every figure is finite", async () => {
		const { store, root } = tempStore();
		const ended: WorkflowRunResult = {
			status: "completed",
			failures: [],
			counts: { calls: 2, started: 2, completed: 2, failed: 0, skipped: 0 },
			usage: { input: 0, output: 0, total: 0 },
			cost: { usd: 0 },
			droppedLogs: 0,
			durationMs: 1,
		};
		// Lines as an edited journal holds them: `1e999` is read as Infinity, `1.7e308` is finite but adds up to it.
		const line = (key: string, usd: string, tokens = "100") =>
			`{"key":"${key}","value":"ok","label":"review","agentType":"general-purpose","model":"a/m","usage":{"input":${tokens},"output":0,"total":${tokens}},"cost":{"usd":${usd}}}\n`;
		const poison = ["1e999", "-5", "1.7e308", "1.7e308", "0.05", "0.06"];
		for (const [i, usd] of poison.entries()) {
			const record = await store.create({ script: "return 1", meta: { name: "review", description: "d" } });
			await record.writeSnapshot(ended);
			appendFileSync(join(store.dir, record.id, "journal.jsonl"), line(`k${i}`, usd, i === 2 ? "1e999" : "100"));
		}
		const planned = await estimatePlannedRun(
			Array.from({ length: 30 }, () => ({ label: "review", agentType: "general-purpose", model: "a/m" })),
			{ cwd: store.cwd, runsRoot: root, workflow: "review", capUsd: 1 },
		);
		expect(planned.estimate.groups[0]?.basis.text).toBe(
			"2 earlier calls of workflow `review` (outside phases, label review)",
		);
		expect(planned.text).not.toMatch(/Infinity|NaN/);
		expect(planned.text).toContain("$1.58–$1.72");
		const figures = JSON.stringify(planned.estimate);
		expect(figures).not.toContain("null");
		expect(planned.overCap).toBe("estimated $1.58–$1.72, over the cap $1.00");
	});
});

describe("estimateBeforeRun", () => {
	afterAll(() => shutdownSchemaWorker());

	it("says when the dry run before a capped run fails on a schema it cannot sample, and gives no estimate", async () => {
		const source = `export const meta = { name: "huge", description: "asks for too much" };
return await agent("list", { schema: { type: "object", properties: { all: { type: "array", minItems: 1e9 } }, required: ["all"] } });`;
		const found = await estimateBeforeRun(source, {}, { cwd: "/nonexistent", runsRoot: "/nonexistent", capUsd: 1 });
		expect(found.planned).toBeUndefined();
		expect(found.note).toMatch(
			/^no estimate before the run: its dry run failed: a dry run cannot make up a value for this schema: `minItems` at #\/properties\/all is 1000000000/,
		);
	});
});

describe("estimateDryPlan after a fenced bash", () => {
	afterAll(() => shutdownSchemaWorker());

	const SCRIPT = `export const meta = { name: "review-all", description: "one review per changed file" };
const files = (await tool("bash", { command: "git diff --name-only main" })).output.split("\\n").filter((f) => f.endsWith(".ts"));
phase("review");
return await parallel(files.map((f) => () => agent("review " + f, { label: "review" })));`;

	const ended = (calls: number): WorkflowRunResult => ({
		status: "completed",
		failures: [],
		counts: { calls, started: calls, completed: calls, failed: 0, skipped: 0 },
		usage: { input: 0, output: 0, total: 0 },
		cost: { usd: calls / 100 },
		droppedLogs: 0,
		durationMs: 1,
	});

	it("marks the counts as floors and goes by this workflow's earlier runs", async () => {
		const { store, root } = tempStore();
		for (const calls of [18, 24, 20]) {
			const record = await store.create({ script: SCRIPT, meta: { name: "review-all", description: "d" } });
			await record.writeSnapshot(ended(calls));
			for (let i = 0; i < calls; i++) {
				appendFileSync(
					join(store.dir, record.id, "journal.jsonl"),
					`{"key":"k${i}","value":"ok","phase":"review","label":"review","agentType":"general-purpose","model":"a/m","usage":{"input":100,"output":0,"total":100},"cost":{"usd":0.01}}\n`,
				);
			}
		}
		const { plan } = await dryRunWorkflowScript(SCRIPT, { cwd: store.cwd, fenceTools: ["bash"] });
		expect(plan.totals.agentCalls).toBe(0);
		// Where the step is in the script: the second line's `tool(` call, as QuickJS places a call (its parenthesis).
		expect(plan.fencedBash).toMatchObject({ index: 0, line: 2, column: 26 });
		const text = dryRunPlanText(plan);
		expect(text).toContain("  2. review\n     at least 0 agent calls after the fenced `bash` at 2:26\n");
		expect(text).toContain("Totals: at least 0 agent calls, widest fan-out at least 0,");
		expect(text).toContain(
			'"at least": `bash` step #1 (git diff --name-only main) at 2:26 was fenced, so what it would list is unknown and the calls made over it are not counted; 0 agent calls before it are exact',
		);
		expect(text).not.toMatch(/Totals: 0 agent calls/);
		const planned = await estimateDryPlan(plan, { cwd: store.cwd, runsRoot: root, capUsd: 0.1 });
		expect(planned.text).toContain(
			"Earlier runs: this workflow's last 3 runs made 18–24 agent calls and cost $0.19–$0.22 (the middle half): the plan's at least 0 could not see past the fenced `bash` at 2:26.",
		);
		expect(planned.overCap).toBe("estimated $0.19–$0.22, over the cap $0.10");
	});

	it("says there is nothing to go by when the workflow has no earlier complete run", async () => {
		const { store, root } = tempStore();
		const { plan } = await dryRunWorkflowScript(SCRIPT, { cwd: store.cwd, fenceTools: ["bash"] });
		const planned = await estimateDryPlan(plan, { cwd: store.cwd, runsRoot: root });
		expect(planned.text).toContain(
			"A floor: the plan's at least 0 could not see past the fenced `bash` at 2:26, and no earlier complete run of `review-all` says how many more.",
		);
	});
});
