/**
 * The estimate wired into the `workflow` tool: a dry run prints it after the plan, with this workflow's earlier run
 * as its basis; a run with a cap is estimated before its first child (a warning in the result for the model, a
 * confirm in the TUI that can decline with nothing spent); the cap question says about how much more the run needs.
 * Children are real pi sessions on the faux provider's priced model.
 */

import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunStore, readCostHistory } from "../../src/runs/index.ts";
import { createRunnerFixture, type RunnerFixture } from "../children/runner-fixture.ts";
import { fauxAssistantMessage } from "../helpers/faux.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { pricedToolSession, pricedWorkflowTool } from "./priced-tool.ts";

checkSandboxLeaks();

const REVIEW = `export const meta = {
	name: "review",
	description: "plan, then one reviewer per file",
	phases: [{ title: "plan" }, { title: "review" }],
};
phase("plan");
await agent("Plan the review", { label: "planner" });
phase("review");
return await parallel(["a", "b"].map((file) => () => agent("Review file " + file, { label: "reviewer" })));
`;

let fx: RunnerFixture;
beforeEach(async () => {
	fx = await createRunnerFixture();
	fx.dirs.write(".pi/workflows/review.js", REVIEW);
	fx.faux.route("Plan the review", [fauxAssistantMessage("Review each file for bugs.")]);
	for (const file of ["a", "b"]) {
		fx.faux.route(`Review file ${file}`, [fauxAssistantMessage(`${file}: ${"fine. ".repeat(40)}`)]);
	}
});
afterEach(() => {
	fx.teardown();
});

function text(result: { content: { type: string; text?: string }[] }): string {
	return result.content.map((part) => part.text ?? "").join("\n");
}

async function runs(): Promise<number> {
	const store = createRunStore({ cwd: fx.dirs.cwd, root: join(fx.dirs.agentDir, "workflow-runs") });
	return (await readCostHistory(store)).calls.length;
}

describe("the estimate in the workflow tool", () => {
	it("a dry run names the workflow's earlier run as its basis; a capped run is warned of before its first child", async () => {
		const first = pricedToolSession(fx);
		const dryBefore = await first.tool.execute(
			"c0",
			{ name: "review", dryRun: true },
			undefined,
			undefined,
			first.ctx,
		);
		// No history yet: the session's priced model from pi's catalog.
		expect(text(dryBefore)).toContain("Basis: catalog price of faux/faux-priced ($3/$15 per million");
		const done = await first.tool.execute("c1", { name: "review" }, undefined, undefined, first.ctx);
		expect(done.details.envelope?.status).toBe("completed");
		// No cap, no estimate before the run.
		expect(text(done)).not.toContain("before it started");

		const dry = await first.tool.execute(
			"c2",
			{ name: "review", dryRun: true, maxCostUsd: 0.000001 },
			undefined,
			undefined,
			first.ctx,
		);
		const dryText = text(dry);
		expect(dryText).toMatch(
			/\n\nEstimated cost \(the middle half of what like calls cost\): \$[\d.]+.* for 3 calls\n/,
		);
		expect(dryText).toContain("  phase plan: ");
		expect(dryText).toContain(
			"Basis: 1 earlier call of workflow `review` (phase plan, label planner); 2 earlier calls of workflow `review` (phase review, label reviewer)",
		);
		expect(dryText).toMatch(/\nWarning: estimated \$[\d.–$]+, over the cap <\$0\.0001\.\n<\/workflow-data>$/);
		expect((dry.details as { estimate?: { overCap?: string } }).estimate?.overCap).toMatch(/over the cap/);

		// In print mode nobody is asked: the run starts, stops at its cap, and its result carries the warning.
		const capped = await first.tool.execute(
			"c3",
			{ name: "review", maxCostUsd: 0.000001 },
			undefined,
			undefined,
			first.ctx,
		);
		expect(text(capped)).toMatch(
			/Warning: before it started, estimated \$[\d.–$]+, over the cap <\$0\.0001 \(Basis: 1 earlier call of workflow `review`/,
		);
	});

	it("in the TUI: declining the confirm ends the call with nothing spent; the cap question says what is left", async () => {
		const first = pricedToolSession(fx);
		await first.tool.execute("c1", { name: "review" }, undefined, undefined, first.ctx);
		const calls = await runs();

		const declining = pricedToolSession(fx, { confirm: false });
		await expect(
			declining.tool.execute("c2", { name: "review", maxCostUsd: 0.000001 }, undefined, undefined, declining.ctx),
		).rejects.toThrow(/Not started: estimated \$[\d.–$]+, over the cap <\$0\.0001, and the person declined/);
		expect(declining.asked).toHaveLength(1);
		expect(declining.asked[0]).toMatch(/^Workflow: estimated \$[\d.–$]+, over the cap <\$0\.0001\n/);
		expect(declining.asked[0]).toContain("Start anyway?");
		expect(await runs()).toBe(calls);

		// Going ahead: at the cap, the question carries the estimate less what was spent.
		const going = pricedToolSession(fx, { confirm: true, select: "Stop" });
		const capped = await going.tool.execute(
			"c3",
			{ name: "review", maxCostUsd: 0.000001 },
			undefined,
			undefined,
			going.ctx,
		);
		expect(capped.details.envelope?.status).toBe("stopped");
		const question = going.asked.find((asked) => asked.startsWith("Workflow review reached its cost cap"));
		expect(question).toMatch(/; about \$[\d.]+ more to finish \(estimate\)\./);
	});
});

describe("a tier in the workflow tool's dry run", () => {
	it("is planned and priced as the model the session's tiers name for it, like a full model id", async () => {
		const script = `export const meta = { name: "tiered", description: "a small model for the list" };
return await agent("List the files", { label: "lister", tier: "small" });`;
		const { ctx } = pricedToolSession(fx);
		const tool = pricedWorkflowTool(fx, () => ({
			modelTiers: { tiers: { small: "faux/faux-priced" }, source: "the `workflows.modelTiers` setting" },
		}));
		const result = await tool.execute("t", { script, dryRun: true }, undefined, undefined, ctx);
		const details = result.details as unknown as { dryRun: { calls: { model?: string }[] } };
		expect(details.dryRun.calls.map((call) => call.model)).toEqual(["faux/faux-priced"]);
		expect(text(result)).toContain(
			"Basis: catalog price of faux/faux-priced ($3/$15 per million input/output tokens) × a default 20.0k input/2.0k output tokens per child, half to twice that (no history)",
		);
	});
});
