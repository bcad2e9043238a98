import { afterAll, describe, expect, it } from "vitest";
import { type CompileJob, SchemaCompiler } from "../../../src/runtime/schema/ajv.ts";
import { costWithin, hostCheckable } from "../../../src/runtime/schema/check-cost.ts";
import { HOST_CHECK_BUDGET, HostChecks } from "../../../src/runtime/schema/host-check.ts";
import { checkSchema } from "../../../src/runtime/schema/limits.ts";
import { SchemaWorker } from "../../../src/runtime/schema/schema-worker-host.ts";
import { SchemaSession } from "../../../src/runtime/schema/session.ts";
import { patternSchema } from "../../helpers/pattern-schemas.ts";

/** A checked job, as a session sends it to the worker. */
function job(schema: unknown, name = "schema"): CompileJob {
	const { copy, key, dialect } = checkSchema(schema, name);
	return { key, schema: copy, dialect, name };
}

/** Schemas the host may check, each with answers that pass and answers that fail in several ways. */
const CASES: { schema: Record<string, unknown>; values: unknown[] }[] = [
	{
		schema: {
			type: "object",
			properties: {
				id: { type: "string", pattern: "^[a-z]+-[0-9]{1,4}$" },
				n: { type: "integer", minimum: 0, multipleOf: 2 },
				kind: { enum: ["a", "b", { deep: [1] }] },
				tags: { type: "array", items: { type: "string", minLength: 2 }, uniqueItems: true, maxItems: 3 },
			},
			required: ["id", "n"],
			additionalProperties: false,
		},
		values: [
			{ id: "ab-12", n: 4, kind: "a", tags: ["xy", "zw"] },
			{ id: "ab-12", n: 4, kind: { deep: [1] } },
			{ id: "AB-12", n: 3, extra: true },
			{ id: 5, tags: ["x", "x", "y", "z"], kind: "c" },
			{},
			{ n: -2, id: "a-12345" },
		],
	},
	{
		schema: {
			type: "object",
			patternProperties: { "^x_": { type: "number" } },
			propertyNames: { pattern: "^[a-z_]+$" },
			anyOf: [{ required: ["a"] }, { required: ["b"] }],
			if: { required: ["a"] },
			// biome-ignore lint/suspicious/noThenProperty: JSON Schema's `then` keyword
			then: { properties: { a: { const: 1 } } },
			else: { not: { required: ["c"] } },
			dependencies: { a: ["x_a"] },
		},
		values: [{ a: 1, x_a: 2 }, { a: 2 }, { b: true, c: 1 }, { Bad: 1 }, { b: 1, x_b: "s" }],
	},
	{
		schema: {
			$schema: "https://json-schema.org/draft/2020-12/schema",
			type: "array",
			prefixItems: [{ type: "string" }, { type: "boolean" }],
			items: { type: "number", maximum: 9 },
			contains: { const: 3 },
			minContains: 1,
		},
		values: [["a", true, 3], ["a", true, 10, 4], [1, "b"], ["a"]],
	},
];

