/**
 * Globals of other workflow runtimes read undeclared: refused at their line:column, saying where the name comes
 * from and what to write here, in the check and in the run.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FOREIGN_GLOBALS } from "../../src/authoring/foreign-globals.ts";
import { checkWorkflowScript, runWorkflowScript } from "../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

function check(body: string) {
	return checkWorkflowScript(`${HEADER}${body}`).diagnostics.map((d) => ({
		at: `${d.line}:${d.column}`,
		code: d.code,
		message: d.message,
		fix: d.fix,
	}));
}

describe("foreign globals", () => {
	it("pi-dynamic-workflows' gate() names the helper and the loop to write, not a typo of Date", () => {
		expect(check('const out = await gate(async () => agent("x"), (v) => ({ ok: true }));\nreturn out;')).toEqual([
			{
				at: "2:19",
				code: "name_undeclared",
				message:
					"`gate()` is a helper of pi-dynamic-workflows (`gate(produce, validate, { attempts })` asks again with the validator's feedback), not a global of workflow scripts here",
				fix: FOREIGN_GLOBALS.gate?.instead,
			},
		]);
		expect(FOREIGN_GLOBALS.gate?.instead).toContain('give `agent()` the option `gate: "npm test"`');
	});

	it("pi-dynamic-workflow-extension's artifact() says there is no equivalent and to return the data", () => {
		const [finding] = check('const r = await agent("x");\nartifact("r.md", r, { type: "markdown" });\nreturn r;');
		expect(finding?.at).toBe("3:1");
		expect(finding?.message).toBe(
			"`artifact()` is a global of pi-dynamic-workflow-extension (it writes a file into that extension's run folder), not of workflow scripts here",
		);
		expect(finding?.fix).toMatch(/^There is no equivalent: return the data/);
	});

	it("@samfp/pi-workflows' ctx maps each member to this runtime's global", () => {
		const [finding] = check('const r = await ctx.agent("x", { id: "a" });\nctx.log("done");\nreturn r;');
		expect(finding?.message).toBe(
			"`ctx` is the context object of @samfp/pi-workflows scripts; here its members are globals (used 2 times; this is the first)",
		);
		expect(finding?.fix).toContain("Write `agent(prompt, options)` for `ctx.agent`");
	});

	it("a script that declares the name itself is not told about the other runtime", () => {
		expect(check('const gate = (v) => v !== null;\nconst r = await agent("x");\nreturn gate(r);')).toEqual([]);
	});

	it("the run refuses before any agent starts, with the same words and position", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(
			`${HEADER}await agent("x");\nconst all = await runs.all([]);\nreturn all;`,
			{
				agentRunner: fake.runner,
			},
		);
		expect(fake.requests).toEqual([]);
		expect(result.error?.code).toBe("name_undeclared");
		expect(result.error?.message).toBe(
			`\`runs\` is ${FOREIGN_GLOBALS.runs?.is}. ${FOREIGN_GLOBALS.runs?.instead} (3:19)`,
		);
	});

	it("the docs page on writing scripts names every one", () => {
		const readme = readFileSync(new URL("../../docs/writing-scripts.md", import.meta.url), "utf8");
		for (const [name, foreign] of Object.entries(FOREIGN_GLOBALS)) {
			expect(readme).toContain(foreign.called ? `\`${name}()\`` : `\`${name}\``);
		}
	});
});
