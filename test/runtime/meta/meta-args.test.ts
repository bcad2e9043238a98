import { describe, expect, it } from "vitest";
import { isWorkflowError } from "../../../src/errors.ts";
import type { JsonSchema, WorkflowMeta } from "../../../src/runtime/core/types.ts";
import { runWorkflowScript } from "../../../src/runtime/index.ts";
import { validateArgs } from "../../../src/runtime/meta/read.ts";
import { createFakeRunner } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";
import { withLine } from "./meta-table.ts";

const TARGET: JsonSchema = {
	type: "object",
	properties: { target: { type: "string" }, depth: { type: "integer", minimum: 1 }, mode: { enum: ["fast", "full"] } },
	required: ["target"],
	additionalProperties: false,
};

function metaWith(args?: JsonSchema): WorkflowMeta {
	return args ? { name: "review", description: "d", args } : { name: "review", description: "d" };
}

async function rejection(meta: WorkflowMeta, args: unknown) {
	try {
		await validateArgs(meta, args);
	} catch (error) {
		if (isWorkflowError(error)) return { code: error.code, message: error.message, details: error.details };
		throw error;
	}
	throw new Error("expected validateArgs to throw");
}

const PREFIX = "The args do not match `meta.args` of workflow `review`: ";

const INVALID: [name: string, args: unknown, errors: string][] = [
	["a wrong type", { target: 1 }, "`args.target` must be string, found number"],
	["a missing property", {}, "`args` must have required property 'target'"],
	["no args at all", undefined, "`args` must have required property 'target'"],
	["an unknown property", { target: "a", extra: true }, "`args` must NOT have additional properties: `extra`"],
	[
		"a value outside an enum",
		{ target: "a", mode: "slow" },
		'`args.mode` must be equal to one of the allowed values: ["fast","full"]',
	],
	["a number below its minimum", { target: "a", depth: 0 }, "`args.depth` must be >= 1"],
	["a fraction for an integer", { target: "a", depth: 1.5 }, "`args.depth` must be integer, found number"],
	["an array instead of an object", ["a"], "`args` must be object, found array"],
	[
		"several problems at once",
		{ target: 2, depth: "deep" },
		"`args.target` must be string, found number; `args.depth` must be integer, found string",
	],
];

describe("validateArgs", () => {
	it.each(INVALID)("on %s: throws args_invalid listing the problems", async (_, args, errors) => {
		const result = await rejection(metaWith(TARGET), args);
		expect({ code: result.code, message: result.message }).toEqual({
			code: "args_invalid",
			message: `${PREFIX}${errors}`,
		});
	});

	it("puts each problem in details.errors with its path, keyword and pointer", async () => {
		expect((await rejection(metaWith(TARGET), { target: 1 })).details).toEqual({
			errors: [
				{
					path: "args.target",
					message: "must be string, found number",
					keyword: "type",
					params: { type: "string" },
					pointer: "/target",
				},
			],
		});
	});

	it("accepts args that match", async () => {
		await expect(validateArgs(metaWith(TARGET), { target: "src/", depth: 2, mode: "full" })).resolves.toBeUndefined();
	});

	it("without meta.args: accepts any args, including none", async () => {
		for (const args of [undefined, null, 1, "x", [1], { any: "thing" }]) {
			await expect(validateArgs(metaWith(), args)).resolves.toBeUndefined();
		}
	});

	it("with an object schema and no required properties: accepts a call without args", async () => {
		await expect(
			validateArgs(metaWith({ type: "object", properties: { verbose: { type: "boolean" } } }), undefined),
		).resolves.toBeUndefined();
	});

	it("with a non-object schema: checks missing args as undefined", async () => {
		expect((await rejection(metaWith({ type: "string" }), undefined)).message).toBe(
			`${PREFIX}\`args\` must be string, found undefined`,
		);
	});
});

/** What ajv finds wrong with `meta.args` (in the schema worker, as the run starts) is reported at the header. */
const COMPILE_ERRORS: [name: string, line: string, message: string][] = [
	[
		"an unknown type name",
		'args: { type: "obj" },',
		'`meta.args` is not a valid JSON Schema: `meta.args.type` must be equal to one of the allowed values: ["array","boolean","integer","null","number","object","string"]',
	],
	[
		"a misspelled keyword",
		'args: { type: "object", requird: ["target"] },',
		'`meta.args` is not a valid JSON Schema: strict mode: unknown keyword: "requird"',
	],
];

describe("runWorkflowScript with a `meta.args` ajv refuses", () => {
	checkSandboxLeaks();

	it.each(COMPILE_ERRORS)(
		"on %s: fails before run_start with meta_invalid at the header",
		async (_, line, message) => {
			const fake = createFakeRunner();
			const types: string[] = [];
			const result = await runWorkflowScript(withLine(line), {
				agentRunner: fake.runner,
				onProgress: (event) => types.push(event.type),
			});
			expect(result.error).toMatchObject({ code: "meta_invalid", message: `${message} (4:8)`, line: 4, column: 8 });
			expect(types).not.toContain("run_start");
			expect(fake.requests).toHaveLength(0);
		},
	);
});