describe("schema checks on the host (the fast path)", () => {
	it("gives what the worker gives, issues and messages included, for valid and invalid answers", () => {
		const worker = new SchemaCompiler();
		const host = new HostChecks();
		for (const { schema, values } of CASES) {
			const compiling = job(schema);
			const size = worker.compile(compiling);
			host.admit(compiling, size);
			for (const value of values) {
				const reference = worker.validate(compiling.key, value, "output");
				const outcome = host.check(compiling.key, value, "output");
				expect(outcome).toEqual({ path: "host", result: reference });
			}
		}
		expect(host.checks).toBe(CASES.reduce((sum, { values }) => sum + values.length, 0));
		// Both kinds of result came up, so the comparison covered failures too.
		const results = CASES.flatMap(({ schema, values }) =>
			values.map((value) => worker.validate(job(schema).key, value, "output").ok),
		);
		expect(new Set(results)).toEqual(new Set([true, false]));
	});

	it("keeps in the worker what it cannot bound: references, `format`, large programs, large answers", () => {
		const worker = new SchemaCompiler();
		const host = new HostChecks();
		// Two branches per level through a reference: 2^depth work on a deep enough answer.
		const recursive = job({
			type: "object",
			properties: { n: { $ref: "#/$defs/node" } },
			$defs: { node: { anyOf: [{ items: { $ref: "#/$defs/node" } }, { items: { $ref: "#/$defs/node" } }] } },
		});
		const formatted = job({ type: "object", properties: { at: { type: "string", format: "date-time" } } });
		const heavy = job(patternSchema(0, 2));
		const small = job({ type: "object", properties: { s: { type: "string", pattern: "^(a|b)+$" } } });
		for (const compiling of [recursive, formatted, heavy, small]) host.admit(compiling, worker.compile(compiling));
		expect(host.admitted(recursive.key)).toBe(false);
		expect(host.admitted(formatted.key)).toBe(false);
		expect(host.admitted(heavy.key)).toBe(false);
		expect(host.admitted(small.key)).toBe(true);
		// The same small schema, an answer past the budget: the worker (and its deadline) checks it.
		expect(host.check(small.key, { s: "ab".repeat(HOST_CHECK_BUDGET) }, "output")).toEqual({ path: "worker" });
		expect(host.check(small.key, { s: "abba" }, "output")).toMatchObject({ path: "host", result: { ok: true } });
		expect(host.check(recursive.key, { n: [] }, "output")).toEqual({ path: "worker" });
	});

	it("counts the work ajv does, and stops counting once past the budget", () => {
		expect(hostCheckable({ type: "object", unevaluatedProperties: false })).toBe(false);
		expect(hostCheckable({ $defs: { any: { $ref: "#" } }, type: "object" })).toBe(true);
		const size = () => 1;
		// Each of 2,000 objects compared with each of 100 allowed objects: 200,000 comparisons at least.
		const allowed = Array.from({ length: 100 }, (_, index) => ({ k: index }));
		const wide = { type: "array", items: { enum: allowed } };
		const many = Array.from({ length: 2000 }, () => ({ k: -1 }));
		expect(costWithin(wide, many, HOST_CHECK_BUDGET, size)).toBe(false);
		expect(costWithin(wide, many.slice(0, 10), HOST_CHECK_BUDGET, size)).toBe(true);
		// A pattern's characters cost its program's size each.
		const patterned = { type: "string", pattern: "^a+$" };
		expect(costWithin(patterned, "a".repeat(100), HOST_CHECK_BUDGET, () => 50)).toBe(true);
		expect(costWithin(patterned, "a".repeat(100), HOST_CHECK_BUDGET, () => 500)).toBe(false);
		// A nested answer under a subschema applied through `allOf` at every level is counted per application.
		let nested: unknown = "x";
		for (let depth = 0; depth < 12; depth++) nested = [nested, nested];
		const doubled: Record<string, unknown> = { type: "string" };
		let schema: Record<string, unknown> = doubled;
		for (let depth = 0; depth < 12; depth++) schema = { items: { allOf: [schema, schema, schema] } };
		expect(costWithin(schema, nested, HOST_CHECK_BUDGET, size)).toBe(false);
	});
});

describe("SchemaWorker with the fast path", () => {
	const worker = new SchemaWorker();
	const session = new SchemaSession(worker);
	afterAll(async () => {
		session.dispose();
		await worker.shutdown();
	});

	it("checks a compiled schema on the host, an answer past the budget in the worker, and nothing once replaced", async () => {
		const schema = {
			type: "object",
			properties: { text: { type: "array", items: { type: "string", pattern: "^(\\p{L}|\\d)+$" } } },
		};
		const compiled = await session.compileAgent(schema);
		const before = worker.stats.hostChecks;
		expect(await compiled.validate({ text: ["abc", "d1"] })).toEqual({ ok: true, value: { text: ["abc", "d1"] } });
		const miss = await compiled.validate({ text: ["a-1"] });
		expect(miss).toMatchObject({ ok: false, errors: '`output.text[0]` must match pattern "^(\\p{L}|\\d)+$"' });
		expect(worker.stats.hostChecks).toBe(before + 2);
		// Past the budget (the deadline's own test is in schema-worker.test.ts): the worker checks it, same result kind.
		const long = { text: ["a".repeat(HOST_CHECK_BUDGET), "b-"] };
		expect(await compiled.validate(long)).toMatchObject({ ok: false, issues: [{ path: "output.text[1]" }] });
		expect(worker.stats.hostChecks).toBe(before + 2);
		// A replaced worker starts the host empty: the next check goes to the new worker, the one after to the host.
		await worker.shutdown();
		expect(await compiled.validate({ text: ["x"] })).toEqual({ ok: true, value: { text: ["x"] } });
		expect(worker.stats.hostChecks).toBe(before + 2);
		expect(await compiled.validate({ text: ["y"] })).toEqual({ ok: true, value: { text: ["y"] } });
		expect(worker.stats.hostChecks).toBe(before + 3);
	});
});
