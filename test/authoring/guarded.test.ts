// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the scripts under test hold template substitutions.
/**
 * An undeclared name that cannot fail the script (inside a `try` whose `catch` takes the ReferenceError, behind a
 * `typeof` check, in code that cannot run) is a warning, with its position and why; one that would certainly throw
 * stays an error. And at run time, in the real sandbox, a guarded name behaves as the warning says.
 */
import { describe, expect, it } from "vitest";
import { checkWorkflowScript, runWorkflowScript } from "../../src/runtime/index.ts";
import { createFakeRunner } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const HEADER = 'export const meta = { name: "t", description: "d" };\n';
const DECLARE =
	"Declare it (`const`, `let`, a parameter) before use; or, for an input of the script, read it from `args` (`args.Foo`) and pass it in when the run starts";

/** Every diagnostic of `body` (after the one-line header) as `severity line:column message. fix`. */
function check(body: string): { ok: boolean; found: string[] } {
	const report = checkWorkflowScript(`${HEADER}${body}`);
	return {
		ok: report.ok,
		found: report.diagnostics.map((d) => `${d.severity} ${d.line}:${d.column} ${d.message}. ${d.fix}`),
	};
}

const TRY = (at: string) =>
	`it is guarded by the \`try\` at ${at}: at run time it throws a ReferenceError, which that \`catch\` takes`;
const TYPEOF = (at: string) =>
	`the \`typeof Foo\` check at ${at} lets it be read only where it exists (at run time it does not)`;

describe("a guarded undeclared name is a warning", () => {
	it.each([
		["in a try block with a catch", "try {\n  return Foo(1);\n} catch {\n  return 0;\n}", "3:10", TRY("2:1")],
		["written in a try block", "try { Foo = 1; } catch (e) {}", "2:7", TRY("2:1"), "Declare it first: `let Foo = …`"],
		["after an await in the try block", 'try { await agent("a"); Foo(); } catch {}', "2:25", TRY("2:1")],
		["in an inner catch, inside an outer try", "try {\n  try {} catch { Foo(); }\n} catch {}", "3:18", TRY("2:1")],
		[
			"in a try block inside a function",
			"const f = () => { try { return Foo; } catch { return 1; } };\nreturn f();",
			"2:32",
			TRY("2:19"),
		],
		[
			'behind `typeof X === "undefined" ? a : X`',
			'return typeof Foo === "undefined" ? 1 : Foo;',
			"2:41",
			TYPEOF("2:8"),
		],
		['behind `typeof X !== "undefined" && X`', 'return typeof Foo !== "undefined" && Foo.x;', "2:38", TYPEOF("2:8")],
		['behind `"undefined" == typeof X || X`', 'return "undefined" == typeof Foo || Foo();', "2:37", TYPEOF("2:8")],
		[
			'behind `typeof X === "function" ? X() : a`',
			'return typeof Foo === "function" ? Foo() : 0;',
			"2:36",
			TYPEOF("2:8"),
		],
		[
			"in an if whose test checks typeof among others",
			'if (args && typeof Foo !== "undefined") {\n  log(Foo);\n}',
			"3:7",
			TYPEOF("2:13"),
		],
		[
			'in the else of `if (!(typeof X !== "undefined"))`',
			'if (!(typeof Foo !== "undefined")) {} else { Foo(); }',
			"2:46",
			TYPEOF("2:7"),
		],
		[
			'after `if (typeof X === "undefined") return`',
			'if (typeof Foo === "undefined") return 1;\nreturn Foo();',
			"3:8",
			TYPEOF("2:5"),
		],
		[
			"in a closure behind a typeof check",
			'const get = typeof Foo !== "undefined" ? () => Foo : () => null;\nreturn get();',
			"2:48",
			TYPEOF("2:13"),
		],
		[
			"after a return in the same block",
			"return 1;\nFoo();",
			"3:1",
			"it is in code that cannot run, after the `return` at 2:1",
		],
		[
			"after a throw in a function",
			'function f() {\n  throw new Error("x");\n  Foo();\n}\ntry { f(); } catch {}',
			"4:3",
			"it is in code that cannot run, after the `throw` at 3:3",
		],
		[
			"after a break in a loop",
			"for (const x of [1]) {\n  break;\n  Foo(x);\n}",
			"4:3",
			"it is in code that cannot run, after the `break` at 3:3",
		],
		[
			"in `if (false)`",
			"if (false) {\n  Foo();\n}",
			"3:3",
			"it is in code that cannot run: the condition at 2:5 never lets it",
		],
		["in `0 && X`", "return 0 && Foo;", "2:13", "it is in code that cannot run: the condition at 2:8 never lets it"],
		[
			"in the else of `if (true)`",
			"if (true) {} else { Foo(); }",
			"2:21",
			"it is in code that cannot run: the condition at 2:5 never lets it",
		],
	])("%s", (_what, body, at, why, fix = DECLARE) => {
		const { ok, found } = check(body);
		expect(ok).toBe(true);
		expect(found).toEqual([`warning ${at} \`Foo\` is not defined, but ${why}. ${fix}`]);
	});

	it("keeps a capability's advice, and counts the uses at the first", () => {
		const { ok, found } = check('try {\n  await fetch("a");\n  await fetch("b");\n} catch {}');
		expect(ok).toBe(true);
		expect(found).toEqual([
			`warning 3:9 \`fetch\` is not defined in workflow scripts, but ${TRY("2:1").replace("Foo", "fetch")} (used 2 times, each guarded; this is the first). Workflow scripts cannot reach the network, files or processes: ask an agent to do it, e.g. \`await agent("Read package.json and return its version")\``,
		]);
	});
});

