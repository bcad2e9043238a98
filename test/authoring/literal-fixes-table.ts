// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the scripts under test hold template substitutions.
/**
 * Messages whose fix a model applies as written: each row is a mistake, the whole message it gets (position
 * included), and the script the fix turns it into when followed to the letter, with the value that script returns.
 * A message whose fix, applied literally, still fails (awaiting a call where a function goes, dropping `export` and
 * keeping a function nothing calls) is what this table is here to keep out.
 */
import type { WorkflowErrorCode } from "../../src/errors.ts";

export interface LiteralFix {
	name: string;
	/** The body after the header (line 2 of the file is its first line). */
	body: string;
	code: WorkflowErrorCode;
	/** The whole message, with its " (line:column)". */
	message: string;
	/** The body with the message's fix applied as written. */
	fixed: string;
	/** What the fixed script returns. */
	value: unknown;
	args?: unknown;
}

const UNWRAP =
	"and keep the statements inside as the script's body: top-level `await` and `return` work there, and `return` gives the run its result";
const STAGE_FIX =
	"Pass a function, which `pipeline()` calls for each item with the previous stage's result, the item and its index: `(prev, item, i) => agent(…)`";
const NOT_A_MODULE = "A workflow script is not a module: nothing imports it or calls";

/** Found by the static pass, before anything runs. */
export const STATIC: LiteralFix[] = [
	// Where a function goes: `await` is not the fix.
	{
		name: "a started agent() as a pipeline() stage",
		body: 'return await pipeline(["a", "b"], (f) => agent(f), agent("summarize"));',
		code: "not_awaited",
		message: `\`pipeline()\` takes functions as its stages, and stage 2 is a call of \`agent()\` already started (its promise), not a function. ${STAGE_FIX} (\`await\` gives a value, which is not a function either) (2:52)`,
		fixed: 'return await pipeline(["a", "b"], (f) => agent(f), (prev, item, i) => agent(`summarize ${prev}`));',
		value: ["done: summarize done: a", "done: summarize done: b"],
	},
	{
		name: "an awaited agent() as a pipeline() stage (the old advice, followed)",
		body: 'return await pipeline(["a"], (f) => agent(f), await agent("summarize"));',
		code: "not_awaited",
		message: `\`pipeline()\` takes functions as its stages, and stage 2 is the answer of an awaited \`agent()\` call, not a function. ${STAGE_FIX} (\`await\` gives a value, which is not a function either) (2:47)`,
		fixed: 'return await pipeline(["a"], (f) => agent(f), (prev) => agent(`summarize ${prev}`));',
		value: ["done: summarize done: a"],
	},
	{
		name: "a const promise as a pipeline() stage",
		body: 'const summary = agent("summarize");\nreturn await pipeline(["a"], (f) => agent(f), summary);',
		code: "not_awaited",
		message: `\`pipeline()\` takes functions as its stages, and stage 2 is \`summary\`, the promise \`agent()\` returned, not a function. ${STAGE_FIX} (\`await\` gives a value, which is not a function either) (3:47)`,
		fixed: 'return await pipeline(["a"], (f) => agent(f), (prev) => agent(`summarize ${prev}`));',
		value: ["done: summarize done: a"],
	},
	{
		name: "an awaited agent() in parallel()'s list",
		body: 'return await parallel([() => agent("a"), await agent("b")]);',
		code: "not_awaited",
		message:
			"`parallel()` takes functions, and this item is the answer of an awaited `agent()` call, not a function. Wrap the call in a function instead of awaiting it: `() => agent(…)` (2:42)",
		fixed: 'return await parallel([() => agent("a"), () => agent("b")]);',
		value: ["done: a", "done: b"],
	},
	{
		name: "a started agent() as parallel()'s argument",
		body: 'return await parallel(agent("b"));',
		code: "not_awaited",
		message:
			"`parallel()` takes an array of functions, and this is a call of `agent()` already started (its promise), not an array of functions. Pass functions that make the calls, which `parallel()` starts together: `parallel([() => agent(…), () => agent(…)])`, or `parallel(items.map((item) => () => agent(…)))` (2:23)",
		fixed: 'return await parallel([() => agent("b")]);',
		value: ["done: b"],
	},
	{
		name: "a started agent() as phase()'s function",
		body: 'return await phase("review", agent("b"));',
		code: "not_awaited",
		message:
			'`phase(name, fn)` takes a function as `fn`, and this is a call of `agent()` already started (its promise), not a function. Pass a function, which `phase()` calls inside the phase: `phase("name", () => agent(…))` (2:30)',
		fixed: 'return await phase("review", () => agent("b"));',
		value: "done: b",
	},
	{
		name: "an awaited agent() as phase()'s function",
		body: 'return await phase("review", await agent("b"));',
		code: "not_awaited",
		message:
			'`phase(name, fn)` takes a function as `fn`, and this is the answer of an awaited `agent()` call, not a function. Pass a function, which `phase()` calls inside the phase: `phase("name", () => agent(…))` (2:30)',
		fixed: 'return await phase("review", () => agent("b"));',
		value: "done: b",
	},
	// Exports: the body is what runs.
	{
		name: "export default async function around the whole body",
		body: 'export default async function run() {\n  const r = await agent("x");\n  return r;\n}',
		code: "syntax_error",
		message: `${NOT_A_MODULE} the \`run\` it exports, so the code inside would never run. Delete \`export default async function run() {\` and its closing \`}\`, ${UNWRAP} (2:1)`,
		fixed: 'const r = await agent("x");\nreturn r;',
		value: "done: x",
	},
	{
		name: "export default async function with parameters",
		body: "export default async function run({ files }) {\n  return await agent(files[0]);\n}",
		code: "syntax_error",
		message: `${NOT_A_MODULE} the \`run\` it exports, so the code inside would never run. Delete \`export default async function run({ files }) {\` and its closing \`}\`, ${UNWRAP}; read its inputs from \`args\` rather than parameters (2:1)`,
		fixed: "return await agent(args.files[0]);",
		value: "done: a.ts",
		args: { files: ["a.ts"] },
	},
	{
		name: "export async function main",
		body: 'export async function main() {\n  return await agent("x");\n}',
		code: "syntax_error",
		message: `${NOT_A_MODULE} the \`main\` it exports, so the code inside would never run. Delete \`export async function main() {\` and its closing \`}\`, ${UNWRAP} (2:1)`,
		fixed: 'return await agent("x");',
		value: "done: x",
	},
	{
		name: "export const main = async () => {…}",
		body: 'export const main = async () => {\n  return await agent("x");\n};',
		code: "syntax_error",
		message: `${NOT_A_MODULE} the \`main\` it exports, so the code inside would never run. Delete \`export const main = async () => {\` and its closing \`}\`, ${UNWRAP} (2:1)`,
		fixed: 'return await agent("x");',
		value: "done: x",
	},
	{
		name: "export default async () => expression",
		body: 'export default async () => agent("x");',
		code: "syntax_error",
		message: `${NOT_A_MODULE} the function it exports, so the code inside would never run. Write \`return agent("x");\` in place of the function (2:1)`,
		fixed: 'return agent("x");',
		value: "done: x",
	},
	{
		name: "an exported function the script also calls",
		body: 'export default async function run() {\n  return await agent("x");\n}\nreturn await run();',
		code: "syntax_error",
		message:
			"`export default` is not available in workflow scripts; only the `export const meta = {…}` header is. Delete `export default` and keep the function, which the script calls (2:1)",
		fixed: 'async function run() {\n  return await agent("x");\n}\nreturn await run();',
		value: "done: x",
	},
	{
		name: "export default { … }",
		body: "export default { done: true };",
		code: "syntax_error",
		message:
			"`export default` is not available in workflow scripts: a script gives its result with `return`. Write `return` in place of `export default`: `return { done: true };` (2:1)",
		fixed: "return { done: true };",
		value: { done: true },
	},
	{
		name: "export default of a function declared above",
		body: 'async function main() {\n  return await agent("x");\n}\nexport default main;',
		code: "syntax_error",
		message: `${NOT_A_MODULE} the \`main\` it exports, so the code inside would never run. Call it and return its result: write \`return await main();\` in place of \`export default main;\` (5:1)`,
		fixed: 'async function main() {\n  return await agent("x");\n}\nreturn await main();',
		value: "done: x",
	},
	{
		name: "export const of the result",
		body: 'export const result = await agent("x");',
		code: "syntax_error",
		message:
			"`export` is not available in workflow scripts: a script gives its result with `return`. Delete `export` and return the value: `const result = …;` then `return result;` (2:1)",
		fixed: 'const result = await agent("x");\nreturn result;',
		value: "done: x",
	},
	{
		name: "export { a, b }",
		body: 'const a = await agent("a");\nconst b = 2;\nexport { a, b };',
		code: "syntax_error",
		message:
			"`export { … }` is not available in workflow scripts: a script gives its result with `return`. Return the values in its place: `return { a, b };` (4:1)",
		fixed: 'const a = await agent("a");\nconst b = 2;\nreturn { a, b };',
		value: { a: "done: a", b: 2 },
	},
	// Habits of Node programs.
	{
		name: "an async function nothing calls",
		body: 'async function run() {\n  const r = await agent("x");\n  return r;\n}',
		code: "never_called",
		message: `Nothing runs: the script only declares \`run\`, and nothing calls it. Delete \`async function run() {\` and its closing \`}\`, ${UNWRAP}; or call it at the end: \`return await run();\` (2:1)`,
		fixed: 'const r = await agent("x");\nreturn r;',
		value: "done: x",
	},
	{
		name: "an async function nothing calls, called as the fix's second way says",
		body: 'const run = async () => {\n  return await agent("x");\n};',
		code: "never_called",
		message: `Nothing runs: the script only declares \`run\`, and nothing calls it. Delete \`const run = async () => {\` and its closing \`}\`, ${UNWRAP}; or call it at the end: \`return await run();\` (2:1)`,
		fixed: 'const run = async () => {\n  return await agent("x");\n};\nreturn await run();',
		value: "done: x",
	},
	{
		name: "main() called and dropped",
		body: 'async function main() {\n  return await agent("x");\n}\nmain();',
		code: "not_awaited",
		message:
			"`main()` returns a promise nobody awaits: the script ends before `main` is done, and its result is lost. Write `return await main();`, which waits for it and gives the run its result (5:1)",
		fixed: 'async function main() {\n  return await agent("x");\n}\nreturn await main();',
		value: "done: x",
	},
	{
		name: "main().catch(console.error)",
		body: 'async function main() {\n  return await agent("x");\n}\nmain().catch((error) => console.error(error));',
		code: "not_awaited",
		message:
			"`main()` returns a promise nobody awaits: the script ends before `main` is done, and its result is lost. Write `return await main();`, which waits for it and gives the run its result (5:1)",
		fixed: 'async function main() {\n  return await agent("x");\n}\nreturn await main();',
		value: "done: x",
	},
	{
		name: "main() dropped before a return",
		body: 'const main = async () => {\n  log(await agent("x"));\n};\nmain();\nreturn "started";',
		code: "not_awaited",
		message:
			"`main()` returns a promise nobody awaits: the script can return before `main` is done, which stops it, and errors in it are lost. Write `await main();`, which waits for it to finish (5:1)",
		fixed: 'const main = async () => {\n  log(await agent("x"));\n};\nawait main();\nreturn "started";',
		value: "started",
	},
	{
		name: "an async IIFE around the body",
		body: '(async () => {\n  const r = await agent("x");\n  log(r);\n})();',
		code: "not_awaited",
		message: `This \`async\` function returns a promise nobody awaits: the script ends before it is done, and its result is lost. Delete \`(async () => {\` and its closing \`})()\`, ${UNWRAP}; or write \`return await (async () => {…})();\` (2:1)`,
		fixed: 'const r = await agent("x");\nlog(r);\nreturn r;',
		value: "done: x",
	},
	{
		name: "module.exports = { … }",
		body: "module.exports = { done: true };",
		code: "name_undeclared",
		message:
			"There are no modules in workflow scripts: nothing reads `module.exports = …`. Write `return` in place of `module.exports =`: `return { done: true };` (2:1)",
		fixed: "return { done: true };",
		value: { done: true },
	},
	{
		name: "module.exports = async function",
		body: 'module.exports = async function main() {\n  return await agent("x");\n};',
		code: "name_undeclared",
		message: `There are no modules in workflow scripts: nothing reads \`module.exports = …\`. Delete \`module.exports = async function main() {\` and its closing \`}\`, ${UNWRAP} (2:1)`,
		fixed: 'return await agent("x");',
		value: "done: x",
	},
	{
		name: "module.exports = main",
		body: 'async function main() {\n  return await agent("x");\n}\nmodule.exports = main;',
		code: "name_undeclared",
		message:
			"There are no modules in workflow scripts: nothing reads `module.exports = …`. Call the function and return its result: `return await main();` (5:1)",
		fixed: 'async function main() {\n  return await agent("x");\n}\nreturn await main();',
		value: "done: x",
	},
	{
		name: "exports.name = …",
		body: 'exports.summary = await agent("x");',
		code: "name_undeclared",
		message:
			"There are no modules in workflow scripts: nothing reads `exports.summary = …`. Return what the script gives as its result: `return { summary: … };` (2:1)",
		fixed: 'return { summary: await agent("x") };',
		value: { summary: "done: x" },
	},
	{
		name: "if (require.main === module) main()",
		body: 'async function main() {\n  return await agent("x");\n}\nif (require.main === module) main();',
		code: "name_undeclared",
		message:
			"`require.main === module` asks whether the file was run as a program; a workflow script always is. Delete the `if` and call what it calls, awaiting it: `return await main();` (5:5)",
		fixed: 'async function main() {\n  return await agent("x");\n}\nreturn await main();',
		value: "done: x",
	},
	{
		name: "an import",
		body: 'import fs from "node:fs";\nreturn await agent("Read package.json and return its version");',
		code: "syntax_error",
		message:
			'`import` is not available in workflow scripts. Delete it: the globals agent, parallel, pipeline, phase, log, workflow are already there; for files, the network or processes, ask an agent to do it (`await agent("Read package.json and return its version")`) (2:1)',
		fixed: 'return await agent("Read package.json and return its version");',
		value: "done: Read package.json and return its version",
	},
];

