/**
 * A header that plainly fits is accepted without ajv (loading and compiling it was most of a first run's host time):
 * the plain check never accepts what the schema refuses, it does accept the headers people write, and reading such a
 * header in a fresh process loads no ajv at all.
 */
import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fitsPlainly, META_SCHEMA } from "../../../src/runtime/meta/shape.ts";
import { compileTrustedSchema } from "../../../src/runtime/schema/session.ts";

const schema = compileTrustedSchema(META_SCHEMA);
const blankish = fc.constantFrom("", " ", "\t\n", "\u00a0", "\u2028", "\v", "x", " y ");
const text = fc.oneof(blankish, fc.string({ unit: "binary", maxLength: 8 }));
const anyValue = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.constant([]), fc.constant({}));
const key = fc.constantFrom("name", "description", "whenToUse", "phases", "args", "model", "title", "detail", "extra");
const phase = fc.oneof(
	fc.dictionary(fc.constantFrom("title", "detail", "agentCount"), fc.oneof(text, anyValue), { maxKeys: 3 }),
	anyValue,
);
const header = fc.oneof(
	fc.dictionary(key, fc.oneof(text, anyValue, fc.array(phase, { maxLength: 3 })), { maxKeys: 7 }),
	fc.record(
		{
			name: text,
			description: text,
			whenToUse: fc.oneof(text, anyValue),
			phases: fc.oneof(fc.array(phase, { maxLength: 3 }), anyValue),
			args: fc.oneof(fc.constant({ type: "object" }), anyValue),
			model: fc.oneof(text, anyValue),
		},
		{ requiredKeys: ["name", "description"] },
	),
	anyValue,
);

describe("the header's plain check", () => {
	it("never accepts a header the schema refuses", () => {
		fc.assert(
			fc.property(header, (value) => {
				if (fitsPlainly(value)) expect(schema.validate(value, { root: "meta" }).ok).toBe(true);
			}),
			{ numRuns: 2000 },
		);
	});

	it("accepts the headers people write", () => {
		expect(fitsPlainly({ name: "n", description: "d" })).toBe(true);
		expect(
			fitsPlainly({
				name: "review",
				description: "Reviews a diff",
				whenToUse: "",
				phases: [{ title: "Read" }, { title: "Fix", detail: "one agent per file" }],
				args: { type: "object", properties: { base: { type: "string" } } },
				model: "sonnet",
			}),
		).toBe(true);
	});

	it("leaves ajv unloaded when a fresh process reads a header that fits", () => {
		const read = new URL("../../../src/runtime/meta/read.ts", import.meta.url).href;
		const probe = `
			import { createRequire } from "node:module";
			const { parseWorkflowSource } = await import(${JSON.stringify(read)});
			parseWorkflowSource('export const meta = { name: "n", description: "d", phases: [{ title: "a" }] };\\nreturn 1;');
			const loaded = Object.keys(createRequire(import.meta.url).cache);
			process.stdout.write(JSON.stringify(loaded.filter((path) => /[\\\\/](ajv|re2js)[\\\\/]/.test(path))));`;
		const out = execFileSync(process.execPath, ["--input-type=module", "--eval", probe], { encoding: "utf8" });
		expect(JSON.parse(out)).toEqual([]);
	});
});
