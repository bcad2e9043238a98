/**
 * Hostile values crossing the sandbox boundary in every place a value crosses: agent() prompts and options,
 * schemas, log data, workflow() args, return values, and the caller's args. Only JSON data crosses, copied;
 * everything else is refused with the path of the bad part, and no getter, toJSON or Proxy trap ever runs.
 */
import { describe, expect, it } from "vitest";
import { beside, checkCase, guardHost, type HostileCase, runHostile } from "./support.ts";

guardHost();

const NOT_JSON = "cannot cross the sandbox boundary";

const FROM_SCRIPT: HostileCase[] = [
	[
		"a getter in agent() options (never called)",
		`let called = false; try { await agent("x", { get label() { called = true; return "l"; } }); } catch (e) { return [e.code, e.message.split(",")[0], called]; }`,
		{ value: ["value_not_json", "`opts.label` is a getter or setter", false] },
	],
	[
		"a setter in log data",
		`log("x", { set v(x) {} });`,
		{ code: "value_not_json", message: "`data.v` is a getter or setter" },
	],
	[
		"a Proxy as the prompt (no trap runs)",
		`let trapped = 0; const p = new Proxy({}, { ownKeys() { trapped++; return []; }, get() { trapped++; } });\ntry { await agent(p); } catch (e) { return [e.message.split(",")[0], trapped]; }`,
		{ value: ["`prompt` is a Proxy", 0] },
	],
	[
		"a revoked Proxy in log data",
		`const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); log("x", { p: proxy });`,
		{ code: "value_not_json", message: "`data.p` is a Proxy" },
	],
	[
		"an object with a Proxy as its prototype",
		`log("x", Object.create(new Proxy({}, {})));`,
		{ code: "value_not_json", message: "`data` is an object whose prototype is a Proxy" },
	],
	[
		"a toJSON method (not honoured, so it cannot smuggle a value)",
		`log("x", { toJSON() { return "evil"; } });`,
		{ code: "value_not_json", message: "`data.toJSON` is a function" },
	],
	[
		"a Date in log data",
		`log("x", { when: new Date(0) });`,
		{ code: "value_not_json", message: "`data.when` is a Date" },
	],
	["a Map in log data", `log("x", new Map([[1, 2]]));`, { code: "value_not_json", message: "`data` is a Map" }],
	[
		"a cycle in a schema",
		`const s = { type: "object" }; s.properties = { self: s }; await agent("x", { schema: s });`,
		{ code: "value_not_json", message: "`opts.schema.properties.self` is a cycle" },
	],
	[
		"a __proto__ key in a schema (from JSON.parse)",
		`await agent("x", { schema: JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}') });`,
		{ code: "value_not_json", message: "`opts.schema.properties.__proto__` is a `__proto__` key" },
	],
	[
		"a __proto__ key in agent() options",
		`await agent("x", JSON.parse('{"__proto__":{"label":"polluted"}}'));`,
		{ code: "value_not_json", message: "`opts.__proto__` is a `__proto__` key" },
	],
	[
		"a constructor key in agent() options crosses as data and is refused by name",
		`await agent("x", { constructor: "Function" });`,
		{ code: "agent_options_invalid", message: "Unknown `agent()` option `constructor`" },
	],
	["a sparse array in the result", `return [1, , 3];`, { code: "value_not_json", message: "`result[1]` is a hole" }],
	[
		"an array with a named property",
		`const a = [1]; a.extra = 2; log("x", a);`,
		{ code: "value_not_json", message: "`data.extra` is a named property of an array" },
	],
	["a BigInt in the result", `return { n: 10n };`, { code: "value_not_json", message: "`result.n` is a BigInt" }],
	[
		"a symbol in log data",
		`log("x", { s: Symbol("k") });`,
		{ code: "value_not_json", message: "`data.s` is a symbol" },
	],
	[
		"a symbol-keyed property",
		`log("x", { [Symbol("k")]: 1 });`,
		{ code: "value_not_json", message: "is a symbol-keyed property" },
	],
	["NaN in the result", `return { n: NaN };`, { code: "value_not_json", message: "`result.n` is NaN" }],
	[
		"a class instance in the result",
		`class Point { constructor() { this.x = 1; } }\nreturn new Point();`,
		{ code: "value_not_json", message: "`result` is a Point" },
	],
	[
		"a function returned through parallel()",
		`return await parallel([async () => () => 1]);`,
		{ code: "value_not_json", message: "`result[0]` is a function" },
	],
	[
		"a function in workflow() args",
		`await workflow("./child.js", { run() {} });`,
		{ code: "value_not_json", message: "`args.run` is a function" },
	],
	[
		"a prompt over the value size limit",
		`await agent("x".repeat(5000));`,
		{ code: "limit_value_size", message: "`prompt` is larger than 4096 bytes" },
		{ limits: { maxValueBytes: 4096 } },
	],
	[
		"log data nested 20,000 deep",
		`let d = []; for (let i = 0; i < 20000; i++) d = [d];\nlog("deep", d);`,
		{ code: "value_not_json", message: "is nested more than 1000 levels deep" },
	],
	[
		"a result over maxResultBytes",
		`return "x".repeat(2000);`,
		{ code: "limit_value_size", message: "raise `budget.maxResultBytes`" },
		{ budget: { maxResultBytes: 1000 } },
	],
	[
		"null prototypes, -0, lone surrogates and non-enumerable props cross as JSON data",
		`const o = Object.assign(Object.create(null), { a: -0, s: "\\ud800x" }); Object.defineProperty(o, "hidden", { value: 1 });\nreturn o;`,
		{ value: { a: 0, s: "\ud800x" } },
	],
];

