// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the scripts under test hold template substitutions.
/**
 * A promise held in a variable (`const a = agent(…)`, or a `let` never assigned again) and carried inside object and
 * array literals to where data must be: the script's return value, `JSON.stringify`, a template, `parallel()`'s
 * list. Each is found at the variable's line:column in the words the run would use, by the static pass and by
 * `pi-workflows check`; look-alike code that awaits, keeps the promises for `Promise.all` or returns the promise
 * itself gives no finding; and no example or corpus script gets one.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/cli.ts";
import { checkWorkflowScript, runWorkflowScript } from "../../src/runtime/index.ts";
import { createFakeRunner } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const HEAD = `export const meta = { name: "t", description: "d" };\n`;
const MARK = "‸";
const ROOT = join(import.meta.dirname, "..", "..");

/** The body without its mark, and the 1-based line:column the mark stood at (after the header line). */
function marked(body: string): { source: string; at: string } {
	const offset = body.indexOf(MARK);
	const before = body.slice(0, offset).split("\n");
	return {
		source: HEAD + body.slice(0, offset) + body.slice(offset + MARK.length),
		at: `${before.length + 1}:${(before.at(-1)?.length ?? 0) + 1}`,
	};
}

function findings(source: string) {
	return checkWorkflowScript(source).diagnostics.map(({ code, line, column, message, fix }) => ({
		code,
		at: `${line}:${column}`,
		message,
		fix,
	}));
}

const RETURN_FIX = (variable: string, name = "agent") =>
	`\`await\` it and return its result: write \`await ${name}(…)\` before using its result (\`const ${variable} = await ${name}(…)\`), or put \`await ${variable}\` there in its place`;
const FIX = (variable: string, name = "agent") =>
	`Write \`await ${name}(…)\` before using its result (\`const ${variable} = await ${name}(…)\`), or put \`await ${variable}\` there in its place`;
const DATA = "but the script's return value must be plain JSON data";

/** [what, body with ‸ at the finding, message, fix]. */
const FOUND: [string, string, string, string][] = [
	[
		"a const returned in an object",
		'const a = agent("x");\nreturn { ‸a };',
		`\`result.a\` is \`a\`, the Promise that \`agent()\` returns, ${DATA}`,
		RETURN_FIX("a"),
	],
	[
		"a let never assigned again, returned in an array",
		'let b = agent("x");\nreturn [1, ‸b];',
		`\`result[1]\` is \`b\`, the Promise that \`agent()\` returns, ${DATA}`,
		RETURN_FIX("b"),
	],
	[
		"awaited once, then returned in an object: `a` is still the promise",
		'const a = agent("x");\nawait a;\nreturn { answer: ‸a };',
		`\`result.answer\` is \`a\`, the Promise that \`agent()\` returns, ${DATA}`,
		RETURN_FIX("a"),
	],
	[
		"deep in nested literals, an odd key",
		'const r = parallel([() => agent("x")]);\nreturn { out: { "the list": [‸r] } };',
		`\`result.out["the list"][0]\` is \`r\`, the Promise that \`parallel()\` returns, ${DATA}`,
		RETURN_FIX("r", "parallel"),
	],
	[
		"after a spread the index is unknown",
		'const t = tool("bash", { command: "ls" });\nreturn [...args.items, ‸t];',
		`The script's return value holds \`t\`, the Promise that \`tool()\` returns, ${DATA}`,
		RETURN_FIX("t", "tool"),
	],
	[
		"an ask() in a returned object, inside a block at the top level",
		'const q = ask("Ship?", { default: "no" });\nif (args.x) {\n  return { ‸q };\n}\nreturn null;',
		`\`result.q\` is \`q\`, the Promise that \`ask()\` returns, ${DATA}`,
		RETURN_FIX("q", "ask"),
	],
	[
		"a workflow() in a returned object",
		'const w = workflow("child.js");\nreturn { child: ‸w };',
		`\`result.child\` is \`w\`, the Promise that \`workflow()\` returns, ${DATA}`,
		RETURN_FIX("w", "workflow"),
	],
	[
		"the script's own async function",
		'async function main() {\n  return await agent("x");\n}\nconst m = main();\nreturn { ‸m };',
		`\`result.m\` is \`m\`, the Promise that \`main()\` returns, ${DATA}`,
		RETURN_FIX("m", "main"),
	],
	[
		"JSON.stringify of an object holding it",
		'const a = agent("x");\nlog(JSON.stringify({ ‸a }));',
		"`JSON.stringify` gets `a`, the Promise that `agent()` returns",
		FIX("a"),
	],
	[
		"an array holding it in a template",
		"const p = pipeline([1], (x) => agent(String(x)));\nlog(`${[‸p]}`);",
		"`p`, the Promise that `pipeline()` returns, is turned into text with its array (the text says `[object Promise]`)",
		FIX("p", "pipeline"),
	],
	[
		"a held promise in parallel()'s list",
		'const a = agent("x");\nreturn await parallel([() => agent("y"), ‸a]);',
		"`parallel()` takes functions; item 1 is `a`, the Promise that `agent()` returns, a call already started",
		"Pass `() => agent(…)`, a function that makes the call when `parallel()` starts it (`await` gives a value, which is not a function either)",
	],
	[
		"a let in a template (a use as a value, as for a const)",
		'let a = agent("x");\nlog(`got ${‸a}`);',
		"`a` is the promise `agent()` returned, and this puts it in a template string (the text says `[object Promise]`) without `await`",
		"Read `(await a)`, or write `const a = await agent(…)`",
	],
];

