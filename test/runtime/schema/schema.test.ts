import { afterAll, describe, expect, it, vi } from "vitest";
import { isWorkflowError } from "../../../src/errors.ts";
import { schemaWorkerStats } from "../../../src/runtime/schema/schema-worker-host.ts";
import { SchemaSession } from "../../../src/runtime/schema/session.ts";

const session = new SchemaSession();
afterAll(() => session.dispose());
const compileAgentSchema = (schema: unknown) => session.compileAgent(schema);
const compileJsonSchema = (schema: unknown, options?: { name?: string }) => session.compile(schema, options);

const FINDINGS = {
	type: "object",
	properties: {
		summary: { type: "string", minLength: 1 },
		items: {
			type: "array",
			items: {
				type: "object",
				properties: { title: { type: "string" }, severity: { enum: ["low", "high"] } },
				required: ["title"],
			},
		},
		"due date": { type: "string", format: "date" },
	},
	required: ["summary", "items"],
	additionalProperties: false,
};

async function schemaError(fn: () => unknown) {
	try {
		await fn();
	} catch (error) {
		if (isWorkflowError(error)) return { code: error.code, message: error.message };
		throw error;
	}
	throw new Error("expected a schema_invalid error");
}

const INVALID_AGENT_SCHEMAS: [name: string, schema: unknown, message: string][] = [
	["no schema object", "object", '`schema` must be a JSON Schema object with `type: "object"`, found a string'],
	["an array", [{ type: "object" }], '`schema` must be a JSON Schema object with `type: "object"`, found an array'],
	["null", null, '`schema` must be a JSON Schema object with `type: "object"`, found null'],
	[
		"an array root",
		{ type: "array", items: { type: "string" } },
		'`schema` must have `type: "object"` at its root, found `type: "array"`. Wrap other values in an object property',
	],
	[
		"no root type",
		{ properties: { a: { type: "string" } } },
		'`schema` must have `type: "object"` at its root, found no `type`. Wrap other values in an object property',
	],
	[
		"a type list",
		{ type: ["object", "null"] },
		'`schema` must have `type: "object"` at its root, found `type: ["object","null"]`. Wrap other values in an object property',
	],
	[
		"a misspelled keyword",
		{ type: "object", requried: ["a"] },
		'`schema` is not a valid JSON Schema: strict mode: unknown keyword: "requried"',
	],
	[
		"an unknown type name",
		{ type: "object", properties: { a: { type: "text" } } },
		'`schema` is not a valid JSON Schema: `schema.properties.a.type` must be equal to one of the allowed values: ["array","boolean","integer","null","number","object","string"]',
	],
	[
		"a bad `required`",
		{ type: "object", required: "a" },
		"`schema` is not a valid JSON Schema: `schema.required` must be array, found string",
	],
	[
		"a dangling $ref",
		{ type: "object", properties: { a: { $ref: "#/$defs/missing" } } },
		"`schema` is not a valid JSON Schema: can't resolve reference #/$defs/missing from id #",
	],
	[
		"an unsupported $schema",
		{ $schema: "http://json-schema.org/draft-04/schema#", type: "object" },
		'`schema.$schema` "http://json-schema.org/draft-04/schema#" is not supported. Leave `$schema` out (draft-07) or use "https://json-schema.org/draft/2020-12/schema"',
	],
	["a function inside", { type: "object", default: () => 1 }, "`schema.default` must be plain JSON, found a function"],
	[
		"NaN inside",
		{ type: "object", properties: { a: { maximum: Number.NaN } } },
		"`schema.properties.a.maximum` must be plain JSON, found NaN",
	],
	["a Date inside", { type: "object", default: new Date(0) }, "`schema.default` must be plain JSON, found a Date"],
];

