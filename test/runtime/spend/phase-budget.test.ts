/**
 * `phase(name, { budget })` and `phase(name, { budget }, fn)`: a phase's agent calls, tokens and dollars, the
 * phases enclosing a call (and the caller's, across `workflow()`), the old forms unchanged, and bad options.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
	runWorkflowScript,
	type WorkflowAgentRequest,
	type WorkflowProgressEvent,
	type WorkflowRunOptions,
} from "../../../src/runtime/index.ts";
import { createFakeRunner, type FakeAnswer, HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

async function run(
	body: string,
	answer: (request: WorkflowAgentRequest) => FakeAnswer = () => ({ text: "ok", costUsd: 0.1, tokens: 100 }),
	options: Partial<WorkflowRunOptions> = {},
) {
	const fake = createFakeRunner(answer);
	const events: WorkflowProgressEvent[] = [];
	const result = await runWorkflowScript(`${HEADER}${body}`, {
		agentRunner: fake.runner,
		onProgress: (event) => events.push(event),
		...options,
	});
	return { result, events, prompts: fake.requests.map((request) => request.prompt) };
}

/** What each `agent()` call gave: its value, or the code it threw. */
const TRY = `const tryAgent = async (p) => { try { return await agent(p); } catch (e) { return e.code; } };\n`;

describe("phase budgets", () => {
	it("costUsd: past it, agent() in that phase throws budget_exhausted naming the phase; other phases go on", async () => {
		const { result, prompts } = await run(
			`${TRY}phase("review", { budget: { costUsd: 0.15 } });
const a = [await tryAgent("r1"), await tryAgent("r2")];
let refused;
try { await agent("r3"); } catch (e) { refused = e.message; }
phase("fix");
return [...a, refused, await tryAgent("f1")];`,
		);
		expect(prompts).toEqual(["r1", "r2", "f1"]);
		const [r1, r2, refused, f1] = result.value as string[];
		expect([r1, r2, f1]).toEqual(["ok", "ok", "ok"]);
		expect(refused).toBe(
			'Phase `review` cost cap reached: $0.20 of $0.15 spent, so no new agent starts; children already running finish. Raise it in `phase("review", { budget: { costUsd } })` and resume the run: its finished calls replay at no cost',
		);
	});

	it("agentCalls and tokens: each stops the phase's calls with its own message", async () => {
		const calls = await run(
			`phase("p", { budget: { agentCalls: 2 } }); await agent("1"); await agent("2");\nawait agent("3");`,
		);
		expect(calls.result.error).toMatchObject({
			code: "budget_exhausted",
			message:
				'Phase `p` budget exhausted: 2 of 2 agent calls made. Raise it in `phase("p", { budget: { agentCalls } })` (3:12)',
			details: { phase: "p", field: "agentCalls", limit: 2, spent: 2 },
		});
		const tokens = await run(
			`phase("p", { budget: { tokens: 150 } }); await agent("1"); await agent("2");\nawait agent("3");`,
		);
		expect(tokens.prompts).toEqual(["1", "2"]);
		expect(tokens.result.error?.message).toBe(
			'Phase `p` budget exhausted: 200 of 150 tokens spent. Raise it in `phase("p", { budget: { tokens } })` (3:12)',
		);
	});

	it("with fn: the budget holds inside fn, fn's value comes back, and its phase_start carries the budget", async () => {
		const { result, events } = await run(
			`${TRY}const inner = await phase("batch", { budget: { agentCalls: 1 } }, async () => [await tryAgent("a"), await tryAgent("b")]);
return [inner, await tryAgent("after")];`,
		);
		expect(result.value).toEqual([["ok", "budget_exhausted"], "ok"]);
		expect(events.find((event) => event.type === "phase_start")).toMatchObject({
			phase: "batch",
			budget: { agentCalls: 1 },
		});
	});

	it("a call in a nested phase counts against the phases enclosing it too", async () => {
		const { result, prompts } = await run(
			`${TRY}phase("all", { budget: { costUsd: 0.2 } });
const a = await phase("one", async () => [await tryAgent("1a"), await tryAgent("1b")]);
const b = await phase("two", { budget: { costUsd: 5 } }, async () => [await tryAgent("2a")]);
return [a, b];`,
		);
		expect(result.value).toEqual([["ok", "ok"], ["budget_exhausted"]]);
		expect(prompts).toEqual(["1a", "1b"]);
	});

	it("phase(name) and phase(name, fn) work as before, and `phase(name, options)` with no budget is a plain phase", async () => {
		const { result, prompts, events } = await run(
			`phase("a"); await agent("x"); const v = await phase("b", async () => { await agent("y"); return 3; }); phase("c", {}); await agent("z"); return v;`,
		);
		expect(result.value).toBe(3);
		expect(prompts).toEqual(["x", "y", "z"]);
		expect(events.filter((event) => event.type === "phase_start").map((event) => event.phase)).toEqual([
			"a",
			"b",
			"c",
		]);
	});

	it.each([
		[
			`phase("p", { budget: { costUSD: 1 } });`,
			"Unknown `phase()` budget field `costUSD`. Did you mean `costUsd`? Known: agentCalls, tokens, costUsd (2:6)",
		],
		[
			`phase("p", { costUsd: 1 });`,
			"Unknown `phase()` option `costUsd`: limits go in `budget`. Write `{ budget: { costUsd: … } }` (2:6)",
		],
		[`phase("p", { budgte: {} });`, "Unknown `phase()` option `budgte`. Did you mean `budget`? Known: budget (2:6)"],
		[
			`phase("p", { budget: { agentCalls: 1.5 } });`,
			"`phase()` budget `agentCalls` must be a positive integer, got 1.5 (2:6)",
		],
		[
			`phase("p", "the review");`,
			'`phase(name, options, fn?)` options must be an object such as `{ budget: { costUsd: 0.5 } }`, got "the review". To run code inside the phase, pass a function: `phase(name, () => agent(…))` (2:6)',
		],
	])("on %s: phase_options_invalid with the fix, before anything runs", async (body, message) => {
		const { result, prompts } = await run(`${body}\nawait agent("never");`);
		expect(result.error).toMatchObject({ code: "phase_options_invalid", message });
		expect(prompts).toEqual([]);
	});

	it("options computed at run time are checked when the phase starts, at its line", async () => {
		const { result, prompts } = await run(
			`await agent("first");\nconst opts = { budget: { costUsd: -1 } };\nphase("p", JSON.parse(JSON.stringify(opts)));`,
		);
		expect(prompts).toEqual(["first"]);
		expect(result.error).toMatchObject({
			code: "phase_options_invalid",
			message: "`phase()` budget `costUsd` must be a positive number, got -1 (4:6)",
		});
	});
});

describe("phase budgets across workflow()", () => {
	let cwd: string;
	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-phase-budget-"));
	});
	afterEach(() => rmSync(cwd, { recursive: true, force: true }));

	it("a nested workflow's calls count against the caller's phase it was started in", async () => {
		writeFileSync(
			join(cwd, "child.js"),
			`export const meta = { name: "child", description: "d" };\nconst out = [];\nfor (const n of [1, 2, 3]) { try { out.push(await agent("child " + n)); } catch (e) { out.push(e.code); } }\nreturn out;`,
		);
		const { result, prompts } = await run(
			`phase("delegate", { budget: { costUsd: 0.15 } });\nreturn await workflow("child.js");`,
			undefined,
			{ cwd },
		);
		expect(result.value).toEqual(["ok", "ok", "budget_exhausted"]);
		expect(prompts).toEqual(["child 1", "child 2"]);
	});
});
