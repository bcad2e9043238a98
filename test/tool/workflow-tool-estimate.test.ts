/**
 * The estimate before launch against what a run really costs: a saved workflow runs twice through the `workflow`
 * tool, its children real pi sessions on the faux provider's priced model. The fan-out question of the first run
 * prices the agents from pi's catalog (no history yet); the estimate made from the first run's record gives a range,
 * the second run's question carries it, and the second run's real cost falls within it.
 */

import { join } from "node:path";
import { type ExtensionToolContext, ModelRegistry } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tokensRangeText, usdRangeText } from "../../src/host/estimate.ts";
import { estimatePlannedRun } from "../../src/host/run-estimate.ts";
import { createRunStore, readCostHistory } from "../../src/runs/index.ts";
import { usdText } from "../../src/runtime/index.ts";
import { createRunnerFixture, type RunnerFixture } from "../children/runner-fixture.ts";
import { fauxAssistantMessage } from "../helpers/faux.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { pricedWorkflowTool } from "./priced-tool.ts";

checkSandboxLeaks();

const REVIEW = `export const meta = {
	name: "review",
	description: "plan, then one reviewer per file",
	phases: [{ title: "plan" }, { title: "review" }],
};
phase("plan");
const plan = await agent("Plan the review", { label: "planner" });
phase("review");
return await parallel(["a", "b", "c", "d"].map((file) => () => agent("Review file " + file, { label: "reviewer" })));
`;

/** Reviews of four lengths (in sentences), evenly apart: the reviewers' costs differ, and their sum is four times their middle. */
const REVIEWS: Record<string, number> = { a: 6, b: 66, c: 126, d: 186 };

let fx: RunnerFixture;
beforeEach(async () => {
	fx = await createRunnerFixture();
	fx.dirs.write(".pi/workflows/review.js", REVIEW);
});
afterEach(() => {
	fx.teardown();
});

/** One run of the saved workflow through the tool, in the TUI (so the fan-out question is asked), and what was asked. */
async function runReview(): Promise<{ asked: string[]; usd: number }> {
	fx.faux.route("Plan the review", [fauxAssistantMessage("Review each file for bugs.")]);
	for (const [file, length] of Object.entries(REVIEWS)) {
		fx.faux.route(`Review file ${file}`, [fauxAssistantMessage(`${file}: ${"fine. ".repeat(length)}`)]);
	}
	const asked: string[] = [];
	const ctx = {
		cwd: fx.dirs.cwd,
		mode: "tui",
		hasUI: true,
		model: fx.faux.pricedModel,
		modelRegistry: new ModelRegistry(fx.faux.modelRuntime),
		ui: {
			setWidget: () => {},
			setStatus: () => {},
			confirm: async (_title: string, message: string) => {
				asked.push(message);
				return true;
			},
		},
	} as unknown as ExtensionToolContext;
	const tool = pricedWorkflowTool(fx, () => ({ confirmAgents: 3 }));
	const result = await tool.execute("c", { name: "review" }, undefined, undefined, ctx);
	expect(result.details.envelope?.status).toBe("completed");
	return { asked, usd: result.details.envelope?.totals.cost?.usd ?? 0 };
}

describe("the estimate before launch, against a second run of the same saved workflow", () => {
	it("first from the catalog, then from the first run: the second run's real cost is within the range it gave", async () => {
		const first = await runReview();
		expect(first.usd).toBeGreaterThan(0);
		// No history yet: the question prices the four agents from pi's catalog, on the session's model.
		expect(first.asked).toHaveLength(1);
		expect(first.asked[0]).toContain(
			"These 4 agents: estimated $0.18–$0.72, 44.0k–176.0k tokens (catalog price of faux/faux-priced ($3/$15 per million input/output tokens) × a default 20.0k input/2.0k output tokens per child, half to twice that (no history)).",
		);

		const runsRoot = join(fx.dirs.agentDir, "workflow-runs");
		const history = await readCostHistory(createRunStore({ cwd: fx.dirs.cwd, root: runsRoot }));
		expect(history.calls.map((call) => [call.workflow, call.phase, call.label, call.model])).toEqual(
			expect.arrayContaining([
				["review", "plan", "planner", "faux/faux-priced"],
				["review", "review", "reviewer", "faux/faux-priced"],
			]),
		);
		expect(history.runs).toHaveLength(1);
		expect(history.runs[0]?.usd).toBeCloseTo(first.usd, 10);
		// What a dry run of the second run would plan: one planner, four reviewers (a dry run's calls carry an index).
		const calls = [
			{ phase: "plan", label: "planner", agentType: "general-purpose", index: 0 },
			...[1, 2, 3, 4].map((index) => ({ phase: "review", label: "reviewer", agentType: "general-purpose", index })),
		];
		const planned = await estimatePlannedRun(calls, { cwd: fx.dirs.cwd, runsRoot, workflow: "review", capUsd: 0.01 });
		const { estimate } = planned;
		expect(estimate.groups.map((group) => group.basis.text)).toEqual([
			"1 earlier call of workflow `review` (phase plan, label planner)",
			"4 earlier calls of workflow `review` (phase review, label reviewer)",
		]);
		expect(planned.text.split("\n")[0]).toBe(
			`Estimated cost (the middle half of what like calls cost): ${usdRangeText(estimate.total.usd)}, ${tokensRangeText(estimate.total.tokens)} for 5 calls`,
		);
		expect(planned.overCap).toBe(`estimated ${usdRangeText(estimate.total.usd)}, over the cap $0.01`);
		const { low, high } = estimate.total.usd;
		// A range, and a narrow one: what the reviewers' replies differ by, not a guess.
		expect(low).toBeLessThan(high);
		expect(high).toBeLessThan(1.5 * low);

		const second = await runReview();
		expect(second.usd).toBeGreaterThanOrEqual(low);
		expect(second.usd).toBeLessThanOrEqual(high);
		// The second run's question carries the reviewers' range, from the first run's four reviewers, and the rest.
		const reviewers = estimate.phases.find((phase) => phase.phase === "review");
		const planner = estimate.phases.find((phase) => phase.phase === "plan");
		expect(reviewers && planner).toBeTruthy();
		if (!reviewers || !planner) return;
		expect(second.asked).toHaveLength(1);
		expect(second.asked[0]).toContain(
			`These 4 agents: estimated ${usdRangeText(reviewers.usd)}, ${tokensRangeText(reviewers.tokens)} (4 earlier calls of workflow \`review\` (phase review)).`,
		);
		const spent = planner.usd.low;
		expect(second.asked[0]).toContain(
			`Earlier runs of \`review\` cost ${usdText(first.usd)} in all (the middle half of 1 run): about ${usdText(first.usd - spent)} more after the ${usdText(spent)} spent so far.`,
		);
	});
});
