import { describe, expect, it } from "vitest";
import { checkWorkflowSource, parseWorkflowSource } from "../../../src/runtime/meta/read.ts";
import { catchError, expectRejection, named, type Rejection, withBody, withLine } from "./meta-table.ts";

const HEADER: Rejection[] = [
	["", "meta_invalid", "A workflow must start with `export const meta = { name, description }` (1:1)", 1, 1],
	[
		"// a comment\n\nlog(1);\n",
		"meta_invalid",
		"A workflow must start with `export const meta = { name, description }` (3:1)",
		3,
		1,
	],
	[
		'const meta = { name: "t", description: "d" };',
		"meta_invalid",
		"A workflow must start with `export const meta = { name, description }` (1:1)",
		1,
		1,
	],
	[
		'log(1);\nexport const meta = { name: "t", description: "d" };',
		"meta_invalid",
		"`export const meta` must be the first statement of the workflow. Move it to the top (2:1)",
		2,
		1,
	],
	[
		'export let meta = { name: "t", description: "d" };',
		"meta_invalid",
		"`meta` must be declared with `const`, found `let` (1:8)",
		1,
		8,
	],
	[
		'export var meta = { name: "t", description: "d" };',
		"meta_invalid",
		"`meta` must be declared with `const`, found `var` (1:8)",
		1,
		8,
	],
	[
		'export const meta = { name: "t", description: "d" }, other = 1;',
		"meta_invalid",
		"`export const meta` must declare `meta` alone. Move the other declaration to its own statement (1:54)",
		1,
		54,
	],
	[
		'export const other = 1, meta = { name: "t", description: "d" };',
		"meta_invalid",
		"`export const meta` must declare `meta` alone. Move the other declaration to its own statement (1:14)",
		1,
		14,
	],
	[
		"export const meta = makeMeta();",
		"meta_invalid",
		"`meta` must be a literal, found a call expression (1:21)",
		1,
		21,
	],
	['export const meta = "review";', "meta_invalid", "`meta` must be an object, found a string (1:21)", 1, 21],
];

const SHAPE: Rejection[] = [
	[
		'export const meta = { description: "d" };',
		"meta_invalid",
		"`meta` is missing `name`: a short id such as `review-and-fix` (1:21)",
		1,
		21,
	],
	[
		'export const meta = { name: "t" };',
		"meta_invalid",
		"`meta` is missing `description`: one sentence on what the workflow does (1:21)",
		1,
		21,
	],
	[
		'export const meta = {\n\tname: "",\n\tdescription: "d",\n};',
		"meta_invalid",
		"`meta.name` must not be empty (2:8)",
		2,
		8,
	],
	[
		'export const meta = {\n\tname: "t",\n\tdescription: " \\n ",\n};',
		"meta_invalid",
		"`meta.description` must not be empty (3:15)",
		3,
		15,
	],
	[
		'export const meta = {\n\tname: 7,\n\tdescription: "d",\n};',
		"meta_invalid",
		"`meta.name` must be a string, found a number (2:8)",
		2,
		8,
	],
	[
		withLine('descripton: "x",'),
		"meta_invalid",
		"`meta.descripton` is not a known key. Did you mean `description`? Known keys: name, description, whenToUse, phases, args, model (4:2)",
		4,
		2,
	],
	[withLine("whenToUse: null,"), "meta_invalid", "`meta.whenToUse` must be a string, found null (4:13)", 4, 13],
	[withLine("model: 4,"), "meta_invalid", "`meta.model` must be a string, found a number (4:9)", 4, 9],
	[withLine('model: " ",'), "meta_invalid", "`meta.model` must not be empty (4:9)", 4, 9],
	[withLine('phases: "review",'), "meta_invalid", "`meta.phases` must be an array, found a string (4:10)", 4, 10],
	[
		withLine('phases: ["review"],'),
		"meta_invalid",
		"`meta.phases[0]` must be an object, found a string (4:11)",
		4,
		11,
	],
	[withLine('phases: [{ detail: "x" }],'), "meta_invalid", "`meta.phases[0]` is missing `title` (4:11)", 4, 11],
	[withLine('phases: [{ title: "" }],'), "meta_invalid", "`meta.phases[0].title` must not be empty (4:20)", 4, 20],
	[
		withLine('phases: [{ title: "a", detial: "b" }],'),
		"meta_invalid",
		"`meta.phases[0].detial` is not a known key. Did you mean `detail`? Known keys: title, detail (4:25)",
		4,
		25,
	],
	[
		withLine('phases: [{ title: "a", detail: 1 }],'),
		"meta_invalid",
		"`meta.phases[0].detail` must be a string, found a number (4:33)",
		4,
		33,
	],
	[withLine("args: [],"), "meta_invalid", "`meta.args` must be a JSON Schema object, found an array (4:8)", 4, 8],
	[
		withLine('args: { type: "object", properties: { id: { type: "string", pattern: "^(?!x)" } } },'),
		"meta_invalid",
		'`meta.args.properties.id.pattern` "^(?!x)" is not a pattern the linear-time regex engine (RE2) accepts: lookaround `(?!`. Lookaround and backreferences are not available: match the parts with separate `pattern`s under `allOf`, or check the value in the script (4:8)',
		4,
		8,
	],
	[
		withLine('args: { type: "object", properties: { a: { $ref: "https://example.com/a.json" } } },'),
		"meta_invalid",
		'`meta.args.properties.a.$ref` "https://example.com/a.json" points outside the schema; only references within it are supported (`#`, `#/$defs/…`, `#/definitions/…`). Copy the referenced schema into `$defs` (4:8)',
		4,
		8,
	],
	[
		"export const meta = { name: 1, description: 2 };",
		"meta_invalid",
		"`meta.name` must be a string, found a number (1:29)",
		1,
		29,
	],
];

