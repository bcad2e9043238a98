import { describe, expect, it } from "vitest";
import type { HostFunction } from "../../src/sandbox/index.ts";
import { checkLeaks, request, resultOf, runOnce } from "./support.ts";

checkLeaks();

const take: HostFunction = { kind: "async", fn: async () => null, params: ["prompt", "opts"] };

/** [what, expression given as the second argument, path, what the message calls it] */
const BAD_VALUES: [string, string, string, string][] = [
	["a function", "{ a: () => 1 }", "opts.a", "a function"],
	["a method", "{ list: [0, { run() {} }] }", "opts.list[1].run", "a function"],
	["a symbol", "{ s: Symbol('x') }", "opts.s", "a symbol"],
	["a symbol key", "{ [Symbol('k')]: 1 }", "opts[Symbol(k)]", "a symbol-keyed property"],
	["a BigInt", "{ n: 10n }", "opts.n", "a BigInt"],
	["undefined in an array", "[1, undefined]", "opts[1]", "undefined"],
	["a hole", "[1, , 3]", "opts[1]", "a hole (a missing element)"],
	["NaN", "{ x: NaN }", "opts.x", "NaN"],
	["Infinity", "{ x: 1 / 0 }", "opts.x", "Infinity"],
	["-Infinity", "{ x: -1 / 0 }", "opts.x", "-Infinity"],
	[
		"a cycle",
		"(() => { const o = { a: {} }; o.a.back = o; return o; })()",
		"opts.a.back",
		"a cycle (a value that contains itself)",
	],
	["a getter", "{ get x() { return 1; } }", "opts.x", "a getter or setter"],
	["a setter", "{ set x(v) {} }", "opts.x", "a getter or setter"],
	["a Proxy", "new Proxy({}, {})", "opts", "a Proxy"],
	["a revocable Proxy", "{ p: Proxy.revocable([], {}).proxy }", "opts.p", "a Proxy"],
	["a Proxy via Reflect.construct", "{ p: Reflect.construct(Proxy, [{}, {}]) }", "opts.p", "a Proxy"],
	["an object on a Proxy", "Object.create(new Proxy({}, {}))", "opts", "an object whose prototype is a Proxy"],
	["a Date", "{ when: new Date(0) }", "opts.when", "a Date"],
	["a Map", "{ m: new Map() }", "opts.m", "a Map"],
	["a class instance", "{ item: new (class Item {})() }", "opts.item", "an Item"],
	["an Error", "{ e: new Error('x') }", "opts.e", "an Error"],
	["a typed array", "{ bytes: new Uint8Array(2) }", "opts.bytes", "a Uint8Array"],
	["an array subclass", "{ list: new (class List extends Array {})() }", "opts.list", "a List"],
	["a __proto__ key", 'JSON.parse(\'{"a":{"__proto__":1}}\')', "opts.a.__proto__", "a `__proto__` key"],
	["a named property on an array", "Object.assign([1], { extra: 2 })", "opts.extra", "a named property of an array"],
	["an odd key", "{ 'a b': [{ c: () => 1 }] }", 'opts["a b"][0].c', "a function"],
];

