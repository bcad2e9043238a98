// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the scripts under test hold template substitutions.
/**
 * Messages whose fix a model applies as written: each row is a mistake, the whole message it gets (position
 * included), and the script the fix turns it into when followed to the letter, with the value that script returns.
 * A message whose fix, applied literally, still fails (awaiting a call where a function goes, dropping `export` and
 * keeping a function nothing calls) is what this table is here to keep out.
 */
import type { WorkflowErrorCode } from "../../src/errors.ts";
import type { WorkflowRunOptions } from "../../src/runtime/index.ts";

export interface LiteralFix {
	name: string;
	/** The body after the header (line 2 of the file is its first line). */
	body: string;
	code: WorkflowErrorCode;
	/** The whole message, with its " (line:column)"; `{cwd}` stands for the run's folder. */
	message: string;
	/** Where the engine stops a long stretch: the column is not the same from run to run, the line is. */
	columnVaries?: true;
	/** The body with the message's fix applied as written. */
	fixed: string;
	/** What the fixed script returns. */
	value: unknown;
	args?: unknown;
	/** Run options besides the runner (limits). */
	options?: Partial<WorkflowRunOptions>;
	/** Files in the run's cwd, by name (nested workflows). */
	files?: Record<string, string>;
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
	{
		name: "a started agent() as `.then()`'s callback",
		body: 'return await agent("a").then(agent("b"));',
		code: "not_awaited",
		message:
			"`.then()` takes a function, and this is a call of `agent()` already started (its promise), not a function. Pass a function that makes the call when `.then()` calls it: `.then((answer) => agent(…))` (`await` gives a value, which is not a function either) (2:30)",
		fixed: 'return await agent("a").then((answer) => agent(`b after ${answer}`));',
		value: "done: b after done: a",
	},
	{
		name: "a started agent() as `.map()`'s callback",
		body: 'const files = ["a"];\nreturn await Promise.all(files.map(agent("review")));',
		code: "not_awaited",
		message:
			"`.map()` takes a function, and this is a call of `agent()` already started (its promise), not a function. Pass a function that makes the call when `.map()` calls it: `.map((item) => agent(…))` (`await` gives a value, which is not a function either) (3:36)",
		fixed: 'const files = ["a"];\nreturn await Promise.all(files.map((item) => agent(`review ${item}`)));',
		value: ["done: review a"],
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

/** Advice that read well but failed when followed to the letter (issue 19's audit), now fixed. */
export const AUDITED: LiteralFix[] = [
	{
		name: "a method called on the promise: `await` alone would bind to the method's result",
		body: 'const r = agent("x").trim();\nreturn r;',
		code: "not_awaited",
		message:
			"`agent()` returns a promise, and this reads `.trim` of it without `await`. Await the call in parentheses: `(await agent(…)).trim` (`await agent(…).trim` still reads it of the promise), or write `const answer = await agent(…)` first (2:11)",
		fixed: 'const r = (await agent("x")).trim();\nreturn r;',
		value: "done: x",
	},
	{
		name: "`await` written before the script's own async call, but the field read first",
		body: 'async function main() {\n  return await agent("x");\n}\nreturn await main().length;',
		code: "not_awaited",
		message:
			"`main()` returns a promise, and this reads `.length` of it without `await`. Await the call in parentheses: `(await main(…)).length` (`await main(…).length` still reads it of the promise), or write `const answer = await main(…)` first (5:14)",
		fixed: 'async function main() {\n  return await agent("x");\n}\nreturn (await main()).length;',
		value: 7,
	},
	{
		name: "an input read as a bare name",
		body: "const out = [];\nfor (const file of files) out.push(await agent(file));\nreturn out;",
		code: "name_undeclared",
		message:
			"`files` is not defined. Declare it (`const`, `let`, a parameter) before use; or, for an input of the script, read it from `args` (`args.files`) and pass it in when the run starts (3:20)",
		fixed: "const out = [];\nfor (const file of args.files) out.push(await agent(file));\nreturn out;",
		value: ["done: a.ts"],
		args: { files: ["a.ts"] },
	},
	{
		name: "process.env",
		body: 'const token = process.env.GITHUB_TOKEN;\nreturn await agent("Open the PR with " + token);',
		code: "name_undeclared",
		message:
			"`process.env` is not available in workflow scripts (`process` has `cwd()` only). The environment is not visible to workflow scripts: read the value from `args` (`args.token`), and pass it in when the run starts (`args: { token }`) (2:15)",
		fixed: 'const token = args.token;\nreturn await agent("Open the PR with " + token);',
		value: "done: Open the PR with t0k",
		args: { token: "t0k" },
	},
	{
		name: "require of another script",
		body: 'const notes = require("./notes.js");\nreturn notes;',
		code: "name_undeclared",
		message:
			'`require` is not defined in workflow scripts: there are no modules to load `./notes.js` from. To run another workflow script, call it: `await workflow("./notes.js", args)`; a helper has to be copied into this script (2:15)',
		fixed: 'const notes = await workflow("./notes.js", args);\nreturn notes;',
		value: "done: notes",
		files: { "notes.js": 'export const meta = { name: "notes", description: "n" };\nreturn await agent("notes");' },
	},
	{
		name: "`await` in a forEach callback",
		body: 'const out = [];\n["a"].forEach((f) => {\n  out.push(await agent(f));\n});\nreturn out;',
		code: "syntax_error",
		message:
			"`await` is used inside a function that is not `async`. Mark that function `async` (`async (item) => { … }`) and await what it returns, e.g. `await Promise.all(items.map(async (item) => …))`; or write `await parallel(items.map((item) => () => agent(…)))`. `forEach` cannot wait for an `async` callback: loop with `for (const item of items)` and `await` instead (4:12)",
		fixed: 'const out = [];\nfor (const f of ["a"]) {\n  out.push(await agent(f));\n}\nreturn out;',
		value: ["done: a"],
	},
	{
		name: "a long synchronous stretch: `await null` would not end it",
		// The loops on one line: where in it the engine stops them differs from run to run.
		body: "let x = 0;\nfor (let round = 0; round < 80; round++) for (let i = 0; i < 1e5; i++) x += i % 7;\nreturn x > 0;",
		code: "limit_cpu",
		message:
			"The script ran without pausing for too long (a loop that never awaits?) (limit: 200 ms). Pause between heavy steps with `await sleep(0)` (`await null` does not end the stretch), or raise `limits.syncSliceMs` (3:1)",
		columnVaries: true,
		// The same work in steps small enough to stay under the bound on a machine ten times busier than a quiet one.
		fixed: "let x = 0;\nfor (let round = 0; round < 800; round++) {\n  for (let i = 0; i < 1e4; i++) x += i % 7;\n  await sleep(0);\n}\nreturn x > 0;",
		value: true,
		options: { limits: { syncSliceMs: 200 } },
	},
	{
		name: "an answer that never matches its schema",
		body: 'return await agent("list", {\n  schema: { type: "object", properties: { files: { type: "array" }, ok: { type: "boolean" } }, required: ["files", "ok"] },\n});',
		code: "schema_unmet",
		message:
			"`agent()` answer still does not match its schema after 5 attempts: `output` must have required property 'ok'. Loosen the schema (fewer `required` fields, wider types) or say in the prompt what each field holds; the call throws, so wrap it in `try { … } catch (error) { … }` to go on without it (2:19)",
		fixed: 'return await agent("list", {\n  schema: { type: "object", properties: { files: { type: "array" }, ok: { type: "boolean" } }, required: ["files"] },\n});',
		value: { files: ["a", "b"] },
	},
	{
		name: "a nested workflow that calls workflow()",
		body: 'return await workflow("./outer.js");',
		code: "workflow_nesting",
		message:
			"Nested workflow `outer` failed at {cwd}/outer.js:2:22: `workflow()` runs one level deep: a nested workflow cannot call `workflow()`. Call both workflows from the top-level script, passing what one returns to the other in `args` (2:22)",
		fixed: 'const inner = await workflow("./inner.js");\nreturn await workflow("./outer-fixed.js", { inner });',
		value: "done: use done: inner",
		files: {
			"outer.js": 'export const meta = { name: "outer", description: "n" };\nreturn await workflow("./inner.js");',
			"inner.js": 'export const meta = { name: "inner", description: "n" };\nreturn await agent("inner");',
			"outer-fixed.js":
				'export const meta = { name: "outer", description: "n" };\nreturn await agent("use " + args.inner);',
		},
	},
];

/** Found when the value shows up: held in a `var`, which the static pass does not follow (it follows a `const` and a `let` never assigned again). */
export const RUNTIME: LiteralFix[] = [
	{
		name: "a promise held in a var, as a pipeline() stage",
		body: 'var summary = agent("summarize");\nreturn await pipeline(["a"], (f) => agent(f), summary);',
		code: "script_error",
		message: `TypeError: \`pipeline()\` stages must be functions; stage 2 is a Promise. ${STAGE_FIX} (3:22)`,
		fixed: 'return await pipeline(["a"], (f) => agent(f), (prev, item, i) => agent(`summarize ${prev}`));',
		value: ["done: summarize done: a"],
	},
	{
		name: "an answer held in a let, as a pipeline() stage",
		body: 'let summary = await agent("summarize");\nreturn await pipeline(["a"], (f) => agent(f), summary);',
		code: "script_error",
		message: `TypeError: \`pipeline()\` stages must be functions; stage 2 is a string. ${STAGE_FIX} (3:22)`,
		fixed: 'return await pipeline(["a"], (f) => agent(f), (prev) => agent(`summarize ${prev}`));',
		value: ["done: summarize done: a"],
	},
	{
		name: "a promise held in a var, as parallel()'s list",
		body: 'var both = agent("a");\nreturn await parallel(both);',
		code: "script_error",
		message:
			"TypeError: `parallel()` takes an array, got a Promise. Pass an array of functions that make the calls: `parallel([() => agent(…), () => agent(…)])`, or `parallel(items.map((item) => () => agent(…)))` (3:22)",
		fixed: 'return await parallel([() => agent("a"), () => agent("b")]);',
		value: ["done: a", "done: b"],
	},
	{
		name: "a promise held in a var, in parallel()'s list",
		body: 'var b = agent("b");\nreturn await parallel([() => agent("a"), b]);',
		code: "script_error",
		message: "TypeError: `parallel()` takes functions; item 1 is a Promise. Pass `() => agent(…)` (3:22)",
		fixed: 'return await parallel([() => agent("a"), () => agent("b")]);',
		value: ["done: a", "done: b"],
	},
	{
		name: "a field read on the promise a helper returns",
		body: 'const review = (file) => agent("review " + file);\nreturn review("a.ts").length;',
		code: "not_awaited",
		message:
			"`.length` was read on the Promise that `agent()` (2:31) returns, not on its result: write `await agent(…)` before using its result, or await it where it is read, in parentheses: `(await …).length` (3:22)",
		fixed: 'const review = (file) => agent("review " + file);\nreturn (await review("a.ts")).length;',
		value: 17,
	},
	{
		name: "a promise held in a var, as `.map()`'s callback",
		body: 'const files = ["a"];\nvar review = agent("review");\nreturn await Promise.all(files.map(review));',
		code: "script_error",
		message:
			"`files.map()` was given something that is not a function where it takes one. Pass a function: `files.map((item) => …)`; a call written there (`agent(…)` with no `() =>` before it) starts at once and gives a Promise, not a function (TypeError: not a function) (4:35)",
		fixed: 'const files = ["a"];\nreturn await Promise.all(files.map((item) => agent(`review ${item}`)));',
		value: ["done: review a"],
	},
	{
		name: "a text answer as pipeline()'s items",
		body: 'let files = await agent("list the files");\nreturn await pipeline(files, (f) => agent(f));',
		code: "script_error",
		message:
			"TypeError: `pipeline()` takes an array, got a string. Pass the items as an array: `pipeline(items, (item) => agent(…))`; for a list an agent finds, give that `agent()` a `schema` with an array property and pass the property (3:22)",
		fixed: 'const found = await agent("list the files", {\n  schema: { type: "object", properties: { files: { type: "array", items: { type: "string" } } }, required: ["files"] },\n});\nreturn await pipeline(found.files, (f) => agent(f));',
		value: ["done: a", "done: b"],
	},
	{
		name: "an answer held in a let, as phase()'s function",
		body: 'let review = await agent("review");\nreturn await phase("review", review);',
		code: "script_error",
		message:
			"TypeError: `phase(name, fn)` takes a function, got a string. Pass one, which `phase()` calls inside the phase: `phase(name, () => agent(…))`; or call `phase(name)` alone to start a phase that the calls after it belong to (3:19)",
		fixed: 'return await phase("review", () => agent("review"));',
		value: "done: review",
	},
	{
		name: "a promise held in a var, as phase()'s function",
		body: 'var review = agent("review");\nreturn await phase("review", review);',
		code: "not_awaited",
		message:
			"`phase()`'s function is a call of `agent()` (2:19) already started, not a function: a call written there starts at once. Pass a function instead: `phase(name, () => agent(…))` (`await` gives a value, which is not a function either) (3:19)",
		fixed: 'return await phase("review", () => agent("review"));',
		value: "done: review",
	},
];
