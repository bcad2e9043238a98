import { describe, expect, it } from "vitest";
import { parseWorkflowSource } from "../../../src/runtime/meta/read.ts";
import { expectRejection, named, type Rejection, withBody, withLine } from "./meta-table.ts";

const NOT_LITERAL: Rejection[] = [
	[
		withLine("whenToUse: foo,"),
		"meta_invalid",
		"`meta.whenToUse` must be a literal, found an identifier `foo` (4:13)",
		4,
		13,
	],
	[
		withLine("whenToUse: undefined,"),
		"meta_invalid",
		"`meta.whenToUse` must be a literal, found an identifier `undefined` (4:13)",
		4,
		13,
	],
	[
		withLine("phases: [{ title: t() }],"),
		"meta_invalid",
		"`meta.phases[0].title` must be a literal, found a call expression (4:20)",
		4,
		20,
	],
	[withLine("...base,"), "meta_invalid", "`meta` must be a literal, found a spread `...` (4:2)", 4, 2],
	[
		withLine("phases: [...list],"),
		"meta_invalid",
		"`meta.phases[0]` must be a literal, found a spread `...` (4:11)",
		4,
		11,
	],
	[
		withLine('["when" + "ToUse"]: "x",'),
		"meta_invalid",
		"`meta` must be a literal, found a computed key `[…]` (4:2)",
		4,
		2,
	],
	[
		withLine('whenToUse() { return "x"; },'),
		"meta_invalid",
		"`meta.whenToUse` must be a literal, found a method (4:2)",
		4,
		2,
	],
	[
		withLine('get whenToUse() { return "x"; },'),
		"meta_invalid",
		"`meta.whenToUse` must be a literal, found a getter (4:2)",
		4,
		2,
	],
	[
		withLine("set whenToUse(value) {},"),
		"meta_invalid",
		"`meta.whenToUse` must be a literal, found a setter (4:2)",
		4,
		2,
	],
	[
		withLine("whenToUse,"),
		"meta_invalid",
		"`meta.whenToUse` must be a literal, found a shorthand property. Write `whenToUse: <literal>` (4:2)",
		4,
		2,
	],
	[
		withLine('phases: [{ title: "a" }, , { title: "b" }],'),
		"meta_invalid",
		"`meta.phases[1]` must be a literal, found a hole (an empty slot) (4:27)",
		4,
		27,
	],
	[
		withLine("phases: [, {}],"),
		"meta_invalid",
		"`meta.phases[0]` must be a literal, found a hole (an empty slot) (4:11)",
		4,
		11,
	],
	[
		withLine("whenToUse: /x/u,"),
		"meta_invalid",
		"`meta.whenToUse` must be a literal, found a regular expression (4:13)",
		4,
		13,
	],
	[withLine("whenToUse: 10n,"), "meta_invalid", "`meta.whenToUse` must be a literal, found a BigInt (4:13)", 4, 13],
	[
		// biome-ignore lint/suspicious/noTemplateCurlyInString: the script text under test holds a template literal.
		withLine("whenToUse: `a ${b}`,"),
		"meta_invalid",
		// biome-ignore lint/suspicious/noTemplateCurlyInString: the message quotes the syntax it refuses.
		"`meta.whenToUse` must be a literal, found a template literal with `${…}` (4:13)",
		4,
		13,
	],
	[
		withLine("whenToUse: tag`x`,"),
		"meta_invalid",
		"`meta.whenToUse` must be a literal, found a tagged template expression (4:13)",
		4,
		13,
	],
	[
		withLine('whenToUse: -"x",'),
		"meta_invalid",
		'`meta.whenToUse` must be a literal, found `-` applied to a string `"x"` (4:13)',
		4,
		13,
	],
	[
		withLine("whenToUse: - -1,"),
		"meta_invalid",
		"`meta.whenToUse` must be a literal, found `-` applied to a unary expression (4:13)",
		4,
		13,
	],
	[
		withLine("whenToUse: +1,"),
		"meta_invalid",
		"`meta.whenToUse` must be a literal, found a unary `+` expression (4:13)",
		4,
		13,
	],
	[
		withLine("whenToUse: !0,"),
		"meta_invalid",
		"`meta.whenToUse` must be a literal, found a unary `!` expression (4:13)",
		4,
		13,
	],
	[
		withLine('whenToUse: "a" + "b",'),
		"meta_invalid",
		"`meta.whenToUse` must be a literal, found a binary expression (4:13)",
		4,
		13,
	],
	[
		withLine('whenToUse: () => "x",'),
		"meta_invalid",
		"`meta.whenToUse` must be a literal, found an arrow function expression (4:13)",
		4,
		13,
	],
	[
		withLine("whenToUse: new Date(0),"),
		"meta_invalid",
		"`meta.whenToUse` must be a literal, found a `new` expression (4:13)",
		4,
		13,
	],
	[
		withLine("whenToUse: process.env.X,"),
		"meta_invalid",
		"`meta.whenToUse` must be a literal, found a member expression (4:13)",
		4,
		13,
	],
	[withLine("whenToUse: this,"), "meta_invalid", "`meta.whenToUse` must be a literal, found `this` (4:13)", 4, 13],
	[
		withLine('whenToUse: a ? "x" : "y",'),
		"meta_invalid",
		"`meta.whenToUse` must be a literal, found a conditional expression (4:13)",
		4,
		13,
	],
	[
		withLine('whenToUse: await "x",'),
		"meta_invalid",
		"`meta.whenToUse` must be a literal, found an await expression (4:13)",
		4,
		13,
	],
];

