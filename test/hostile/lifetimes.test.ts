/**
 * Hostile lifetimes: nothing a run starts outlives it. Nested workflows and agent calls left running at return are
 * stopped and named in the result; nested workflows are bounded in number and at once; sleeps, per-call timeouts
 * and queue waits leave no timer behind.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, type WorkflowAgentRunner } from "../../src/runtime/index.ts";
import { sandboxStats } from "../../src/sandbox/index.ts";
import { createFakeRunner } from "../helpers/fake-runner.ts";
import { checkCase, expectOutcome, guardHost, type HostileOptions, runHostile } from "./support.ts";

guardHost();

const ORPHANED = "still running when the script returned";

let cwd: string;
beforeAll(() => {
	cwd = mkdtempSync(join(tmpdir(), "wf-lifetimes-"));
	const child = (body: string) => `export const meta = { name: "child", description: "c" };\n${body}`;
	writeFileSync(join(cwd, "hang.js"), child(`await agent("in child", { label: "child agent" });\nreturn 2;`));
	writeFileSync(join(cwd, "echo.js"), child(`return await agent("c" + args.i);`));
	writeFileSync(join(cwd, "quick.js"), child("return 1;"));
	writeFileSync(join(cwd, "sleepy.js"), child("for (let i = 0; i < 500; i++) sleep(600000);\nreturn 3;"));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** Timers alive in this process: what keeps it from exiting. */
function liveTimeouts(): number {
	return process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length;
}

describe("work left running when the script returns", () => {
	it("an un-awaited workflow(): stopped with its agent (which settles, so nothing is abandoned), named in `cutOff`", async () => {
		// The parent's agent answers once the child's agent has started, so the child is running when it returns.
		const fake = createFakeRunner((request) => (request.prompt === "in child" ? { hang: true } : "ok"));
		let childStarted!: () => void;
		const started = new Promise<void>((resolve) => {
			childStarted = resolve;
		});
		const agentRunner: WorkflowAgentRunner = async (request, context) => {
			if (request.prompt === "in child") childStarted();
			else await started;
			return fake.runner(request, context);
		};
		const run = await runHostile(`workflow("./hang.js");\nawait agent("parent");\nreturn 1;`, { cwd, agentRunner });
		// The run fails (its work was dropped) at the launch, and still returns what the script built.
		expectOutcome(run, {
			code: "not_awaited",
			message:
				"The script returned while 2 call(s) it started were still running, so their results were lost: workflow `child` (2:9), agent `child agent` in `child` (2:12). Await every call before returning",
		});
		expect(run.result.error).toMatchObject({ line: 2, column: 9 });
		expect(run.result.value).toBe(1);
		expect(fake.running, "runner calls left running").toBe(0);
		expect(fake.aborted).toBe(1);
		// Nothing waited out the grace for runners that ignore abort: such a call would be counted here.
		expect(run.result.error?.details?.abandoned).toBeUndefined();
		expect(run.result.cutOff).toEqual([
			{ kind: "workflow", name: "child", filename: "workflow.js", line: 2, column: 9 },
			{
				kind: "agent",
				name: "child agent",
				filename: join(cwd, "hang.js"),
				line: 2,
				column: 12,
				index: 1,
				workflow: "child",
			},
		]);
		expect(run.result.failures).toMatchObject([{ kind: "agent", label: "child agent", cause: ORPHANED }]);
		const warning = run.events.find((event) => event.type === "log" && event.level === "warn");
		expect(warning).toMatchObject({
			message:
				"The script returned while 2 call(s) it started were still running; they were stopped: workflow `child` (2:9), agent `child agent` in `child` (2:12). Await them to use their results",
		});
	});

	it("an un-awaited agent(): named in `cutOff` with its label, index and line, and in `failures`", async () => {
		const run = await checkCase(
			`agent("left", { label: "lefty" });\nreturn await agent("kept");`,
			{ code: "not_awaited", message: "agent `lefty` (2:6)" },
			{ answer: (request) => (request.prompt === "left" ? { hang: true } : "ok") },
		);
		expect(run.result.cutOff).toEqual([
			{ kind: "agent", name: "lefty", filename: "workflow.js", line: 2, column: 6, index: 0 },
		]);
		expect(run.result.failures).toMatchObject([{ kind: "agent", label: "lefty", cause: ORPHANED }]);
		expect(run.fake.aborted).toBe(1);
	});

	it("a nested workflow's own un-awaited agent(): stopped when the nested workflow returns, failing it", async () => {
		writeFileSync(
			join(cwd, "leaves.js"),
			`export const meta = { name: "leaves", description: "c" };\nagent("left behind");\nreturn 4;`,
		);
		const run = await checkCase(
			`const v = await workflow("./leaves.js");\nreturn [v, await agent("after")];`,
			{
				code: "not_awaited",
				message: `Nested workflow \`leaves\` failed at ${join(cwd, "leaves.js")}:2:6: The script returned while 1 call(s) it started were still running`,
			},
			{ cwd, answer: (request) => (request.prompt === "left behind" ? { hang: true } : "ok") },
		);
		expect(run.result.cutOff).toEqual([
			{
				kind: "agent",
				name: "left behind",
				filename: join(cwd, "leaves.js"),
				line: 2,
				column: 6,
				index: 0,
				workflow: "leaves",
			},
		]);
		const warning = run.events.find((event) => event.type === "log" && event.level === "warn");
		expect(warning?.type === "log" && warning.message).toMatch(/^Nested workflow `leaves` returned while 1 call/);
	});

	it("a cancelled run reports no cutOff: everything was cancelled, not left behind", async () => {
		const controller = new AbortController();
		const run = await runHostile(`workflow("./hang.js");\nawait agent("parent");`, {
			cwd,
			signal: controller.signal,
			answer: () => ({ hang: true }),
			onProgress: (event) => {
				if (event.type === "agent_started" && event.label === "child agent") controller.abort();
			},
		});
		expectOutcome(run, { code: "cancelled", message: "The workflow was cancelled" });
		expect(run.result.cutOff).toBeUndefined();
	});
});

