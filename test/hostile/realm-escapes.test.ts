/**
 * Hostile scripts that try to leave the QuickJS realm: walking constructors and prototypes from every global and
 * from what host calls hand back, Function/eval tricks, module loading, Node globals, and files through
 * `workflow()`. Each must stay inside, with the outcome stated.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { beside, checkCase, guardHost, type HostileCase } from "./support.ts";

guardHost();

/** Walks every object and function reachable from the globals, a host error and a host promise. */
const WALK = `
const intrinsics = new Set([Object, Object.prototype, Function, Function.prototype, Array.prototype, Error.prototype, Promise, Promise.prototype, Date.prototype]);
const bogus = JSON.parse('{"bogus": 1}');
let err; try { await agent("x", bogus); } catch (e) { err = e; }
let sleepErr; try { await sleep(-1); } catch (e) { sleepErr = e; }
const pending = agent("x");
const roots = { agent, parallel, pipeline, phase, log, workflow, sleep, budget, args, cwd, process, console, Date, err, sleepErr, pending };
const seen = new Set(); const names = new Set(); const foreign = [];
const queue = Object.entries(roots);
while (queue.length > 0) {
  const [path, v] = queue.shift();
  if ((typeof v !== "object" && typeof v !== "function") || v === null || seen.has(v) || intrinsics.has(v)) continue;
  seen.add(v);
  if (typeof v === "function") { names.add(v.name); if (Object.getPrototypeOf(v) !== Function.prototype) foreign.push(path); }
  for (const key of Reflect.ownKeys(v)) {
    const d = Object.getOwnPropertyDescriptor(v, key);
    for (const part of [d.value, d.get, d.set]) queue.push([path + "." + String(key), part]);
  }
  queue.push([path + ".__proto__", Object.getPrototypeOf(v)]);
}
await pending;
return { names: [...names].sort(), foreign };`;

/** Standard ECMAScript globals QuickJS has; anything else on globalThis was put there by us. */
const STANDARD = `["Object","Function","Array","Number","parseFloat","parseInt","Infinity","NaN","undefined","Boolean","String","Symbol","Date","Promise","RegExp","Error","AggregateError","EvalError","RangeError","ReferenceError","SyntaxError","TypeError","URIError","InternalError","JSON","Math","Reflect","Proxy","Map","Set","WeakMap","WeakSet","ArrayBuffer","DataView","Int8Array","Uint8Array","Uint8ClampedArray","Int16Array","Uint16Array","Int32Array","Uint32Array","Float32Array","Float64Array","Float16Array","BigInt64Array","BigUint64Array","BigInt","isNaN","isFinite","decodeURI","decodeURIComponent","encodeURI","encodeURIComponent","escape","unescape","eval","globalThis","Iterator","WeakRef","FinalizationRegistry"]`;

/** Walks what the lazy web globals reach, before and after they load: no host function (named as in globals.ts). */
const WEB_WALK = `
const WEB = ["URL", "URLSearchParams", "DOMException", "TextDecoder", "TextEncoder", "atob", "btoa", "structuredClone", "clearTimeout", "queueMicrotask", "setTimeout"];
const getters = WEB.map((n) => Object.getOwnPropertyDescriptor(globalThis, n));
const u = new URL("https://a/?b=1");
const id = setTimeout(() => {}, 1);
clearTimeout(id);
let cloneErr; try { structuredClone(() => 1); } catch (e) { cloneErr = e; }
let urlErr; try { new URL("nope"); } catch (e) { urlErr = e; }
const roots = { getters, u, params: u.searchParams, entries: u.searchParams.entries(), decoder: new TextDecoder(), cloneErr, urlErr, id };
for (const n of WEB) roots[n] = globalThis[n];
const intrinsics = new Set([Object, Object.prototype, Function, Function.prototype, Array.prototype, Error.prototype, Promise, Promise.prototype]);
const seen = new Set(); const names = new Set(); const foreign = [];
const queue = Object.entries(roots);
while (queue.length > 0) {
  const [path, v] = queue.shift();
  if ((typeof v !== "object" && typeof v !== "function") || v === null || seen.has(v) || intrinsics.has(v)) continue;
  seen.add(v);
  if (typeof v === "function") { names.add(v.name); if (!(v instanceof Function)) foreign.push(path); }
  for (const key of Reflect.ownKeys(v)) {
    const d = Object.getOwnPropertyDescriptor(v, key);
    for (const part of [d.value, d.get, d.set]) queue.push([path + "." + String(key), part]);
  }
  queue.push([path + ".__proto__", Object.getPrototypeOf(v)]);
}
return { host: [...names].filter((n) => ["timer", "timerCancel", "guestModule", "log", "hostCall", "agent"].includes(n)), foreign, walked: seen.size > 50 };`;