describe("values from the guest", () => {
	it.each([
		["a Promise", "{ p: Promise.resolve(1) }"],
		[
			"a promise on a prototype of its own",
			"{ p: Object.setPrototypeOf(Promise.resolve(1), Object.create(Promise.prototype, { constructor: { value: Promise } })) }",
		],
	])("refuses %s as not_awaited, naming the path and saying to await it", async (_what, expression) => {
		const message =
			"`opts.p` is a Promise, which cannot cross the sandbox boundary: `await` the call that made it and pass its result";
		const value = await resultOf(
			`try { await host.take("p", ${expression}); return "accepted"; } catch (e) { return [e.name, e.code, e.path, e.message]; }`,
			{ take },
		);
		expect(value).toEqual(["TypeError", "not_awaited", "opts.p", message]);
		const outcome = await runOnce(request(`return { p: Promise.resolve(1) };`));
		expect(outcome).toEqual({
			ok: false,
			error: {
				kind: "not_awaited",
				path: "result.p",
				message: message.replace("opts.p", "result.p"),
				found: "a Promise",
			},
		});
	});

	it.each(BAD_VALUES)("rejects %s in a host-call argument with its path", async (_what, expression, path, found) => {
		const value = await resultOf(
			`try { await host.take("p", ${expression}); return "accepted"; } catch (e) { return [e.name, e.code, e.path, e.message]; }`,
			{ take },
		);
		expect(value).toEqual([
			"TypeError",
			"value_not_json",
			path,
			`\`${path}\` is ${found}, which cannot cross the sandbox boundary. Pass plain JSON data (objects, arrays, strings, numbers, booleans, null)`,
		]);
	});

	it.each(BAD_VALUES)("ends the run on %s in the result, with its path", async (_what, expression, path, found) => {
		const outcome = await runOnce(request(`const opts = ${expression}; return { opts };`));
		const resultPath = `result.${path}`;
		expect(outcome).toEqual({
			ok: false,
			error: {
				kind: "value_not_json",
				path: resultPath,
				message: `\`${resultPath}\` is ${found}, which cannot cross the sandbox boundary. Pass plain JSON data (objects, arrays, strings, numbers, booleans, null)`,
				found,
			},
		});
	});

	it("throws the argument error at the call, where the script can see it", async () => {
		const outcome = await runOnce(request("\n  await host.take('p', { f() {} });", { take }));
		expect(outcome).toMatchObject({ ok: false, error: { kind: "thrown", name: "TypeError", line: 2, column: 18 } });
	});

	it("names extra arguments after the function", async () => {
		const value = await resultOf("try { await host.take(1, 2, () => 3); } catch (e) { return e.path; }", { take });
		expect(value).toBe("take[2]");
	});

	it("accepts JSON data: null prototypes, shared (not cyclic) references, -0, non-enumerable and undefined props", async () => {
		const seen: unknown[] = [];
		const keep: HostFunction = { kind: "async", fn: async (args) => void seen.push(args) };
		await resultOf(
			`const shared = { s: 1 };
			const bare = Object.create(null); bare.k = "v";
			const hidden = { shown: 1, gone: undefined }; Object.defineProperty(hidden, "secret", { value: 2 });
			await host.keep({ bare, pair: [shared, shared], zero: -0, hidden, text: "é\\u2028" });`,
			{ keep },
		);
		expect(seen).toEqual([
			[{ bare: { k: "v" }, pair: [{ s: 1 }, { s: 1 }], zero: 0, hidden: { shown: 1 }, text: "é\u2028" }],
		]);
	});

	it("never calls a script's toJSON: on the prototypes, up a changed prototype chain, or as a hidden own property", async () => {
		const seen: unknown[] = [];
		const keep: HostFunction = { kind: "async", fn: async (args) => void seen.push(args) };
		const value = await resultOf(
			`let calls = 0;
			const replaced = () => { calls++; return "replaced"; };
			const hidden = { a: 1 }; Object.defineProperty(hidden, "toJSON", { value: replaced });
			await host.keep({ hidden });
			Object.prototype.toJSON = replaced; Array.prototype.toJSON = replaced;
			await host.keep({ list: [1, { b: 2 }] });
			delete Object.prototype.toJSON; delete Array.prototype.toJSON;
			const watched = new Proxy(Object.prototype, { get: (t, k, r) => (k === "toJSON" ? replaced() : Reflect.get(t, k, r)) });
			Object.setPrototypeOf(Array.prototype, watched);
			await host.keep([[1]]);
			Object.setPrototypeOf(Array.prototype, Object.prototype);
			return calls;`,
			{ keep },
		);
		expect(value).toBe(0);
		expect(seen).toEqual([[{ hidden: { a: 1 } }], [{ list: [1, { b: 2 }] }], [[[1]]]]);
	});

	it("sends a value whose text may pass the limit (but does not) whole, by the writing walk", async () => {
		const seen: unknown[] = [];
		const keep: HostFunction = { kind: "async", fn: async (args) => void seen.push(args) };
		// 2 M characters: at most 12 M as JSON by the quick walk's count, past the 8 MiB limit; 2 M in fact.
		await resultOf(`await host.keep({ text: "\u0001".repeat(1_000) + "a".repeat(2_000_000) });`, { keep });
		expect(seen).toEqual([[{ text: `${"\u0001".repeat(1_000)}${"a".repeat(2_000_000)}` }]]);
	});

	it("does not let a script reach the original Proxy constructor through the wrapped one", async () => {
		const value = await resultOf(
			`const found = [Proxy.name, typeof Proxy.revocable, Object.getOwnPropertyNames(Proxy).sort().join()];
			let escaped = false;
			try { Object.prototype.apply = function () { escaped = true; }; Proxy({}, {}); } catch (e) {}
			return { found, escaped };`,
		);
		expect(value).toEqual({ found: ["Proxy", "function", "length,name,revocable"], escaped: false });
	});
});
