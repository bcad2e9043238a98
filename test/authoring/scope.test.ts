// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the scripts under test hold template substitutions.
/** The scope analysis on its own: which names a script reads that nothing declares. */
import { parse } from "acorn";
import { describe, expect, it } from "vitest";
import { analyzeScopes } from "../../src/authoring/scope.ts";

function unresolved(code: string, params: string[] = []): string[] {
	const program = parse(code, {
		ecmaVersion: "latest",
		sourceType: "module",
		allowAwaitOutsideFunction: true,
		allowReturnOutsideFunction: true,
	});
	const analysis = analyzeScopes(program, params);
	return analysis.unresolved.filter((reference) => !reference.typeofOperand).map((reference) => reference.node.name);
}

describe("analyzeScopes", () => {
	it.each([
		["a function used before its declaration", "f(); function f() { return g; } function g() {}", []],
		["a `var` in a block, read after it", "{ var v = 1; } v;", []],
		["a `let` in a block, read after it", "{ let l = 1; } l;", ["l"]],
		["a `const` read in a closure declared before it", "const f = () => later; const later = 1; f();", []],
		["a class declaration, and its name inside", "new C(); class C { m() { return C; } }", []],
		["a class expression's name, only inside", "const K = class Inner { m() { return Inner; } }; Inner;", ["Inner"]],
		[
			"a named function expression's name, only inside",
			"const h = function self() { return self; }; self;",
			["self"],
		],
		[
			"parameters with defaults reading earlier ones",
			"const f = (a, b = a, { c } = {}, [d] = [], ...rest) => a + b + c + d + rest;",
			[],
		],
		["a default reading an undeclared name", "const f = (a = missing) => a;", ["missing"]],
		["a catch binding, only in its block", "try {} catch (e) { e; } e;", ["e"]],
		["a destructured catch binding", "try {} catch ({ message, stack: s }) { message + s; }", []],
		[
			"`arguments` in a function, not in a top-level arrow",
			"function f() { return arguments; } const g = () => arguments;",
			["arguments"],
		],
		[
			"object keys, member names and shorthand",
			"const o = { key: 1, [computed]: 2, short }; o.member; o[index];",
			["computed", "short", "index"],
		],
		["methods and getters are not references", "const o = { m() {}, get g() { return 1; } }; o.m();", []],
		[
			"class members: computed keys and field values read",
			"class A { [k] = v; x = this.y; static s = 1; m() { return z; } }",
			["k", "v", "z"],
		],
		["labels are not names", "outer: for (const i of []) { inner: for (;;) { break outer; continue inner; } }", []],
		["`typeof` of an undeclared name", "typeof undeclared === 'undefined';", []],
		["a plain assignment to an undeclared name (strict code throws)", "total = 1;", ["total"]],
		["a compound assignment to an undeclared name", "count += 1;", ["count"]],
		["destructuring assignment targets", "let a; [a, b] = [1, 2]; ({ c: d } = {});", ["b", "d"]],
		["a for-of `const`, only in the loop", "for (const item of list) item; item;", ["list", "item"]],
		["a for `let`, only in the loop", "for (let i = 0; i < n; i++) i; i;", ["n", "i"]],
		["a switch's `let`, in every case", "switch (x) { case 1: let y = 1; break; default: y; }", ["x"]],
		[
			"a function in a block, only in the block (strict code)",
			"{ function inBlock() {} inBlock(); } inBlock();",
			["inBlock"],
		],
		["shadowing a global with a parameter", "const f = (agent) => agent.name; f({});", []],
		["a tagged template and its substitutions", "tag`a ${value} b`;", ["tag", "value"]],
		["new.target and import.meta are not names", "function F() { return new.target; }", []],
		["a static block's own scope", "class S { static { var hidden = 1; } } hidden;", ["hidden"]],
		["the header's `meta` and the body's parameter", "export const meta = { name: 'a' }; meta.name;", []],
	])("%s", (_name, code, expected) => {
		expect(unresolved(code)).toEqual(expected);
	});

	it("gives the body's parameters as bindings", () => {
		expect(unresolved("meta.name;", ["meta"])).toEqual([]);
		expect(unresolved("meta.name;")).toEqual(["meta"]);
	});

	it("resolves each reference to its binding, shadowing included", () => {
		const program = parse("const x = 1; { const x = 2; x; } x;", { ecmaVersion: "latest", sourceType: "module" });
		const analysis = analyzeScopes(program);
		const reads = analysis.references.map((reference) => reference.binding?.node.start);
		expect(reads).toEqual([21, 6]);
	});
});