const NODE_AND_LIBC = [
	"require",
	"module",
	"exports",
	"__filename",
	"Buffer",
	"setInterval",
	"setImmediate",
	"fetch",
	"WebAssembly",
	"Atomics",
	"SharedArrayBuffer",
	"std",
	"os",
	"scriptArgs",
	"print",
	"host",
	"data",
	"hostCall",
	"kit",
	"installGuest",
];

const ESCAPES: HostileCase[] = [
	[
		"every function reachable from the globals, a host error and a host promise is a guest function",
		WALK,
		{
			value: {
				names: [
					"Date",
					"UTC",
					"agent",
					"consoleLog",
					"cwd",
					"get agentCalls",
					"get cost",
					"get logs",
					"get tokens",
					"get total",
					"log",
					"now",
					"parallel",
					"parse",
					"phase",
					"pipeline",
					"remaining",
					"sleep",
					"spent",
					"toJSON",
					"toString",
					"workflow",
				],
				foreign: [],
			},
		},
		{ args: { list: [1, { deep: true }] } },
	],
	[
		"globalThis holds only standard built-ins, the web globals and the workflow globals",
		`return Object.getOwnPropertyNames(globalThis).filter((n) => !${STANDARD}.includes(n));`,
		{
			value: [
				"URL",
				"URLSearchParams",
				"DOMException",
				"TextDecoder",
				"TextEncoder",
				"atob",
				"btoa",
				"structuredClone",
				"clearTimeout",
				"queueMicrotask",
				"setTimeout",
				"agent",
				"parallel",
				"pipeline",
				"phase",
				"log",
				"workflow",
				"ask",
				"tool",
				"sleep",
				"budget",
				"args",
				"cwd",
				"process",
				"console",
			],
		},
	],
	[
		"the web globals (lazy getters, then what they load, their instances and errors) reach no host function",
		WEB_WALK,
		{ value: { host: [], foreign: [], walked: true } },
	],
	[
		"Node, QuickJS-libc and the prelude's own names are not there",
		`return ${JSON.stringify(NODE_AND_LIBC)}.filter((n) => typeof globalThis[n] !== "undefined");`,
		{ value: [] },
	],
	[
		"agent.constructor makes functions of the guest realm, whose globalThis is the script's own",
		`const F = agent.constructor; const g = F("return globalThis")();
		return [g === globalThis, F === Function, typeof g.require, Object.getOwnPropertyNames(g.process)];`,
		{ value: [true, true, "undefined", ["cwd"]] },
	],
	[
		"args.__proto__ and args.constructor are the guest's Object",
		`return [args.__proto__ === Object.prototype, args.constructor === Object, args.constructor.constructor("return typeof process.env")()];`,
		{ value: [true, true, "undefined"] },
		{ args: { a: 1 } },
	],
	[
		"an error thrown by a host call is a guest Error with data props only",
		// Options read from text: the static pass would refuse a literal \`{ bogus: 1 }\` before the host sees it.
		`const bogus = JSON.parse('{"bogus": 1}');
		try { await agent("x", bogus); } catch (e) {
			return [e instanceof Error, e.constructor === Error, e.constructor.constructor === Function, e.code, Object.getOwnPropertyNames(e).sort()];
		}`,
		{ value: [true, true, true, "agent_options_invalid", ["code", "details", "message", "name", "stack"]] },
	],
	[
		"a promise returned by a host call is a guest Promise",
		`const p = agent("x"); const r = [p instanceof Promise, p.constructor === Promise, Object.getPrototypeOf(p.then) === Function.prototype];
		await p; return r;`,
		{ value: [true, true, true] },
	],
	[
		"a host error's stack names only the script and the prelude, never host files",
		`try { await sleep(-1); } catch (e) { return [/node:|file:|\\/src\\//.test(e.stack), /workflow\\.js:2:\\d+/.test(e.stack)]; }`,
		{ value: [false, true] },
	],
	[
		"Function('return this') and indirect eval give the guest's global",
		`return [Function("return this")() === globalThis, (0, eval)("this") === globalThis, typeof (0, eval)("process.mainModule")];`,
		{ value: [true, true, "undefined"] },
	],
	[
		"import() inside eval cannot load a module",
		`try { await eval("import('node:fs')"); return "loaded"; } catch (e) { return [e.name, e.message]; }`,
		{ value: ["ReferenceError", "could not load module 'node:fs'"] },
	],
	[
		"import() inside new Function cannot load a module",
		`try { await new Function("return import('node:child_process')")(); return "loaded"; } catch (e) { return e.message; }`,
		{ value: "could not load module 'node:child_process'" },
	],
	[
		"a static import is refused before anything runs",
		`import fs from "node:fs";\nreturn 1;`,
		{ code: "syntax_error", message: "`import` is not available" },
	],
	[
		"import() in the script is refused before anything runs",
		`const fs = await import("node:fs");`,
		{ code: "syntax_error", message: "`import()` is not available" },
	],
	[
		"require is refused before anything runs, with what to do instead",
		`return require("node:fs");`,
		{
			code: "name_undeclared",
			message:
				"`require` is not defined in workflow scripts. Workflow scripts cannot reach the network, files or processes: ask an agent to do it",
		},
	],
	[
		"require is not defined when the static pass cannot see the name",
		`return globalThis.eval("require")("node:fs");`,
		{ code: "script_error", message: "'require' is not defined" },
	],
	[
		"process has cwd() only, and is frozen",
		`"use strict"; try { process["env"] = { A: 1 }; } catch (e) { return [e.name, Object.getOwnPropertyNames(process), Object.isFrozen(process)]; }`,
		{ value: ["TypeError", ["cwd"], true] },
	],
	[
		"the caller of a workflow global is not reachable",
		`function probe() { return probe.caller; } try { return [typeof probe(), typeof agent.caller]; } catch (e) { return [e.name, e.message]; }`,
		{ value: ["TypeError", "invalid property access"] },
	],
];

