/**
 * Children that do not stop when asked: a provider call (or a session tool) that ignores its abort signal and never
 * settles. Each way a child is stopped (the stall watchdog, skip, restart, the call's signal) lets go
 * of it after the runner's `stopGraceMs`: the call ends, the session is disposed, and the result counts it in
 * `abandoned`. The deaf calls are released after each test, so nothing is left streaming.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "typebox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChildControls } from "../../src/children/controls.ts";
import type { SessionTools } from "../../src/children/session-tools.ts";
import { cancelledError } from "../../src/errors.ts";
import type { WorkflowProgressEvent } from "../../src/runtime/core/events.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { createDeafCalls, type DeafCalls, fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";
import { createTempRepo } from "../helpers/git-repo.ts";
import { until } from "../helpers/until.ts";
import { createRunnerFixture, type RunnerFixture, statusesOf } from "./runner-fixture.ts";

let fx: RunnerFixture;
let deaf: DeafCalls;
beforeEach(async () => {
	fx = await createRunnerFixture();
	deaf = createDeafCalls();
});
afterEach(async () => {
	deaf.release();
	await until(() => fx.tracker.created.every((session) => !session.isStreaming), "released sessions to stop");
	fx.teardown();
});

/** A short grace, so a test lets go of a deaf child quickly. */
const GRACE = { stopGraceMs: 100 };
const ABANDONED =
	/; it did not stop within 0\.1 s of being asked and was abandoned \(a provider or tool ignored the abort\)$/;

/** A session tool `hang` whose runs ignore abort and never end. */
function deafTools(): SessionTools {
	return {
		list: () => [{ name: "hang", label: "hang", description: "Waits.", parameters: Type.Object({}) }],
		execute: () => deaf.tool(),
	};
}

const callHang = () => fauxAssistantMessage([fauxToolCall("hang", {})], { stopReason: "toolUse" });

describe("createPiAgentRunner: a child whose provider or tool ignores abort", () => {
	it("the stall watchdog lets go of a deaf provider call: retried once, then failed, both attempts abandoned", async () => {
		fx.faux.route("Think", [deaf.reply(), deaf.reply()]);
		const result = await fx.runner(GRACE)(fx.request({ prompt: "Think hard", stallMs: 300 }), fx.context());
		expect(result).toMatchObject({ status: "failed", abandoned: 2 });
		expect(result.error).toMatch(
			/^stalled after \d+(\.\d)? s, again on its retry; 2 attempts did not stop when asked and were abandoned$/,
		);
		expect(result.warnings).toEqual([
			expect.stringMatching(
				/^stalled after .* without progress and did not stop when asked \(abandoned\); retried once$/,
			),
		]);
		expect(deaf.started).toBe(2);
		expect(fx.faux.requests[1]?.task).toMatch(/^Think hard\n\nNote: an earlier attempt at this task was stopped/);
		// Each attempt's session was disposed, and its child reported stopped, saying it did not stop.
		expect(fx.tracker.live.size).toBe(0);
		const ids = [...new Set(fx.reports.map((report) => report.id))];
		expect(ids).toHaveLength(2);
		for (const id of ids) {
			expect(statusesOf(fx.reports, id).slice(-2)).toEqual(["stalled", "stopped"]);
			expect(fx.reports.filter((report) => report.id === id).at(-1)?.error).toMatch(/^stalled after .*/);
			expect(fx.reports.filter((report) => report.id === id).at(-1)?.error).toMatch(ABANDONED);
		}
	});

	it("the stall watchdog lets go of a deaf session tool; a retry that answers gives the answer", async () => {
		fx.faux.route("Use", [callHang(), fauxAssistantMessage("done without it")]);
		const result = await fx.runner({ ...GRACE, sessionTools: deafTools() })(
			fx.request({ prompt: "Use the hang tool", tools: ["hang"], stallMs: 300 }),
			fx.context(),
		);
		expect(result).toMatchObject({ status: "completed", result: "done without it", abandoned: 1 });
		expect(result.warnings).toEqual([
			expect.stringMatching(
				/^stalled after .* without progress and did not stop when asked \(abandoned\); retried once$/,
			),
		]);
		expect(deaf.started).toBe(1);
		expect(fx.tracker.live.size).toBe(0);
	});

	it("skip lets go of a deaf child: stopped, no retry, the cause says it did not stop", async () => {
		fx.faux.route("Think", [deaf.reply()]);
		const controls = new ChildControls();
		const running = fx.runner({ ...GRACE, controls })(fx.request({ prompt: "Think hard" }), fx.context());
		await until(() => deaf.started === 1, "the provider call");
		controls.get("call-0")?.skip();
		const result = await running;
		expect(result).toMatchObject({
			status: "stopped",
			noRetry: true,
			abandoned: 1,
			error: "skipped by the user; 1 attempt did not stop when asked and was abandoned",
		});
		expect(controls.get("call-0")).toBeUndefined();
		expect(fx.tracker.live.size).toBe(0);
	});

	it("restart lets go of a deaf child and starts a fresh attempt, whose answer the call gives", async () => {
		fx.faux.route("Think", [deaf.reply(), fauxAssistantMessage("second try")]);
		const controls = new ChildControls();
		const running = fx.runner({ ...GRACE, controls })(fx.request({ prompt: "Think hard" }), fx.context());
		await until(() => deaf.started === 1, "the provider call");
		controls.get("call-0")?.restart();
		const result = await running;
		expect(result).toMatchObject({ status: "completed", result: "second try", abandoned: 1 });
		expect(result.warnings).toEqual(["restarted by the user; the attempt did not stop when asked and was abandoned"]);
		expect(fx.tracker.created).toHaveLength(2);
		expect(fx.tracker.live.size).toBe(0);
	});

	it("a pause a deaf child cannot honour leaves it under the stall watchdog, which lets it go and retries", async () => {
		fx.faux.route("Think", [deaf.reply(), fauxAssistantMessage("second try")]);
		const controls = new ChildControls();
		const running = fx.runner({ ...GRACE, controls })(
			fx.request({ prompt: "Think hard", stallMs: 300 }),
			fx.context(),
		);
		await until(() => deaf.started === 1, "the provider call");
		controls.get("call-0")?.pause();
		const result = await running;
		expect(result).toMatchObject({ status: "completed", result: "second try", abandoned: 1 });
		expect(fx.reports.some((report) => report.status === "paused")).toBe(false);
		expect(fx.tracker.live.size).toBe(0);
	});

	it("the call's signal (a timeout, a cancelled run) lets go of a deaf child: stopped with the signal's reason", async () => {
		fx.faux.route("Think", [deaf.reply()]);
		const controller = new AbortController();
		const running = fx.runner(GRACE)(fx.request({ prompt: "Think hard" }), fx.context(controller.signal));
		await until(() => deaf.started === 1, "the provider call");
		controller.abort(cancelledError());
		const result = await running;
		expect(result).toMatchObject({ status: "stopped", abandoned: 1 });
		expect(result.error).toMatch(/^The workflow was cancelled; it did not stop within 0\.1 s/);
		expect(fx.reports.at(-1)).toMatchObject({ status: "stopped", error: result.error });
		expect(fx.tracker.live.size).toBe(0);
	});
});

