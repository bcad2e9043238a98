/**
 * Property tests of the header parser: random pure literals are accepted and read back equal, whatever their
 * quoting, spacing and comments; a random non-literal construct anywhere in a header is rejected with
 * meta_invalid at its own position; and no input makes the parser throw anything but a WorkflowError.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WorkflowError } from "../../src/errors.ts";
import type { JsonValue, WorkflowMeta } from "../../src/runtime/index.ts";
import { parseWorkflowSource } from "../../src/runtime/index.ts";

const RUNS = 150;

/** A string with something besides whitespace (names, descriptions and titles must have it). */
const text = fc.string({ unit: "binary", maxLength: 40 });
const nonEmpty = text.filter((s) => /\S/.test(s));
const propertyName = fc
	.string({ minLength: 1, maxLength: 12 })
	.filter((k) => !["__proto__", "constructor", "prototype"].includes(k));

const argsSchema = fc
	.dictionary(propertyName, fc.constantFrom("string", "number", "integer", "boolean", "array", "object", "null"), {
		maxKeys: 4,
	})
	.chain((types) =>
		fc.record(
			{
				type: fc.constant("object"),
				properties: fc.constant(Object.fromEntries(Object.entries(types).map(([k, type]) => [k, { type }]))),
				required: fc.subarray(Object.keys(types)),
			},
			{ requiredKeys: ["type"] },
		),
	);

const metaArb: fc.Arbitrary<WorkflowMeta> = fc.record(
	{
		name: nonEmpty,
		description: nonEmpty,
		whenToUse: text,
		phases: fc.array(fc.record({ title: nonEmpty, detail: text }, { requiredKeys: ["title"] }), { maxLength: 4 }),
		args: argsSchema,
	},
	{ requiredKeys: ["name", "description"] },
);

/** Ways of writing one literal: quotes, key quoting, spacing, comments, trailing commas, number spellings. */
interface Style {
	quote: "double" | "single" | "template";
	quoteKeys: boolean;
	gap: string;
	trailingComma: boolean;
	hexIntegers: boolean;
}

const styleArb: fc.Arbitrary<Style> = fc.record({
	quote: fc.constantFrom("double", "single", "template"),
	quoteKeys: fc.boolean(),
	gap: fc.constantFrom(" ", "\n", "\n\t\t", " /* c */ ", " // line comment\n", "\r\n  "),
	trailingComma: fc.boolean(),
	hexIntegers: fc.boolean(),
});

function stringLiteral(value: string, quote: Style["quote"]): string {
	const escaped = JSON.stringify(value).slice(1, -1);
	if (quote === "double") return `"${escaped}"`;
	if (quote === "single") return `'${escaped.replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
	return `\`${escaped.replace(/`/g, "\\`").replace(/\$\{/g, "\\${")}\``;
}

function numberLiteral(value: number, style: Style): string {
	const magnitude = Math.abs(value);
	const body =
		style.hexIntegers && Number.isSafeInteger(magnitude) ? `0x${magnitude.toString(16)}` : String(magnitude);
	return value < 0 || Object.is(value, -0) ? `-${body}` : body;
}

/** JavaScript source for a JSON-like value, written in `style`. */
function write(value: JsonValue, style: Style): string {
	const { gap } = style;
	const tail = style.trailingComma ? "," : "";
	if (value === null) return "null";
	if (typeof value === "string") return stringLiteral(value, style.quote);
	if (typeof value === "number") return numberLiteral(value, style);
	if (typeof value === "boolean") return String(value);
	if (Array.isArray(value)) {
		if (value.length === 0) return "[]";
		return `[${gap}${value.map((item) => write(item, style)).join(`,${gap}`)}${tail}${gap}]`;
	}
	const entries = Object.entries(value);
	if (entries.length === 0) return "{}";
	const key = (k: string) =>
		!style.quoteKeys && /^[A-Za-z_$][\w$]*$/.test(k)
			? k
			: stringLiteral(k, style.quote === "template" ? "double" : style.quote);
	return `{${gap}${entries.map(([k, v]) => `${key(k)}:${gap}${write(v, style)}`).join(`,${gap}`)}${tail}${gap}}`;
}

/** A script whose header is `literal`; the opener stays on one line, as the parser asks. */
const script = (literal: string) => `export const meta = ${literal};\nreturn 1;\n`;

/** Constructs that are not pure literals, as they would appear in a value position. */
const NOT_LITERAL = [
	"someName",
	"f()",
	"1 + 2",
	"x ? 1 : 2",
	// biome-ignore lint/suspicious/noTemplateCurlyInString: the construct under test is a template with a substitution.
	"`a${x}b`",
	"/re/g",
	"10n",
	"new Date()",
	"() => 1",
	"this",
	"void 0",
	"!true",
	"typeof x",
	"-x",
	"(1, 2)",
	"[, 1]",
	"[...xs]",
	"{ ...obj }",
	"{ [k]: 1 }",
	"{ m() {} }",
	"{ get g() { return 1; } }",
	"{ short }",
	"{ __proto__: {} }",
	"{ constructor: 1 }",
	"{ prototype: 1 }",
	"import.meta",
	"await x",
];

