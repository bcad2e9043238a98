/**
 * Hostile scripts against the runtime's own globals: reassigning or deleting them, and replacing the built-ins
 * the prelude relies on before calling them. The globals keep working (they captured what they need), every
 * limit is kept on the host, and what a script breaks it only breaks for itself.
 */
import { describe, expect, it } from "vitest";
import { beside, checkCase, guardHost, type HostileCase } from "./support.ts";

guardHost();

const READ_ONLY: HostileCase[] = [
	["assigning agent", `agent = () => "fake";`, { code: "script_error", message: "'agent' is read-only" }],
	["deleting agent", "delete globalThis.agent;", { code: "script_error", message: "could not delete property" }],
	["assigning parallel", "parallel = async () => [];", { code: "script_error", message: "'parallel' is read-only" }],
	[
		"assigning budget",
		"budget = { agentCalls: { remaining: 1e9 } };",
		{ code: "script_error", message: "'budget' is read-only" },
	],
	[
		"assigning budget.agentCalls",
		"budget.agentCalls = 5;",
		{ code: "script_error", message: "no setter for property" },
	],
	[
		"raising a limit in a budget snapshot",
		"budget.agentCalls.limit = 1e9;",
		{ code: "script_error", message: "'limit' is read-only" },
	],
	[
		"assigning args",
		"args = { admin: true };",
		{ code: "script_error", message: "'args' is read-only" },
		{ args: { admin: false } },
	],
	["assigning console.log", "console.log = () => {};", { code: "script_error", message: "'log' is read-only" }],
	["assigning Math.random", "Math.random = () => 0.5;", { code: "script_error", message: "'random' is read-only" }],
	["deleting Math.random", "delete Math.random;", { code: "script_error", message: "could not delete property" }],
	[
		"the native Date through new Date(0).constructor",
		"return new (new Date(0).constructor)().getTime();",
		{ code: "determinism", message: "`new Date()` is unavailable: it breaks resume" },
	],
	[
		"the native Date through Reflect.construct on the prototype's constructor",
		"return Reflect.construct(Object.getPrototypeOf(new Date(0)).constructor, []).getTime();",
		{ code: "determinism", message: "`new Date()` is unavailable: it breaks resume" },
	],
	[
		"a local named agent (shadowing is the script's own business)",
		`const agent = () => "local";\nreturn [agent(), budget.agentCalls.used];`,
		{ value: ["local", 0] },
	],
	[
		"Object.prototype.then (every object a thenable): agent() still resolves to the child's answer",
		`Object.prototype.then = function (resolve) { resolve("hijacked"); };
const one = await agent("x");
delete Object.prototype.then;
return [one, budget.agentCalls.used];`,
		{ value: ["done: x", 1] },
	],
	[
		"redefining agent with Object.defineProperty (a QuickJS quirk allows it) changes only the script's own view",
		`Object.defineProperty(globalThis, "agent", { value: () => "fake" });\nreturn [agent("x"), budget.agentCalls.used, await parallel([() => sleep(1).then(() => "real")])];`,
		{ value: ["fake", 0, ["real"]] },
	],
];

/** A script that uses every global after `tamper` ran first. */
const useAll = (tamper: string) => `${tamper}
const one = await agent("x");
const many = await parallel([() => agent("a"), () => agent("b")]);
const piped = await pipeline([1, 2], (v) => v + 1, (v) => agent("p" + v));
const inPhase = await phase("p", async () => "in phase");
log("data", { a: [1, { b: 2 }] });
await sleep(1);
return [one, many, piped, inPhase, budget.agentCalls.used, budget.logs.used];`;

const EVERYTHING = ["done: x", ["done: a", "done: b"], ["done: p2", "done: p3"], "in phase", 5, 1];

const REPLACED: HostileCase[] = [
	["Promise", `globalThis.Promise = function () { throw new Error("no Promise"); };`],
	["JSON.stringify and JSON.parse", `JSON.stringify = () => "{}"; JSON.parse = () => ({ hijacked: true });`],
	[
		"Array.prototype.map, forEach and push",
		`for (const m of ["map", "forEach", "push"]) Array.prototype[m] = () => { throw new Error("no " + m); };`,
	],
	[
		"Function.prototype.call, apply and bind",
		`for (const m of ["call", "apply", "bind"]) Function.prototype[m] = () => { throw new Error("no " + m); };`,
	],
	[
		"Object.defineProperty, freeze and create",
		`for (const m of ["defineProperty", "freeze", "create"]) Object[m] = () => { throw new Error("no " + m); };`,
	],
	["Reflect.apply and Reflect.construct", `Reflect.apply = () => "hijacked"; Reflect.construct = () => ({});`],
	["Array.prototype[Symbol.iterator]", `Array.prototype[Symbol.iterator] = function* () { yield "hijacked"; };`],
	[
		"Error and TypeError",
		`globalThis.Error = function () { return { stack: "forged (workflow.js:1:1)" }; }; globalThis.TypeError = globalThis.Error;`,
	],
	["String", `globalThis.String = () => "forged";`],
	[
		"Symbol.species of Promise",
		"Object.defineProperty(Promise, Symbol.species, { get() { return class extends Promise {}; } });",
	],
	[
		"frozen Object, Array and Function prototypes",
		"Object.freeze(Object.prototype); Object.freeze(Array.prototype); Object.freeze(Function.prototype);",
	],
].map(([name, tamper]) => [name, useAll(tamper as string), { value: EVERYTHING }] as HostileCase);

describe("reassigning or deleting the globals", () => {
	it.each(READ_ONLY)("%s", async (_name, script, expectation, options) => {
		await checkCase(script, expectation, options);
	});
});

describe("replacing built-ins before calling the globals", () => {
	it("the untouched script gives the reference result", async () => {
		await checkCase(useAll(""), { value: EVERYTHING });
	});

	it.each(REPLACED)("after replacing %s: every global still works", async (_name, script, expectation) => {
		const run = await checkCase(script, expectation);
		expect(run.fake.requests.map((request) => request.prompt)).toEqual(["x", "a", "b", "p2", "p3"]);
		expect(run.events.find((event) => event.type === "log")).toMatchObject({
			message: "data",
			data: { a: [1, { b: 2 }] },
		});
	});

	it("replacing Promise.prototype.then breaks only the script's own combinators, and the census says so", async () => {
		const run = await checkCase(
			`Promise.prototype.then = function () { throw new Error("hijacked then"); };\nreturn await parallel([() => agent("a")]);`,
			{ value: [null] },
		);
		expect(run.result.counts).toMatchObject({ calls: 1, completed: 1 });
		expect(run.result.failures).toEqual([
			expect.objectContaining({ kind: "parallel", index: 0, cause: "hijacked then" }),
		]);
	});

	it("a tampered realm beside a normal workflow leaves it unaffected", async () => {
		const [, script, expectation] = REPLACED[0] as HostileCase;
		await beside(() => checkCase(script, expectation));
	});
});
