/**
 * The answer sampler is bounded: optional properties only while cheap, counts at their minimum and capped, strings
 * within the 8 MiB answer bound, nesting bounded; what cannot be sampled is `schema_unsampleable` naming the keyword
 * and the schema path. `pattern` is met for the patterns scripts write. The cases are the issue's: each finishes with
 * a clear result and small memory (asserted as the result, never as a duration).
 */
import { afterAll, describe, expect, it } from "vitest";
import { isWorkflowError } from "../../../src/errors.ts";
import type { JsonSchema } from "../../../src/runtime/core/json.ts";
import { sampleFromSchema } from "../../../src/runtime/dry/sample.ts";
import { dryRunWorkflowScript, shutdownSchemaWorker } from "../../../src/runtime/index.ts";
import { SchemaSession } from "../../../src/runtime/schema/session.ts";

afterAll(() => shutdownSchemaWorker());

const session = new SchemaSession();

async function accepted(schema: JsonSchema, index = 0): Promise<unknown> {
	const value = sampleFromSchema(schema, { index });
	const checked = await (await session.compile(schema)).validate(value);
	expect(checked.ok, `${JSON.stringify(value)} ${checked.ok ? "" : checked.errors}`).toBe(true);
	return value;
}

function unsampleable(schema: JsonSchema): { message: string; details: unknown } {
	try {
		sampleFromSchema(schema, { index: 0 });
	} catch (error) {
		if (isWorkflowError(error) && error.code === "schema_unsampleable") {
			return { message: error.message, details: error.details };
		}
		throw error;
	}
	throw new Error("the schema was sampled");
}

const ADVICE = "A real run is not affected: a child answers it. To dry-run it";

describe("the sampler's bounds", () => {
	it("fills ten optional properties that refer to the root without recursing into them", async () => {
		const properties = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, { $ref: "#" }]));
		const value = await accepted({ type: "object", properties });
		expect(JSON.stringify(value).length).toBeLessThan(1024);
	});

	it("refuses minItems 1e9, naming the keyword and the path", () => {
		expect(
			unsampleable({ type: "object", properties: { all: { type: "array", minItems: 1e9 } }, required: ["all"] }),
		).toEqual({
			message: `a dry run cannot make up a value for this schema: \`minItems\` at #/properties/all is 1000000000, over the 1000 items a sample may hold. ${ADVICE}, lower \`minItems\`, or (for \`meta.args\`) give the args`,
			details: { keyword: "minItems", path: "#/properties/all" },
		});
	});

	it("refuses minLength 4e8 and 1e9 within the answer bound", () => {
		for (const minLength of [4e8, 1e9]) {
			expect(unsampleable({ type: "string", minLength }).message).toBe(
				`a dry run cannot make up a value for this schema: \`minLength\` at # is ${minLength}, over the 8388608 characters a sample may hold. ${ADVICE}, lower \`minLength\`, or (for \`meta.args\`) give the args`,
			);
		}
	});

	it("keeps the whole sample's JSON within the 8 MiB answer bound", () => {
		expect(unsampleable({ type: "string", minLength: 8 * 1024 * 1024 }).message).toContain(
			"`minLength` at # makes a sample of more than 8388608 bytes of JSON",
		);
	});

	it("refuses nested 200×200×200 minItems by the total it would make", () => {
		const schema: JsonSchema = {
			type: "array",
			minItems: 200,
			items: { type: "array", minItems: 200, items: { type: "array", minItems: 200, items: { type: "integer" } } },
		};
		expect(unsampleable(schema).message).toBe(
			`a dry run cannot make up a value for this schema: \`minItems\` at #/items/items makes a sample of more than 10000 values. ${ADVICE}, lower \`minItems\`, or (for \`meta.args\`) give the args`,
		);
	});

	it("refuses a required property that contains itself: it has no finite value", () => {
		const schema: JsonSchema = { type: "object", properties: { next: { $ref: "#" } }, required: ["next"] };
		expect(unsampleable(schema).details).toEqual({ keyword: "required", path: "#" });
		expect(unsampleable({ anyOf: [{ $ref: "#" }] }).details).toEqual({ keyword: "anyOf", path: "#" });
	});
});

