import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../../src/runtime/core/json.ts";
import { sampleFromSchema } from "../../../src/runtime/dry/sample.ts";
import { SchemaSession } from "../../../src/runtime/schema/session.ts";

/** Schemas as scripts write them; each sample must pass the same ajv the runtime checks answers with. */
const SCHEMAS: Record<string, JsonSchema> = {
	findings: {
		type: "object",
		properties: {
			findings: {
				type: "array",
				minItems: 1,
				items: {
					type: "object",
					properties: {
						file: { type: "string", minLength: 3 },
						line: { type: "integer", minimum: 1 },
						severity: { enum: ["low", "medium", "high"] },
						fixed: { type: "boolean" },
					},
					required: ["file", "line", "severity"],
					additionalProperties: false,
				},
			},
			summary: { type: "string", maxLength: 40 },
		},
		required: ["findings", "summary"],
	},
	formats: {
		type: "object",
		properties: {
			when: { type: "string", format: "date-time" },
			mail: { type: "string", format: "email" },
			link: { type: "string", format: "uri" },
			id: { type: "string", format: "uuid" },
		},
		required: ["when", "mail", "link", "id"],
	},
	numbers: {
		type: "object",
		properties: {
			score: { type: "number", minimum: 0, maximum: 1 },
			count: { type: "integer", exclusiveMinimum: 10, maximum: 12 },
			even: { type: "integer", multipleOf: 2, maximum: -4 },
		},
		required: ["score", "count", "even"],
	},
	refsAndBranches: {
		$defs: { item: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
		type: "object",
		properties: {
			items: { type: "array", items: { $ref: "#/$defs/item" }, uniqueItems: true, maxItems: 3 },
			either: { oneOf: [{ type: "string" }, { type: "integer" }] },
			both: {
				allOf: [
					{ type: "object", properties: { a: { type: "string" } }, required: ["a"] },
					{ required: ["b"], properties: { b: { type: "number" } } },
				],
			},
			maybe: { type: ["null", "string"] },
			fixed: { const: "v1" },
		},
		required: ["items", "either", "both", "maybe", "fixed"],
	},
	tuple: { type: "array", items: [{ type: "string" }, { type: "number" }], additionalItems: false },
};

describe("sampleFromSchema", () => {
	const session = new SchemaSession();

	for (const [name, schema] of Object.entries(SCHEMAS)) {
		it(`makes a value the ${name} schema accepts, for every index of a fan-out`, async () => {
			const compiled = await session.compile(schema);
			for (let index = 0; index < 7; index++) {
				const value = sampleFromSchema(schema, { index, label: "reviewer" });
				const checked = await compiled.validate(value);
				expect(checked.ok, `${name}#${index}: ${JSON.stringify(value)} ${checked.ok ? "" : checked.errors}`).toBe(
					true,
				);
			}
		});
	}

	it("is the same for the same seed and differs between the items of a fan-out", () => {
		const schema = SCHEMAS.findings as JsonSchema;
		expect(sampleFromSchema(schema, { index: 3 })).toEqual(sampleFromSchema(schema, { index: 3 }));
		const values = Array.from({ length: 5 }, (_, index) => JSON.stringify(sampleFromSchema(schema, { index })));
		expect(new Set(values).size).toBe(5);
	});

	it("cycles an enum by index, so a fan-out sees every choice", () => {
		const schema: JsonSchema = { enum: ["approve", "reject", "revise"] };
		expect([0, 1, 2, 3].map((index) => sampleFromSchema(schema, { index }))).toEqual([
			"approve",
			"reject",
			"revise",
			"approve",
		]);
	});

	it("names a string after its property, else the label", () => {
		expect(sampleFromSchema({ type: "object", properties: { title: { type: "string" } } }, { index: 0 })).toEqual({
			title: "title 1",
		});
		expect(sampleFromSchema({ type: "string" }, { index: 1, label: "summary" })).toBe("summary 2");
	});
});