describe("compileAgentSchema", () => {
	it.each(INVALID_AGENT_SCHEMAS)("on %s: throws schema_invalid", async (_, schema, message) => {
		expect(await schemaError(() => compileAgentSchema(schema))).toEqual({ code: "schema_invalid", message });
	});

	it("on a cyclic schema: throws schema_invalid naming the cycle", async () => {
		const schema: Record<string, unknown> = { type: "object" };
		schema.properties = { self: schema };
		expect(await schemaError(() => compileAgentSchema(schema))).toEqual({
			code: "schema_invalid",
			message: "`schema.properties.self` must be plain JSON, found a cycle (a value that contains itself)",
		});
	});

	it("on the same contents: returns the same compiled validator, whatever the key order or object identity", async () => {
		const first = await compileAgentSchema(FINDINGS);
		const { required, ...rest } = FINDINGS;
		const reordered = { required, ...rest };
		expect(Object.keys(reordered)[0]).toBe("required");
		expect(await compileAgentSchema(structuredClone(FINDINGS))).toBe(first);
		expect(await compileAgentSchema(reordered)).toBe(first);
		expect(await compileAgentSchema({ ...FINDINGS, required: ["summary"] })).not.toBe(first);
	});

	it("is not affected by later changes to the caller's object", async () => {
		const schema = { type: "object", properties: { a: { type: "string" } }, required: ["a"] };
		const compiled = compileAgentSchema(schema);
		schema.required.push("b");
		expect(await (await compiled).validate({ a: "x" })).toEqual({ ok: true, value: { a: "x" } });
	});

	it("after its session is disposed: the schema worker holds none of the session's schemas", async () => {
		const before = schemaWorkerStats();
		const own = new SchemaSession();
		const make = (index: number) => ({ type: "object", properties: { [`p${index}`]: { const: index } } });
		const compiled = await Promise.all(Array.from({ length: 300 }, (_, index) => own.compileAgent(make(index))));
		expect((await compiled[299].validate({ p299: 299 })).ok).toBe(true);
		expect(schemaWorkerStats()).toMatchObject({ holds: before.holds + 300, held: before.held + 300 });
		own.dispose();
		// vi.waitFor gives up after 1 s by default: at load 20 the worker took longer to drop 300 validators.
		await vi.waitFor(() => expect(schemaWorkerStats()).toMatchObject({ holds: before.holds, held: before.held }), {
			timeout: 30_000,
		});
	});

	it("after release: keeps the 16 used last compiled, and drops the rest from the worker", async () => {
		const before = schemaWorkerStats().holds;
		const own = new SchemaSession();
		const make = (index: number) => ({ type: "object", properties: { [`q${index}`]: { const: index } } });
		for (let index = 0; index < 40; index++) own.release(await own.compileAgent(make(index)));
		expect(own.size).toBe(16);
		await vi.waitFor(() => expect(schemaWorkerStats().holds).toBe(before + 16), { timeout: 30_000 });
		// One used last is still compiled: the same contents give the same validator back.
		const kept = await own.compileAgent(make(39));
		expect(await own.compileAgent(make(39))).toBe(kept);
		own.dispose();
		await vi.waitFor(() => expect(schemaWorkerStats().holds).toBe(before), { timeout: 30_000 });
	});

	it("a parsed schema: its JSON text finds the schema held for the same contents, until the session drops it", async () => {
		const own = new SchemaSession();
		const text = JSON.stringify(FINDINGS);
		const first = own.compileParsed(JSON.parse(text));
		const again = own.compileParsed(JSON.parse(text));
		const reordered = own.compileParsed(JSON.parse(JSON.stringify({ ...FINDINGS, type: "object" })));
		const compiled = await first.compiled;
		expect([first.key, again.key, reordered.key]).toEqual([compiled.key, compiled.key, compiled.key]);
		expect([await again.compiled, await reordered.compiled]).toEqual([compiled, compiled]);
		expect(await compiled.validate({ summary: "s", items: [] })).toMatchObject({ ok: true });
		for (let uses = 0; uses < 3; uses++) own.release(compiled);
		const make = (index: number) => ({ type: "object", properties: { [`r${index}`]: { const: index } } });
		for (let index = 0; index < 20; index++) own.release(await own.compileParsed(make(index)).compiled);
		// Dropped with its entry: the same text checks and compiles afresh.
		const fresh = own.compileParsed(JSON.parse(text));
		expect(fresh.key).toBe(compiled.key);
		expect(await fresh.compiled).not.toBe(compiled);
		own.dispose();
	});

	it("a parsed schema that fails: the same text fails the same way each time, with compileAgent's message", async () => {
		const own = new SchemaSession();
		// Found by the host's checks, by the root's check, and by ajv in the worker.
		for (const bad of [
			'{"type":"object","properties":{"a":{"type":"string","pattern":"(?=x)"}}}',
			'{"type":"array"}',
			'{"type":"object","properties":{"a":{"type":"strin"}}}',
		]) {
			const expected = await schemaError(() => own.compileAgent(JSON.parse(bad)));
			expect(await schemaError(() => own.compileParsed(JSON.parse(bad)).compiled)).toEqual(expected);
			expect(await schemaError(() => own.compileParsed(JSON.parse(bad)).compiled)).toEqual(expected);
		}
		own.dispose();
	});

	it("lets two different schemas share an `$id`", async () => {
		const a = await compileAgentSchema({ $id: "https://example.com/finding", type: "object", required: ["a"] });
		const b = await compileAgentSchema({ $id: "https://example.com/finding", type: "object", required: ["b"] });
		expect([(await a.validate({ a: 1 })).ok, (await b.validate({ a: 1 })).ok]).toEqual([true, false]);
	});
});

