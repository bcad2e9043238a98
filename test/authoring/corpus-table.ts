// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the scripts under test hold template substitutions.
/**
 * The corpus of mistakes a model makes writing a workflow script, and look-alike code that is fine. In a mistake's
 * body, `‸` marks the exact line:column the finding must name (it is removed before running).
 */
import type { WorkflowErrorCode } from "../../src/errors.ts";

export const HEADER = 'export const meta = { name: "t", description: "d" };\n';

/** [what, body after the header (or the whole source when `whole`), code, options]. */
export type Mistake = [string, string, WorkflowErrorCode, { whole?: true; agentTypes?: string[] }?];

export const UNDECLARED: Mistake[] = [
	["a misspelled global", 'const r = await ‸agnet("x");\nreturn r;', "name_undeclared"],
	["a global in the wrong case", 'return await ‸Parallel([() => agent("a")]);', "name_undeclared"],
	["setInterval in a promise", "await new Promise((resolve) => ‸setInterval(resolve, 5));", "name_undeclared"],
	["setImmediate", "‸setImmediate(() => {});", "name_undeclared"],
	["fetch", 'const page = await ‸fetch("https://example.com");\nreturn page;', "name_undeclared"],
	["require", 'const fs = ‸require("node:fs");\nreturn fs;', "name_undeclared"],
	["require of another script", 'const notes = ‸require("./notes.js");\nreturn notes;', "name_undeclared"],
	[
		"a loop over an input, its variable named like it",
		"for (const file of ‸files) await agent(file);\nreturn 1;",
		"name_undeclared",
	],
	["XMLHttpRequest", "const request = new ‸XMLHttpRequest();\nreturn request;", "name_undeclared"],
	["process.env", "const token = ‸process.env.GITHUB_TOKEN;\nreturn token;", "name_undeclared"],
	["process.argv", "const [, , first] = ‸process.argv;\nreturn first;", "name_undeclared"],
	["process.exit", 'if (!args) ‸process.exit(1);\nreturn "ok";', "name_undeclared"],
	["module.exports", "‸module.exports = { done: true };", "name_undeclared"],
	[
		"module.exports of an async function",
		'‸module.exports = async function main() {\n  return await agent("x");\n};',
		"name_undeclared",
	],
	["exports.name", '‸exports.summary = await agent("x");', "name_undeclared"],
	[
		"require.main === module",
		'async function main() {\n  return await agent("x");\n}\nif (‸require.main === module) main();',
		"name_undeclared",
	],
	["__dirname", "log(‸__dirname);", "name_undeclared"],
	["window", '‸window.alert("done");', "name_undeclared"],
	["SharedArrayBuffer", "const buffer = new ‸SharedArrayBuffer(8);\nreturn buffer.byteLength;", "name_undeclared"],
	[
		"a misspelled combinator",
		"const data = await ‸pipline([1], (x) => agent(String(x)));\nreturn data;",
		"name_undeclared",
	],
	["a misspelled local", 'const result = await agent("x");\nreturn ‸reslt;', "name_undeclared"],
	["an input that was never passed", "for (const file of ‸files) await agent(file);", "name_undeclared"],
	[
		"a block's `const` read after the block",
		'if (args) {\n  const inner = await agent("x");\n}\nreturn ‸inner;',
		"name_undeclared",
	],
	[
		"a catch binding read after the catch",
		'try { await agent("x"); } catch (err) {}\nlog(‸err.message);',
		"name_undeclared",
	],
	["Promise misspelled", 'return await ‸Promis.all([agent("a")]);', "name_undeclared"],
	["console in the wrong case", '‸Console.log("x");', "name_undeclared"],
	["a parameter default", "const pick = (limit = ‸defaultLimit) => limit;\nreturn pick();", "name_undeclared"],
	["a base class nobody declared", "class Reviewer extends ‸BaseAgent {}\nreturn new Reviewer();", "name_undeclared"],
	["a TypeScript type argument", 'const r = await agent<‸Review>("x");\nreturn r;', "name_undeclared"],
	["assigning a name nobody declared (the body is strict)", "‸total = 5;\nreturn total;", "name_undeclared"],
	[
		"a name in a nested function",
		'function label(item) {\n  return item.name + ‸suffix;\n}\nreturn label({ name: "a" });',
		"name_undeclared",
	],
];