const MODULE_SYNTAX: Rejection[] = [
	[
		withBody('import fs from "node:fs";'),
		"syntax_error",
		'`import` is not available in workflow scripts. Delete it: the globals agent, parallel, pipeline, phase, log, workflow are already there; for files, the network or processes, ask an agent to do it (`await agent("Read package.json and return its version")`) (2:1)',
		2,
		1,
	],
	[
		'import "x";\nexport const meta = { name: "t", description: "d" };',
		"syntax_error",
		'`import` is not available in workflow scripts. Delete it: the globals agent, parallel, pipeline, phase, log, workflow are already there; for files, the network or processes, ask an agent to do it (`await agent("Read package.json and return its version")`) (1:1)',
		1,
		1,
	],
	[
		withBody('const fs = await import("node:fs");'),
		"syntax_error",
		'`import()` is not available in workflow scripts. Delete it: the globals agent, parallel, pipeline, phase, log, workflow are already there; for files, the network or processes, ask an agent to do it (`await agent("Read package.json and return its version")`) (2:18)',
		2,
		18,
	],
	[
		withBody("log(import.meta.url);"),
		"syntax_error",
		'`import.meta` is not available in workflow scripts. Delete it: the globals agent, parallel, pipeline, phase, log, workflow are already there; for files, the network or processes, ask an agent to do it (`await agent("Read package.json and return its version")`) (2:5)',
		2,
		5,
	],
	[
		withBody("export default 1;"),
		"syntax_error",
		"`export default` is not available in workflow scripts: a script gives its result with `return`. Write `return` in place of `export default`: `return 1;` (2:1)",
		2,
		1,
	],
	[
		withBody("export function helper() {}"),
		"syntax_error",
		"A workflow script is not a module: nothing imports it or calls the `helper` it exports, so the code inside would never run. Delete `export function helper() {` and its closing `}`, and keep the statements inside as the script's body: top-level `await` and `return` work there, and `return` gives the run its result (2:1)",
		2,
		1,
	],
	[
		withBody('export * from "x";'),
		"syntax_error",
		"`export … from` loads a module, and workflow scripts have none. Delete it: the globals agent, parallel, pipeline, phase, log, workflow are already there; for files, the network or processes, ask an agent to do it (2:1)",
		2,
		1,
	],
];

