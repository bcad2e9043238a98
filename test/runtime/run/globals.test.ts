import { describe, expect, it } from "vitest";
import type { WorkflowProgressEvent } from "../../../src/runtime/index.ts";
import { runWorkflowScript } from "../../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

async function run(body: string, options: Partial<Parameters<typeof runWorkflowScript>[1]> = {}) {
	const events: WorkflowProgressEvent[] = [];
	const fake = createFakeRunner();
	const result = await runWorkflowScript(`${HEADER}${body}`, {
		agentRunner: fake.runner,
		onProgress: (e) => events.push(e),
		...options,
	});
	return { result, events, fake };
}

describe("phase()", () => {
	it("without fn: agents after it belong to it, and the next phase ends it", async () => {
		const { events, fake } = await run(`phase("a"); await agent("1"); phase("b"); await agent("2");`);
		expect(fake.requests.map((r) => r.phase)).toEqual(["a", "b"]);
		const phases = events
			.filter((e) => e.type === "phase_start" || e.type === "phase_end")
			.map((e) => `${e.type}:${"phase" in e ? e.phase : ""}`);
		expect(phases).toEqual(["phase_start:a", "phase_end:a", "phase_start:b", "phase_end:b"]);
	});

	it("with fn: runs fn inside the phase, returns its result, then returns to the enclosing phase", async () => {
		const { result, fake } = await run(
			`phase("outer"); const v = await phase("inner", async () => { await agent("in"); return 7; }); await agent("after"); return v;`,
		);
		expect(result.value).toBe(7);
		expect(fake.requests.map((r) => [r.prompt, r.phase])).toEqual([
			["in", "inner"],
			["after", "outer"],
		]);
	});

	it("lets opts.phase override the current phase", async () => {
		const { fake } = await run(`phase("a"); await agent("x", { phase: "explicit" });`);
		expect(fake.requests[0]?.phase).toBe("explicit");
	});
});

describe("log() and console", () => {
	it("adds log entries with data and level, in the current phase", async () => {
		const { events } = await run(
			`phase("p"); log("hello", { n: 1 }); console.warn("careful", 2); console.error({ e: true }); console.log("plain");`,
		);
		const logs = events.filter((e) => e.type === "log");
		expect(logs).toEqual([
			expect.objectContaining({ level: "info", message: "hello", data: { n: 1 }, phase: "p" }),
			expect.objectContaining({ level: "warn", message: "careful 2" }),
			expect.objectContaining({ level: "error", message: '{"e":true}' }),
			expect.objectContaining({ level: "info", message: "plain" }),
		]);
	});

	it("on data that is not JSON: throws value_not_json with the path of the bad value", async () => {
		const { result } = await run(`\nlog("x", { items: [1, { fn() {} }] });`);
		expect(result.error?.code).toBe("value_not_json");
		expect(result.error?.message).toContain("data.items[1].fn");
		expect(result.error?.line).toBe(3);
	});

	it("counts entries past the kept limit as dropped", async () => {
		const { result } = await run(`for (let i = 0; i < 25; i++) log("n" + i); return budget.logs;`, {
			limits: { maxLogEntries: 10 },
		});
		expect(result.value).toEqual({ used: 10, limit: 10, dropped: 15 });
		expect(result.droppedLogs).toBe(15);
	});
});

