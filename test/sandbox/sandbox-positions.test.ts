import { describe, expect, it } from "vitest";
import type { HostFunction } from "../../src/sandbox/index.ts";
import { checkLeaks, PRELUDE, request, runOnce } from "./support.ts";

checkLeaks();

const tick: HostFunction = { kind: "async", fn: async () => null };

/**
 * [what, body statements, kind, line, column, name] — positions are 1-based in wf.js. QuickJS places a runtime
 * error at the operator that failed: the `(` of a call (`new Error(…)`), the `.` of a property access.
 */
const CASES: [string, string, string, number, number, string][] = [
	["a throw on line 1", "throw new Error('x');", "thrown", 1, 30, "Error"],
	["a ReferenceError", "\n  const a = 1;\n  missing + a;", "thrown", 3, 3, "ReferenceError"],
	[
		"a TypeError in a nested function",
		"\n  function f(o) {\n    return o.x.y;\n  }\n  f({});",
		"thrown",
		3,
		15,
		"TypeError",
	],
	["a throw after an await", "\n  await host.tick();\n  throw new RangeError('late');", "thrown", 3, 23, "RangeError"],
	["a throw in a callback", "\n  [1].forEach(() => {\n    null.x;\n  });", "thrown", 3, 9, "TypeError"],
	["a syntax error", "\n  const x = {;", "syntax", 2, 14, "SyntaxError"],
	["an unterminated string", "\n\n  'abc", "syntax", 3, 3, "SyntaxError"],
	["a strict-mode error", "\n  with ({}) {}", "syntax", 2, 3, "SyntaxError"],
	["a runtime SyntaxError from JSON.parse", "\n  JSON.parse('{');", "thrown", 2, 13, "SyntaxError"],
];

describe("error positions", () => {
	it.each(CASES)("on %s: reports the author's line and column", async (_what, source, kind, line, column, name) => {
		const outcome = await runOnce(request(source, { tick }));
		expect(outcome).toMatchObject({ ok: false, error: { kind, line, column, name } });
	});

	it("reports a syntax error in the prelude as syntax, without a position in the script", async () => {
		const outcome = await runOnce({ ...request("return 1;"), prelude: "(host) => {" });
		expect(outcome.ok).toBe(false);
		if (outcome.ok) return;
		expect(outcome.error.kind).toBe("syntax");
		expect(outcome.error.line).toBeUndefined();
		expect(outcome.error.stack).toContain("<prelude>:1:");
	});

	it("reports a prelude that is not a function as internal", async () => {
		const outcome = await runOnce({ ...request("return 1;"), prelude: "42" });
		expect(outcome).toEqual({
			ok: false,
			error: { kind: "internal", message: "The prelude's completion value must be a function, got number" },
		});
	});

	it("reports a body that does not end in a promise as a TypeError", async () => {
		const outcome = await runOnce({
			prelude: PRELUDE,
			body: "1 + 1",
			filename: "wf.js",
			data: null,
			hostFunctions: {},
		});
		expect(outcome).toEqual({
			ok: false,
			error: {
				kind: "thrown",
				name: "TypeError",
				message: "The body's completion value must be a promise, got number",
			},
		});
	});
});