const HEADER = 'export const meta = { name: "deaf", description: "children that ignore abort" };\n';

/** Runs `body` on the fixture's runner (short grace); returns the result and the run's events. */
async function run(body: string, options: { signal?: AbortSignal; cwd?: string; runner?: object } = {}) {
	const events: WorkflowProgressEvent[] = [];
	const result = await runWorkflowScript(HEADER + body, {
		agentRunner: fx.runner({ ...GRACE, ...options.runner }),
		cwd: options.cwd ?? fx.dirs.cwd,
		onProgress: (event) => events.push(event),
		...(options.signal ? { signal: options.signal } : {}),
	});
	const logs = events.flatMap((event) => (event.type === "log" ? [event.message] : []));
	const children = events.flatMap((event) => (event.type === "agent_child" ? [event.child] : []));
	return { result, logs, children };
}

const LET_GO = "`Think hard`: its child did not stop when asked and was abandoned; it may still be running";

describe("a deaf child under runWorkflowScript", () => {
	it("a stall, again on the retry: null, the census says the attempts were abandoned, error.details counts them", async () => {
		fx.faux.route("Think", [deaf.reply(), deaf.reply()]);
		const { result, logs } = await run('return await agent("Think hard", { stallMs: 300 });');
		expect(result.status).toBe("failed");
		expect(result.error).toMatchObject({ code: "agents_failed", details: { failed: 1, calls: 1, abandoned: 2 } });
		expect(result.failures.map((failure) => failure.cause)).toEqual([
			expect.stringMatching(
				/^stalled after \d+(\.\d)? s, again on its retry; 2 attempts did not stop when asked and were abandoned$/,
			),
		]);
		expect(logs).toEqual([
			expect.stringMatching(
				/^`Think hard`: stalled after .* without progress and did not stop when asked \(abandoned\); retried once$/,
			),
		]);
		expect(fx.tracker.live.size).toBe(0);
	});

	it("a call's timeoutMs: null, timed out at once; the child is let go after the grace, counted, and logged", async () => {
		fx.faux.route("Think", [deaf.reply(), deaf.reply()]);
		fx.faux.route("Say", [fauxAssistantMessage("hi")]);
		const { result, logs } = await run(
			'const a = await agent("Think hard", { timeoutMs: 300 });\nreturn { a, b: await agent("Say hi") };',
		);
		// A run that got its answers is not failed by a child it let go: the log says what is still out there.
		expect(result).toMatchObject({ status: "completed", value: { a: null, b: "hi" } });
		expect(result.failures.map((failure) => failure.cause)).toEqual(["timed out after 300 ms"]);
		expect(logs).toEqual([LET_GO]);
		expect(fx.tracker.live.size).toBe(0);
		const alone = await run('return await agent("Think hard", { timeoutMs: 300 });');
		expect(alone.result.error).toMatchObject({ code: "agents_failed", details: { abandoned: 1 } });
		expect(alone.logs).toEqual([LET_GO]);
	});

	it("cancelling the run: it ends stopped, counts the child in error.details.abandoned, and says it did not stop", async () => {
		fx.faux.route("Think", [deaf.reply()]);
		const controller = new AbortController();
		const running = run('return await agent("Think hard");', { signal: controller.signal });
		await until(() => deaf.started === 1, "the provider call");
		controller.abort();
		const { result, logs, children } = await running;
		expect(result.status).toBe("stopped");
		expect(result.error).toMatchObject({ code: "cancelled", details: { abandoned: 1 } });
		expect(logs).toEqual([LET_GO]);
		expect(children.at(-1)).toMatchObject({ status: "stopped", error: expect.stringMatching(ABANDONED) });
		expect(fx.tracker.live.size).toBe(0);
	});

	it("an isolated child let go by the watchdog: its worktree is still closed, its change kept on its branch", async () => {
		const repo = createTempRepo();
		try {
			const write = fauxAssistantMessage([fauxToolCall("write", { path: "notes/try.md", content: "half\n" })], {
				stopReason: "toolUse",
			});
			fx.faux.route("Fix add", [write, callHang(), fauxAssistantMessage("fixed on the retry")]);
			const { result } = await run(
				'return await agent("Fix add", { label: "fix add", isolation: "worktree", tools: ["write", "hang"], stallMs: 300 });',
				{
					cwd: repo.dir,
					runner: {
						cwd: repo.dir,
						sessionTools: deafTools(),
						worktreePlace: async () => ({ runId: "wf-20261201-120000-deaf01", dir: repo.runDir }),
					},
				},
			);
			expect(result).toMatchObject({ status: "completed", value: "fixed on the retry" });
			const branch = "workflows/wf-20261201-120000-deaf01/fix-add";
			expect(repo.git(["show", `${branch}:notes/try.md`])).toBe("half\n");
			expect(repo.leftovers()).toEqual({ worktrees: [], locks: [] });
		} finally {
			repo.dispose();
		}
	});
});

