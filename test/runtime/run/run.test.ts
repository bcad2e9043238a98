import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { WorkflowProgressEvent } from "../../../src/runtime/index.ts";
import { runWorkflowScript } from "../../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

describe("runWorkflowScript()", () => {
	it("returns the script's value with meta, counts, usage and events in order", async () => {
		const events: WorkflowProgressEvent[] = [];
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}phase("p"); log("go"); return { a: await agent("x") };`, {
			agentRunner: fake.runner,
			onProgress: (e) => events.push(e),
		});
		expect(result).toMatchObject({
			status: "completed",
			value: { a: "done: x" },
			meta: { name: "t", description: "test workflow" },
			counts: { calls: 1, started: 1, completed: 1, failed: 0, skipped: 0 },
			usage: { total: 10 },
			failures: [],
		});
		expect(events.map((e) => e.type)).toEqual([
			"run_start",
			"phase_start",
			"log",
			"agent_queued",
			"agent_started",
			"agent_finished",
			"phase_end",
			"run_end",
		]);
	});

	it("when every agent failed: reports failed, not completed", async () => {
		const fake = createFakeRunner(() => ({ fail: "down" }));
		const result = await runWorkflowScript(`${HEADER}return await parallel([() => agent("a"), () => agent("b")]);`, {
			agentRunner: fake.runner,
		});
		expect(result.status).toBe("failed");
		expect(result.error?.code).toBe("agents_failed");
		expect(result.failures).toHaveLength(2);
	});

	it("on an uncaught error: fails with the message and the script's own line:column", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}const x = 1;\nfunction f() {\n  return null.foo;\n}\nf();`, {
			agentRunner: fake.runner,
		});
		expect(result.error).toMatchObject({ code: "script_error", line: 4, column: 14 });
		expect(result.error?.message).toBe("TypeError: cannot read property 'foo' of null (4:14)");
	});

	it("on a syntax error: fails with syntax_error at the author's position before anything runs", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}\nconst = 3;`, { agentRunner: fake.runner });
		expect(result.error).toMatchObject({ code: "syntax_error", line: 3, column: 7 });
	});

	it("on a missing header: fails with meta_invalid", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`await agent("x");`, { agentRunner: fake.runner });
		expect(result.error?.code).toBe("meta_invalid");
		expect(fake.requests).toHaveLength(0);
	});

	it("on a promise nothing can settle: fails at once with unsettled", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}await new Promise(() => {});`, { agentRunner: fake.runner });
		expect(result.error?.code).toBe("unsettled");
	});

	it("on a return value that is not JSON: fails with the path", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}return { ok: 1, bad: [() => 1] };`, {
			agentRunner: fake.runner,
		});
		expect(result.error?.code).toBe("value_not_json");
		expect(result.error?.message).toContain("result.bad[0]");
	});

	it("runs 1,000 concurrent agent calls through the queue", async () => {
		const fake = createFakeRunner((r) => `r${r.index}`);
		const result = await runWorkflowScript(
			`${HEADER}const out = await parallel(Array.from({ length: 1000 }, (_, i) => () => agent("n" + i))); return out.filter((x) => x).length;`,
			{
				agentRunner: fake.runner,
				concurrency: 16,
			},
		);
		expect(result.value).toBe(1000);
		expect(fake.maxRunning).toBeLessThanOrEqual(16);
		expect(result.counts.completed).toBe(1000);
	});

	it("throws a TypeError at once for misuse of its options", async () => {
		await expect(runWorkflowScript(HEADER, {} as never)).rejects.toThrow(
			"Expected `options.agentRunner` to be a function, got undefined",
		);
		await expect(
			runWorkflowScript(HEADER, { agentRunner: createFakeRunner().runner, concurrency: 0 }),
		).rejects.toThrow("Expected `concurrency` to be a positive integer, got `0` (number)");
	});

	it.each([
		[
			{ timeoutMs: 2 ** 31 },
			"Expected `timeoutMs` to be a positive number at most 2147483647, got `2147483648` (number)",
		],
		[{ timeoutMs: 1e308 }, "Expected `timeoutMs` to be a positive number at most 2147483647, got `1e+308` (number)"],
		[
			{ timeoutMs: Number.POSITIVE_INFINITY },
			"Expected `timeoutMs` to be a positive number at most 2147483647, got `Infinity` (number)",
		],
		[{ concurrency: 1.5 }, "Expected `concurrency` to be a positive integer, got `1.5` (number)"],
		[{ budget: { tokens: Number.NaN } }, "Expected `budget.tokens` to be a positive number, got `NaN` (number)"],
		[
			{ budget: { maxResultBytes: Number.POSITIVE_INFINITY } },
			"Expected `budget.maxResultBytes` to be a positive integer, got `Infinity` (number)",
		],
		[{ limits: 5 }, "Expected `limits` to be an object, got number"],
		[
			{ limits: { maxItem: 10 } },
			"Expected `limits` keys among maxAgentCalls, maxItems, maxScriptBytes, maxLogEntries, memoryBytes, stackBytes, syncSliceMs, maxValueBytes, maxWorkflowCalls, maxWorkflowsRunning, maxToolCalls, maxToolsRunning, maxAskCalls, got `maxItem`",
		],
		[{ limits: { maxItems: 0 } }, "Expected `limits.maxItems` to be a positive integer, got `0` (number)"],
		[
			{ limits: { memoryBytes: 1024 } },
			"Expected `limits.memoryBytes` to be an integer from 33554432 to 2147483648, got 1024 (number)",
		],
		[
			{ limits: { stackBytes: 2 ** 40 } },
			"Expected `limits.stackBytes` to be an integer from 65536 to 67108864, got 1099511627776 (number)",
		],
		[
			{ limits: { syncSliceMs: 2 ** 31 } },
			"Expected `limits.syncSliceMs` to be an integer from 1 to 86400000, got 2147483648 (number)",
		],
		[
			{ limits: { maxValueBytes: 1e12 } },
			"Expected `limits.maxValueBytes` to be an integer from 1 to 1073741824, got 1000000000000 (number)",
		],
	])("on %j: throws that TypeError at once, before any child starts", async (options, message) => {
		const fake = createFakeRunner();
		await expect(
			runWorkflowScript(`${HEADER}return await agent("x");`, { agentRunner: fake.runner, ...(options as object) }),
		).rejects.toThrow(new TypeError(message));
		expect(fake.requests).toHaveLength(0);
	});

	it("accepts the longest timeoutMs Node's timers take: the run is not cut short", async () => {
		const fake = createFakeRunner(() => ({ text: "done", delayMs: 30 }));
		const result = await runWorkflowScript(`${HEADER}return await agent("x");`, {
			agentRunner: fake.runner,
			timeoutMs: 2 ** 31 - 1,
		});
		expect(result.value).toBe("done");
	});
});

describe("runWorkflowScript() cancellation", () => {
	it("on abort: stops queued and running children, reports what finished, and leaves nothing running", async () => {
		const fake = createFakeRunner((r) => (r.prompt === "quick" ? "fast answer" : { hang: true }));
		const controller = new AbortController();
		const events: WorkflowProgressEvent[] = [];
		const pending = runWorkflowScript(
			`${HEADER}await agent("quick"); return await parallel(Array.from({ length: 6 }, (_, i) => () => agent("slow " + i)));`,
			{
				agentRunner: fake.runner,
				signal: controller.signal,
				concurrency: 2,
				onProgress: (e) => {
					events.push(e);
					if (e.type === "agent_started" && e.label === "slow 1") setTimeout(() => controller.abort(), 5);
				},
			},
		);
		const result = await pending;
		expect(result.status).toBe("stopped");
		expect(result.error?.code).toBe("cancelled");
		expect(fake.running).toBe(0);
		expect(fake.requests).toHaveLength(3);
		expect(result.counts).toMatchObject({ completed: 1, failed: 2, skipped: 4 });
		expect(events.at(-1)?.type).toBe("run_end");
	});

	it("on an already-aborted signal: runs no child", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}await agent("x");`, {
			agentRunner: fake.runner,
			signal: AbortSignal.abort(),
		});
		expect(result.status).toBe("stopped");
		expect(fake.requests).toHaveLength(0);
	});

	it("past timeoutMs: fails with timed_out naming the limit, and stops children", async () => {
		const fake = createFakeRunner(() => ({ hang: true }));
		const result = await runWorkflowScript(`${HEADER}await agent("x");`, { agentRunner: fake.runner, timeoutMs: 50 });
		expect(result.status).toBe("failed");
		expect(result.error?.code).toBe("timed_out");
		expect(result.error?.message).toBe("The workflow ran past its deadline (limit: 50 ms). Raise `timeoutMs`");
		expect(fake.running).toBe(0);
	});

	it("when the script returns with agents still running: stops them, records why, and fails at the launch", async () => {
		const fake = createFakeRunner((r) => (r.prompt === "left" ? { hang: true } : "ok"));
		const result = await runWorkflowScript(`${HEADER}agent("left"); return await agent("kept");`, {
			agentRunner: fake.runner,
		});
		expect(result.status).toBe("failed");
		expect(result.error).toMatchObject({ code: "not_awaited", line: 2, column: 6 });
		expect(result.value).toBe("ok");
		expect(fake.running).toBe(0);
		expect(result.failures).toEqual([
			expect.objectContaining({ label: "left", cause: "still running when the script returned" }),
		]);
	});
});