export const SYNTAX: Mistake[] = [
	["a TypeScript variable annotation", "const count‸: number = 1;\nreturn count;", "syntax_error"],
	["a TypeScript parameter annotation", "function review(file‸: string) {\n  return agent(file);\n}", "syntax_error"],
	["a TypeScript return type", 'async function run()‸: Promise<string> {\n  return "x";\n}', "syntax_error"],
	["an optional parameter", "const f = (x?‸: number) => x;", "syntax_error"],
	["an interface", "‸interface Finding {\n  file: string;\n}", "syntax_error"],
	["a type alias", "type ‸Finding = { file: string };", "syntax_error"],
	["an enum", "‸enum Level { Low, High }", "syntax_error"],
	["an `as` cast", 'const r = (await agent("x")) ‸as string;', "syntax_error"],
	["a non-null assertion", 'const r = await agent("x");\nreturn r‸!.trim();', "syntax_error"],
	["type parameters on a function", "function first‸<T>(items) {\n  return items[0];\n}", "syntax_error"],
	["a `private` field", "class Store {\n  private ‸items = [];\n}", "syntax_error"],
	["a Markdown fence around the script", `‸\`\`\`js\n${HEADER}return 1;\n\`\`\``, "syntax_error", { whole: true }],
	[
		"a Markdown fence inside a template prompt",
		"const r = await agent(`Fix this:\n```‸js\nlet a = 1;\n```\n`);",
		"syntax_error",
	],
	["backticks inside a template prompt", "const r = await agent(`Review the `‸src` folder`);", "syntax_error"],
	["a backticked command inside a template prompt", "log(`Run `‸npm test` first`);", "syntax_error"],
	[
		"`await` in a non-async map callback",
		"const rs = [1, 2].map((n) => {\n  return ‸await agent(String(n));\n});",
		"syntax_error",
	],
	["`await` in a non-async forEach callback", '[1].forEach((n) => {\n  ‸await agent("x");\n});', "syntax_error"],
	["`await` in a plain function", "function pause() {\n  ‸await sleep(1);\n}", "syntax_error"],
	["export default", "‸export default async function main() {}", "syntax_error"],
	["an exported helper", "‸export function helper() {}", "syntax_error"],
	[
		"export default async function around the body",
		'‸export default async function run() {\n  return await agent("x");\n}',
		"syntax_error",
	],
	["export async function main", '‸export async function main() {\n  return await agent("x");\n}', "syntax_error"],
	["export default of an object", "‸export default { done: true };", "syntax_error"],
	["export const of the result", '‸export const result = await agent("x");', "syntax_error"],
	["export { names }", 'const a = await agent("a");\n‸export { a };', "syntax_error"],
	["a static import", '‸import fs from "node:fs";', "syntax_error"],
	["a dynamic import", 'const fs = await ‸import("node:fs");', "syntax_error"],
	["a string broken over lines", 'const prompt = ‸"Review\nthe code";', "syntax_error"],
	["a missing closing paren", 'const r = await agent("x"‸;', "syntax_error"],
	["a missing comma in an object", 'await agent("x", { label: "a" ‸phase: "b" });', "syntax_error"],
	[
		"a header without a description",
		'export const meta = ‸{ name: "t" };\nreturn 1;',
		"meta_invalid",
		{ whole: true },
	],
];