const VALIDATION: [name: string, value: unknown, errors: string][] = [
	["a missing property", { items: [] }, "`output` must have required property 'summary'"],
	["a wrong type", { summary: 3, items: [] }, "`output.summary` must be string, found number"],
	["an empty string", { summary: "", items: [] }, "`output.summary` must NOT have fewer than 1 characters"],
	[
		"an unknown property",
		{ summary: "s", items: [], extra: 1 },
		"`output` must NOT have additional properties: `extra`",
	],
	[
		"a nested problem",
		{ summary: "s", items: [{ title: "a" }, { severity: "mid" }] },
		'`output.items[1]` must have required property \'title\'; `output.items[1].severity` must be equal to one of the allowed values: ["low","high"]',
	],
	[
		"a bad format under an odd key",
		{ summary: "s", items: [], "due date": "soon" },
		'`output["due date"]` must match format "date"',
	],
	["null", null, "`output` must be object, found null"],
	["a string", "{}", "`output` must be object, found string"],
];

describe("CompiledSchema.validate", () => {
	const compiled = compileAgentSchema(FINDINGS);

	it.each(VALIDATION)("on %s: reports it readably", async (_, value, errors) => {
		const result = await (await compiled).validate(value);
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.errors).toBe(errors);
	});

	it("on a valid value: returns it", async () => {
		const value = { summary: "s", items: [{ title: "t", severity: "low" }], "due date": "2026-01-31" };
		expect(await (await compiled).validate(value)).toEqual({ ok: true, value });
	});

	it("names the root as asked", async () => {
		const result = await (await compiled).validate({ summary: 1, items: [] }, { root: "answer" });
		expect(!result.ok && result.errors).toBe("`answer.summary` must be string, found number");
	});

	it("on many problems: lists ten and counts the rest", async () => {
		const many = await compileAgentSchema({
			type: "object",
			required: Array.from({ length: 12 }, (_, index) => `k${index}`),
		});
		const result = await many.validate({});
		expect(!result.ok && result.issues.length).toBe(12);
		expect(!result.ok && result.errors.endsWith("`output` must have required property 'k9'; and 2 more")).toBe(true);
	});
});

describe("compileJsonSchema", () => {
	it("accepts any root type, and names the schema as asked in errors", async () => {
		const array = await compileJsonSchema({ type: "array", items: { type: "number" } });
		expect(await array.validate([1, "2"])).toMatchObject({
			ok: false,
			errors: "`output[1]` must be number, found string",
		});
		expect((await schemaError(() => compileJsonSchema({ type: "nope" }, { name: "opts.schema" }))).message).toBe(
			'`opts.schema` is not a valid JSON Schema: `opts.schema.type` must be equal to one of the allowed values: ["array","boolean","integer","null","number","object","string"]',
		);
	});

	it("uses draft-07 without `$schema` and draft 2020-12 when the schema says so", async () => {
		const tuple07 = await compileJsonSchema({ type: "array", items: [{ type: "string" }], additionalItems: false });
		expect((await tuple07.validate(["a", "b"])).ok).toBe(false);
		const tuple2020 = await compileJsonSchema({
			$schema: "https://json-schema.org/draft/2020-12/schema",
			type: "array",
			prefixItems: [{ type: "string" }],
			items: false,
		});
		expect([(await tuple2020.validate(["a"])).ok, (await tuple2020.validate(["a", "b"])).ok]).toEqual([true, false]);
		const explicit07 = await compileJsonSchema({
			$schema: "http://json-schema.org/draft-07/schema#",
			type: "string",
		});
		expect((await explicit07.validate("a")).ok).toBe(true);
	});
});

