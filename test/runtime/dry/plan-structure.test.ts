/**
 * A dry run's plan follows the script's structure: each `parallel()`/`pipeline()` reports its width (not how many of
 * its calls happened to be queued between two answers), and phases that only calls name (`agent(…, { phase })`)
 * appear in the plan, in the order the run first met them, with their fan-out.
 */
import { afterAll, describe, expect, it } from "vitest";
import { estimateDryPlan, planWithEstimateText } from "../../../src/host/run-estimate.ts";
import { dryRunPlanText, dryRunWorkflowScript, shutdownSchemaWorker } from "../../../src/runtime/index.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";
import { tempStore } from "../../runs/support.ts";

checkSandboxLeaks();
afterAll(() => shutdownSchemaWorker());

describe("the plan's fan-outs and phases", () => {
	it("gives each call of a parallel() its width, when answers come between its calls", async () => {
		// The last two calls queue only after the first two were answered: a count of "queued together" says 2.
		const script = `
export const meta = { name: "split", description: "four reviews, two of them late" };
phase("review");
return await parallel([0, 1, 2, 3].map((i) => async () => {
	if (i >= 2) await sleep(20);
	return agent("review " + i, { label: "review " + i });
}));
`;
		const { plan } = await dryRunWorkflowScript(script, {});
		expect(plan.status).toBe("completed");
		expect(plan.calls.map((call) => [call.label, call.fanOut])).toEqual([
			["review 0", 4],
			["review 1", 4],
			["review 2", 4],
			["review 3", 4],
		]);
		expect(plan.phases.map((p) => [p.name, p.widestFanOut])).toEqual([["review", 4]]);
	});

	it("keeps a parallel()'s width for its calls when other calls are queued beside it; Promise.all of agent() calls counts them", async () => {
		// Queued together: two calls of a parallel() of 2 and a third beside it. The parallel's calls are 2 wide (its
		// structure); the lone call has no parallel() and takes the count queued with it.
		const script = `
export const meta = { name: "beside", description: "a parallel() and a call beside it" };
const [pair, lone] = await Promise.all([
	parallel([() => agent("a", { label: "a" }), () => agent("b", { label: "b" })]),
	agent("c", { label: "c" }),
]);
return [pair.length, typeof lone];
`;
		const { plan } = await dryRunWorkflowScript(script, {});
		expect(plan.status).toBe("completed");
		expect(plan.calls.map((call) => [call.label, call.fanOut])).toEqual([
			["a", 2],
			["b", 2],
			["c", 3],
		]);
	});

	it("lists the phases calls name and counts a pipeline's width in them", async () => {
		const script = `
export const meta = { name: "migrate", description: "analyse then change each file" };
const files = ["a.ts", "b.ts", "c.ts"];
const done = await pipeline(
	files,
	(f) => agent("analyse " + f, { label: "analyse " + f, phase: "analyse" }),
	(_, f) => agent("change " + f, { label: "change " + f, phase: "change" }),
);
phase("report");
return done.length;
`;
		const { plan } = await dryRunWorkflowScript(script, {});
		expect(plan.status).toBe("completed");
		expect(plan.phases.map((p) => [p.name, p.agentCalls, p.widestFanOut])).toEqual([
			["analyse", 3, 3],
			["change", 3, 3],
			["report", 0, 0],
		]);
		expect(plan.totals.widestFanOut).toBe(3);
		expect(dryRunPlanText(plan)).toContain(
			"  1. analyse\n     3 agent calls, widest fan-out 3; general-purpose on (no model: would use pi's default)\n",
		);
	});

	it("takes a parallel()'s width from the functions it was given, whatever each of them calls", async () => {
		const script = `
export const meta = { name: "wide", description: "four items, one needs an agent" };
phase("review");
const out = await parallel(["a", "b", "c", "d"].map((f) => () => (f === "a" ? agent("review " + f) : null)));
return out.length;
`;
		const { plan } = await dryRunWorkflowScript(script, {});
		expect(plan.phases.map((p) => [p.name, p.agentCalls, p.widestFanOut])).toEqual([["review", 1, 4]]);
		expect(plan.totals.widestFanOut).toBe(4);
	});
});

