/**
 * Hostile `tool()` use: a flood of calls (the cap holds, the tool queue bounds how many run at once), a huge output
 * (cut, the run goes on), a tool that never returns and ignores its signal (the timeout ends the call, a cancel the
 * run), a tool a hook refuses, names that try to reach `workflow` itself or the map's prototype, and a forged
 * host call. Nothing escapes to the host as an unhandled error, and a bystander run is unaffected.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolRefusedError } from "../../src/errors.ts";
import type { WorkflowTool } from "../../src/runtime/index.ts";
import { beside, checkCase, guardHost, LOAD_PROOF } from "./support.ts";

guardHost();

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => process.on("unhandledRejection", onUnhandled));
afterAll(() => {
	process.off("unhandledRejection", onUnhandled);
	expect(unhandled, "unhandled rejections in the host").toEqual([]);
});

/** A tool that counts its calls and how many ran at once. */
function counting() {
	const seen = { calls: 0, running: 0, peak: 0 };
	const tool: WorkflowTool = async () => {
		seen.calls++;
		seen.running++;
		seen.peak = Math.max(seen.peak, seen.running);
		await new Promise((resolve) => setTimeout(resolve, 1));
		seen.running--;
		return { output: "ok" };
	};
	return { seen, tool };
}

describe("hostile tool() calls", () => {
	it("a flood of calls: limit_tool_calls past the cap, at most maxToolsRunning at once", async () => {
		const { seen, tool } = counting();
		await beside(() =>
			checkCase(
				`await Promise.all(Array.from({ length: 5000 }, (_, i) => tool("step", { i })));`,
				{ code: "limit_tool_calls", message: "Tool call limit reached (1000)" },
				{ ...LOAD_PROOF, tools: { step: tool } },
			),
		);
		expect(seen.calls).toBeLessThanOrEqual(1000);
		expect(seen.peak).toBeLessThanOrEqual(4);
	});

	it("a caught flood cannot go past the cap either", async () => {
		const { seen, tool } = counting();
		await checkCase(
			`let refused = 0;\nfor (let i = 0; i < 1200; i++) { try { await tool("step", { i }); } catch (e) { if (e.code === "limit_tool_calls") refused++; } }\nreturn refused;`,
			{ value: 200 },
			{ tools: { step: tool }, limits: { maxToolCalls: 1000 } },
		);
		expect(seen.calls).toBe(1000);
	});

	it("a huge output (50 MB) is cut; the script gets its head and tail", async () => {
		const huge = "x".repeat(50 * 1024 * 1024);
		await checkCase(
			`const r = await tool("dump", {});\nreturn [r.output.length < 70000, r.output.includes("characters cut")];`,
			{ value: [true, true] },
			{ tools: { dump: async () => ({ output: huge }) } },
		);
	});

	it("a tool that never returns and ignores its signal: tool_timeout, and nothing is left running", async () => {
		await checkCase(
			`await tool("hang", {}, { timeoutMs: 100 });`,
			{ code: "tool_timeout", message: "did not finish within 100 ms" },
			{ tools: { hang: () => new Promise(() => {}) } },
		);
	});

	it("a tool that never returns, under the run's deadline: timed_out", async () => {
		await checkCase(
			`await tool("hang", {});`,
			{ code: "timed_out", message: "ran past its deadline" },
			{ tools: { hang: () => new Promise(() => {}) }, timeoutMs: 300 },
		);
	});

	it("a tool a hook refuses: tool_refused, catchable, and the script goes on", async () => {
		await checkCase(
			`try { await tool("bash", { command: "rm -rf /" }); } catch (e) { return [e.code, e.message.includes("no rm")]; }`,
			{ value: ["tool_refused", true] },
			{
				tools: {
					bash: async () => {
						throw toolRefusedError("no rm");
					},
				},
			},
		);
	});

	it("a tool whose result's output getter throws: tool_failed naming the tool and what it threw", async () => {
		await checkCase(
			`try { await tool("trap", {}); } catch (e) { return [e.code, e.message]; }`,
			{ value: ["tool_failed", '`tool("trap")` failed: output boom (2:17)'] },
			{
				tools: {
					trap: async () => ({
						get output(): string {
							throw new Error("output boom");
						},
					}),
				},
			},
		);
	});

	it("a tool whose result is a Proxy throwing on every trap, or which throws one: tool_failed, and the run ends", async () => {
		const hostile = () =>
			new Proxy(
				{},
				new Proxy(
					{},
					{
						get: () => () => {
							throw new Error("trap boom");
						},
					},
				),
			);
		await checkCase(
			`const out = [];\nfor (const name of ["resolves", "returns", "rejects", "throws"]) { try { await tool(name, {}); } catch (e) { out.push([e.code, e.message]); } }\nreturn out;`,
			{
				value: [
					["tool_failed", '`tool("resolves")` failed: trap boom (3:84)'],
					["tool_failed", '`tool("returns")` failed: trap boom (3:84)'],
					["tool_failed", '`tool("rejects")` failed: a value that cannot be printed (3:84)'],
					["tool_failed", '`tool("throws")` failed: a value that cannot be printed (3:84)'],
				],
			},
			{
				tools: {
					resolves: async () => hostile() as never,
					returns: () => hostile() as never,
					rejects: () => Promise.reject(hostile()),
					throws: () => {
						throw hostile();
					},
				},
			},
		);
	});

	it.each([
		["workflow", "tool_refused"],
		["workflow_runs", "tool_refused"],
		["codemode", "tool_refused"],
		["__proto__", "tool_unknown"],
		["constructor", "tool_unknown"],
		["hasOwnProperty", "tool_unknown"],
	])("the name %s cannot reach a tool the host did not lend (%s)", async (name, code) => {
		const { seen, tool } = counting();
		await checkCase(
			`try { await tool(${JSON.stringify(name)}, { script: "return 1" }); } catch (e) { return e.code; }`,
			{ value: code },
			{ tools: { workflow: tool, workflow_runs: tool, codemode: tool, bash: tool } },
		);
		expect(seen.calls).toBe(0);
	});

	it("params that are not an object, and a promise as params, are refused before any tool runs", async () => {
		const { seen, tool } = counting();
		await checkCase(
			`const out = [];\nfor (const p of ["ls", 42, [1]]) { try { await tool("bash", p); } catch (e) { out.push(e.code); } }\nreturn out;`,
			{ value: ["tool_options_invalid", "tool_options_invalid", "tool_options_invalid"] },
			{ tools: { bash: tool } },
		);
		expect(seen.calls).toBe(0);
	});
});
