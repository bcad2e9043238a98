import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkflowError } from "../../src/errors.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { createRunnerFixture, type RunnerFixture, statusesOf } from "./runner-fixture.ts";

checkSandboxLeaks();

let fx: RunnerFixture;
beforeEach(async () => {
	fx = await createRunnerFixture();
});
afterEach(() => {
	fx.teardown();
});

describe("createPiAgentRunner", () => {
	it("a plain child: completes with its final text, usage, and a session id", async () => {
		fx.faux.route("Say hello", [fauxAssistantMessage("Hello there.")]);
		const result = await fx.runner()(fx.request(), fx.context());
		expect(result).toMatchObject({
			type: "general-purpose",
			status: "completed",
			result: "Hello there.",
			toolUses: 0,
		});
		expect(result.id).toMatch(/^[0-9a-f-]{36}$/);
		expect(result.usage?.output).toBeGreaterThan(0);
		expect(result.usage?.total).toBe((result.usage?.input ?? 0) + (result.usage?.output ?? 0));
		expect(result.durationMs).toBeGreaterThanOrEqual(0);
		expect(result.error).toBeUndefined();
		expect(fx.tracker.created.map((session) => session.sessionId)).toEqual([result.id]);
	});

	it("reports the child queued, starting, active, then finished, with its call key and id", async () => {
		fx.faux.route("Say hello", [fauxAssistantMessage("Hello.")]);
		const result = await fx.runner()(fx.request({ key: "k-7", index: 7, description: "greeter" }), fx.context());
		expect(statusesOf(fx.reports)).toEqual(["queued", "starting", "active", "finished"]);
		for (const report of fx.reports) {
			expect(report).toMatchObject({
				id: result.id,
				type: "general-purpose",
				description: "greeter",
				callKey: "k-7",
				callIndex: 7,
			});
		}
		const last = fx.reports.at(-1);
		expect(last).toMatchObject({ turns: 1, model: "faux/faux-1" });
		expect(last?.tokens).toBeGreaterThan(0);
		expect(last?.endedAt).toBeGreaterThanOrEqual(last?.startedAt ?? Number.POSITIVE_INFINITY);
	});

	it("counts tool uses and reports what the child is doing", async () => {
		fx.dirs.write("notes.txt", "remember the milk");
		fx.faux.route("Read notes", [
			fauxAssistantMessage([fauxToolCall("read", { path: "notes.txt" })], { stopReason: "toolUse" }),
			(request) => fauxAssistantMessage(`The notes say: ${request.last.text}`),
		]);
		const result = await fx.runner()(fx.request({ prompt: "Read notes.txt" }), fx.context());
		expect(result).toMatchObject({ status: "completed", toolUses: 1, result: "The notes say: remember the milk" });
		expect(fx.reports.map((report) => report.activity)).toContain("reading notes.txt");
		expect(fx.reports.at(-1)?.toolUses).toBe(1);
	});

	it("an empty final answer: fails with `empty answer`", async () => {
		fx.faux.route("Say hello", [fauxAssistantMessage("   ")]);
		const result = await fx.runner()(fx.request(), fx.context());
		expect(result).toMatchObject({ status: "failed", error: "empty answer" });
		expect(statusesOf(fx.reports).at(-1)).toBe("failed");
		expect(fx.reports.at(-1)?.error).toBe("empty answer");
	});

	it("a provider error: fails with the provider's message", async () => {
		// Not a limit and not one pi retries (agent-runner-limits.test.ts has those).
		const text =
			'400 {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: field required"}}';
		fx.faux.route("Say hello", [fauxAssistantMessage([], { stopReason: "error", errorMessage: text })]);
		const result = await fx.runner()(fx.request(), fx.context());
		expect(result).toMatchObject({ status: "failed", error: text });
		expect(result.providerLimit).toBeUndefined();
	});

	it("without any model: fails without starting a session", async () => {
		const result = await fx.runner({ defaultModel: undefined })(fx.request(), fx.context());
		expect(result).toMatchObject({ status: "failed" });
		expect(result.error).toMatch(/^no model/);
		expect(fx.tracker.created).toEqual([]);
	});

	it("without any model, through a run: a script with no agent() completes; agent() fails with the host's cause", async () => {
		const noModel = "No model available: log in first";
		const runner = fx.runner({ defaultModel: undefined, noModel });
		const header = `export const meta = { name: "m", description: "no model" };\n`;
		const quiet = await runWorkflowScript(`${header}log("nothing to ask");\nreturn 1;`, { agentRunner: runner });
		expect(quiet).toMatchObject({ status: "completed", value: 1 });
		const asks = await runWorkflowScript(`${header}return await agent("Say hello");`, { agentRunner: runner });
		expect(asks.status).toBe("failed");
		expect(asks.failures).toEqual([expect.objectContaining({ cause: noModel })]);
		expect(fx.tracker.created).toEqual([]);
	});

	it("children get pi's built-in tools and never a workflow tool", async () => {
		fx.faux.route("Say hello", [fauxAssistantMessage("ok")]);
		await fx.runner()(fx.request(), fx.context());
		expect(fx.faux.requests[0].tools.sort()).toEqual(["bash", "edit", "find", "grep", "ls", "read", "write"]);
	});

	it("`tools` on the request replaces the type's allowlist", async () => {
		fx.faux.route("Say hello", [fauxAssistantMessage("ok")]);
		await fx.runner()(fx.request({ tools: ["ls"] }), fx.context());
		expect(fx.faux.requests[0].tools).toEqual(["ls"]);
	});

	it("`readOnly` (pi peers' option) takes edit, write and bash away, from the type's tools or the call's", async () => {
		fx.faux.route("Say hello", [fauxAssistantMessage("ok"), fauxAssistantMessage("ok")]);
		await fx.runner()(fx.request({ readOnly: true }), fx.context());
		expect(fx.faux.requests[0].tools.sort()).toEqual(["find", "grep", "ls", "read"]);
		await fx.runner()(fx.request({ readOnly: true, tools: ["read", "ls"] }), fx.context());
		expect(fx.faux.requests[1].tools.sort()).toEqual(["ls", "read"]);
	});

	it("`tools: []` gives the child no tools", async () => {
		fx.faux.route("Say hello", [fauxAssistantMessage("ok")]);
		await fx.runner()(fx.request({ tools: [] }), fx.context());
		expect(fx.faux.requests[0].tools).toEqual([]);
	});
});