/** Replaces the value at a random depth of `value` with a marker, so a non-literal can be put there. */
const MARK = "\u0000MARK\u0000";
function placeMarker(value: JsonValue, choices: number[]): JsonValue {
	if (choices.length === 0 || value === null || typeof value !== "object") return MARK;
	const [choice = 0, ...rest] = choices;
	if (Array.isArray(value)) {
		if (value.length === 0) return [MARK];
		const at = choice % value.length;
		return value.map((item, i) => (i === at ? placeMarker(item, rest) : item));
	}
	const keys = Object.keys(value);
	if (keys.length === 0) return MARK;
	const at = choice % keys.length;
	return Object.fromEntries(
		keys.map((k, i) => [k, i === at ? placeMarker(value[k] as JsonValue, rest) : (value[k] as JsonValue)]),
	);
}

function lineColumn(source: string, offset: number): { line: number; column: number } {
	const before = source.slice(0, offset).split(/\r\n|\r|\n|\u2028|\u2029/);
	return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

function offsetOf(source: string, location: { line: number; column: number }): number {
	const lines = source.split(/(?<=\r\n|\r(?!\n)|\n|\u2028|\u2029)/);
	return lines.slice(0, location.line - 1).reduce((sum, line) => sum + line.length, 0) + location.column - 1;
}

describe("parseWorkflowSource properties", () => {
	it("reads back any pure literal header, written any way, equal to what was written", () => {
		fc.assert(
			fc.property(metaArb, styleArb, (meta, style) => {
				const parsed = parseWorkflowSource(script(write(meta as unknown as JsonValue, style)));
				expect(parsed.meta).toEqual(meta);
			}),
			{ numRuns: RUNS },
		);
	});

	it("rejects a non-literal anywhere in a header with meta_invalid at the construct's own position", () => {
		fc.assert(
			fc.property(
				metaArb,
				fc.array(fc.nat(), { maxLength: 4 }),
				fc.constantFrom(...NOT_LITERAL),
				(meta, choices, construct) => {
					const marked = write(placeMarker(meta as unknown as JsonValue, choices), {
						quote: "double",
						quoteKeys: false,
						gap: "\n  ",
						trailingComma: false,
						hexIntegers: false,
					});
					const literal = marked.replace(JSON.stringify(MARK), construct);
					const source = script(literal);
					const start = source.indexOf(construct, "export const meta = ".length);
					let error: unknown;
					try {
						parseWorkflowSource(source);
					} catch (caught) {
						error = caught;
					}
					expect(error).toBeInstanceOf(WorkflowError);
					const coded = error as WorkflowError;
					expect(["meta_invalid", "syntax_error"]).toContain(coded.code);
					if (coded.code === "syntax_error") expect(construct).toMatch(/import\.meta|await/);
					expect(coded.location, coded.message).toBeDefined();
					const at = offsetOf(source, coded.location as { line: number; column: number });
					expect(
						at,
						`${coded.message} for ${construct} at ${JSON.stringify(lineColumn(source, start))}`,
					).toBeGreaterThanOrEqual(start);
					expect(at).toBeLessThan(start + construct.length);
				},
			),
			{ numRuns: RUNS },
		);
	});

	it("throws nothing but a WorkflowError for any text", () => {
		const inputs = fc.oneof(
			fc.string({ unit: "binary", maxLength: 200 }),
			fc.string({ unit: "binary", maxLength: 60 }).map((tail) => `export const meta = ${tail}`),
			fc.tuple(metaArb, fc.nat(), fc.string({ unit: "binary", maxLength: 3 })).map(([meta, at, insert]) => {
				const valid = script(
					write(meta as unknown as JsonValue, {
						quote: "double",
						quoteKeys: false,
						gap: " ",
						trailingComma: false,
						hexIntegers: false,
					}),
				);
				const cut = at % valid.length;
				return valid.slice(0, cut) + insert + valid.slice(cut + 1);
			}),
			fc
				.tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom("[", "{ a: ", "("))
				.map(([depth, open]) => `export const meta = ${open.repeat(depth)}`),
		);
		fc.assert(
			fc.property(inputs, (source) => {
				try {
					parseWorkflowSource(source);
				} catch (error) {
					expect(error).toBeInstanceOf(WorkflowError);
					expect((error as WorkflowError).location ?? (error as WorkflowError).code).toBeDefined();
				}
			}),
			{ numRuns: RUNS * 2 },
		);
	});

	it("reads a header nested thousands deep without overflowing the host's stack", () => {
		for (const depth of [1000, 5000, 50_000]) {
			const source = script(
				`{ name: "n", description: "d", args: { type: "object", default: ${"[".repeat(depth)}${"]".repeat(depth)} } }`,
			);
			try {
				parseWorkflowSource(source);
			} catch (error) {
				expect(error, `depth ${depth}`).toBeInstanceOf(WorkflowError);
			}
		}
	});
});
