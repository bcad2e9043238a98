import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { WorkflowProgressEvent } from "../../src/runtime/core/events.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { agentFile } from "../agents/agent-files.ts";
import { fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";
import { createRunnerFixture, type RunnerFixture } from "./runner-fixture.ts";

let fx: RunnerFixture;
beforeEach(async () => {
	fx = await createRunnerFixture();
});
afterEach(() => {
	fx.teardown();
});

const HEADER = 'export const meta = { name: "t", description: "runner through the runtime" };\n';

describe("createPiAgentRunner under runWorkflowScript", () => {
	it("parallel children on one faux provider each get their own replies; a failed one is a null slot", async () => {
		fx.faux.route("Task A", [fauxAssistantMessage("answer A")]);
		fx.faux.route("Task B", [fauxAssistantMessage([], { stopReason: "error", errorMessage: "B exploded" })]);
		fx.faux.route("Task C", [fauxAssistantMessage("answer C")]);
		const source = `${HEADER}return await parallel(["A", "B", "C"].map((x) => () => agent("Task " + x)));`;
		const result = await runWorkflowScript(source, { agentRunner: fx.runner(), cwd: fx.dirs.cwd });
		expect(result.value).toEqual(["answer A", null, "answer C"]);
		expect(result.failures.map((failure) => failure.cause)).toContain("B exploded");
		expect(fx.tracker.live.size).toBe(0);
	});

	it("a custom agent with a schema: the validated object reaches the script", async () => {
		fx.dirs.write(".pi/agents/counter.md", agentFile("tools: none", "You count things."));
		fx.faux.route("Count", [
			fauxAssistantMessage([fauxToolCall("submit_result", { n: "many" })], { stopReason: "toolUse" }),
			fauxAssistantMessage([fauxToolCall("submit_result", { n: 3 })], { stopReason: "toolUse" }),
		]);
		const source = `${HEADER}return await agent("Count the files", { agent: "counter", schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } });`;
		const events: WorkflowProgressEvent[] = [];
		const result = await runWorkflowScript(source, {
			agentRunner: fx.runner(),
			cwd: fx.dirs.cwd,
			onProgress: (event) => events.push(event),
		});
		expect(result).toMatchObject({ status: "completed", value: { n: 3 } });
		expect(fx.faux.requests[0].systemPrompt.startsWith("You count things.")).toBe(true);
		expect(events.some((event) => event.type === "agent_child")).toBe(true);
	});

	it("cancelling the run stops the running children and leaves no session", async () => {
		fx.faux.route("Slow", [
			(request) =>
				new Promise((resolve) => {
					request.signal?.addEventListener("abort", () => resolve(fauxAssistantMessage("late")), { once: true });
				}),
			(request) =>
				new Promise((resolve) => {
					request.signal?.addEventListener("abort", () => resolve(fauxAssistantMessage("late")), { once: true });
				}),
		]);
		const controller = new AbortController();
		const source = `${HEADER}return await parallel([() => agent("Slow 1"), () => agent("Slow 2")]);`;
		const running = runWorkflowScript(source, {
			agentRunner: fx.runner(),
			cwd: fx.dirs.cwd,
			signal: controller.signal,
		});
		while (fx.faux.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
		controller.abort();
		const result = await running;
		expect(result.status).toBe("stopped");
		// The runtime settles on cancel without waiting; the children finish stopping right after.
		while (fx.tracker.live.size > 0) await new Promise((resolve) => setTimeout(resolve, 5));
		expect(fx.tracker.created).toHaveLength(2);
	});
});