const SYNTAX: Rejection[] = [
	[
		withBody("const = 1;"),
		"syntax_error",
		"Unexpected `=`. Look for a missing or extra bracket, comma, operator or quote just before it (2:7)",
		2,
		7,
	],
	[
		withBody("  let x = ;"),
		"syntax_error",
		"Unexpected `;`. Look for a missing or extra bracket, comma, operator or quote just before it (2:11)",
		2,
		11,
	],
	[withBody("with (a) {}"), "syntax_error", "'with' in strict mode (2:1)", 2, 1],
	[
		"export const meta = {",
		"syntax_error",
		"The script ends in the middle of a statement. Close every `(`, `[`, `{` and string that is still open (1:22)",
		1,
		22,
	],
	[withBody("const a = 1; const a = 2;"), "syntax_error", "Identifier 'a' has already been declared (2:20)", 2, 20],
];

describe("parseWorkflowSource", () => {
	it.each(named(HEADER))("on a missing or malformed header: $name", ({ row }) => expectRejection(row));
	it.each(named(SHAPE))("on a wrongly shaped meta: $name", ({ row }) => expectRejection(row));
	it.each(named(MODULE_SYNTAX))("on module syntax: $name", ({ row }) => expectRejection(row));
	it.each(named(SYNTAX))("on a syntax error with a 1-based column: $name", ({ row }) => expectRejection(row));

	it("on a syntax error: names the file in details and keeps acorn's error as the cause", () => {
		const error = catchError(() => parseWorkflowSource(withBody("const = 1;"), { filename: "review.js" }));
		expect(error.details).toEqual({
			filename: "review.js",
			fix: "Look for a missing or extra bracket, comma, operator or quote just before it",
		});
		expect(error.cause).toBeInstanceOf(SyntaxError);
	});

	it("on a script over maxScriptBytes: throws script_too_large counting UTF-8 bytes, with the limit and how to raise it", () => {
		const source = withBody('log("é");');
		const bytes = Buffer.byteLength(source);
		expect(bytes).toBe(source.length + 1);
		const error = catchError(() => parseWorkflowSource(source, { maxScriptBytes: source.length }));
		expect({ code: error.code, message: error.message, details: error.details }).toEqual({
			code: "script_too_large",
			message: `The workflow script is ${bytes} bytes (limit: ${source.length}). Shorten it, or raise \`limits.maxScriptBytes\``,
			details: { limit: source.length },
		});
		expect(parseWorkflowSource(source, { maxScriptBytes: bytes }).meta.name).toBe("t");
	});

	it("by default: accepts 512 KiB and refuses one byte more", () => {
		const base = withBody("");
		const fill = (size: number) => `${base}//${"x".repeat(size - base.length - 2)}`;
		expect(parseWorkflowSource(fill(512 * 1024)).meta.name).toBe("t");
		expect(catchError(() => parseWorkflowSource(fill(512 * 1024 + 1))).code).toBe("script_too_large");
	});

	it("on bad options: throws a TypeError at once", () => {
		expect(() => parseWorkflowSource(withBody(""), { maxScriptBytes: 0 })).toThrow(
			"Expected `maxScriptBytes` to be a positive integer, got `0` (number)",
		);
		expect(() => parseWorkflowSource(42 as unknown as string)).toThrow(
			"Expected `source` to be a string, got number",
		);
	});

	it("returns the filename given, or workflow.js", () => {
		expect(parseWorkflowSource(withBody("")).filename).toBe("workflow.js");
		expect(parseWorkflowSource(withBody(""), { filename: "a/b.js" }).filename).toBe("a/b.js");
	});
});

describe("checkWorkflowSource", () => {
	it("on a valid script: reports ok with the meta", () => {
		expect(checkWorkflowSource(withBody(""))).toEqual({ ok: true, meta: { name: "t", description: "d" } });
	});

	it("on an invalid script: reports the error instead of throwing", () => {
		const result = checkWorkflowSource(withLine("whenToUse: foo,"));
		expect(result.ok).toBe(false);
		if (result.ok) return;
		expect(result.error.toJSON()).toEqual({
			code: "meta_invalid",
			message: "`meta.whenToUse` must be a literal, found an identifier `foo` (4:13)",
			line: 4,
			column: 13,
		});
	});

	it("on misuse of the API: still throws the TypeError", () => {
		expect(() => checkWorkflowSource(withBody(""), { maxScriptBytes: -1 })).toThrow(TypeError);
	});
});
