import type { ExtensionToolContext } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import {
	createStructuredOutputTool,
	STRUCTURED_OUTPUT_TOOL_NAME,
	structuredOutputPrompt,
} from "../../src/children/structured-output.ts";
import { WorkflowError } from "../../src/errors.ts";

const SCHEMA = {
	type: "object",
	properties: { title: { type: "string", minLength: 3 }, score: { type: "number" } },
	required: ["title"],
	additionalProperties: false,
};

/** Calls the tool the way pi would after its own argument check; this tool never reads the context. */
function submit(capture: Awaited<ReturnType<typeof createStructuredOutputTool>>, params: unknown) {
	return capture.tool.execute("call-1", params, undefined, undefined, {} as ExtensionToolContext);
}

describe("createStructuredOutputTool", () => {
	it("declares the schema as the tool's parameters under the name submit_result", async () => {
		const capture = await createStructuredOutputTool(SCHEMA);
		expect(capture.tool.name).toBe(STRUCTURED_OUTPUT_TOOL_NAME);
		expect(capture.tool.name).toBe("submit_result");
		expect(capture.tool.parameters).toEqual(SCHEMA);
		expect(capture.submitted).toBe(false);
	});

	it("on an invalid submission: throws the ajv errors for the child and records nothing", async () => {
		const capture = await createStructuredOutputTool(SCHEMA);
		await expect(submit(capture, { title: "ab", extra: 1 })).rejects.toThrow(
			"The result does not match the schema: `result` must NOT have additional properties: `extra`; `result.title` must NOT have fewer than 3 characters. Fix these and call submit_result again.",
		);
		expect(capture).toMatchObject({ submitted: false, value: undefined, rejected: 1 });
	});

	it("on a valid submission: records it and ends the run", async () => {
		const capture = await createStructuredOutputTool(SCHEMA);
		const result = await submit(capture, { title: "abc", score: 1 });
		expect(result.terminate).toBe(true);
		expect(result.content).toEqual([
			{ type: "text", text: "Result recorded. You are done: stop here, no further reply is needed." },
		]);
		expect(capture).toMatchObject({ submitted: true, value: { title: "abc", score: 1 }, rejected: 0 });
	});

	it("keeps the first valid submission when the child submits twice", async () => {
		const capture = await createStructuredOutputTool(SCHEMA);
		await submit(capture, { title: "first" });
		const second = await submit(capture, { title: "second" });
		expect(second.content[0]).toEqual({
			type: "text",
			text: "A result was already recorded; this one is ignored. Stop now.",
		});
		expect(capture.value).toEqual({ title: "first" });
	});

	it("on a schema that does not compile: throws schema_invalid", async () => {
		let error: unknown;
		try {
			await createStructuredOutputTool({ type: "object", properties: { a: { type: "strnig" } } });
		} catch (thrown) {
			error = thrown;
		}
		expect(error).toBeInstanceOf(WorkflowError);
		expect((error as WorkflowError).code).toBe("schema_invalid");
	});

	it("hands pi a copy without the keywords pi would run on the host's thread, told to the model in words", async () => {
		const capture = await createStructuredOutputTool({
			type: "object",
			properties: {
				id: { type: "string", pattern: "^(a+)+$", description: "The id" },
				tags: { type: "array", items: { type: "string", format: "email" }, uniqueItems: true },
				extra: { type: "object", patternProperties: { "^x-": { type: "string" } }, additionalProperties: false },
			},
		});
		expect(capture.tool.parameters).toEqual({
			type: "object",
			properties: {
				id: { type: "string", description: "The id (must match the regular expression /^(a+)+$/)" },
				tags: {
					type: "array",
					items: { type: "string", description: '(must be in the format "email")' },
					description: "(items must be unique)",
				},
				extra: { type: "object", description: "(properties whose names match /^x-/ are allowed too)" },
			},
		});
		// Our own check still enforces all of it.
		await expect(submit(capture, { id: "aab", tags: ["a@b.co", "a@b.co"], extra: { y: 1 } })).rejects.toThrow(
			'The result does not match the schema: `result.id` must match pattern "^(a+)+$"; `result.tags` must NOT have duplicate items (items ## 1 and 0 are identical); `result.extra` must NOT have additional properties: `y`. Fix these and call submit_result again.',
		);
		capture.dispose();
	});
});

describe("structuredOutputPrompt", () => {
	it("adds how to submit after the task", () => {
		expect(structuredOutputPrompt("Review a.ts")).toBe(
			"Review a.ts\n\nWhen you have the answer, call the `submit_result` tool once with it: its parameters are the JSON Schema your answer must match. Only what you submit there is used; your text reply is not.",
		);
	});

	it("adds the previous attempt's errors when given", () => {
		const prompt = structuredOutputPrompt("Review a.ts", { schemaFeedback: "`output.title` must be string" });
		expect(prompt.split("\n\n").at(-1)).toBe(
			"A previous attempt at this task gave an answer that did not match the schema: `output.title` must be string. Make sure this answer does.",
		);
	});
});
