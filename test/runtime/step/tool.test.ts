/**
 * `tool(name, params, opts)` through `runWorkflowScript({ tools })`: plain-data results, coded errors at the call's
 * line:column, journaled results replayed on resume (unless `replay: false`), the tool queue, timeouts and events.
 */
import { describe, expect, it } from "vitest";
import { toolRefusedError } from "../../../src/errors.ts";
import {
	runWorkflowScript,
	type WorkflowJournal,
	type WorkflowJournalEntry,
	type WorkflowProgressEvent,
	type WorkflowRunOptions,
	type WorkflowTool,
} from "../../../src/runtime/index.ts";
import { MAX_TOOL_OUTPUT_CHARS } from "../../../src/runtime/step/call.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { memoryJournal } from "../../helpers/memory-journal.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

async function run(body: string, options: Partial<WorkflowRunOptions> = {}) {
	const events: WorkflowProgressEvent[] = [];
	const result = await runWorkflowScript(`${HEADER}${body}`, {
		agentRunner: createFakeRunner().runner,
		onProgress: (event) => events.push(event),
		...options,
	});
	return { result, events };
}

/** A fake shell: records each command, answers `exit N` commands with that exit code. */
function shell() {
	const commands: string[] = [];
	const bash: WorkflowTool = async (params) => {
		const command = String((params as { command?: unknown }).command);
		commands.push(command);
		const code = /^exit (\d+)$/.exec(command)?.[1];
		const exit = code === undefined ? 0 : Number(code);
		return { output: `ran ${command}`, isError: exit !== 0, details: { exit_code: exit } };
	};
	return { commands, bash };
}

const HEADER_LINES = HEADER.split("\n").length - 1;

