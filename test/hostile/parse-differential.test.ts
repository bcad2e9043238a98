/**
 * The static checks (acorn, reading a module) and the engine (QuickJS, running the body as a classic script inside
 * an async arrow function) must read one program. Each form a script could use to make them differ, or to reach
 * code outside the body the checks saw, fails as `syntax_error` at its line:column before any agent starts; the
 * same characters inside strings, templates, regular expressions and comments still run.
 */
import { describe, expect, it } from "vitest";
import { checkCase, guardHost, type HostileCase, runHostile } from "./support.ts";

guardHost();

const HTML_OPEN =
	"`<!--` starts an HTML-like comment in the engine that runs workflows, so it would run other code than was checked. Put a space after `<` (`a < !--b`), or write `//` for a comment";
const HTML_CLOSE =
	"`-->` at the start of a line is an HTML-like comment in the engine that runs workflows. Write `//` for a comment";
const LINE_SEPARATOR =
	"This `//` comment ends at a U+2028/U+2029 line separator, which the engine that runs workflows does not count as a line break. End the comment with a newline";

/** [name, body (line 2 on), message, line, column] */
const ESCAPES: [name: string, body: string, message: string, line: number, column: number][] = [
	[
		"`<!--` hiding an import() from the check",
		`let a = 1, b = 2;\nconst c = a <!--b /*\nawait agent("first"); await import("x");\n// */\nreturn c;`,
		HTML_OPEN,
		3,
		13,
	],
	[
		"`<!--` closing the body's wrapper to run code outside it",
		`log("in") <!-- /*\n}); agent("outside"); (async () => {\n// */`,
		HTML_OPEN,
		2,
		11,
	],
	["`-->` at the start of a line", `let x = 1;\n--> await agent("hidden")`, HTML_CLOSE, 3, 1],
	["`-->` after a comment on its line", `let x = 1;\n/* c */ --> await agent("hidden")`, HTML_CLOSE, 3, 9],
	["`-->` after a comment that spans lines", `let x = 1 /*\n*/--> await agent("hidden")`, HTML_CLOSE, 3, 3],
	["`-->` after a U+2028", `let x = 1;\u2028--> await agent("hidden")`, HTML_CLOSE, 3, 1],
	// The check reads `return;` and an unreachable call; QuickJS would read `return await agent("x")`.
	["a `//` comment ended by U+2028 after `return`", `return // why\u2028 await agent("x");`, LINE_SEPARATOR, 2, 8],
	["a `//` comment ended by U+2029", `let x = 1 // why\u2029 x++;`, LINE_SEPARATOR, 2, 11],
	[
		"a `}` closing the body's wrapper",
		`await agent("a");\n}); await agent("outside"); (async () => {`,
		"Unexpected `}`. Look for a missing or extra bracket, comma, operator or quote just before it",
		3,
		1,
	],
	[
		"`import.meta`",
		`await agent("a");\nreturn import.meta.url;`,
		'`import.meta` is not available in workflow scripts. Delete it: the globals agent, parallel, pipeline, phase, log, workflow are already there; for files, the network or processes, ask an agent to do it (`await agent("Read package.json and return its version")`)',
		3,
		8,
	],
	[
		"an escaped `import` keyword",
		`await agent("a");\nawait \\u0069mport("x");`,
		"Escape sequence in keyword import",
		3,
		7,
	],
	[
		"`new.target` (the body is an arrow function in the engine)",
		`await agent("a");\nreturn new.target;`,
		"'new.target' can only be used in functions and class static block",
		3,
		8,
	],
	[
		"`await` as an identifier in a nested function (one in a script)",
		`await agent("a");\nfunction f() { var await = 1; return await; }`,
		"Cannot use keyword 'await' outside an async function",
		3,
		20,
	],
	["a hashbang after the header", `await agent("a");\n#!/usr/bin/env node`, "Unexpected character '!'", 3, 2],
	["`arguments` as a binding", `await agent("a");\nlet arguments = 1;`, "Binding arguments in strict mode", 3, 5],
	["a legacy octal literal", `await agent("a");\nreturn 010;`, "Invalid number", 3, 8],
	["`with`", `await agent("a");\nwith (globalThis) {}`, "'with' in strict mode", 3, 1],
];

describe("forms the checks and the engine would read differently", () => {
	it.each(ESCAPES)(
		"%s: syntax_error at its position, before any agent starts",
		async (_name, body, message, line, column) => {
			const run = await runHostile(body);
			expect(run.result.error).toMatchObject({ code: "syntax_error", line, column });
			expect(run.result.error?.message).toBe(`${message} (${line}:${column})`);
			expect(run.fake.requests, "agents started").toHaveLength(0);
			expect(run.events.map((event) => event.type)).toEqual(["run_end"]);
		},
	);
});

const CONTROLS: HostileCase[] = [
	[
		"the characters in strings, templates and regular expressions",
		// biome-ignore lint/suspicious/noTemplateCurlyInString: the script under test has a template with a substitution.
		'return ["<!--", \'-->\', `<!--\n-->`, /<!--/.source, /-->/.test("-->"), `${"<!--"}`];',
		{ value: ["<!--", "-->", "<!--\n-->", "<!--", true, "<!--"] },
	],
	["them in comments", `// <!-- here\n/* -->\n--> */\nreturn 1;`, { value: 1 }],
	["`a-- > b` on one line", `let a = 3, b = 1;\nconst bigger = a-- > b;\nreturn [bigger, a];`, { value: [true, 2] }],
	["`a < !--b` spaced", `let a = 1, b = 2;\nreturn a < !--b;`, { value: false }],
	["U+2028 in a string and a block comment", `/* \u2028 */ return "a\u2028b";`, { value: "a\u2028b" }],
	["a `//` comment ended by a newline before `return`'s value", `return // why\n await agent("x");`, { value: null }],
	[
		"a `use strict` directive, top-level await and return",
		`"use strict";\nreturn await agent("x");`,
		{ value: "done: x" },
	],
];

describe("the same characters where both read them alike", () => {
	it.each(CONTROLS)("%s: still run", async (_name, body, expectation, options) => {
		await checkCase(body, expectation, options);
	});
});