describe("createPiAgentRunner: author errors", () => {
	it.each([
		[
			"an unknown agent type",
			{ agentType: "reviwer" },
			"agent_type_unknown",
			"Unknown agent type `reviwer`. Available: general-purpose",
		],
		[
			"an unknown tool",
			{ tools: ["read", "workflow"] },
			"agent_options_invalid",
			"`agent()` option `tools` names unknown tool `workflow`. Known tools: read, bash, edit, write, grep, find, ls",
		],
		[
			"an unknown model",
			{ model: "no-such-model-anywhere" },
			"agent_options_invalid",
			'`agent()` option `model` names model `no-such-model-anywhere`, which pi cannot resolve: Model "no-such-model-anywhere" not found. Use `provider/id` of a model `pi --list-models` shows',
		],
		[
			"an unknown thinking level",
			{ thinking: "extreme" },
			"agent_options_invalid",
			'`agent()` option `thinking` must be one of off, minimal, low, medium, high, xhigh, max, got "extreme"',
		],
		[
			"a schema whose root is not an object",
			{ schema: { type: "array" } },
			"schema_invalid",
			'`schema` must have `type: "object"` at its root, found `type: "array"`. Wrap other values in an object property',
		],
	])("on %s: throws %s before any child starts", async (_label, overrides, code, message) => {
		const error = await fx
			.runner()(fx.request(overrides), fx.context())
			.then(
				() => undefined,
				(thrown: unknown) => thrown,
			);
		expect(error).toBeInstanceOf(WorkflowError);
		expect((error as WorkflowError).code).toBe(code);
		expect((error as WorkflowError).message).toBe(message);
		expect(fx.reports).toEqual([]);
		expect(fx.tracker.created).toEqual([]);
	});
});