describe("pattern", () => {
	const PATTERNS = [
		"^[0-9]{3}$",
		"^(low|medium|high)$",
		"^[A-Z][a-z]+-\\d{2,4}$",
		"^\\w+@\\w+\\.com$",
		"^v\\d+\\.\\d+\\.\\d+$",
		"^[^\\s,]{5,}$",
		"^(?:feat|fix)\\([a-z]+\\): .+$",
		"ticket-[0-9a-f]{6}",
		"^\\s*\\S+\\s*$",
	];
	for (const pattern of PATTERNS) {
		it(`makes a string that matches ${pattern}`, async () => {
			for (const index of [0, 1, 2]) await accepted({ type: "string", pattern }, index);
		});
	}

	it("meets a pattern with the lengths the schema asks", async () => {
		await accepted({ type: "string", pattern: "^[a-z]+$", minLength: 12, maxLength: 14 });
		await accepted({ type: "string", pattern: "^[A-Z]{2}\\d*$", minLength: 6 });
	});

	it("bounds the tries patterns take in all, naming the pattern past the bound", () => {
		const long = { type: "string", pattern: "^.+$", minLength: 4096, maxLength: 4096 };
		const schema: JsonSchema = {
			type: "array",
			minItems: 1000,
			items: { type: "object", properties: { a: long, b: long }, required: ["a", "b"] },
		};
		const refused = unsampleable(schema);
		expect(refused.details).toMatchObject({ keyword: "pattern" });
		expect(refused.message).toContain(
			'("^.+$") is one of the patterns that took more than 4194304 characters of tries to meet for this many strings',
		);
	});

	it("says plainly which pattern it could not meet", () => {
		expect(unsampleable({ type: "string", pattern: ".+", minLength: 8_000_000 }).details).toEqual({
			keyword: "pattern",
			path: "#",
		});
		expect(unsampleable({ type: "string", pattern: "^a{5}$", maxLength: 3 }).message).toBe(
			`a dry run cannot make up a value for this schema: \`pattern\` at # ("^a{5}$") has no match the dry run could make within its minLength and maxLength. ${ADVICE}, write the pattern with literals, classes, alternations and bounded repeats, or (for \`meta.args\`) give the args`,
		);
	});
});

describe("a dry run with a schema it cannot sample", () => {
	it("fails the call with the coded error at its line", async () => {
		const source = `export const meta = { name: "huge", description: "asks for too much" };
const all = await agent("list", { schema: { type: "object", properties: { all: { type: "array", minItems: 1e9 } }, required: ["all"] } });
return all;`;
		const { plan } = await dryRunWorkflowScript(source, {});
		expect(plan.status).toBe("failed");
		expect(plan.error?.code).toBe("schema_unsampleable");
		expect(plan.error?.message).toContain("`minItems` at #/properties/all is 1000000000");
		expect(plan.error?.line).toBe(2);
	});

	it("fails when meta.args cannot be sampled, and runs on a pattern it can meet", async () => {
		const huge = `export const meta = { name: "big-args", description: "d", args: { type: "object", properties: { text: { type: "string", minLength: 1e9 } }, required: ["text"] } };
return args.text.length;`;
		const failed = (await dryRunWorkflowScript(huge, {})).plan;
		expect(failed.status).toBe("failed");
		expect(failed.error?.code).toBe("schema_unsampleable");
		expect(failed.error?.message).toContain("`minLength` at #/properties/text is 1000000000");
		const coded = `export const meta = { name: "coded", description: "d", args: { type: "object", properties: { level: { type: "string", pattern: "^(low|medium|high)$" } }, required: ["level"] } };
const r = await agent("rate", { schema: { type: "object", properties: { code: { type: "string", pattern: "^[0-9]{3}$" } }, required: ["code"] } });
return [args.level, r.code];`;
		const { plan, result } = await dryRunWorkflowScript(coded, {});
		expect(plan.status, JSON.stringify(plan.error)).toBe("completed");
		expect(result.value).toEqual([expect.stringMatching(/^(low|medium|high)$/), expect.stringMatching(/^[0-9]{3}$/)]);
	});
});
