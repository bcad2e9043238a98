import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/runtime/core/types.ts";
import { fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";
import { createRunnerFixture, type RunnerFixture } from "./runner-fixture.ts";

let fx: RunnerFixture;
beforeEach(async () => {
	fx = await createRunnerFixture();
});
afterEach(() => {
	fx.teardown();
});

const FINDINGS: JsonSchema = {
	type: "object",
	properties: {
		count: { type: "integer", minimum: 0 },
		titles: { type: "array", items: { type: "string" } },
	},
	required: ["count", "titles"],
	additionalProperties: false,
};

const submit = (args: Parameters<typeof fauxToolCall>[1]) =>
	fauxAssistantMessage([fauxToolCall("submit_result", args)], { stopReason: "toolUse" });

describe("createPiAgentRunner: schema calls", () => {
	it("gives the child submit_result with the schema and tells it in the task to submit there", async () => {
		fx.faux.route("Find bugs", [submit({ count: 0, titles: [] })]);
		await fx.runner()(fx.request({ prompt: "Find bugs", schema: FINDINGS }), fx.context());
		const request = fx.faux.requests[0];
		expect(request.tools).toContain("submit_result");
		expect(request.task).toMatch(/^Find bugs\n\nWhen you have the answer, call the `submit_result` tool once/);
		const declared = request.messages
			.flatMap((message) => (message.role === "system" ? (message.toolsAdded ?? []) : []))
			.find((tool) => tool.name === "submit_result");
		expect(declared?.parameters).toMatchObject({ required: ["count", "titles"], additionalProperties: false });
	});

	it("an invalid submission goes back to the child with the errors; the valid one is the structured output", async () => {
		fx.faux.route("Find bugs", [
			submit({ count: -1, titles: [], severity: "high" }),
			(request) => {
				expect(request.last).toMatchObject({ role: "toolResult", isError: true });
				return submit({ count: 2, titles: ["off by one", "null deref"] });
			},
		]);
		const result = await fx.runner()(fx.request({ prompt: "Find bugs", schema: FINDINGS }), fx.context());
		expect(result).toMatchObject({
			status: "completed",
			structuredOutput: { count: 2, titles: ["off by one", "null deref"] },
			toolUses: 2,
		});
		expect(JSON.parse(result.result ?? "")).toEqual({ count: 2, titles: ["off by one", "null deref"] });
		const errorText = fx.faux.requests[1].last.text;
		expect(errorText).toContain("count: expected >= 0");
		expect(errorText).toContain("severity");
	});

	it("a backtracking pattern never reaches pi's own check: our check in the schema worker rejects the submission", async () => {
		const schema: JsonSchema = {
			type: "object",
			properties: { id: { type: "string", pattern: "^(a+)+$" } },
			required: ["id"],
		};
		fx.faux.route("Name it", [
			// pi's validator runs the pattern with a backtracking engine: on this it would not finish for minutes.
			submit({ id: `${"a".repeat(40)}!` }),
			(request) => {
				expect(request.last).toMatchObject({ role: "toolResult", isError: true });
				return submit({ id: "aaa" });
			},
		]);
		const result = await fx.runner()(fx.request({ prompt: "Name it", schema }), fx.context());
		expect(result).toMatchObject({ status: "completed", structuredOutput: { id: "aaa" }, toolUses: 2 });
		expect(fx.faux.requests[1].last.text).toContain('`result.id` must match pattern "^(a+)+$"');
		const declared = fx.faux.requests[0].messages
			.flatMap((message) => (message.role === "system" ? (message.toolsAdded ?? []) : []))
			.find((tool) => tool.name === "submit_result");
		expect(declared?.parameters).toEqual({
			type: "object",
			properties: { id: { type: "string", description: "(must match the regular expression /^(a+)+$/)" } },
			required: ["id"],
		});
	});

	it("a valid submission ends the child's run without another model turn", async () => {
		fx.faux.route("Find bugs", [submit({ count: 1, titles: ["x"] }), fauxAssistantMessage("unused")]);
		await fx.runner()(fx.request({ prompt: "Find bugs", schema: FINDINGS }), fx.context());
		expect(fx.faux.requests).toHaveLength(1);
		expect(fx.faux.pendingReplies()).toBe(1);
	});

	it("puts the previous attempt's validation errors into the task", async () => {
		fx.faux.route("Find bugs", [submit({ count: 0, titles: [] })]);
		await fx.runner()(
			fx.request({
				prompt: "Find bugs",
				schema: FINDINGS,
				attempt: 2,
				schemaFeedback: "`output.count` must be integer",
			}),
			fx.context(),
		);
		expect(fx.faux.requests[0].task).toContain(
			"A previous attempt at this task gave an answer that did not match the schema: `output.count` must be integer.",
		);
	});

	it("a child that answers in text instead of submitting: completes with the text and a warning, for the runtime to check", async () => {
		fx.faux.route("Find bugs", [fauxAssistantMessage('{"count": 0, "titles": []}')]);
		const result = await fx.runner()(fx.request({ prompt: "Find bugs", schema: FINDINGS }), fx.context());
		expect(result).toMatchObject({
			status: "completed",
			result: '{"count": 0, "titles": []}',
			warnings: ["the child did not call submit_result"],
		});
		expect(result.structuredOutput).toBeUndefined();
	});
});
