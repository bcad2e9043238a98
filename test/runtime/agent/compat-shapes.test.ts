/**
 * Shapes other runtimes' scripts use that mean something here: Claude Code's `effort: "max"`, its top-level
 * `budget.total` / `budget.spent()` / `budget.remaining()`, and pi-dynamic-workflows' `phase(name, { budget: n })`
 * (a token budget). Through `runWorkflowScript`, the real sandbox and the scripted runner.
 */
import { describe, expect, it } from "vitest";
import { checkWorkflowScript, runWorkflowScript, type WorkflowRunOptions } from "../../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

async function run(body: string, options: Partial<WorkflowRunOptions> = {}) {
	const fake = createFakeRunner(() => ({ text: "ok", tokens: 100 }));
	const result = await runWorkflowScript(`${HEADER}${body}`, { agentRunner: fake.runner, ...options });
	return { result, requests: fake.requests };
}

describe("Claude Code's effort: max", () => {
	it("runs as thinking xhigh, the most pi has, in the check and in the run", async () => {
		const body = 'await agent("think hard", { effort: "max" });\nreturn 1;';
		expect(checkWorkflowScript(`${HEADER}${body}`).diagnostics).toEqual([]);
		const { result, requests } = await run(body);
		expect(result.status).toBe("completed");
		expect(requests.map((request) => request.thinking)).toEqual(["xhigh"]);
	});

	it('is Claude Code\'s word only: `thinking: "max"` is still refused', async () => {
		const { result } = await run('await agent("x", { thinking: "max" });');
		expect(result.error?.code).toBe("agent_options_invalid");
	});

	it("a level neither runtime has is still refused with the list", async () => {
		const { result } = await run('await agent("x", { effort: "ultra" });');
		expect(result.error?.message).toBe(
			'`agent()` option `thinking` must be one of off, minimal, low, medium, high, xhigh, got "ultra" (2:12)',
		);
	});
});

describe("Claude Code's budget: total, spent(), remaining()", () => {
	it("read the run's token budget", async () => {
		const { result } = await run(
			'const before = [budget.total, budget.spent(), budget.remaining()];\nawait agent("one");\nreturn { before, after: [budget.total, budget.spent(), budget.remaining()] };',
			{ budget: { tokens: 1000 } },
		);
		expect(result.value).toEqual({ before: [1000, 0, 1000], after: [1000, 100, 900] });
	});

	it("with no token budget: total is null and remaining() is Infinity, so `budget.total && …` guards skip", async () => {
		const { result } = await run(
			'await agent("one");\nreturn { total: budget.total, unlimited: budget.remaining() === Infinity, spent: budget.spent(), guarded: budget.total && budget.remaining() < 60_000 };',
		);
		expect(result.value).toEqual({ total: null, unlimited: true, spent: 100, guarded: null });
	});
});

describe("pi-dynamic-workflows' phase(name, { budget: n })", () => {
	it("is a token budget for the phase", async () => {
		const { result, requests } = await run(
			'phase("Explore", { budget: 150 });\nawait agent("1");\nawait agent("2");\nawait agent("3");',
		);
		expect(requests.map((request) => request.prompt)).toEqual(["1", "2"]);
		expect(result.error?.code).toBe("budget_exhausted");
		expect(result.error?.message).toBe(
			'Phase `Explore` budget exhausted: 200 of 150 tokens spent. Raise it in `phase("Explore", { budget: { tokens } })` (5:12)',
		);
	});

	it("a number that is not a positive budget says so, in the check and in the run", async () => {
		const body = 'phase("Explore", { budget: -1 });\nreturn 1;';
		const message = "`phase()` budget `tokens` must be a positive number, got -1";
		expect(checkWorkflowScript(`${HEADER}${body}`).diagnostics.map((d) => d.message)).toEqual([message]);
		const { result } = await run(body);
		expect(result.error?.message).toBe(`${message} (2:6)`);
	});
});
