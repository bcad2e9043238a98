import { describe, expect, it } from "vitest";
import { locate, toGuestError, trimStack } from "../../src/sandbox/guest-error.ts";
import { DEFAULT_SANDBOX_LIMITS } from "../../src/sandbox/index.ts";

const options = { filename: "wf.js", phase: "running" as const, tripped: null, limits: DEFAULT_SANDBOX_LIMITS };

describe("locate", () => {
	it.each([
		["    at fn (wf.js:3:9)\n", { line: 3, column: 9 }],
		["    at wf.js:1:9\n", { line: 1, column: 9 }],
		["    at parse (native)\n    at <prelude>:1:2\n    at <anonymous> (wf.js:12:40)\n", { line: 12, column: 40 }],
		["    at other.js:1:1\n", undefined],
	])("finds the first frame in the file in %j", (stack, expected) => {
		expect(locate(stack, "wf.js")).toEqual(expected);
	});

	it("matches the file name literally", () => {
		expect(locate("    at x (a+b.js:2:3)\n", "a+b.js")).toEqual({ line: 2, column: 3 });
		expect(locate("    at x (aab.js:2:3)\n", "a.b.js")).toBeUndefined();
	});
});

describe("trimStack", () => {
	it("drops our helper frames and shortens deep stacks", () => {
		expect(trimStack("    at ok (<sandbox>:1:2)\n    at f (wf.js:1:1)\n")).toBe("    at f (wf.js:1:1)\n");
		const deep = "    at f (wf.js:1:1)\n".repeat(100);
		expect(trimStack(deep).split("\n")).toHaveLength(42);
		expect(trimStack(deep)).toContain("… 60 more frames");
	});
});

describe("toGuestError", () => {
	it.each([
		[{ name: "InternalError", message: "out of memory" }, "limit_memory"],
		[{ name: "InternalError", message: "stack overflow" }, "limit_stack"],
		[{ name: "SyntaxError", message: "stack overflow" }, "limit_stack"],
		[{ name: "InternalError", message: "interrupted" }, "thrown"],
		[{ name: "SyntaxError", message: "bad", stack: "    at wf.js:1:2\n" }, "thrown"],
	])("classifies %j as %s while running", (described, kind) => {
		expect(toGuestError({ props: {}, ...described }, options).kind).toBe(kind);
	});

	it("calls a compile-time SyntaxError (one bare frame) a syntax error", () => {
		const error = toGuestError(
			{ name: "SyntaxError", message: "unexpected token", stack: "    at wf.js:2:5\n", props: { lineNumber: 2 } },
			{ ...options, phase: "body" },
		);
		expect(error).toEqual({
			kind: "syntax",
			name: "SyntaxError",
			message: "unexpected token",
			stack: "    at wf.js:2:5\n",
			line: 2,
			column: 5,
		});
	});

	it("uses the interrupt handler's reason over the error's text", () => {
		const described = { name: "InternalError", message: "interrupted", props: {} };
		expect(toGuestError(described, { ...options, tripped: "cpu" }).kind).toBe("limit_cpu");
		expect(toGuestError(described, { ...options, tripped: "cancel" }).kind).toBe("cancelled");
	});
});