describe("an undeclared name that would certainly throw stays an error", () => {
	it.each([
		["outside any guard", "return Foo;", "2:8"],
		["in a try with only a finally", "try { Foo(); } finally {}", "2:7"],
		["in the catch block itself", "try {} catch { Foo(); }", "2:16"],
		["in the finally block", "try {} catch {} finally { Foo(); }", "2:27"],
		[
			"in a function written in a try block (it may run later)",
			"let f;\ntry { f = () => Foo; } catch {}\nreturn f();",
			"3:17",
		],
		["in a callback given from a try block", "try { [1].map(() => Foo); } catch {}", "2:21"],
		["in a method of a class in a try block", "try { class A { m() { return Foo; } } } catch {}", "2:30"],
		["in a field initializer in a try block", "try { class A { x = Foo; } new A(); } catch {}", "2:21"],
		["behind a typeof check of another name", 'return typeof Bar !== "undefined" && Foo;', "2:38"],
		["behind a check that says it is absent", 'return typeof Foo === "undefined" && Foo;', "2:38"],
		['behind `typeof X === "undefined" ? X : a`', 'return typeof Foo === "undefined" ? Foo : 1;', "2:37"],
		["behind a `??`", "return args ?? Foo;", "2:16"],
		["behind a `||` of a typeof check that says present", 'return typeof Foo !== "undefined" || Foo;', "2:38"],
		[
			"after an if that returns only sometimes",
			'if (typeof Foo === "undefined" && args) return 1;\nreturn Foo;',
			"3:8",
		],
		["a function declared after a return, called before it", "return f();\nfunction f() { return Foo; }", "3:23"],
	])("%s", (_what, body, at) => {
		const { ok, found } = check(body);
		expect(ok).toBe(false);
		expect(found).toEqual([`error ${at} \`Foo\` is not defined. ${DECLARE}`]);
	});

	it("is one error at the first unguarded use when other uses are guarded", () => {
		const { ok, found } = check("try { Foo(); } catch {}\nFoo();\nFoo();");
		expect(ok).toBe(false);
		expect(found).toEqual([`error 3:1 \`Foo\` is not defined (used 2 times; this is the first). ${DECLARE}`]);
	});
});

describe("guarded names at run time", () => {
	async function run(body: string) {
		const logs: string[] = [];
		const result = await runWorkflowScript(`${HEADER}${body}`, {
			agentRunner: createFakeRunner().runner,
			filename: "research.js",
			onProgress: (event) => {
				if (event.type === "log") logs.push(`${event.level}: ${event.message}`);
			},
		});
		return { result, logs };
	}

	it("a guarded `new URL(u)` just works, and its catch takes what is not a URL", async () => {
		const { result, logs } = await run(
			'const host = (u) => { try { return new URL(u).hostname; } catch { return u.toLowerCase(); } };\nreturn [host("https://Docs.Example.org/a"), host("See The Docs")];',
		);
		expect(result.value).toEqual(["docs.example.org", "see the docs"]);
		expect(logs).toEqual([]);
	});

	it("a guarded name that does not exist throws a ReferenceError, which the script's catch takes; the run logs the warning", async () => {
		const { result, logs } = await run(
			'let got;\ntry {\n  got = Foo(1);\n} catch (e) {\n  got = `${e.name}: ${e.message}`;\n}\nreturn [got, typeof Foo === "undefined" ? "absent" : Foo];',
		);
		expect(result.status).toBe("completed");
		expect(result.value).toEqual(["ReferenceError: 'Foo' is not defined", "absent"]);
		expect(logs).toEqual([
			`warn: research.js:4:9 \`Foo\` is not defined, but ${TRY("3:1")} (used 2 times, each guarded; this is the first). ${DECLARE}`,
		]);
	});

	it("code after a return does not run, and the script completes", async () => {
		const { result } = await run('return "done";\nFoo();');
		expect(result.value).toBe("done");
	});
});
