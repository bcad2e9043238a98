/**
 * Literal calls of the globals a run refuses (`Date.now()`, `new Date()`, `Date()`, `Math.random()`): `check`
 * reports each at its line:column with the run's own `determinism` words, and a run refuses before any agent
 * starts; a `try` that takes the error, or code that cannot run, keeps the call from being reported.
 */
import { describe, expect, it } from "vitest";
import { checkWorkflowScript, runWorkflowScript } from "../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const TIME = "Pass a timestamp in `args`";
const SAMPLE = "Put the sample index in the prompt or label instead";

/** Every diagnostic of `body` (after the header line) as `severity line:column code message. fix`. */
function check(body: string): { ok: boolean; found: string[] } {
	const report = checkWorkflowScript(`${HEADER}${body}`);
	return {
		ok: report.ok,
		found: report.diagnostics.map((d) => `${d.severity} ${d.line}:${d.column} ${d.code} ${d.message}. ${d.fix}`),
	};
}

describe("check: calls of globals a run refuses", () => {
	it.each([
		["Date.now()", "const t = Date.now();", "2:11", "`Date.now()` is unavailable: it breaks resume", TIME],
		["Date.now?.()", "const t = Date.now?.();", "2:11", "`Date.now()` is unavailable: it breaks resume", TIME],
		["Date['now']()", 'const t = Date["now"]();', "2:11", "`Date.now()` is unavailable: it breaks resume", TIME],
		["new Date()", "const d = new Date();", "2:11", "`new Date()` is unavailable: it breaks resume", TIME],
		["new Date", "const d = new Date;", "2:11", "`new Date()` is unavailable: it breaks resume", TIME],
		["Date()", "const s = Date();", "2:11", "`Date()` is unavailable: it breaks resume", TIME],
		[
			"Math.random()",
			"const pick = args.items[Math.floor(Math.random() * args.items.length)];",
			"2:36",
			"`Math.random()` is unavailable: it breaks resume",
			SAMPLE,
		],
		[
			"behind a typeof test (Date.now is a function here, which throws)",
			'const t = typeof Date.now === "function" ? Date.now() : 0;',
			"2:44",
			"`Date.now()` is unavailable: it breaks resume",
			TIME,
		],
		[
			"in a try whose catch is in another function",
			"try {\n  setTimeout(() => Date.now(), 0);\n} catch {}",
			"3:20",
			"`Date.now()` is unavailable: it breaks resume",
			TIME,
		],
	])("%s: an error at its position, with what to write instead", (_what, body, at, message, fix) => {
		expect(check(body)).toEqual({ ok: false, found: [`error ${at} determinism ${message}. ${fix}`] });
	});

	it.each([
		["a Date from a value", "const d = new Date(0);\nreturn d.toISOString();"],
		["Date's pure helpers", 'return [Date.UTC(2020, 0, 2), Date.parse("2020-01-02")];'],
		["a Date of the script's own", "const Date = { now: () => 1 };\nreturn Date.now();"],
		["Math's pure helpers", "return Math.floor(Math.max(1, 2.5));"],
		["a call inside a try whose catch takes the error", "let t = 0;\ntry { t = Date.now(); } catch {}\nreturn t;"],
		["a call after a return", "return 1;\nDate.now();"],
		["a call behind a literal false", "if (false) Math.random();\nreturn 1;"],
		["Date.now read, not called", "const clock = Date.now;\nreturn typeof clock;"],
	])("%s: nothing reported", (_what, body) => {
		expect(check(body)).toEqual({ ok: true, found: [] });
	});
});

describe("a run with such a call", () => {
	it("refuses before any agent starts, with the same words and position as check", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}const labels = await agent("classify");\nlog(Math.random());`, {
			agentRunner: fake.runner,
		});
		expect(fake.requests).toEqual([]);
		expect(result.error).toMatchObject({ code: "determinism", line: 3, column: 5 });
		expect(result.error?.message).toBe(`\`Math.random()\` is unavailable: it breaks resume. ${SAMPLE} (3:5)`);
	});

	it("a call the pass cannot see (an alias) still fails at run time, with the same words", async () => {
		const result = await runWorkflowScript(`${HEADER}const clock = Date;\nreturn clock.now();`, {
			agentRunner: createFakeRunner().runner,
		});
		expect(result.error?.code).toBe("determinism");
		expect(result.error?.message).toMatch(
			/^`Date\.now\(\)` is unavailable: it breaks resume\. Pass a timestamp in `args` \(3:\d+\)$/,
		);
	});
});