const cycle: Record<string, unknown> = { a: 1 };
cycle.self = cycle;
let deep: unknown = [];
for (let i = 0; i < 40_000; i++) deep = [deep];

const FROM_CALLER: HostileCase[] = [
	[
		"args with a BigInt",
		"return 1;",
		{ code: "value_not_json", message: "`args.n` is a BigInt" },
		{ args: { n: 10n } },
	],
	["args with a cycle", "return 1;", { code: "value_not_json", message: "`args.self` is a cycle" }, { args: cycle }],
	[
		"args with a getter",
		"return 1;",
		{ code: "value_not_json", message: "`args.x` is a getter or setter" },
		{
			args: {
				get x() {
					throw new Error("a getter of the caller's args must not run");
				},
			},
		},
	],
	[
		"args with a hole",
		"return 1;",
		{ code: "value_not_json", message: "`args[1]` is a hole" },
		// biome-ignore lint/suspicious/noSparseArray: the hole is the hostile value under test.
		{ args: [1, , 3] },
	],
	[
		"args that are a typed array",
		"return 1;",
		{ code: "value_not_json", message: "`args` is a Uint8Array" },
		{ args: new Uint8Array(3) },
	],
	[
		"args nested 40,000 deep (deeper than the host's own stack)",
		"return 1;",
		{ code: "value_not_json", message: "nested more than 1000 levels deep" },
		{ args: deep },
	],
	[
		"args with a __proto__ key (as JSON.parse makes it)",
		"return 1;",
		{ code: "value_not_json", message: "`args.__proto__` is a `__proto__` key" },
		{ args: JSON.parse('{"ok":1,"__proto__":{"polluted":true}}') },
	],
	[
		"args with constructor and prototype keys arrive as plain data, polluting nothing",
		'return [Object.keys(args).sort(), "polluted" in {}, Object.getPrototypeOf(args) === Object.prototype];',
		{ value: [["constructor", "prototype"], false, true] },
		{ args: JSON.parse('{"constructor":{"prototype":{"polluted":true}},"prototype":{"polluted":true}}') },
	],
];

describe("values from the script", () => {
	it.each(FROM_SCRIPT)("%s", async (_name, script, expectation, options) => {
		await checkCase(script, expectation, options);
	});

	it("refuses a bad value at the call that passed it, where the script can catch it", async () => {
		const run = await checkCase(`try { log("x", { f() {} }); } catch (e) { return [e.name, e.code, e.path]; }`, {
			value: ["TypeError", "value_not_json", "data.f"],
		});
		expect(run.events.filter((event) => event.type === "log")).toEqual([]);
	});

	it("reports a bad value at the author's line and column", async () => {
		const run = await checkCase(`const ok = 1;\n  log("x", { f() {} });`, {
			code: "value_not_json",
			message: NOT_JSON,
		});
		expect(run.result.error).toMatchObject({ line: 3 });
	});

	it("hands the script copies: changing args in the script never reaches the caller's object", async () => {
		const args = { list: [1, 2], nested: { n: 1 } };
		await checkCase(
			`args.list.push(3); args.nested.n = 2; return args;`,
			{ value: { list: [1, 2, 3], nested: { n: 2 } } },
			{ args },
		);
		expect(args).toEqual({ list: [1, 2], nested: { n: 1 } });
	});

	it("refuses a Proxy beside a normal workflow, which is unaffected", async () => {
		await beside(() =>
			checkCase(`log("x", new Proxy([], {}));`, { code: "value_not_json", message: "`data` is a Proxy" }),
		);
	});
});

describe("values from the caller", () => {
	it.each(FROM_CALLER)("%s", async (_name, script, expectation, options) => {
		const run = await checkCase(script, expectation, options);
		if ("code" in expectation) expect(run.events.map((event) => event.type)).toEqual(["run_end"]);
	});

	it("a constructor.prototype key in args pollutes neither the guest nor the host", async () => {
		const args = JSON.parse('{"constructor":{"prototype":{"pollutedHost":true}}}');
		const { result } = await runHostile("return [args, ({}).pollutedHost === undefined];", { args });
		expect(result.value).toEqual([{ constructor: { prototype: { pollutedHost: true } } }, true]);
		expect(({} as Record<string, unknown>).pollutedHost).toBeUndefined();
	});
});