export const UNAWAITED: Mistake[] = [
	[
		"a field of an unawaited ask()",
		'const answer = ‸ask("Ship it?", { default: "no" }).trim();\nreturn answer;',
		"not_awaited",
	],
	["an ask() promise as a prompt", 'return await agent(‸ask("Topic?", { default: "x" }));', "not_awaited"],
	[
		"a field of an unawaited tool()",
		'const r = tool("bash", { command: "npm test" });\nreturn ‸r.isError;',
		"not_awaited",
	],
	["reading a field of a const promise", 'const r = agent("x");\nreturn ‸r.length;', "not_awaited"],
	["a const promise in a template", 'const review = agent("x");\nlog(`got ${‸review}`);', "not_awaited"],
	["a promise concatenated to a string", 'return "Result: " + ‸agent("x");', "not_awaited"],
	["a method called on the promise", 'const r = ‸agent("x").trim();\nreturn r;', "not_awaited"],
	["a spread promise", 'const all = [...‸parallel([() => agent("a")])];\nreturn all;', "not_awaited"],
	["a promise as a prompt", 'return await agent(‸agent("inner"));', "not_awaited"],
	[
		"a field of a pipeline promise",
		"const r = ‸pipeline([1], (x) => agent(String(x))).filter(Boolean);\nreturn r;",
		"not_awaited",
	],
	["a promise as a condition", 'if (‸agent("check")) log("yes");', "not_awaited"],
	["a negated const promise", 'const q = agent("x");\nif (!‸q) return null;\nreturn await q;', "not_awaited"],
	["a promise logged", 'log(‸agent("x"));', "not_awaited"],
	["a promise stringified", 'return JSON.stringify(‸agent("x"));', "not_awaited"],
	["a workflow() result read at once", 'const w = ‸workflow("child.js").summary;\nreturn w;', "not_awaited"],
	[
		"a const promise in a prompt template",
		'const p = agent("x");\nreturn await agent(`Summarize ${‸p}`);',
		"not_awaited",
	],
	["a const promise returned in an object", 'const review = agent("x");\nreturn { ‸review };', "not_awaited"],
	["a let promise returned in an array", 'let a = agent("a");\nreturn [‸a];', "not_awaited"],
	["forEach with an async callback", "[1, 2].‸forEach(async (n) => {\n  await agent(String(n));\n});", "not_awaited"],
	["forEach over args with an async arrow", "args.files.‸forEach(async (f) => agent(f));", "not_awaited"],
	["map(async) whose promises are dropped", "[1].‸map(async (n) => agent(String(n)));", "not_awaited"],
	[
		"map(async) awaited as an array",
		"const rs = await [1].‸map(async (n) => agent(String(n)));\nreturn rs;",
		"not_awaited",
	],
	["map(async) returned", "return [1, 2].‸map(async (n) => agent(String(n)));", "not_awaited"],
	["a started agent() in parallel's list", 'return await parallel([() => agent("a"), ‸agent("b")]);', "not_awaited"],
	[
		"map(async) given to parallel",
		"return await parallel(‸[1, 2].map(async (n) => agent(String(n))));",
		"not_awaited",
	],
	[
		"an awaited agent() in parallel's list",
		'return await parallel([() => agent("a"), ‸await agent("b")]);',
		"not_awaited",
	],
	["a started agent() as parallel's argument", 'return await parallel(‸agent("a"));', "not_awaited"],
	[
		"a started agent() as a pipeline stage",
		'return await pipeline(["a"], (f) => agent(f), ‸agent("summarize"));',
		"not_awaited",
	],
	[
		"an awaited agent() as a pipeline stage",
		'return await pipeline(["a"], (f) => agent(f), ‸await agent("summarize"));',
		"not_awaited",
	],
	[
		"a const promise as a pipeline stage",
		'const s = agent("summarize");\nreturn await pipeline(["a"], (f) => agent(f), ‸s);',
		"not_awaited",
	],
	["a started agent() as phase's function", 'return await phase("p", ‸agent("a"));', "not_awaited"],
	[
		"a started agent() as phase's function after its options",
		'return await phase("p", { budget: { agentCalls: 3 } }, ‸agent("a"));',
		"not_awaited",
	],
	[
		"a field of the script's own async function's promise",
		'async function main() {\n  return await agent("x");\n}\nreturn ‸main().length;',
		"not_awaited",
	],
	[
		"the script's own async function in a template prompt",
		'const context = async () => "ctx";\nreturn await agent(`Use ${‸context()}`);',
		"not_awaited",
	],
	["a started agent() as `.then()`'s callback", 'return await agent("a").then(‸agent("b"));', "not_awaited"],
	[
		"a started agent() as `.map()`'s callback",
		'return await Promise.all(["a"].map(‸agent("review")));',
		"not_awaited",
	],
	["main() dropped", 'async function main() {\n  return await agent("x");\n}\n‸main();', "not_awaited"],
	[
		"main().catch(…) dropped",
		'const main = async () => agent("x");\n‸main().catch((e) => console.error(e));',
		"not_awaited",
	],
	["an async IIFE dropped", '‸(async () => {\n  log(await agent("x"));\n})();', "not_awaited"],
];

export const NEVER_CALLED: Mistake[] = [
	["an async function nothing calls", '‸async function run() {\n  return await agent("x");\n}', "never_called"],
	["an arrow in a const nothing calls", '‸const main = async () => {\n  await agent("x");\n};', "never_called"],
	[
		"a helper and a main, nothing calling main",
		'const PROMPT = "x";\nfunction prompt() {\n  return PROMPT;\n}\n‸async function main() {\n  return await agent(prompt());\n}',
		"never_called",
	],
];