/** Look-alike code that is fine: [what, body, the run's value]. */
const FINE: [string, string, unknown][] = [
	["awaited where it is returned", 'const a = agent("x");\nreturn { a: await a };', { a: "done: x" }],
	["the promise itself returned", 'const a = agent("x");\nreturn a;', "done: x"],
	["reassigned with its answer", 'let a = agent("x");\na = await a;\nreturn { a };', { a: "done: x" }],
	[
		"kept in an array for Promise.all",
		'const p = agent("a");\nconst q = agent("b");\nconst both = [p, q];\nreturn await Promise.all(both);',
		["done: a", "done: b"],
	],
	[
		"Promise.all over a literal",
		'const p = agent("a");\nconst q = agent("b");\nreturn await Promise.all([p, q]);',
		["done: a", "done: b"],
	],
	[
		"an object returned by a function of the script, awaited by its caller",
		'async function start() {\n  const a = agent("x");\n  return { a };\n}\nconst started = await start();\nreturn await started.a;',
		"done: x",
	],
	[
		"inside an arrow that is never called",
		'const a = agent("x");\nconst later = () => ({ a });\nreturn await a;',
		"done: x",
	],
	[
		"a let given another promise, then awaited",
		'let a = agent("x");\nconst again = false;\nif (again) a = agent("y");\nreturn { a: await a };',
		{ a: "done: x" },
	],
];

describe("a promise held in a variable and carried in literals", () => {
	it.each(FOUND)("%s: found at the variable, in the run's words", (_what, body, message, fix) => {
		const { source, at } = marked(body);
		expect(findings(source)).toEqual([{ code: "not_awaited", at, message, fix }]);
	});

	it.each(FOUND)("%s: the run refuses it before any agent starts", async (_what, body) => {
		const { source, at } = marked(body);
		const fake = createFakeRunner();
		const result = await runWorkflowScript(source, { agentRunner: fake.runner });
		expect(result.status).toBe("failed");
		expect(`${result.error?.line}:${result.error?.column}`).toBe(at);
		expect(result.error?.code).toBe("not_awaited");
		expect(fake.requests).toHaveLength(0);
	});

	it.each(FINE)("%s: no finding, and it runs to its value", async (_what, body, value) => {
		expect(findings(HEAD + body)).toEqual([]);
		const fake = createFakeRunner((request) => `done: ${request.prompt}`);
		const result = await runWorkflowScript(HEAD + body, { agentRunner: fake.runner });
		expect(result.error).toBeUndefined();
		expect(result.value).toEqual(value);
	});
});

/** `pi-workflows check <file>`: its exit code and what it printed. */
async function cliCheck(cwd: string, file: string): Promise<{ code: number; out: string }> {
	let out = "";
	const sink = new Writable({
		write(chunk, _encoding, done) {
			out += String(chunk);
			done();
		},
	});
	const code = await runCli(["check", file], {
		cwd,
		env: {},
		agentDir: join(cwd, "no-agent-dir"),
		stdout: sink,
		stderr: sink,
	});
	return { code, out };
}

function scripts(dir: string): string[] {
	return readdirSync(dir, { recursive: true, encoding: "utf8" })
		.filter((file) => file.endsWith(".js"))
		.map((file) => join(dir, file))
		.sort();
}

describe("pi-workflows check", () => {
	it("prints the finding at file:line:column with its fix", async () => {
		const dir = mkdtempSync(join(tmpdir(), "pi-workflows-held-"));
		try {
			writeFileSync(join(dir, "held-promise.js"), `${HEAD}const a = agent("Write the summary");\nreturn { a };\n`);
			const { code, out } = await cliCheck(dir, "held-promise.js");
			expect(code).toBe(1);
			expect(out).toBe(
				[
					`held-promise.js:3:10: error not_awaited: \`result.a\` is \`a\`, the Promise that \`agent()\` returns, ${DATA}`,
					`  fix: ${RETURN_FIX("a")}`,
					'  2 | const a = agent("Write the summary");',
					"> 3 | return { a };",
					"    |          ^",
					"  4 |",
					"",
				].join("\n"),
			);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it("finds no held promise in any example or corpus script", async () => {
		const files = [
			...scripts(join(ROOT, "examples", "workflows")),
			...scripts(join(ROOT, "test", "corpus", "scripts")),
		];
		expect(files.length).toBeGreaterThan(40);
		for (const file of files) {
			const { out } = await cliCheck(ROOT, file);
			expect(out, file).not.toContain("not_awaited");
		}
		for (const file of scripts(join(ROOT, "examples", "workflows"))) {
			expect((await cliCheck(ROOT, file)).out, file).toMatch(/: ok\n$/);
		}
	});
});