describe("budget", () => {
	it("shows agent calls used, limit and remaining, and tokens spent against the total", async () => {
		const { result } = await run(
			`await agent("a"); await agent("b"); const t = budget.tokens; return { calls: budget.agentCalls, total: t.total, spent: t.spent(), remaining: t.remaining() };`,
			{ budget: { maxAgentCalls: 5, tokens: 100 } },
		);
		expect(result.value).toEqual({
			calls: { used: 2, limit: 5, remaining: 3 },
			total: 100,
			spent: 20,
			remaining: 80,
		});
	});

	it("counts the script's own agent() and log() calls in the same synchronous stretch", async () => {
		const { result } = await run(
			`const before = [budget.agentCalls.used, budget.logs.used];
			const p = agent("a");
			log("x");
			const after = [budget.agentCalls.used, budget.logs.used];
			await p;
			return { before, after };`,
		);
		expect(result.value).toEqual({ before: [0, 0], after: [1, 1] });
	});

	it("shows an agent's tokens once it has finished, though the script posted nothing since its last read", async () => {
		// Slow enough that the first read, in the same stretch as agent(), always comes before the tokens.
		const fake = createFakeRunner(() => ({ text: "ok", tokens: 30, delayMs: 300 }));
		const result = await runWorkflowScript(
			`${HEADER}const p = agent("a");
const before = budget.tokens.spent();
await p;
return [before, budget.tokens.spent(), budget.agentCalls.remaining];`,
			{ agentRunner: fake.runner, budget: { maxAgentCalls: 5 } },
		);
		expect(result.value).toEqual([0, 30, 4]);
	});

	it("reports Infinity remaining tokens when there is no total", async () => {
		const { result } = await run(`return [budget.tokens.total, budget.tokens.remaining() === Infinity];`);
		expect(result.value).toEqual([null, true]);
	});

	it("past the agent cap: agent() throws agent_cap_reached naming the limit", async () => {
		const { result, fake } = await run(`\nfor (let i = 0; i < 5; i++) await agent("n" + i);`, {
			budget: { maxAgentCalls: 3 },
		});
		expect(fake.requests).toHaveLength(3);
		expect(result.error).toMatchObject({ code: "agent_cap_reached", line: 3 });
		expect(result.error?.message).toMatch(
			/^Agent call limit reached \(3\)\. A loop that calls `agent\(\)` per item can run past it: bound the loop \(`items.slice\(0, n\)`, or stop when `budget.agentCalls.remaining` is 0\), or raise it with `budget.maxAgentCalls` \(3:\d+\)$/,
		);
	});

	it("once tokens are spent: agent() throws budget_exhausted", async () => {
		const { result, fake } = await run(`for (let i = 0; i < 5; i++) await agent("n" + i);`, {
			budget: { tokens: 25 },
		});
		expect(fake.requests).toHaveLength(3);
		expect(result.error?.code).toBe("budget_exhausted");
		expect(result.error?.message).toMatch(/30 of 25 tokens spent\. Raise it with `budget.tokens`/);
	});
});

describe("determinism guards", () => {
	it.each([
		["Date.now()", "`Date.now()` is unavailable: it breaks resume. Pass a timestamp in `args`"],
		["new Date()", "`new Date()` is unavailable: it breaks resume. Pass a timestamp in `args`"],
		["Date()", "`Date()` is unavailable: it breaks resume. Pass a timestamp in `args`"],
		[
			"Math.random()",
			"`Math.random()` is unavailable: it breaks resume. Put the sample index in the prompt or label instead",
		],
	])("%s throws determinism with what to do instead", async (expr, message) => {
		// Through `globalThis`, where the static pass (which refuses the literal calls first) does not look.
		const { result } = await run(`\nconst x = ${expr.replace(/(Date|Math)/, "globalThis.$1")};`);
		expect(result.error).toMatchObject({ code: "determinism", line: 3 });
		expect(result.error?.message).toBe(`${message} (3:${result.error?.column})`);
	});

	it("keeps dates from values working", async () => {
		const { result } = await run(
			`const d = new Date(Date.UTC(2020, 0, 2)); return [d.toISOString(), Date.parse("2020-01-02T00:00:00Z"), d instanceof Date];`,
		);
		expect(result.value).toEqual(["2020-01-02T00:00:00.000Z", 1577923200000, true]);
	});
});

describe("args, cwd, process and sleep", () => {
	it("passes args and cwd, and process has cwd() only", async () => {
		const { result } = await run(`return [args.target, cwd, process.cwd(), Object.keys(process)];`, {
			args: { target: "src" },
			cwd: "/tmp/x",
		});
		expect(result.value).toEqual(["src", "/tmp/x", "/tmp/x", ["cwd"]]);
	});

	it("gives undefined args when none are passed", async () => {
		const { result } = await run(`return typeof args;`);
		expect(result.value).toBe("undefined");
	});

	it("validates args against meta.args before anything runs", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(
			`export const meta = { name: "t", description: "d", args: { type: "object", properties: { target: { type: "string" } }, required: ["target"] } };\nawait agent("x");`,
			{ agentRunner: fake.runner, args: { target: 3 } },
		);
		expect(result.error?.code).toBe("args_invalid");
		expect(fake.requests).toHaveLength(0);
	});

	it("rejects args that are not JSON data with the path", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(HEADER, {
			agentRunner: fake.runner,
			args: { items: [1, 2, 3, { fn: () => 1 }] },
		});
		expect(result.error).toMatchObject({ code: "value_not_json" });
		expect(result.error?.message).toContain("`args.items[3].fn` is a function");
	});

	it("keeps the globals read-only", async () => {
		const { result } = await run(
			`try { agent = null; } catch (e) { return [e.name, typeof agent, Reflect.deleteProperty(globalThis, "parallel")]; }`,
		);
		expect(result.value).toEqual(["TypeError", "function", false]);
	});

	it("sleep() waits and resolves", async () => {
		const { result } = await run(`await sleep(5); return "slept";`);
		expect(result.value).toBe("slept");
	});
});