export const OPTIONS: Mistake[] = [
	["a misspelled ask() option", 'return await ask‸("Ship it?", { defualt: "no" });', "ask_options_invalid"],
	[
		"an ask() default outside its choices",
		'return await ask‸("Go?", { choices: ["yes", "no"], default: "maybe" });',
		"ask_options_invalid",
	],
	["ask() with a non-string question", "return await ask‸(42);", "ask_options_invalid"],
	[
		"a misspelled tool() option",
		'return await tool‸("bash", { command: "npm test" }, { replya: false });',
		"tool_options_invalid",
	],
	["tool() with a non-string name", 'return await tool‸(42, { command: "ls" });', "tool_options_invalid"],
	["an agent name where the options go", 'return await agent‸("x", "reviewer");', "agent_options_invalid"],
	[
		"the prompt inside the options",
		'return await agent‸({ prompt: "x", agent: "reviewer" });',
		"agent_options_invalid",
	],
	["subagent_type", 'return await agent‸("x", { subagent_type: "reviewer" });', "agent_options_invalid"],
	["timeout", 'return await agent‸("x", { timeout: 60000 });', "agent_options_invalid"],
	["schemaa", 'return await agent‸("x", { schemaa: { type: "object" } });', "agent_options_invalid"],
	["model_name", 'return await agent‸("x", { model_name: "gpt-5" });', "agent_options_invalid"],
	["retries out of range", 'return await agent‸("x", { retries: 20 });', "agent_options_invalid"],
	["an unknown thinking level", 'return await agent‸("x", { thinking: "max" });', "agent_options_invalid"],
	["timeoutMs as text", 'return await agent‸("x", { timeoutMs: "60s" });', "agent_options_invalid"],
	["an empty prompt", 'return await agent‸("", {});', "agent_options_invalid"],
	["no prompt at all", "return await agent‸();", "agent_options_invalid"],
	["tools as a string", 'return await agent‸("x", { tools: "read" });', "agent_options_invalid"],
	[
		"two names for one option, naming two types",
		'return await agent‸("x", { agent: "a", agentType: "b" });',
		"agent_options_invalid",
	],
	["an unknown isolation", 'return await agent‸("x", { isolation: "container" });', "agent_options_invalid"],
	[
		"options in a const, with a foreign name",
		'const OPTS = { agent: "reviewer", timeout: 5 };\nreturn await agent‸("x", OPTS);',
		"agent_options_invalid",
	],
	[
		"a shorthand schema",
		'return await agent‸("x", { schema: { file: "string", line: "number" } });',
		"schema_invalid",
	],
	[
		"a schema whose root is an array",
		'return await agent‸("x", { schema: { type: "array", items: { type: "string" } } });',
		"schema_invalid",
	],
	[
		"required naming an absent property",
		'return await agent‸("x", {\n  schema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok", "reason"] },\n});',
		"schema_invalid",
	],
	[
		"a shorthand schema in a const",
		'const SHAPE = { verdict: "string" };\nreturn await agent‸("x", { schema: SHAPE });',
		"schema_invalid",
	],
	[
		"a property written as a type name",
		'return await agent‸("x", { schema: { type: "object", properties: { n: "number" } } });',
		"schema_invalid",
	],
	[
		"a type that is not a JSON Schema type",
		'return await agent‸("x", { schema: { type: "object", properties: { n: { type: "int" } } } });',
		"schema_invalid",
	],
	[
		"an agent type nobody defined",
		'return await agent‸("x", { agent: "reviwer" });',
		"agent_type_unknown",
		{ agentTypes: ["general-purpose", "reviewer"] },
	],
];

/** [what, body, the exact value the run returns]: look-alike code that must run. */
export type Control = [string, string, unknown];