/** The host's checks and RE2's: each names the limit or the construct, its path, and what to do instead. */
const LIMITS: [name: string, schema: () => unknown, message: string][] = [
	[
		"more than 64 KiB of JSON",
		() => ({ type: "object", description: "x".repeat(70_000) }),
		"`schema` is more than 65536 bytes of JSON (limit: 65536). Make the schema smaller: shorter descriptions, fewer properties, or one call per part",
	],
	[
		"more than 64 KiB of JSON in many numbers",
		() => ({ type: "object", enum: Array.from({ length: 15_000 }, (_, index) => 10_000 + index) }),
		"`schema` is 90026 bytes of JSON (limit: 65536). Make the schema smaller: shorter descriptions, fewer properties, or one call per part",
	],
	[
		"more than 128 subschemas",
		() => ({ type: "object", properties: Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`p${i}`, {}])) }),
		"`schema` has more than 128 subschemas (the last counted is `schema.properties.p127`) (limit: 128). Split the answer over several calls, or name a repeated part in `$defs` and point to it with `$ref`",
	],
	[
		"nesting deeper than 32",
		() => {
			let schema: unknown = { type: "string" };
			for (let index = 0; index < 40; index++) schema = { type: "array", items: schema };
			return { type: "object", properties: { list: schema } };
		},
		"`schema.properties.list.items.items.items.items.items.items.items.items.items.items.items.items.items.items.items.items.items.items.items.items.items.items.items.items.items.items.items.items.items.items` is nested more than 32 levels deep (limit: 32). Flatten the schema, or name a repeated part in `$defs` and point to it with `$ref`",
	],
	[
		"a pattern over 1000 characters",
		() => ({ type: "object", patternProperties: { ["a".repeat(1001)]: {} } }),
		`\`schema.patternProperties.${"a".repeat(1001)}\` is a pattern of 1001 characters (limit: 1000). Use a shorter pattern, or \`enum\` for a list of exact values`,
	],
	[
		"a lookbehind",
		() => ({ type: "object", properties: { "odd key": { type: "string", pattern: "(?<=a)b" } } }),
		'`schema.properties["odd key"].pattern` "(?<=a)b" is not a pattern the linear-time regex engine (RE2) accepts: lookaround `(?<=`. Lookaround and backreferences are not available: match the parts with separate `pattern`s under `allOf`, or check the value in the script',
	],
	[
		"a named backreference",
		() => ({ type: "object", properties: { a: { type: "string", pattern: "(?<q>['\"]).*\\k<q>" } } }),
		'`schema.properties.a.pattern` "(?<q>[\'\\"]).*\\\\k<q>" is not a pattern the linear-time regex engine (RE2) accepts: backreference `\\k<`. Lookaround and backreferences are not available: match the parts with separate `pattern`s under `allOf`, or check the value in the script',
	],
	[
		"a pattern RE2 cannot parse",
		() => ({ type: "object", properties: { a: { type: "string", pattern: "a{1001}" } } }),
		'`schema.properties.a.pattern` "a{1001}" is not a pattern the linear-time regex engine (RE2) accepts: invalid repeat count: `{1001}`. Lookaround and backreferences are not available: match the parts with separate `pattern`s under `allOf`, or check the value in the script',
	],
	[
		"a remote $ref",
		() => ({ type: "object", properties: { a: { $ref: "https://example.com/a.json#/x" } } }),
		'`schema.properties.a.$ref` "https://example.com/a.json#/x" points outside the schema; only references within it are supported (`#`, `#/$defs/…`, `#/definitions/…`). Copy the referenced schema into `$defs`',
	],
];

describe("SchemaSession.compile limits", () => {
	it.each(LIMITS)("on %s: throws schema_invalid naming it", async (_, schema, message) => {
		expect(await schemaError(() => compileAgentSchema(schema()))).toEqual({ code: "schema_invalid", message });
	});

	it("a pattern inside data (`const`, `enum`, `default`) is not a pattern", async () => {
		const compiled = await compileAgentSchema({
			type: "object",
			default: { pattern: "(?=x)" },
			const: { pattern: "\\1" },
		});
		expect((await compiled.validate({ pattern: "\\1" })).ok).toBe(true);
	});

	it("patterns keep JavaScript's syntax on RE2 (\\u escapes, [^], classes) and match anywhere unless anchored", async () => {
		const compiled = await compileJsonSchema({
			type: "array",
			prefixItems: [{ pattern: "\\u00e9" }, { pattern: "^a[^]c$" }, { pattern: "\\d{2}" }],
			$schema: "https://json-schema.org/draft/2020-12/schema",
		});
		expect((await compiled.validate(["café", "a\nc", "x12y"])).ok).toBe(true);
		expect(await compiled.validate(["cafe", "abbc", "x1y"])).toMatchObject({
			ok: false,
			errors:
				'`output[0]` must match pattern "\\u00e9"; `output[1]` must match pattern "^a[^]c$"; `output[2]` must match pattern "\\d{2}"',
		});
	});

	it("`$ref` to `#/$defs/…` and `#/definitions/…` within the schema resolve", async () => {
		const compiled = await compileAgentSchema({
			type: "object",
			$defs: { id: { type: "string", minLength: 2 } },
			definitions: { n: { type: "integer" } },
			properties: { id: { $ref: "#/$defs/id" }, n: { $ref: "#/definitions/n" } },
		});
		expect((await compiled.validate({ id: "ab", n: 1 })).ok).toBe(true);
		expect(await compiled.validate({ id: "a", n: 1.5 })).toMatchObject({
			errors: "`output.id` must NOT have fewer than 2 characters; `output.n` must be integer, found number",
		});
	});
});