/** Found when the value shows up: held in a `let`, so the static pass does not follow it. */
export const RUNTIME: LiteralFix[] = [
	{
		name: "a promise held in a let, as a pipeline() stage",
		body: 'let summary = agent("summarize");\nreturn await pipeline(["a"], (f) => agent(f), summary);',
		code: "script_error",
		message: `Uncaught TypeError: \`pipeline()\` stages must be functions; stage 2 is a Promise. ${STAGE_FIX} (3:22)`,
		fixed: 'return await pipeline(["a"], (f) => agent(f), (prev, item, i) => agent(`summarize ${prev}`));',
		value: ["done: summarize done: a"],
	},
	{
		name: "an answer held in a let, as a pipeline() stage",
		body: 'let summary = await agent("summarize");\nreturn await pipeline(["a"], (f) => agent(f), summary);',
		code: "script_error",
		message: `Uncaught TypeError: \`pipeline()\` stages must be functions; stage 2 is a string. ${STAGE_FIX} (3:22)`,
		fixed: 'return await pipeline(["a"], (f) => agent(f), (prev) => agent(`summarize ${prev}`));',
		value: ["done: summarize done: a"],
	},
	{
		name: "a promise held in a let, as parallel()'s list",
		body: 'let both = agent("a");\nreturn await parallel(both);',
		code: "script_error",
		message:
			"Uncaught TypeError: `parallel()` takes an array, got a Promise. Pass an array of functions that make the calls: `parallel([() => agent(…), () => agent(…)])`, or `parallel(items.map((item) => () => agent(…)))` (3:22)",
		fixed: 'return await parallel([() => agent("a"), () => agent("b")]);',
		value: ["done: a", "done: b"],
	},
	{
		name: "a promise held in a let, in parallel()'s list",
		body: 'let b = agent("b");\nreturn await parallel([() => agent("a"), b]);',
		code: "script_error",
		message: "Uncaught TypeError: `parallel()` takes functions; item 1 is a Promise. Pass `() => agent(…)` (3:22)",
		fixed: 'return await parallel([() => agent("a"), () => agent("b")]);',
		value: ["done: a", "done: b"],
	},
	{
		name: "a text answer as pipeline()'s items",
		body: 'let files = await agent("list the files");\nreturn await pipeline(files, (f) => agent(f));',
		code: "script_error",
		message:
			"Uncaught TypeError: `pipeline()` takes an array, got a string. Pass the items as an array: `pipeline(items, (item) => agent(…))`; for a list an agent finds, give that `agent()` a `schema` with an array property and pass the property (3:22)",
		fixed: 'const found = await agent("list the files", {\n  schema: { type: "object", properties: { files: { type: "array", items: { type: "string" } } }, required: ["files"] },\n});\nreturn await pipeline(found.files, (f) => agent(f));',
		value: ["done: a", "done: b"],
	},
	{
		name: "an answer held in a let, as phase()'s function",
		body: 'let review = await agent("review");\nreturn await phase("review", review);',
		code: "script_error",
		message:
			"Uncaught TypeError: `phase(name, fn)` takes a function, got a string. Pass one, which `phase()` calls inside the phase: `phase(name, () => agent(…))`; or call `phase(name)` alone to start a phase that the calls after it belong to (3:19)",
		fixed: 'return await phase("review", () => agent("review"));',
		value: "done: review",
	},
];