describe("nested workflows are bounded", () => {
	it("parallel() over 100 workflow() calls: at most `maxWorkflowsRunning` sandboxes beside the parent's", async () => {
		let peak = 0;
		const fake = createFakeRunner((request) => ({ text: `did ${request.prompt}`, delayMs: 5 }));
		const agentRunner: WorkflowAgentRunner = (request, context) => {
			peak = Math.max(peak, sandboxStats().liveSandboxes);
			return fake.runner(request, context);
		};
		const run = await runHostile(
			`return await parallel(Array.from({ length: 100 }, (_, i) => () => workflow("./echo.js", { i })));`,
			{ cwd, agentRunner },
		);
		expectOutcome(run, { value: Array.from({ length: 100 }, (_, i) => `did c${i}`) });
		expect(peak).toBeGreaterThan(1);
		expect(peak, "sandboxes alive at once").toBeLessThanOrEqual(1 + DEFAULT_LIMITS.maxWorkflowsRunning);
	});

	it("workflow() calls queued for a slot are dropped on cancel, never started", async () => {
		const controller = new AbortController();
		let started = 0;
		const run = await runHostile(`await parallel(Array.from({ length: 10 }, () => () => workflow("./hang.js")));`, {
			cwd,
			signal: controller.signal,
			answer: () => ({ hang: true }),
			limits: { maxWorkflowsRunning: 2 },
			onProgress: (event) => {
				if (event.type === "agent_started" && ++started === 2) controller.abort();
			},
		});
		expectOutcome(run, { code: "cancelled", message: "The workflow was cancelled" });
		const starts = run.events.filter((event) => event.type === "log" && event.message === "workflow `child` started");
		expect(starts).toHaveLength(2);
	});

	const capped = (): HostileOptions => ({ cwd, limits: { maxWorkflowCalls: 2 } });

	it("the call past `limits.maxWorkflowCalls` throws limit_workflows naming the limit and the option", async () => {
		await checkCase(
			`await workflow("./quick.js");\nawait workflow("./quick.js");\nawait workflow("./quick.js");`,
			{
				code: "limit_workflows",
				message:
					"Too many `workflow()` calls in one run (limit: 2). Run fewer nested workflows, or raise `limits.maxWorkflowCalls` (4:15)",
			},
			capped(),
		);
	});

	it("the cap counts calls, not running ones, and a script can catch its error", async () => {
		const run = await checkCase(
			`const got = await parallel([1, 2, 3].map(() => () => workflow("./quick.js")));
try { await workflow("./quick.js"); } catch (e) { return [got, e.code, e.details]; }`,
			{ value: [[1, 1, null], "limit_workflows", { limit: 2 }] },
			capped(),
		);
		expect(run.result.failures).toMatchObject([{ kind: "parallel", index: 2 }]);
	});
});

describe("no timer outlives its run", () => {
	// Sleeps are not work whose result is lost, so only the un-awaited workflow() fails the run.
	const CASES: [name: string, script: string, code: string | undefined][] = [
		["2,000 un-awaited sleep(600000)", "for (let i = 0; i < 2000; i++) sleep(600000);\nreturn 1;", undefined],
		["500 un-awaited sleeps in a nested workflow that returned", `return await workflow("./sleepy.js");`, undefined],
		["an un-awaited workflow() whose child sleeps", `workflow("./sleepy.js");\nreturn 1;`, "not_awaited"],
	];

	it.each(CASES)("%s: no more Timeouts after the run than before", async (_name, script, code) => {
		const before = liveTimeouts();
		const run = await runHostile(script, { cwd });
		expect(run.result.error?.code).toBe(code);
		expect(liveTimeouts(), "timers left alive by the run").toBeLessThanOrEqual(before);
	});

	it("a per-call timeoutMs ends with the call: the runner's signal never fires after it answered", async () => {
		// `AbortSignal.timeout` timers are unref'd, so they do not show above; the signal they fire shows instead.
		const signals: AbortSignal[] = [];
		const fake = createFakeRunner();
		const agentRunner: WorkflowAgentRunner = (request, context) => {
			signals.push(context.signal);
			return fake.runner(request, context);
		};
		const run = await runHostile(
			`return [await agent("a", { timeoutMs: 50 }), await agent("b", { timeoutMs: 50 })];`,
			{ agentRunner },
		);
		expectOutcome(run, { value: ["done: a", "done: b"] });
		await new Promise((resolve) => setTimeout(resolve, 150));
		expect(signals.map((signal) => signal.aborted)).toEqual([false, false]);
	});
});