describe("a plan with no agent call says why", () => {
	const SCRIPT = `
export const meta = { name: "research", description: "researches a question" };
if (!args?.question) return "No research question provided. Pass it as args: { question }";
return await agent("Research " + args.question);
`;

	it("the value the script returned, the args it reads that meta.args does not declare, and no empty basis", async () => {
		const { plan } = await dryRunWorkflowScript(SCRIPT, {});
		expect(plan.totals.agentCalls).toBe(0);
		const { store, root } = tempStore();
		const text = planWithEstimateText(
			dryRunPlanText(plan),
			await estimateDryPlan(plan, { cwd: store.cwd, runsRoot: root }),
		);
		expect(text).toContain(
			'No agent call: the script returned "No research question provided. Pass it as args: { question }" before any; it reads args.question, which its meta.args does not declare (so a dry run cannot make them up): pass them (--args, `args`) or declare them in meta.args\n',
		);
		expect(text).toContain("Basis: no agent call to price");
		expect(text).not.toMatch(/Basis: *$/m);
	});

	it("says nothing of args when they were given and the script made its call", async () => {
		const { plan } = await dryRunWorkflowScript(SCRIPT, { args: { question: "why?" } });
		expect(plan.totals.agentCalls).toBe(1);
		expect(plan.argsRead).toBeUndefined();
		expect(dryRunPlanText(plan)).not.toContain("No agent call");
	});
});

describe("the stand-ins drawn more than once", () => {
	it("counts a fan-out over an agent's list as a range: empty, typical and long lists", async () => {
		const script = `
export const meta = { name: "listed", description: "fans out over what an agent lists" };
const LIST = { type: "object", properties: { items: { type: "array", items: { type: "string" } } }, required: ["items"] };
const { items } = await agent("list the files", { label: "list", schema: LIST });
return await parallel(items.map((item) => () => agent("review " + item, { label: item })));
`;
		const { plan } = await dryRunWorkflowScript(script, {});
		expect(plan.totals.agentCalls).toBe(3);
		expect(plan.draws).toMatchObject({
			count: 3,
			agentCalls: { low: 1, high: 9 },
			widestFanOut: { low: 1, high: 8 },
		});
		expect(dryRunPlanText(plan)).toContain(
			"Over 3 draws of the made-up answers (typical, empty and long arrays, each enum value in turn): 1–9 agent calls, widest fan-out 1–8",
		);
	});

	it("takes each enum value in some draw, and names the declared phases no draw reached", async () => {
		const script = `
export const meta = {
	name: "triage",
	description: "escalates some",
	phases: [{ title: "triage" }, { title: "escalate" }, { title: "celebrate" }],
};
phase("triage");
const VERDICT = { type: "object", properties: { verdict: { enum: ["fix", "skip", "escalate"] } }, required: ["verdict"] };
const { verdict } = await agent("triage it", { label: "triage", schema: VERDICT });
if (verdict === "escalate") {
	phase("escalate");
	await agent("tell the boss", { label: "boss" });
}
return verdict;
`;
		const { plan } = await dryRunWorkflowScript(script, {});
		expect(plan.draws?.agentCalls).toEqual({ low: 1, high: 2 });
		expect(plan.draws?.phases.escalate).toEqual({ low: 0, high: 1 });
		expect(plan.draws?.unreached).toEqual(["celebrate"]);
		expect(dryRunPlanText(plan)).toContain("No draw reached the phase celebrate");
	});

	it("names the phases the script names and the if/else/case branches with agent() calls that no draw reached", async () => {
		const script = `export const meta = { name: "branchy", description: "goes down one path" };
const VERDICT = { type: "object", properties: { verdict: { type: "string", enum: ["fix", "skip"] } }, required: ["verdict"] };
const { verdict } = await agent("triage it", { label: "triage", schema: VERDICT });
if (verdict === "never") {
	phase("escalate");
	await agent("tell the boss", { label: "boss" });
} else {
	await agent("fix it", { label: "fix" });
}
switch (verdict) {
	case "gone":
		await agent("celebrate", { label: "party", phase: "party" });
		break;
	default:
		break;
}
return verdict;
`;
		const { plan } = await dryRunWorkflowScript(script, {});
		expect(plan.draws?.count).toBe(3);
		expect(plan.draws?.unreached).toEqual(["escalate", "party"]);
		expect(plan.draws?.branches).toEqual([
			{ kind: "if", line: 4, column: 26, agentCalls: 1 },
			{ kind: "case", line: 11, column: 2, agentCalls: 1 },
		]);
		const text = dryRunPlanText(plan);
		expect(text).toContain("No draw reached the phases escalate, party");
		expect(text).toContain(
			"No draw reached the `if` branch at 4:26 (1 agent() call), the `case` at 11:2 (1 agent() call): what they cost is not in this plan",
		);
	});
});