describe("a deaf tool's call in a continued child (issue 47)", () => {
	it("the stall retry goes on from the finished turns and names the tool call whose result was never recorded", async () => {
		const runDir = mkdtempSync(join(tmpdir(), "wf-deaf-run-"));
		try {
			const write = fauxAssistantMessage([fauxToolCall("write", { path: "plan.md", content: "step 1\n" })], {
				stopReason: "toolUse",
			});
			const hang = fauxAssistantMessage(
				[
					fauxToolCall("write", { path: "deploy.log", content: "deploying\n" }),
					fauxToolCall("hang", { target: "deploy staging" }),
				],
				{
					stopReason: "toolUse",
				},
			);
			fx.faux.route("Ship it", [write, hang, fauxAssistantMessage("checked the deploy, shipped")]);
			const result = await fx.runner({ ...GRACE, sessionTools: deafTools(), runFolder: async () => runDir })(
				fx.request({ prompt: "Ship it", label: "ship", tools: ["write", "hang"], stallMs: 1500 }),
				fx.context(),
			);
			expect(result).toMatchObject({ status: "completed", result: "checked the deploy, shipped" });
			const retry = fx.faux.requests.at(-1);
			expect(retry?.messages.map((message) => message.role).filter((role) => (role as string) !== "system")).toEqual(
				["user", "assistant", "toolResult", "user"],
			);
			expect(retry?.last.text).toMatch(
				/^This task was interrupted after 1 finished turn \(.*\)[\s\S]*These tool calls were started in the interrupted turn, but their results were not recorded, so they may or may not have run: `write` \{"path":"deploy.log","content":"deploying\\n"\}; `hang` \{"target":"deploy staging"\}\. Check what they did/,
			);
		} finally {
			rmSync(runDir, { recursive: true, force: true });
		}
	});
});