describe("realm escapes", () => {
	it.each(ESCAPES)("%s", async (_name, script, expectation, options) => {
		await checkCase(script, expectation, options);
	});

	it("a walk over every global runs beside a normal workflow without touching it", async () => {
		const [, script, expectation] = ESCAPES[0] as HostileCase;
		await beside(() => checkCase(script, expectation));
	});
});

describe("workflow() cannot reach host files", () => {
	let cwd: string;
	beforeAll(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-hostile-"));
		mkdirSync(join(cwd, "lib"));
		writeFileSync(
			join(cwd, "lib", "child.js"),
			`export const meta = { name: "child", description: "c" };\nreturn 7;`,
		);
		symlinkSync("/etc/hostname", join(cwd, "link.js"));
		if (process.platform !== "win32") execFileSync("mkfifo", [join(cwd, "fifo.js")]);
	});
	afterAll(() => rmSync(cwd, { recursive: true, force: true }));

	const OUTSIDE = "is outside it";
	const NOT_FOUND = "No workflow at";
	const FILES: [name: string, target: string, message: string][] = [
		["an absolute path outside cwd", "/etc/passwd", OUTSIDE],
		["a ../ path out of cwd", "../../../../etc/hostname", OUTSIDE],
		["a device", "/dev/zero", OUTSIDE],
		["the process's environment", "/proc/self/environ", OUTSIDE],
		["a path outside cwd that does not exist (no existence oracle)", "/nonexistent/x.js", OUTSIDE],
		["a symlink inside cwd pointing out", "./link.js", NOT_FOUND],
		["a directory", "./lib", NOT_FOUND],
		["a FIFO that would block the read for ever", "./fifo.js", NOT_FOUND],
	];

	it.each(FILES)("refuses %s with workflow_not_found", async (_name, target, message) => {
		await checkCase(
			`return await workflow(${JSON.stringify(target)});`,
			{ code: "workflow_not_found", message },
			{ cwd },
		);
	});

	it("still runs a workflow inside cwd, by relative or absolute path", async () => {
		await checkCase(
			`return [await workflow("./lib/child.js"), await workflow(${JSON.stringify(join(cwd, "lib", "child.js"))})];`,
			{ value: [7, 7] },
			{ cwd },
		);
	});
});
