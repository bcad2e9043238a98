/**
 * The estimate the fan-out question carries, from a history: the agents about to start (this workflow's calls of
 * the phase), the rest of the run from its earlier complete runs, and the cap; nothing when nothing is known.
 */
import { afterAll, describe, expect, it } from "vitest";
import { estimateBeforeRun, fanOutEstimateText } from "../../src/host/run-estimate.ts";
import type { CostHistory } from "../../src/runs/index.ts";
import type { WorkflowFanOutInfo } from "../../src/runtime/core/types.ts";
import { shutdownSchemaWorker } from "../../src/runtime/index.ts";

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