describe("tool()", () => {
	it("resolves to plain data { output, isError, details } and the script reads it", async () => {
		const { bash, commands } = shell();
		const { result, events } = await run(
			`const ok = await tool("bash", { command: "npm test" });\nconst bad = await tool("bash", { command: "exit 1" });\nreturn { ok, bad, passed: !bad.isError };`,
			{ tools: { bash } },
		);
		expect(result.status).toBe("completed");
		expect(result.value).toEqual({
			ok: { output: "ran npm test", isError: false, details: { exit_code: 0 } },
			bad: { output: "ran exit 1", isError: true, details: { exit_code: 1 } },
			passed: false,
		});
		expect(commands).toEqual(["npm test", "exit 1"]);
		expect(result.tools).toEqual({ calls: 2, replayed: 0, errors: 1, failed: 0 });
		const lines = events.filter((e) => e.type === "log").map((e) => (e.type === "log" ? e.message : ""));
		expect(lines).toEqual([
			expect.stringMatching(/^\$ npm test · \d+\.\ds · exit 0$/),
			expect.stringMatching(/^\$ exit 1 · \d+\.\ds · exit 1$/),
		]);
		expect(events.filter((e) => e.type.startsWith("tool_")).map((e) => e.type)).toEqual([
			"tool_started",
			"tool_finished",
			"tool_started",
			"tool_finished",
		]);
	});

	it("with no tools from the host throws tool_unavailable at the call's line:column, catchable", async () => {
		const { result } = await run(`\nawait tool("bash", { command: "ls" });`);
		expect(result.error?.code).toBe("tool_unavailable");
		expect(result.error?.line).toBe(HEADER_LINES + 2);
		expect(result.error?.column).toBeGreaterThan(0);
		expect(result.error?.message).toMatch(/lends no tools.*--allow-tools bash/);
		const caught = await run(`try { await tool("bash", {}); } catch (e) { return e.code; }`);
		expect(caught.result.value).toBe("tool_unavailable");
	});

	it("an unknown tool is tool_unknown listing what exists; workflow and workflow_runs are never callable", async () => {
		const { bash } = shell();
		const tools = { bash, workflow: bash, workflow_runs: bash };
		const unknown = await run(`await tool("bsh", { command: "ls" });`, { tools });
		expect(unknown.result.error?.code).toBe("tool_unknown");
		expect(unknown.result.error?.message).toContain("Did you mean `bash`? The tools this run may call: `bash`");
		for (const name of ["workflow", "workflow_runs"]) {
			const reserved = await run(`await tool(${JSON.stringify(name)}, { script: "x" });`, { tools });
			expect(reserved.result.error?.code).toBe("tool_refused");
			expect(reserved.result.error?.message).toContain("never callable from a workflow");
		}
		const proto = await run(`await tool("toString", {});`, { tools });
		expect(proto.result.error?.code).toBe("tool_unknown");
	});

	it("a tool that refuses gives tool_refused with its reason; one that throws gives tool_failed", async () => {
		const tools: Record<string, WorkflowTool> = {
			bash: async () => {
				throw toolRefusedError("blocked by policy: no rm");
			},
			read: async () => {
				throw new Error("disk on fire");
			},
		};
		const { result } = await run(
			`const out = [];\nfor (const name of ["bash", "read"]) {\n  try { await tool(name, { path: "x" }); } catch (e) { out.push([e.code, e.message]); }\n}\nreturn out;`,
			{ tools },
		);
		expect(result.value).toEqual([
			["tool_refused", expect.stringContaining("was refused: blocked by policy: no rm")],
			["tool_failed", expect.stringContaining('`tool("read")` failed: disk on fire')],
		]);
		expect(result.tools?.failed).toBe(2);
	});

	it("checks its options by name", async () => {
		const { bash } = shell();
		const { result } = await run(`await tool("bash", { command: "ls" }, { replya: false });`, { tools: { bash } });
		expect(result.error?.code).toBe("tool_options_invalid");
		expect(result.error?.message).toContain("has no option `replya`. Did you mean `replay`?");
		const params = await run(`await tool("bash", "ls");`, { tools: { bash } });
		expect(params.result.error?.code).toBe("tool_options_invalid");
	});

	it("is journaled: a resume replays the result without running the tool, unless replay: false", async () => {
		const journal = memoryJournal();
		const body = `const a = await tool("bash", { command: "git diff --stat" });\nconst b = await tool("bash", { command: "npm test" }, { replay: false });\nreturn [a.output, b.output];`;
		const first = shell();
		const one = await run(body, { journal, tools: { bash: first.bash } });
		expect(one.result.value).toEqual(["ran git diff --stat", "ran npm test"]);
		// The `replay: false` step is kept too, marked: a replay test answers from it, a resume runs it again.
		expect([...journal.entries.values()].map((e) => [e.kind, e.label, e.replay])).toEqual([
			["tool", "git diff --stat", undefined],
			["tool", "npm test", false],
		]);
		const second = shell();
		const two = await run(body, { journal, tools: { bash: second.bash } });
		expect(two.result.value).toEqual(["ran git diff --stat", "ran npm test"]);
		expect(second.commands).toEqual(["npm test"]);
		const cached = two.events.filter((e) => e.type === "tool_finished" && e.cached);
		expect(cached).toHaveLength(1);
		expect(two.result.tools).toEqual({ calls: 2, replayed: 1, errors: 0, failed: 0 });
	});

	it("an agent call never replays a tool line, nor a tool call an agent's value", async () => {
		const journal = memoryJournal();
		const { bash } = shell();
		await run(`return await tool("bash", { command: "ls" });`, { journal, tools: { bash } });
		const [entry] = [...journal.entries.values()];
		const agentJournal: WorkflowJournal = {
			lookup: () => ({ ...(entry as WorkflowJournalEntry), kind: undefined, value: "agent value" }),
			record: async () => {},
		};
		const again = shell();
		const { result } = await run(`return (await tool("bash", { command: "ls" })).output;`, {
			journal: agentJournal,
			tools: { bash: again.bash },
		});
		expect(result.value).toBe("ran ls");
		expect(again.commands).toEqual(["ls"]);
	});

	it("cuts a huge output in the middle with a marker, and drops details that are not JSON", async () => {
		const big = `${"a".repeat(100_000)}END`;
		const tools: Record<string, WorkflowTool> = {
			dump: async () => ({ output: big, details: { when: new Date(0) } as unknown }),
		};
		const { result } = await run(
			`const r = await tool("dump", {});\nreturn [r.output.length, r.output.endsWith("END"), r.output.includes("characters cut"), "details" in r];`,
			{
				tools,
			},
		);
		const [length, end, marker, hasDetails] = result.value as [number, boolean, boolean, boolean];
		expect(length).toBeLessThan(MAX_TOOL_OUTPUT_CHARS + 200);
		expect([end, marker, hasDetails]).toEqual([true, true, false]);
	});

	it("a tool that never returns times out with tool_timeout and is told to stop through its signal", async () => {
		let stopped: unknown;
		const tools: Record<string, WorkflowTool> = {
			hang: (_params, signal) =>
				new Promise(() => {
					signal.addEventListener("abort", () => {
						stopped = signal.reason;
					});
				}),
		};
		const { result } = await run(`await tool("hang", {}, { timeoutMs: 50 });`, { tools });
		expect(result.error?.code).toBe("tool_timeout");
		expect(result.error?.message).toContain("did not finish within 50 ms");
		expect((stopped as { code?: string })?.code).toBe("tool_timeout");
	});

	it("a cancelled run stops a tool that is running", async () => {
		const controller = new AbortController();
		let aborted = false;
		const tools: Record<string, WorkflowTool> = {
			hang: (_params, signal) =>
				new Promise(() => {
					signal.addEventListener("abort", () => {
						aborted = true;
					});
					setTimeout(() => controller.abort("stop"), 10);
				}),
		};
		const { result } = await run(`await tool("hang", {});`, { tools, signal: controller.signal });
		expect(result.status).toBe("stopped");
		expect(aborted).toBe(true);
	});

	it("runs at most limits.maxToolsRunning at once (its own queue)", async () => {
		let running = 0;
		let peak = 0;
		const tools: Record<string, WorkflowTool> = {
			step: async () => {
				running++;
				peak = Math.max(peak, running);
				await new Promise((resolve) => setTimeout(resolve, 5));
				running--;
				return { output: "ok" };
			},
		};
		const { result } = await run(
			`const all = await Promise.all(Array.from({ length: 12 }, (_, i) => tool("step", { i })));\nreturn all.length;`,
			{ tools, limits: { maxToolsRunning: 3 } },
		);
		expect(result.value).toBe(12);
		expect(peak).toBe(3);
	});
});
