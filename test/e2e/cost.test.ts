/**
 * Cost end to end: a parent pi session calls the `workflow` tool, children are pi sessions on priced faux models
 * (pi-ai's own figures, see test/helpers/faux.ts). What the model reads, the envelope, the snapshot and the run list
 * show each child's cost and model, the run's total with its unknown part, the cap, and what a resume saved.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getAgentDir } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createParentSession, type ParentSession } from "../../scripts/parent-session.ts";
import type { WorkflowProgressDetails } from "../../src/progress/index.ts";
import { createRunStore } from "../../src/runs/index.ts";
import { createFauxHarness, type FauxHarness, fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";

const PARENT_TASK = "Please run the workflow";

function callWorkflow(args: Parameters<typeof fauxToolCall>[1]) {
	return fauxAssistantMessage([fauxToolCall("workflow", args)], { stopReason: "toolUse" });
}

function toolEnd(parent: ParentSession) {
	const end = parent.toolEvents.findLast((e) => e.type === "tool_execution_end");
	if (end?.type !== "tool_execution_end") throw new Error("the workflow tool did not finish");
	return end as typeof end & {
		result: { content: Array<{ type: string; text?: string }>; details: WorkflowProgressDetails };
	};
}

describe("cost through the workflow tool", () => {
	let harness: FauxHarness;
	let cwd: string;
	let parent: ParentSession | undefined;

	beforeEach(async () => {
		parent = undefined;
		harness = await createFauxHarness();
		cwd = mkdtempSync(join(tmpdir(), "wf-e2e-cost-"));
	});
	afterEach(() => {
		parent?.dispose();
		harness.dispose();
		rmSync(cwd, { recursive: true, force: true });
	});

	async function promptParent(task = PARENT_TASK, settings?: Record<string, unknown>): Promise<void> {
		parent ??= await createParentSession({
			cwd,
			agentDir: harness.agentDir,
			modelRuntime: harness.modelRuntime,
			model: harness.model,
			...(settings ? { settings } : {}),
		});
		parent.toolEvents.length = 0;
		await parent.session.prompt(task);
	}

	function lastEnd(): ReturnType<typeof toolEnd> {
		if (!parent) throw new Error("no parent session");
		return toolEnd(parent);
	}

	it("meta.model prices the children; a call on an unpriced model makes the total `+ unknown`; the text, snapshot and list say it", async () => {
		const script = `export const meta = { name: "priced", description: "d", model: "faux/faux-priced" };
phase("look");
const seen = await parallel(["a", "b"].map((f) => () => agent("look at " + f)));
phase("guess");
const guess = await agent("guess freely", { model: "faux/faux-1" });
return [...seen, guess];`;
		harness.route(PARENT_TASK, [callWorkflow({ script }), fauxAssistantMessage("ok")]);
		harness.route("look at a", [fauxAssistantMessage("A is fine")]);
		harness.route("look at b", [fauxAssistantMessage("B is fine")]);
		harness.route("guess freely", [fauxAssistantMessage("a guess")]);
		await promptParent();

		const end = lastEnd();
		expect(end.isError).toBe(false);
		const { envelope, runId }: WorkflowProgressDetails = end.result.details;
		const calls = envelope.agentCalls;
		expect(calls.map((call) => call.model)).toEqual(["faux/faux-priced", "faux/faux-priced", "faux/faux-1"]);
		const [a, b, guess] = calls;
		expect(a?.cost?.usd).toBeGreaterThan(0);
		expect(b?.cost?.usd).toBeGreaterThan(0);
		expect(guess?.cost).toEqual({ usd: 0, unpriced: 1 });
		const spent = (a?.cost?.usd ?? 0) + (b?.cost?.usd ?? 0);
		expect(envelope.totals.cost.usd).toBeCloseTo(spent, 10);
		expect(envelope.totals.cost.unpriced).toBe(1);
		expect(envelope.phases.find((phase) => phase.title === "look")?.cost?.usd).toBeCloseTo(spent, 10);
		expect(envelope.phases.find((phase) => phase.title === "guess")?.cost).toEqual({ usd: 0, unpriced: 1 });

		const text = end.result.content[0]?.text ?? "";
		expect(text.split("\n")[0]).toMatch(/^Workflow priced completed in .*, \$0\.\d+ \+ unknown$/);
		expect(text).toMatch(
			/Cost: \$0\.\d+ \+ unknown \(estimated from catalog prices\); 1 reply of models with no known price/,
		);
		expect(text).toMatch(/#1 look at a \(general-purpose\) · completed · faux\/faux-priced · .* · \$0\.\d+/);
		expect(text).toContain("#3 guess freely (general-purpose) · completed · faux/faux-1");
		expect(text).toContain("cost unknown");

		const store = createRunStore({ cwd, root: join(getAgentDir(), "workflow-runs") });
		const snapshot = await (await store.open(runId ?? "")).readSnapshot();
		expect(snapshot?.cost.usd).toBeCloseTo(spent, 10);
		expect(snapshot?.cost.unpriced).toBe(1);
		const [listed] = await store.list();
		expect(listed?.cost).toEqual(snapshot?.cost);
	});

	it("maxCostUsd: at the cap no new child starts and the run stops saying how to go on; a resume with a higher cap replays the rest for free", async () => {
		const script = `export const meta = { name: "capped", description: "d", model: "faux/faux-priced" };
const out = [];
for (const n of [1, 2, 3]) out.push(await agent("step " + n));
return out;`;
		let runId = "";
		harness.route(PARENT_TASK, [
			callWorkflow({ script, maxCostUsd: 0.000001 }),
			fauxAssistantMessage("capped"),
			() => callWorkflow({ resume: runId, maxCostUsd: 5 }),
			fauxAssistantMessage("resumed"),
		]);
		for (const n of [1, 2, 3]) harness.route(`step ${n}`, [fauxAssistantMessage(`did ${n}`)]);
		await promptParent();

		const capped = lastEnd();
		expect(capped.isError).toBe(true);
		const first: WorkflowProgressDetails = capped.result.details;
		runId = first.runId ?? "";
		// No person to ask (no UI): the run stops at its cap, resumable, rather than failing.
		expect(first.envelope.status).toBe("stopped");
		expect(first.envelope.error?.code).toBe("cost_cap");
		expect(first.envelope.error?.message).toMatch(
			/^Stopped at the run's cost cap: \$0\.\d+ of <\$0\.0001 spent, and no one is here to raise it\./,
		);
		expect(first.envelope.totals.costLimitUsd).toBe(0.000001);
		expect(harness.requests.filter((request) => request.task.startsWith("step"))).toHaveLength(1);

		await promptParent("Resume it");
		const resumed = lastEnd();
		expect(resumed.isError).toBe(false);
		const { envelope }: WorkflowProgressDetails = resumed.result.details;
		expect(envelope.result).toEqual(["did 1", "did 2", "did 3"]);
		const [replayed] = envelope.agentCalls;
		expect(replayed?.cached).toBe(true);
		expect(replayed?.cost).toBeUndefined();
		expect(replayed?.savedCost).toEqual(first.envelope.agentCalls[0]?.cost);
		expect(envelope.totals.replayedCost).toEqual(first.envelope.agentCalls[0]?.cost);
		const text = resumed.result.content[0]?.text ?? "";
		expect(text).toMatch(/#1 step 1 \(general-purpose\) · replayed, saved \$0\.\d+/);
		expect(text).toMatch(
			/replayed calls saved \$0\.\d+ \(what they cost when they ran\); with them, the record's calls cost \$0\.\d+/,
		);
	});

	it("the workflows.childModel setting: children that nothing else names run on it, not the session's model", async () => {
		const script = `export const meta = { name: "cheap", description: "d" };\nreturn [await agent("one"), await agent("two", { model: "faux/faux-1" })];`;
		harness.route(PARENT_TASK, [callWorkflow({ script }), fauxAssistantMessage("ok")]);
		harness.route("one", [fauxAssistantMessage("1")]);
		harness.route("two", [fauxAssistantMessage("2")]);
		await promptParent(PARENT_TASK, { workflows: { childModel: "faux/faux-priced" } });
		const { envelope }: WorkflowProgressDetails = lastEnd().result.details;
		expect(envelope.agentCalls.map((call) => call.model)).toEqual(["faux/faux-priced", "faux/faux-1"]);
		expect(harness.requests.find((request) => request.task === "one")?.model).toBe("faux/faux-priced");
	});

	it("a workflows.childModel pi cannot resolve fails the call before any child starts, naming the setting", async () => {
		const script = `export const meta = { name: "cheap", description: "d" };\nreturn await agent("one");`;
		harness.route(PARENT_TASK, [callWorkflow({ script }), fauxAssistantMessage("ok")]);
		await promptParent(PARENT_TASK, { workflows: { childModel: "nowhere/none" } });
		const end = lastEnd();
		expect(end.isError).toBe(true);
		expect(JSON.stringify(end.result.content)).toContain(
			"The `workflows.childModel` setting names model `nowhere/none`, which pi cannot resolve",
		);
		expect(harness.requests.some((request) => request.task === "one")).toBe(false);
	});
});
