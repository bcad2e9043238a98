/**
 * Mistakes a model makes in a workflow script that only show at run time, when the value does: each is refused or
 * explained with its code, the author's line and the fix; and look-alike legal code that must keep running. Each is
 * written in a form the static pass does not follow (a promise held in a `var`, a callback passed by name), which is
 * what this tier is for: the same mistakes written plainly are in corpus-table.ts, caught before anything runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runWorkflowScript, type WorkflowRunOptions } from "../../src/runtime/index.ts";
import { createFakeRunner, type FakeAnswer, HEADER } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

/** Prompts the scripted runner treats specially; anything else answers `done: <prompt>`. */
function answer(prompt: string, hasSchema: boolean): FakeAnswer {
	if (prompt.startsWith("hang")) return { hang: true };
	if (prompt.startsWith("fail")) return { fail: "provider 500" };
	if (hasSchema) return { structured: { findings: ["f1"], ok: true } };
	return `done: ${prompt}`;
}

let cwd: string;
beforeAll(() => {
	cwd = mkdtempSync(join(tmpdir(), "wf-runtime-tier-"));
	writeFileSync(
		join(cwd, "leaves.js"),
		`export const meta = { name: "leaves", description: "n" };\nagent("hang in child");\nreturn 1;`,
	);
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

async function run(body: string, options: Partial<WorkflowRunOptions> = {}) {
	const fake = createFakeRunner((request) => answer(request.prompt, request.schema !== undefined));
	const result = await runWorkflowScript(`${HEADER}${body}`, { agentRunner: fake.runner, cwd, ...options });
	return { result, prompts: fake.requests.map((request) => request.prompt), fake };
}

interface Mistake {
	/** Script body; line 2 of the file is its first line. */
	body: string;
	code: string;
	line: number;
	/** Text of the message that says what to do. */
	fix: string;
	/** Also in the message: the call or value it names. */
	names?: string;
	/** Prompts that must never reach the runner. */
	never?: string[];
	options?: Partial<WorkflowRunOptions>;
}

const AWAIT_AGENT = "write `await agent(…)` before using its result";

const MISTAKES: [string, Mistake][] = [
	// A Promise reaching the host, or used as its result.
	[
		"a pending agent() promise as the prompt",
		{
			body: `var plan = agent("plan");\nreturn await agent(plan);`,
			code: "not_awaited",
			line: 3,
			fix: AWAIT_AGENT,
			names: "`agent()` prompt is the Promise that `agent()` (2:17) returns",
		},
	],
	[
		"a pending agent() promise in a template prompt",
		{
			body: `var plan = agent("plan");\nconst out = await agent(\`Do this: \${plan}\`);\nreturn out;`,
			code: "not_awaited",
			line: 3,
			fix: AWAIT_AGENT,
			names: "was turned into text",
			never: ["Do this: [object Promise]"],
		},
	],
	[
		"a pending agent() promise concatenated into a prompt",
		{
			body: `var notes = agent("notes");\nreturn await agent("Summarise: " + notes);`,
			code: "not_awaited",
			line: 3,
			fix: AWAIT_AGENT,
		},
	],
	[
		"[object Promise] from the script's own async helper, in a prompt",
		{
			// A method: the static pass follows the script's own async functions only when called by name.
			body: `const helpers = { context: async () => "ctx" };\nconst text = \`Use \${helpers.context()}\`;\nreturn await agent(text);`,
			code: "not_awaited",
			line: 4,
			fix: "Write `await` before the call that made it",
			names: "`agent()` prompt contains `[object Promise]`",
			never: ["Use [object Promise]"],
		},
	],
	[
		"[object Promise] in a label",
		{
			body: `const who = (async () => "b.ts")();\nreturn await agent("review", { label: "review " + who });`,
			code: "not_awaited",
			line: 3,
			fix: "Write `await` before the call that made it",
			names: "`agent()` label contains `[object Promise]`",
			never: ["review"],
		},
	],
	[
		"a Promise as a label",
		{
			body: `const name = agent("name it");\nreturn await agent("review", { label: name });`,
			code: "not_awaited",
			line: 3,
			fix: "`await` the call that made it and pass its result",
			names: "`opts.label` is a Promise",
			never: ["review"],
		},
	],
	[
		"a Promise inside a schema",
		{
			body: `const kind = agent("kind");\nreturn await agent("x", { schema: { type: "object", properties: { k: kind } } });`,
			code: "not_awaited",
			line: 3,
			fix: "`await` the call that made it",
			names: "`opts.schema.properties.k` is a Promise",
			never: ["x"],
		},
	],
	[
		"a Promise as log data",
		{
			body: `const r = agent("r");\nlog("result", { r });\nreturn await r;`,
			code: "not_awaited",
			line: 3,
			fix: "`await` the call that made it",
			names: "`data.r` is a Promise",
		},
	],
	[
		"a Promise as a log message",
		{
			body: `var r = agent("r");\nlog(r);\nreturn await r;`,
			code: "not_awaited",
			line: 3,
			fix: AWAIT_AGENT,
			names: "`log()` message is the Promise that `agent()` (2:14) returns",
		},
	],
	[
		"a Promise given to console.log",
		{
			body: `var r = agent("r");\nconsole.log("got", r);\nreturn await r;`,
			code: "not_awaited",
			line: 3,
			fix: AWAIT_AGENT,
			names: "`console.log()` argument 2",
		},
	],
	[
		"a Promise in nested workflow() args",
		{
			body: `const files = agent("list files");\nreturn await workflow("./leaves.js", { files });`,
			code: "not_awaited",
			line: 3,
			fix: "`await` the call that made it",
			names: "`args.files` is a Promise",
		},
	],
	[
		"a Promise in the returned value",
		{
			body: `var summary = agent("sum");\nawait summary;\nreturn { summary };`,
			code: "not_awaited",
			line: 4,
			fix: "`await` it and return its result",
			names: "`result.summary` is a Promise, but the script's return value must be plain JSON data",
		},
	],
	[
		"JSON.stringify over pending agent() promises, into a prompt",
		{
			body: `const reviews = ["a", "b"].map((f) => agent("review " + f));\nreturn await agent(\`Merge \${JSON.stringify(reviews)}\`);`,
			code: "not_awaited",
			line: 3,
			fix: AWAIT_AGENT,
			names: "`JSON.stringify` got the Promise that `agent()` (2:44) returns",
		},
	],
	// A promise or an answer where a function goes: the fix is a function, not `await` (whole messages, and the
	// scripts their fixes make, are in literal-fixes-table.ts).
	[
		"a promise held in a var, as a pipeline() stage",
		{
			body: `var summary = agent("summarize");\nreturn await pipeline(["a"], (f) => agent(f), summary);`,
			code: "script_error",
			line: 3,
			fix: "Pass a function, which `pipeline()` calls for each item with the previous stage's result, the item and its index: `(prev, item, i) => agent(…)`",
			names: "stage 2 is a Promise",
		},
	],
	[
		"a promise held in a var, as parallel()'s list",
		{
			body: `var both = agent("a");\nreturn await parallel(both);`,
			code: "script_error",
			line: 3,
			fix: "Pass an array of functions that make the calls: `parallel([() => agent(…), () => agent(…)])`",
			names: "`parallel()` takes an array, got a Promise",
		},
	],
	[
		"an answer held in a let, as phase()'s function",
		{
			body: `let review = await agent("review");\nreturn await phase("review", review);`,
			code: "script_error",
			line: 3,
			fix: "`phase(name, () => agent(…))`",
			names: "`phase(name, fn)` takes a function, got a string",
		},
	],
	// Reading a field of a pending promise.
	[
		"`.output` of a pending agent() promise",
		{
			body: `var r = agent("scan", { schema: { type: "object" } });\nreturn r.output;`,
			code: "not_awaited",
			line: 3,
			fix: AWAIT_AGENT,
			names: "`.output` was read on the Promise that `agent()` (2:14) returns",
		},
	],
	[
		"`.findings.length` of a pending agent() promise",
		{
			body: `var r = agent("scan", { schema: { type: "object" } });\nconst n = r.findings.length;\nreturn n;`,
			code: "not_awaited",
			line: 3,
			fix: AWAIT_AGENT,
			names: "`.findings` was read",
		},
	],
	[
		"`.length` of a pending parallel() promise",
		{
			body: `var all = parallel([() => agent("a"), () => agent("b")]);\nreturn all.length;`,
			code: "not_awaited",
			line: 3,
			fix: "write `await parallel(…)` before using its result",
			names: "`.length` was read on the Promise that `parallel()` (2:19) returns",
		},
	],
	[
		"`.filter` of a pending pipeline() promise",
		{
			body: `var out = pipeline(["a"], (x) => agent(x));\nreturn out.filter(Boolean);`,
			code: "not_awaited",
			line: 3,
			fix: "write `await pipeline(…)` before using its result",
			names: "`.filter` was read",
		},
	],
	[
		"`.value` of a pending workflow() promise",
		{
			body: `var child = workflow("./leaves.js");\nreturn child.value;`,
			code: "not_awaited",
			line: 3,
			fix: "write `await workflow(…)` before using its result",
		},
	],
	// Returning while work still runs.
	[
		"forEach(async …) that nobody awaits",
		{
			body: `const out = [];\nconst review = async (f) => {\n  out.push(await agent("hang " + f));\n};\n["a.ts", "b.ts"].forEach(review);\nreturn out;`,
			code: "not_awaited",
			line: 4,
			fix: "`forEach(async …)` does not wait",
			names: "agent `hang a.ts` (4:23), agent `hang b.ts` (4:23)",
		},
	],
	[
		"a fire-and-forget agent()",
		{
			body: `agent("hang: write the changelog");\nreturn "started";`,
			code: "not_awaited",
			line: 2,
			fix: "Await every call before returning",
		},
	],
	[
		"map(async …) whose promises are dropped",
		{
			body: `const files = ["x", "y", "z"];\nconst start = async (f) => agent("hang " + f);\nfiles.map(start);\nreturn files.length;`,
			code: "not_awaited",
			line: 3,
			fix: "`await Promise.all(promises)`",
			names: "3 call(s)",
		},
	],
	[
		"a nested workflow that returns with its agent running",
		{
			body: `const v = await workflow("./leaves.js");\nreturn v;`,
			code: "not_awaited",
			line: 2,
			fix: "Await every call before returning",
			names: "Nested workflow `leaves` failed at",
		},
	],
	// Null and text answers read as objects.
	[
		"a field read on the null of a failed agent()",
		{
			body: `const review = await agent("fail: review b.ts", { label: "review b.ts" });\nreturn review.findings;`,
			code: "script_error",
			line: 3,
			fix: "check for null before reading its fields (`if (!review) …`)",
			names: "`review` is null, most likely because agent `review b.ts` (2:27) failed: provider 500",
		},
	],
	[
		"a field read on a null parallel() slot",
		{
			body: `const reviews = await parallel([() => agent("a"), () => agent("fail b", { label: "review b" })]);\nreturn reviews.map((r, i) => i)\n  .concat(reviews[1].findings);`,
			code: "script_error",
			line: 4,
			fix: "check for null before reading its fields (`if (!reviews[1]) …`)",
			names: "`reviews[1]` is null, most likely because agent `review b` (2:62) failed",
		},
	],
	[
		"a field of a field read on a text answer",
		{
			body: `const review = await agent("review");\nreturn review.findings.length;`,
			code: "script_error",
			line: 3,
			fix: "Pass `{ schema: {…} }` to `agent()`",
			names: "`review.findings` is not there",
		},
	],
	[
		"an array method called on a text answer",
		{
			body: `const list = await agent("list files");\nreturn list.map((f) => f.trim());`,
			code: "script_error",
			line: 3,
			fix: "Pass `{ schema: {…} }` to `agent()`",
			names: "`list.map` is not there",
		},
	],
	[
		"JSON.parse on a text answer",
		{
			body: `const raw = await agent("give JSON");\nreturn JSON.parse(raw).items;`,
			code: "script_error",
			line: 3,
			fix: "Pass `{ schema: {…} }` and use the object `agent()` gives back",
			names: "`JSON.parse` got text that is not JSON",
		},
	],
	// Return values that are not plain data.
	[
		"returning a Map",
		{
			body: `const counts = new Map([["a", 1]]);\nreturn counts;`,
			code: "value_not_json",
			line: 3,
			fix: "return `Object.fromEntries(map)`",
			names: "`result` is a Map, but the script's return value must be plain JSON data",
		},
	],
	[
		"returning a Set inside an object",
		{
			body: `const seen = new Set(["a"]);\nreturn { seen };`,
			code: "value_not_json",
			line: 3,
			fix: "return `[...set]`",
		},
	],
	[
		"returning a function",
		{
			body: `return { total: 2, format: (n) => String(n) };`,
			code: "value_not_json",
			line: 2,
			fix: "leave functions out",
			names: "`result.format` is a function",
		},
	],
	[
		"returning a class instance",
		{
			body: `class Report { constructor() { this.ok = true; } }\nconst report = new Report();\nreturn report;`,
			code: "value_not_json",
			line: 4,
			fix: "copy the fields you need into a plain object",
		},
	],
	[
		"returning a Date",
		{
			body: `return { at: new Date(0) };`,
			code: "value_not_json",
			line: 2,
			fix: "return `date.toISOString()`",
		},
	],
	[
		"a return value over `budget.maxResultBytes`",
		{
			body: `const big = "x".repeat(5000);\nreturn big;`,
			code: "limit_value_size",
			line: 3,
			fix: "Return less (a summary, or only the fields needed), or raise `budget.maxResultBytes`",
			options: { budget: { maxResultBytes: 1000 } },
		},
	],
	[
		"a return value over `limits.maxValueBytes`",
		{
			body: `const rows = Array.from({ length: 5000 }, (_, i) => "row " + i);\nreturn rows;`,
			code: "limit_value_size",
			line: 3,
			fix: "Return less (a summary, or only the fields needed), or raise `limits.maxValueBytes`",
			options: { limits: { maxValueBytes: 20000 } },
		},
	],
	// Caps hit by loops.
	[
		"a loop of agent() calls past the agent cap",
		{
			body: `const out = [];\nfor (const f of ["a", "b", "c", "d"]) {\n  out.push(await agent(f));\n}\nreturn out;`,
			code: "agent_cap_reached",
			line: 4,
			fix: "bound the loop (`items.slice(0, n)`, or stop when `budget.agentCalls.remaining` is 0), or raise it with `budget.maxAgentCalls`",
			options: { budget: { maxAgentCalls: 3 } },
		},
	],
	[
		"parallel() over more items than the cap",
		{
			body: `const files = Array.from({ length: 12 }, (_, i) => "f" + i);\nreturn await parallel(files.map((f) => () => agent(f)));`,
			code: "limit_items",
			line: 3,
			fix: "Split the work into batches (a `for` loop over `items.slice(i, i + 10)`) or raise `limits.maxItems`",
			options: { limits: { maxItems: 10 } },
		},
	],
];

describe("mistakes found at run time", () => {
	it.each(MISTAKES)("%s", async (_name, mistake) => {
		const { result, prompts, fake } = await run(mistake.body, mistake.options);
		expect(result.status, result.error?.message).toBe("failed");
		expect(result.error?.code, result.error?.message).toBe(mistake.code);
		expect(result.error?.line, result.error?.message).toBe(mistake.line);
		expect(result.error?.message).toContain(mistake.fix);
		if (mistake.names) expect(result.error?.message).toContain(mistake.names);
		for (const prompt of mistake.never ?? []) expect(prompts).not.toContain(prompt);
		expect(fake.running, "runner calls left running").toBe(0);
	});

	it("a return value error with several returns names their lines instead of guessing one", async () => {
		const { result } = await run(`if (args === undefined) {\n  return new Map();\n}\nreturn 1;`);
		expect(result.error).toMatchObject({ code: "value_not_json" });
		expect(result.error?.line).toBeUndefined();
		expect(result.error?.message).toBe(
			"`result` is a Map, but the script's return value must be plain JSON data (returned by one of the `return`s at lines 3, 5): return `Object.fromEntries(map)` instead of the Map",
		);
	});

	it("a null read with no failed call before it blames no call", async () => {
		const { result } = await run(`const r = await agent("ok");\nconst none = null;\nreturn none.x;`);
		expect(result.error).toMatchObject({ code: "script_error", line: 4 });
		expect(result.error?.message).toBe("TypeError: cannot read property 'x' of null (4:12)");
	});

	it("a field read on a schema answer blames no text answer", async () => {
		const { result } = await run(`const r = await agent("s", { schema: { type: "object" } });\nreturn r.missing.x;`);
		expect(result.error?.message).toBe("TypeError: cannot read property 'x' of undefined (3:17)");
	});

	it("work left running: the run still names it in `cutOff` and keeps the value the script returned", async () => {
		const { result } = await run(`agent("hang", { label: "left" });\nreturn 7;`);
		expect(result.value).toBe(7);
		expect(result.cutOff).toEqual([
			{ kind: "agent", name: "left", filename: "workflow.js", line: 2, column: 6, index: 0 },
		]);
		expect(result.failures).toMatchObject([{ label: "left", cause: "still running when the script returned" }]);
	});
});

/** Legal code that looks like the mistakes above: it runs, with the exact value. */
const CONTROLS: [name: string, body: string, value: unknown][] = [
	["an awaited agent()", `return await agent("a");`, "done: a"],
	[
		"start now, await later",
		`const a = agent("a");\nconst b = agent("b");\nreturn [await a, await b];`,
		["done: a", "done: b"],
	],
	["Promise.all over agents", `return await Promise.all([agent("a"), agent("b")]);`, ["done: a", "done: b"]],
	[
		"Promise.allSettled over agents",
		`const s = await Promise.allSettled([agent("a")]);\nreturn s[0].value;`,
		"done: a",
	],
	["Promise.race over agents", `return await Promise.race([agent("a")]);`, "done: a"],
	["`.then` on agent()", `return await agent("a").then((text) => text.toUpperCase());`, "DONE: A"],
	["`.catch` and `.finally` on agent()", `return await agent("a").catch(() => "x").finally(() => {});`, "done: a"],
	[
		"promise checks: instanceof, typeof then, Object.prototype.toString",
		`const p = agent("a");\nconst facts = [p instanceof Promise, typeof p.then, Object.prototype.toString.call(p)];\nawait p;\nreturn facts;`,
		[true, "function", "[object Promise]"],
	],
	[
		"an awaited value in a template prompt",
		`const plan = await agent("plan");\nreturn await agent(\`Do: \${plan}\`);`,
		"done: Do: done: plan",
	],
	[
		"JSON.stringify of awaited results in a prompt",
		`const rs = await Promise.all([agent("a")]);\nreturn await agent("Merge " + JSON.stringify(rs));`,
		'done: Merge ["done: a"]',
	],
	[
		"a null checked before use",
		`const rs = await parallel([() => agent("a"), () => agent("fail b")]);\nreturn rs.map((r) => (r === null ? "missing" : r.length));`,
		[7, "missing"],
	],
	["a text answer used as text", `const t = await agent("a");\nreturn [t.length, t.split(": ")[1]];`, [7, "a"]],
	[
		"fields of a schema answer",
		`const r = await agent("scan", { schema: { type: "object" } });\nreturn r.findings.length;`,
		1,
	],
	[
		"map(async …) awaited with Promise.all",
		`const out = await Promise.all(["a", "b"].map(async (f) => (await agent(f)).length));\nreturn out;`,
		[7, 7],
	],
	[
		"for … of with await",
		`const out = [];\nfor (const f of ["a", "b"]) out.push(await agent(f));\nreturn out;`,
		["done: a", "done: b"],
	],
	["agent promises kept in an object and awaited", `const jobs = { a: agent("a") };\nreturn await jobs.a;`, "done: a"],
	["awaited parallel(), then its length", `const rs = await parallel([() => agent("a")]);\nreturn rs.length;`, 1],
	["a sleep nobody awaits", `sleep(60000);\nreturn 1;`, 1],
	["returning the agent() promise itself", `return agent("a");`, "done: a"],
	[
		"the words Promise and await in a prompt",
		`return await agent("Explain why a Promise must be awaited");`,
		"done: Explain why a Promise must be awaited",
	],
	[
		"plain data with a Map turned into an object",
		`const m = new Map([["a", 1]]);\nreturn Object.fromEntries(m);`,
		{ a: 1 },
	],
];

describe("legal code that must keep running", () => {
	it.each(CONTROLS)("%s", async (_name, body, value) => {
		const { result } = await run(body);
		expect(result.error, result.error?.message).toBeUndefined();
		expect(result.status).toBe("completed");
		expect(result.value).toEqual(value);
		expect(result.cutOff).toBeUndefined();
	});
});

/** The runner fails every call with the text after `fail: ` in its prompt. */
async function runFailing(body: string) {
	const fake = createFakeRunner((request) => ({ fail: request.prompt.replace(/^fail: /, "") }));
	return runWorkflowScript(`${HEADER}${body}`, { agentRunner: fake.runner, cwd });
}

describe("a run in which every agent failed: the message names each cause, how many calls it took and where", () => {
	it.each([
		[
			"one cause at one call site: the site is the error's position",
			`return await parallel([1, 2, 3].map((n) => () => agent("fail: provider 500", { label: "r" + n })));`,
			"All 3 `agent()` calls failed: provider 500 (2:55)",
			{ line: 2, column: 55 },
		],
		[
			"one call",
			`return await agent("fail: timed out after 30000 ms");`,
			"The only `agent()` call failed: timed out after 30000 ms (2:19)",
			{ line: 2, column: 19 },
		],
		[
			"one cause at two call sites",
			`const a = await agent("fail: provider 500");\nconst b = await agent("fail: provider 500");\nreturn [a, b];`,
			"Both `agent()` calls failed at 2:22 and 3:22: provider 500",
			undefined,
		],
		[
			"several causes: the commonest first, each with its count and sites",
			`const a = await agent("fail: provider 500");\nconst rest = await parallel(["b", "c"].map((f) => () => agent("fail: timed out after 30000 ms")));\nreturn [a, ...rest];`,
			"All 3 `agent()` calls failed: 2 at 3:62: timed out after 30000 ms; 1 at 2:22: provider 500",
			undefined,
		],
		[
			"more causes than are shown: the rest are counted",
			`return await parallel(["a", "b", "c", "d", "e"].map((f) => () => agent("fail: cause " + f)));`,
			"All 5 `agent()` calls failed: 1 at 2:71: cause a; 1 at 2:71: cause b; 1 at 2:71: cause c; and 2 more with 2 other cause(s). Each call's cause is in `failures`",
			undefined,
		],
		[
			"a long cause on several lines: one line, cut",
			`return await agent("fail: " + "x".repeat(300) + "\\n\\nend");`,
			`The only \`agent()\` call failed: ${"x".repeat(199)}…. Each call's cause is in \`failures\` (2:19)`,
			{ line: 2, column: 19 },
		],
		[
			"a call in a nested workflow: its site names its file",
			`return await workflow("./fails.js");`,
			"The only `agent()` call failed at fails.js:2:19: provider 500",
			undefined,
		],
	])("%s", async (_name, body, message, location) => {
		writeFileSync(
			join(cwd, "fails.js"),
			`export const meta = { name: "fails", description: "n" };\nreturn await agent("fail: provider 500");`,
		);
		const result = await runFailing(body);
		expect(result.status).toBe("failed");
		expect(result.error?.code).toBe("agents_failed");
		expect(result.error?.message).toBe(message);
		expect(result.error?.line).toBe(location?.line);
		expect(result.error?.column).toBe(location?.column);
	});

	it("each failure carries its call's file, line and column", async () => {
		const result = await runFailing(`const a = await agent("fail: no");\nreturn [a, await agent("fail: no")];`);
		expect(result.failures.map(({ filename, line, column }) => ({ filename, line, column }))).toEqual([
			{ filename: "workflow.js", line: 2, column: 22 },
			{ filename: "workflow.js", line: 3, column: 23 },
		]);
		expect(result.error?.details?.causes).toEqual([{ cause: "no", count: 2, sites: ["2:22", "3:23"] }]);
	});
});