export const CONTROLS: Control[] = [
	[
		"tool() caught where the host lends no tools",
		'try { await tool("bash", { command: "ls" }, { replay: false }); } catch (e) { return e.code; }',
		"tool_unavailable",
	],
	[
		"ask() with a default and no host to ask",
		'return await ask("Go?", { choices: ["yes", "no"], default: "no" });',
		"no",
	],
	[
		"the words in strings and comments",
		'// setTimeout(fetch) require process.env\nconst s = "agnet setTimeout `x`";\nreturn s;',
		"agnet setTimeout `x`",
	],
	[
		"a local helper named like a global",
		'function agent(p) {\n  return "local " + p;\n}\nreturn agent("x");',
		"local x",
	],
	["a parameter shadowing a global", "const count = (parallel) => parallel.length;\nreturn count([1, 2]);", 2],
	["a top-level let named like a global", 'let log = [];\nlog.push("a");\nreturn log;', ["a"]],
	[
		"escaped backticks in a template prompt",
		"return await agent(`Review the \\`src\\` folder`);",
		"done: Review the `src` folder",
	],
	["parallel([])", "return await parallel([]);", []],
	["Promise.all over agents", 'return await Promise.all([agent("a"), agent("b")]);', ["done: a", "done: b"]],
	[
		"start now, await later",
		'const p = agent("a");\nconst q = agent("b");\nreturn [await p, await q];',
		["done: a", "done: b"],
	],
	[".then on an agent() promise", 'return await agent("a").then((t) => t.toUpperCase());', "DONE: A"],
	["returning the promise", 'return agent("a");', "done: a"],
	["typeof of a missing global", 'return typeof setImmediate === "undefined" ? "no timers" : "timers";', "no timers"],
	[
		"object keys and member names like globals",
		"const o = { setTimeout: 1, fetch: 2 };\nconst agnet = 3;\nreturn o.setTimeout + o.fetch + { agnet }.agnet;",
		6,
	],
	[
		"hoisting and closures over later declarations",
		'const r = helper();\nfunction helper() {\n  return later();\n}\nfunction later() {\n  return "hoisted";\n}\nreturn r;',
		"hoisted",
	],
	[
		"destructuring with defaults and a catch binding",
		'const { a, b: [c = 3] = [] } = { a: 1 };\nlet e;\ntry {\n  throw new Error("x");\n} catch ({ message }) {\n  e = message;\n}\nreturn [a, c, e];',
		[1, 3, "x"],
	],
	[
		"labels",
		'outer: for (const i of [1, 2]) {\n  for (const j of [i]) if (j === 2) break outer;\n}\nreturn "ok";',
		"ok",
	],
	[
		"map(async) inside Promise.all",
		'return await Promise.all(["a", "b"].map(async (x) => await agent(x)));',
		["done: a", "done: b"],
	],
	[
		"map(async) kept, then awaited with Promise.all",
		'const ps = ["a"].map(async (x) => agent(x));\nreturn await Promise.all(ps);',
		["done: a"],
	],
	["parallel over thunks", 'return await parallel(["a"].map((x) => () => agent(x)));', ["done: a"]],
	[
		"a const promise awaited in the returned object",
		'const p = agent("a");\nreturn { p: await p };',
		{ p: "done: a" },
	],
	[
		"const promises kept in an array for Promise.all",
		'const p = agent("a");\nconst list = [p];\nreturn await Promise.all(list);',
		["done: a"],
	],
	["an awaited const promise in a template", 'const p = agent("a");\nreturn `got ${await p}`;', "got done: a"],
	[
		"a class with fields and methods",
		"class Counter {\n  count = 0;\n  inc() {\n    return ++this.count;\n  }\n}\nconst c = new Counter();\nc.inc();\nreturn c.inc();",
		2,
	],
	["process.cwd() and meta", "return [typeof process.cwd(), meta.name];", ["string", "t"]],
	["TypeScript-looking text in a string", 'return "const x: number = 1 as any";', "const x: number = 1 as any"],
	[
		"literal options the runtime accepts",
		'return await agent("x", { agent: "general-purpose", label: "L", retries: 1, timeoutMs: 1000, thinking: "low" });',
		"done: x",
	],
	[
		"an async main, awaited and returned",
		'async function main() {\n  return await agent("a");\n}\nreturn await main();',
		"done: a",
	],
	[
		"a helper declared and called later",
		'function label(n) {\n  return "item " + n;\n}\nconst out = [];\nfor (const n of [1]) out.push(await agent(label(n)));\nreturn out;',
		["done: item 1"],
	],
	["an awaited async IIFE", 'return await (async () => agent("a"))();', "done: a"],
	[
		"pipeline stages as functions of (prev, item, i)",
		'return await pipeline(["a"], (f) => agent(f), (prev, item, i) => agent(`${prev} ${item} ${i}`));',
		["done: done: a a 0"],
	],
	["phase with a function", 'return await phase("p", () => agent("a"));', "done: a"],
	["only declarations, the header's meta read", "const name = meta.name;\nreturn name;", "t"],
	[
		"a schema the checks accept",
		'const r = await agent("x", { schema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } });\nreturn r;',
		{ ok: true },
	],
];