describe("workflow() nested", () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), "wf-nested-"));
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	it("runs a child workflow by path with args, sharing the budget and counters", async () => {
		writeFileSync(
			join(dir, "child.js"),
			`export const meta = { name: "child", description: "c", args: { type: "object", required: ["n"] } };\nreturn await agent("child " + args.n);`,
		);
		const fake = createFakeRunner();
		const result = await runWorkflowScript(
			`${HEADER}const v = await workflow("./child.js", { n: 2 }); return [v, budget.agentCalls.used];`,
			{
				agentRunner: fake.runner,
				cwd: dir,
			},
		);
		expect(result.value).toEqual(["done: child 2", 1]);
		expect(fake.requests[0]?.key).toMatch(/^child~[0-9a-f]{16}#0\//);
	});

	it("shows the parent a nested workflow's agent calls, though the parent posted nothing since its last read", async () => {
		writeFileSync(
			join(dir, "child.js"),
			`export const meta = { name: "child", description: "c" };\nawait agent("one");\nawait agent("two");\nreturn 2;`,
		);
		const fake = createFakeRunner();
		const result = await runWorkflowScript(
			`${HEADER}const child = workflow("./child.js");\nconst before = budget.agentCalls.used;\nawait child;\nreturn [before, budget.agentCalls.used];`,
			{ agentRunner: fake.runner, cwd: dir },
		);
		expect(result.value).toEqual([0, 2]);
	});

	it("refuses a second level of nesting", async () => {
		writeFileSync(join(dir, "inner.js"), `export const meta = { name: "inner", description: "i" };\nreturn 1;`);
		writeFileSync(
			join(dir, "mid.js"),
			`export const meta = { name: "mid", description: "m" };\nreturn await workflow("./inner.js");`,
		);
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}return await workflow("./mid.js");`, {
			agentRunner: fake.runner,
			cwd: dir,
		});
		expect(result.error?.code).toBe("workflow_nesting");
		expect(result.error?.message).toContain("Nested workflow `mid` failed");
	});

	it("on a missing file: throws workflow_not_found that says what to pass", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}return await workflow("./nope.js");`, {
			agentRunner: fake.runner,
			cwd: dir,
		});
		expect(result.error?.code).toBe("workflow_not_found");
		expect(result.error?.line).toBe(2);
	});
});
