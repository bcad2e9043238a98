/**
 * Every limit of contract §3 as a script author meets it through `runWorkflowScript`: the code, which limit, its
 * value, how to raise it, and where in the file. Full messages, so a wording change is a deliberate diff.
 */
import { describe, expect, it } from "vitest";
import { runWorkflowScript, type WorkflowRunOptions } from "../../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

async function run(body: string, options: Partial<WorkflowRunOptions> = {}) {
	return runWorkflowScript(`${HEADER}${body}`, { agentRunner: createFakeRunner().runner, ...options });
}

describe("runWorkflowScript() limits", () => {
	it("memory: fails with limit_memory naming the cap and how to raise it", async () => {
		const result = await run(`const keep = [];\nwhile (true) keep.push(new Array(100000).fill(keep.length));`, {
			limits: { memoryBytes: 32 * 1024 * 1024 },
		});
		expect(result.error?.code).toBe("limit_memory");
		expect(result.error?.message).toMatch(
			/^The script ran out of memory \(limit: 32 MiB\)\. Use less memory or raise `limits.memoryBytes`/,
		);
	});

	it("stack: fails with limit_stack and the recursion's position", async () => {
		const result = await run(`function down(n) { return down(n + 1) + 1; }\ndown(0);`);
		expect(result.error?.code).toBe("limit_stack");
		expect(result.error?.message).toMatch(
			/^The script overflowed its stack \(too deep recursion or nesting\) \(limit: 1 MiB\)\. Nest less deeply or raise `limits.stackBytes`/,
		);
		expect(result.error?.line).toBe(2);
	});

	it("one synchronous stretch: fails with limit_cpu naming the slice", async () => {
		const result = await run(`await agent("first");\nfor (;;) {}`, { limits: { syncSliceMs: 200 } });
		expect(result.error?.code).toBe("limit_cpu");
		expect(result.error?.message).toMatch(
			/^The script ran without pausing for too long \(a loop that never awaits\?\) \(limit: 200 ms\)\. Pause between heavy steps with `await sleep\(0\)` \(`await null` does not end the stretch\), or raise `limits.syncSliceMs`/,
		);
		expect(result.counts.completed).toBe(1);
	});

	it("a loop that keeps awaiting is not a CPU limit: time spent awaiting agents is not bounded", async () => {
		const result = await run(
			`let n = 0;\nfor (let i = 0; i < 30; i++) { await agent("step " + i); n++; }\nreturn n;`,
			{
				limits: { syncSliceMs: 200 },
				agentRunner: createFakeRunner(() => ({ text: "ok", delayMs: 10 })).runner,
			},
		);
		expect(result.value).toBe(30);
	});

	it("script size: fails with script_too_large before anything runs", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}await agent("x");\n// ${"x".repeat(2000)}`, {
			agentRunner: fake.runner,
			limits: { maxScriptBytes: 1024 },
		});
		expect(result.error?.code).toBe("script_too_large");
		expect(result.error?.message).toContain("limits.maxScriptBytes");
		expect(fake.requests).toHaveLength(0);
	});

	it("a value crossing the boundary: fails with limit_value_size naming the value", async () => {
		const result = await run(`log("big", { blob: "x".repeat(300000) });`, { limits: { maxValueBytes: 100000 } });
		expect(result.error?.code).toBe("limit_value_size");
		expect(result.error?.message).toContain("data");
		expect(result.error?.line).toBe(2);
	});

	it("the returned value: fails with limit_value_size and budget.maxResultBytes", async () => {
		const result = await run(`return "y".repeat(5000);`, { budget: { maxResultBytes: 1000 } });
		expect(result.error).toMatchObject({ code: "limit_value_size", line: 2, column: 1 });
		expect(result.error?.message).toBe(
			"The script's return value is 5002 bytes of JSON (limit: 1000). Return less (a summary, or only the fields needed), or raise `budget.maxResultBytes` (2:1)",
		);
	});

	it("tool calls: the call past limits.maxToolCalls fails with limit_tool_calls at its line, the earlier ones ran", async () => {
		let ran = 0;
		const result = await run(`for (let i = 0; i < 10; i++) await tool("step", { i });`, {
			limits: { maxToolCalls: 3 },
			tools: {
				step: async () => {
					ran++;
					return { output: "ok" };
				},
			},
		});
		expect(ran).toBe(3);
		expect(result.error).toMatchObject({ code: "limit_tool_calls", line: 2 });
		expect(result.error?.message).toBe(
			"Tool call limit reached (3). A loop that calls `tool()` per item can run past it: bound the loop, or raise `limits.maxToolCalls` (2:40)",
		);
	});

	it("ask calls: the call past limits.maxAskCalls fails with limit_ask_calls at its line, the earlier ones were asked", async () => {
		let asked = 0;
		const result = await run(`for (let i = 0; i < 10; i++) await ask("Go " + i + "?");`, {
			limits: { maxAskCalls: 3 },
			ask: () => `yes ${++asked}`,
		});
		expect(asked).toBe(3);
		expect(result.error).toMatchObject({ code: "limit_ask_calls", line: 2 });
		expect(result.error?.message).toBe(
			"`ask()` call limit reached (3). A loop that calls `ask()` per item can run past it: bound the loop, or raise `limits.maxAskCalls` (2:39)",
		);
	});

	it("ask calls: a loop of 1,200 that catches the error meets the default limit of 1,000; none past it is asked", async () => {
		let asked = 0;
		const result = await run(
			`let refused = 0;\nfor (let i = 0; i < 1200; i++) { try { await ask("Go " + i + "?"); } catch (e) { if (e.code === "limit_ask_calls") refused++; } }\nreturn refused;`,
			{ ask: () => `yes ${++asked}` },
		);
		expect(result.value).toBe(200);
		expect(asked).toBe(1000);
	});
});