const BAD_KEYS: Rejection[] = [
	[
		withLine("__proto__: {},"),
		"meta_invalid",
		"`meta` must not have a `__proto__` key: it is reserved. Rename the key (4:2)",
		4,
		2,
	],
	[
		withLine('"prototype": 1,'),
		"meta_invalid",
		"`meta` must not have a `prototype` key: it is reserved. Rename the key (4:2)",
		4,
		2,
	],
	[
		withLine('args: { type: "object", properties: { constructor: { type: "string" } } },'),
		"meta_invalid",
		"`meta.args.properties` must not have a `constructor` key: it is reserved. Rename the key (4:40)",
		4,
		40,
	],
	[withLine('1: "x",'), "meta_invalid", "`meta` keys must be names or strings, found a number `1` (4:2)", 4, 2],
	[withLine('name: "u",'), "meta_invalid", "`meta.name` is given twice. Keep one (4:2)", 4, 2],
];

describe("parseWorkflowSource meta literal", () => {
	it.each(named(NOT_LITERAL))("on a non-literal in meta: $name", ({ row }) => expectRejection(row));
	it.each(named(BAD_KEYS))("on a bad key in meta: $name", ({ row }) => expectRejection(row));
});

const ACCEPTED: [line: string, expected: Record<string, unknown>][] = [
	["whenToUse: `after a\nfeature lands`,", { whenToUse: "after a\nfeature lands" }],
	["\"whenToUse\": 'single quoted',", { whenToUse: "single quoted" }],
	['whenToUse: "\\u0041\\x42\\n",', { whenToUse: "AB\n" }],
	['whenToUse: ("parenthesised"),', { whenToUse: "parenthesised" }],
	[
		'phases: [{ title: "review" }, { title: "fix", detail: "one agent per finding" },],',
		{ phases: [{ title: "review" }, { title: "fix", detail: "one agent per finding" }] },
	],
	[
		'args: { type: "object", properties: { n: { type: "number", minimum: -5, maximum: 1e3, multipleOf: 0.5 } } },',
		{ args: { type: "object", properties: { n: { type: "number", minimum: -5, maximum: 1000, multipleOf: 0.5 } } } },
	],
	[
		'args: { type: "object", properties: { p: { enum: [[1, [2, [-3]]], [], null, true, false, "x"] } } },',
		{ args: { type: "object", properties: { p: { enum: [[1, [2, [-3]]], [], null, true, false, "x"] } } } },
	],
	[
		'args: { type: "object", properties: { "odd key": { type: "string", default: `x` } }, required: [] },',
		{ args: { type: "object", properties: { "odd key": { type: "string", default: "x" } }, required: [] } },
	],
	["/* a comment */ whenToUse: /* inside */ 'x', // trailing", { whenToUse: "x" }],
];

describe("parseWorkflowSource accepted literals", () => {
	it.each(ACCEPTED)("reads %j", (line, expected) => {
		expect(parseWorkflowSource(withLine(line)).meta).toEqual({ name: "t", description: "d", ...expected });
	});

	it("reads the contract's example header in full", () => {
		const source = `// A header comment is fine.
export const meta = {
  name: "review-and-fix",
  description: "Review a change and fix what is found",
  whenToUse: "after a feature branch is ready",
  phases: [{ title: "review" }, { title: "fix", detail: "one agent per finding" }],
  args: { type: "object", properties: { target: { type: "string" } }, required: ["target"] },
};
phase("review");
return 1;
`;
		expect(parseWorkflowSource(source).meta).toEqual({
			name: "review-and-fix",
			description: "Review a change and fix what is found",
			whenToUse: "after a feature branch is ready",
			phases: [{ title: "review" }, { title: "fix", detail: "one agent per finding" }],
			args: { type: "object", properties: { target: { type: "string" } }, required: ["target"] },
		});
	});

	it("accepts top-level await and return in the body", () => {
		expect(
			parseWorkflowSource(withBody('const x = await agent("a");\nif (!x) return null;\nreturn x;')).meta.name,
		).toBe("t");
	});
});
