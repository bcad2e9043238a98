/**
 * Hostile schemas and answers: a pattern that backtracks, `uniqueItems` over a huge answer, schemas too big or too
 * deep to compile, and hundreds of large schemas across runs. Each must end with a named outcome while the host's
 * event loop keeps serving (the schema worker does the work), and the schemas a run sent must be gone after it.
 */
import { describe, expect, it, vi } from "vitest";
import { schemaWorkerStats } from "../../src/runtime/schema/schema-worker-host.ts";
import { beside, checkCase, guardHost, type HostileCase, runHostile } from "./support.ts";

guardHost();

const BACKTRACKS = `{ type: "object", properties: { id: { type: "string", pattern: "^(a+)+$" } }, required: ["id"] }`;
const UNIQUE = `{ type: "object", properties: { items: { type: "array", uniqueItems: true } }, required: ["items"] }`;
const DISTINCT = Array.from({ length: 15_000 }, (_, index) => ({ id: index, name: `item ${index}` }));

/** A script that builds a schema of `count` properties, each with a description of `size` characters. */
const wideSchema = (count: number, size: number) => `const properties = {};
for (let i = 0; i < ${count}; i++) properties["p" + i] = { type: "string", description: "x".repeat(${size}) };
return await agent("wide", { schema: { type: "object", properties } });`;

const BOMBS: HostileCase[] = [
	[
		"a backtracking pattern against a child's answer",
		`return await agent("id", { schema: ${BACKTRACKS} });`,
		{ code: "schema_unmet", message: '`output.id` must match pattern "^(a+)+$"' },
		{ answer: () => ({ structured: { id: `${"a".repeat(40)}!` } }) },
	],
	[
		"the same pattern against an answer it matches",
		`return (await agent("id", { schema: ${BACKTRACKS} })).id.length;`,
		{ value: 40_000 },
		{ answer: () => ({ structured: { id: "a".repeat(40_000) } }) },
	],
	[
		"uniqueItems over 15,000 distinct objects",
		`return (await agent("list", { schema: ${UNIQUE} })).items.length;`,
		{ value: 15_000 },
		{ answer: () => ({ structured: { items: DISTINCT } }) },
	],
	[
		"uniqueItems over 15,000 objects with one repeated last",
		`return await agent("list", { schema: ${UNIQUE} });`,
		{
			code: "schema_unmet",
			message: "`output.items` must NOT have duplicate items (items ## 15000 and 0 are identical)",
		},
		{ answer: () => ({ structured: { items: [...DISTINCT, { name: "item 0", id: 0 }] } }) },
	],
	[
		"a 550 KB schema of 4,000 properties",
		wideSchema(4_000, 100),
		{
			code: "schema_invalid",
			message:
				"`schema` is more than 65536 bytes of JSON (limit: 65536). Make the schema smaller: shorter descriptions, fewer properties, or one call per part",
		},
	],
	[
		"a schema of 10,000 properties",
		wideSchema(10_000, 1),
		{ code: "schema_invalid", message: "`schema` is more than 65536 bytes of JSON (limit: 65536)" },
	],
	[
		"a small schema of 600 subschemas",
		wideSchema(600, 0),
		{
			code: "schema_invalid",
			message: "`schema` has more than 128 subschemas (the last counted is `schema.properties.p127`) (limit: 128)",
		},
	],
	[
		"a schema nested 200 deep",
		`let schema = { type: "object" };
for (let i = 0; i < 200; i++) schema = { type: "object", properties: { a: schema } };
return await agent("deep", { schema });`,
		{
			code: "schema_invalid",
			message:
				"is nested more than 32 levels deep (limit: 32). Flatten the schema, or name a repeated part in `$defs` and point to it with `$ref`",
		},
	],
	[
		"a pattern with a backreference",
		`return await agent("x", { schema: { type: "object", properties: { a: { type: "string", pattern: "^(a)\\\\1$" } } } });`,
		{
			code: "schema_invalid",
			message: "is not a pattern the linear-time regex engine (RE2) accepts: backreference `\\1`",
		},
	],
	[
		"a 20 KB pattern",
		`return await agent("x", { schema: { type: "object", properties: { a: { type: "string", pattern: "a".repeat(20000) } } } });`,
		{
			code: "schema_invalid",
			message:
				"`schema.properties.a.pattern` is a pattern of 20000 characters (limit: 1000). Use a shorter pattern, or `enum` for a list of exact values",
		},
	],
	[
		"a remote $ref",
		`return await agent("x", { schema: { type: "object", properties: { a: { $ref: "http://127.0.0.1:1/a.json" } } } });`,
		{
			code: "schema_invalid",
			message: '`schema.properties.a.$ref` "http://127.0.0.1:1/a.json" points outside the schema',
		},
	],
];

describe("schema bombs", () => {
	it.each(BOMBS)("%s: ends with a named outcome, the host keeps serving", async (_, script, expectation, options) => {
		await beside(() => checkCase(script, expectation, options));
	});

	it('a recursive schema (`$ref: "#"`) checks a tree of nodes', async () => {
		const tree = { name: "root", children: [{ name: "a", children: [{ name: "b", children: [] }] }] };
		const script = `const node = { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#" } } }, required: ["name", "children"] };
const first = await agent("tree", { schema: node });
const second = await agent("tree again", { schema: node });
return [first.children[0].children[0].name, second];`;
		const answers = [{ structured: tree }, { structured: { name: "r", children: [{ children: [] }] } }];
		let index = 0;
		await checkCase(
			script,
			{ code: "schema_unmet", message: "`output.children[0]` must have required property 'name'" },
			{ answer: () => answers[Math.min(index++, 1)] },
		);
	});

	it("330 distinct large schemas over three runs: the schema worker holds none of them after each run", async () => {
		const before = process.memoryUsage().heapUsed;
		for (let round = 0; round < 3; round++) {
			// Each schema is about 50 KB: distinct descriptions and ten 1000-character patterns.
			const script = `const schemas = [];
for (let s = 0; s < 110; s++) {
	const properties = {};
	for (let p = 0; p < 10; p++) properties["p" + p] = { type: "string", pattern: "(x|" + "${round}".repeat(900) + s + ")*", description: ("r${round} s" + s + " ").repeat(400) };
	schemas.push({ type: "object", properties });
}
const answers = await parallel(schemas.map((schema) => () => agent("a", { schema })));
return answers.length;`;
			const run = await runHostile(script, { answer: () => ({ structured: { p0: "x" } }) });
			expect(run.result.value).toBe(110);
			expect(schemaWorkerStats().holds, "schemas still held on the host").toBe(0);
			await vi.waitFor(() => expect(schemaWorkerStats().held, "validators the worker still keeps").toBe(0), {
				timeout: 30_000,
			});
		}
		const grownMiB = (process.memoryUsage().heapUsed - before) / 2 ** 20;
		console.log(
			`host heap after 330 large schemas over 3 runs: ${grownMiB >= 0 ? "+" : ""}${grownMiB.toFixed(1)} MiB`,
		);
	});
});
