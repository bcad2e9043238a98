import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AssistantMessage } from "@earendil-works/pi-ai";
import { getAgentDir } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createParentSession, type ParentSession } from "../../scripts/parent-session.ts";
import type { WorkflowProgressDetails } from "../../src/progress/index.ts";
import { createRunStore } from "../../src/runs/index.ts";
import {
	createFauxHarness,
	type FauxHarness,
	type FauxRequest,
	fauxAssistantMessage,
	fauxToolCall,
	untilAborted,
} from "../helpers/faux.ts";

const PARENT_TASK = "Please run the workflow";

function callWorkflow(args: Parameters<typeof fauxToolCall>[1]) {
	return fauxAssistantMessage([fauxToolCall("workflow", args)], { stopReason: "toolUse" });
}

function toolEnd(parent: ParentSession) {
	const end = parent.toolEvents.find((e) => e.type === "tool_execution_end");
	if (end?.type !== "tool_execution_end") throw new Error("the workflow tool did not finish");
	return end as typeof end & {
		result: { content: Array<{ type: string; text?: string }>; details: WorkflowProgressDetails };
	};
}

describe("the workflow tool in a real pi session", () => {
	let harness: FauxHarness;
	let cwd: string;
	let parent: ParentSession;

	beforeEach(async () => {
		harness = await createFauxHarness();
		cwd = mkdtempSync(join(tmpdir(), "wf-e2e-"));
	});
	afterEach(() => {
		parent?.dispose();
		harness.dispose();
		rmSync(cwd, { recursive: true, force: true });
	});

	/** Starts the parent session in `cwd` and sends it the task its scripted reply answers with a tool call. */
	async function promptParent(): Promise<void> {
		parent = await createParentSession({
			cwd,
			agentDir: harness.agentDir,
			modelRuntime: harness.modelRuntime,
			model: harness.model,
		});
		await parent.session.prompt(PARENT_TASK);
	}

	it("runs parallel and pipeline children as pi sessions, with a custom agent, a null slot and a census entry", async () => {
		mkdirSync(join(cwd, ".pi", "agents"), { recursive: true });
		writeFileSync(
			join(cwd, ".pi", "agents", "reviewer.md"),
			"---\nname: reviewer\ndescription: Reviews code\ntools: read, grep\n---\nYou are the REVIEWER persona.\n",
		);
		const script = `export const meta = { name: "e2e", description: "parallel and pipeline" };
phase("review");
const reviews = await parallel(["a.ts", "b.ts", "c.ts"].map((f) => () => agent("review " + f, { agent: "reviewer" })));
phase("fix");
const fixed = await pipeline(["x", "y"], (item) => agent("plan " + item), (plan) => agent("apply " + plan));
return { reviews, fixed };`;
		harness.route(PARENT_TASK, [
			callWorkflow({ script }),
			(request) => fauxAssistantMessage(`workflow said: ${request.last.text.slice(0, 40)}`),
		]);
		harness.route("review a.ts", [fauxAssistantMessage("a looks fine")]);
		harness.route("review b.ts", [fauxAssistantMessage([], { stopReason: "error", errorMessage: "provider down" })]);
		harness.route("review c.ts", [fauxAssistantMessage("c has a bug")]);
		harness.route("plan x", [fauxAssistantMessage("PX")]);
		harness.route("plan y", [fauxAssistantMessage("PY")]);
		harness.route("apply PX", [fauxAssistantMessage("done X")]);
		harness.route("apply PY", [fauxAssistantMessage("done Y")]);

		await promptParent();

		const end = toolEnd(parent);
		expect(end.isError).toBe(false);
		const { envelope }: WorkflowProgressDetails = end.result.details;
		expect(envelope.status).toBe("completed");
		expect(envelope.result).toEqual({ reviews: ["a looks fine", null, "c has a bug"], fixed: ["done X", "done Y"] });
		expect(envelope.failures).toEqual([
			expect.objectContaining({ kind: "agent", agentType: "reviewer", phase: "review" }),
		]);
		expect(end.result.content[0]?.text).toContain('"done Y"');

		const reviewer = harness.requests.find((r) => r.task.includes("review a.ts"));
		expect(reviewer?.systemPrompt).toContain("You are the REVIEWER persona.");
		expect(reviewer?.tools.sort()).toEqual(["grep", "read"]);
		const generic = harness.requests.find((r) => r.task.includes("plan x"));
		expect(generic?.tools).not.toContain("workflow");
		expect(parent.toolEvents.some((e) => e.type === "tool_execution_update")).toBe(true);
	});

	it("on a bad header: fails the tool call with line:column before any child starts", async () => {
		harness.route(PARENT_TASK, [
			callWorkflow({
				script: `export const meta = { name: "x", description: "d", phases: [{ title: f() }] };\nawait agent("never");`,
			}),
			fauxAssistantMessage("ok"),
		]);
		await promptParent();
		const end = toolEnd(parent);
		expect(end.isError).toBe(true);
		expect(JSON.stringify(end.result.content)).toContain(
			"`meta.phases[0].title` must be a literal, found a call expression (1:70)",
		);
		expect(harness.requests.some((r) => r.task.includes("never"))).toBe(false);
	});

	it("on args that do not match meta.args: fails the tool call naming the field", async () => {
		harness.route(PARENT_TASK, [
			callWorkflow({
				script: `export const meta = { name: "x", description: "d", args: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } };\nreturn args.n;`,
				args: { n: "three" },
			}),
			fauxAssistantMessage("ok"),
		]);
		await promptParent();
		const end = toolEnd(parent);
		expect(end.isError).toBe(true);
		expect(JSON.stringify(end.result.content)).toContain("`args.n` must be number");
	});

	it("on abort: stops every running child and reports what finished", async () => {
		harness.route(PARENT_TASK, [
			callWorkflow({
				script: `export const meta = { name: "slow", description: "d" };\nconst first = await agent("quick one");\nreturn await parallel([1, 2, 3].map((i) => () => agent("slow " + i)));`,
			}),
		]);
		harness.route("quick one", [fauxAssistantMessage("fast")]);
		// The abort comes once all three slow children have asked their model (a child shown running may not have yet).
		let asked = 0;
		const wait = untilAborted() as (request: FauxRequest) => Promise<AssistantMessage>;
		for (const i of [1, 2, 3]) {
			harness.route(`slow ${i}`, [
				(request) => {
					if (++asked === 3) setTimeout(() => void parent.session.abort(), 20);
					return wait(request);
				},
			]);
		}
		parent = await createParentSession({
			cwd,
			agentDir: harness.agentDir,
			modelRuntime: harness.modelRuntime,
			model: harness.model,
		});
		await parent.session.prompt(PARENT_TASK);

		const end = toolEnd(parent);
		expect(end.isError).toBe(true);
		const { envelope }: WorkflowProgressDetails = end.result.details;
		expect(envelope.status).toBe("stopped");
		expect(envelope.agentCalls.filter((c) => c.status === "completed")).toHaveLength(1);
		const slow = harness.requests.filter((r) => r.task.includes("slow"));
		expect(slow).toHaveLength(3);
		expect(slow.every((r) => r.signal?.aborted)).toBe(true);
	});
	it("after an abort: the result gives the run id and the resume call, and the resume replays what finished", async () => {
		const script = `export const meta = { name: "slow", description: "d" };\nconst first = await agent("quick one");\nreturn [first, ...(await parallel([1, 2].map((i) => () => agent("slow " + i))))];`;
		let runId = "";
		// Every parent request routes on its first user message, so the resume call is the route's next reply.
		const broken = `export const meta = { name: "slow", description: "d" };\nreturn [;`;
		harness.route(PARENT_TASK, [
			callWorkflow({ script }),
			() => callWorkflow({ resume: runId, script: broken }),
			fauxAssistantMessage("that edit does not parse"),
			() => callWorkflow({ resume: runId }),
			fauxAssistantMessage("resumed"),
		]);
		harness.route("quick one", [fauxAssistantMessage("fast")]);
		for (const i of [1, 2]) harness.route(`slow ${i}`, [untilAborted(), fauxAssistantMessage(`slow ${i} done`)]);
		parent = await createParentSession({
			cwd,
			agentDir: harness.agentDir,
			modelRuntime: harness.modelRuntime,
			model: harness.model,
		});
		let aborting = false;
		const unsubscribe = parent.session.subscribe((event) => {
			if (event.type !== "tool_execution_update" || aborting) return;
			const details = (event as unknown as { partialResult: { details: WorkflowProgressDetails } }).partialResult
				.details;
			if (details.envelope.agentCalls.filter((c) => c.status === "running").length === 2) {
				aborting = true;
				setTimeout(() => void parent.session.abort(), 20);
			}
		});
		await parent.session.prompt(PARENT_TASK);
		unsubscribe();

		const stopped = toolEnd(parent);
		expect(stopped.result.details.envelope.status).toBe("stopped");
		runId = stopped.result.details.runId ?? "";
		expect(runId).toMatch(/^wf-/);
		expect(stopped.result.content[0]?.text).toContain(
			`1 agent result is saved. Resume with workflow({ resume: "${runId}" })`,
		);

		// A resume with an edit that does not parse fails the call and leaves the record as it was.
		parent.toolEvents.length = 0;
		await parent.session.prompt("Resume it with the edit");
		expect(toolEnd(parent).isError).toBe(true);
		const record = await createRunStore({ cwd, root: join(getAgentDir(), "workflow-runs") }).open(runId);
		expect(await record.readSnapshot()).toMatchObject({ status: "stopped", counts: { completed: 1 } });
		expect(record.info.script).toBe(script);

		parent.toolEvents.length = 0;
		await parent.session.prompt("Resume it");
		const resumed = toolEnd(parent);
		expect(resumed.isError).toBe(false);
		expect(resumed.result.details.runId).toBe(runId);
		expect(resumed.result.details.envelope.result).toEqual(["fast", "slow 1 done", "slow 2 done"]);
		expect(harness.requests.filter((r) => r.task.includes("quick one"))).toHaveLength(1);
		const { envelope }: WorkflowProgressDetails = resumed.result.details;
		expect(envelope.agentCalls.map((c) => c.cached ?? false)).toEqual([true, false, false]);
	});

	it("on a resume of an unknown run id: fails the tool call and names the recent runs", async () => {
		harness.route(PARENT_TASK, [callWorkflow({ resume: "wf-20260101-000000-zzzz" }), fauxAssistantMessage("ok")]);
		await promptParent();
		const end = toolEnd(parent);
		expect(end.isError).toBe(true);
		expect(JSON.stringify(end.result.content)).toContain("wf-20260101-000000-zzzz");
	});
});
