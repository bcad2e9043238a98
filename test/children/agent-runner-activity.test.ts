import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeToolCall, silenceThresholds } from "../../src/children/activity.ts";
import { agentFile } from "../agents/agent-files.ts";
import { fauxAssistantMessage, untilAborted } from "../helpers/faux.ts";
import { createRunnerFixture, type RunnerFixture, statusesOf } from "./runner-fixture.ts";

let fx: RunnerFixture;
beforeEach(async () => {
	fx = await createRunnerFixture();
});
afterEach(() => {
	fx.teardown();
});

/**
 * Short silence thresholds so the states change within a test. Building a session may itself take longer than
 * `quietAfterMs` on a loaded machine, so assertions look at how the sequence starts and ends, not at every step.
 */
const FAST = { quietAfterMs: 25, stalledAfterMs: 200 };

async function until(condition: () => boolean): Promise<void> {
	while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("createPiAgentRunner: activity states", () => {
	it("a silent child becomes quiet, then stalled, then stopped when aborted", async () => {
		fx.faux.route("Think", [untilAborted()]);
		const controller = new AbortController();
		const running = fx.runner(FAST)(fx.request({ prompt: "Think hard" }), fx.context(controller.signal));
		await until(() => fx.reports.some((report) => report.status === "stalled"));
		controller.abort();
		await running;
		const statuses = statusesOf(fx.reports);
		expect(statuses.slice(0, 2)).toEqual(["queued", "starting"]);
		expect(statuses).toContain("active");
		expect(statuses.slice(-3)).toEqual(["quiet", "stalled", "stopped"]);
	});

	it("a stalled child that speaks again is active again, then finished", async () => {
		let release: () => void = () => {};
		const gate = new Promise<void>((resolve) => {
			release = resolve;
		});
		fx.faux.route("Think", [
			async () => {
				await gate;
				return fauxAssistantMessage("finally");
			},
		]);
		const running = fx.runner(FAST)(fx.request({ prompt: "Think hard" }), fx.context());
		await until(() => fx.reports.some((report) => report.status === "stalled"));
		release();
		const result = await running;
		expect(result.status).toBe("completed");
		expect(statusesOf(fx.reports)).toEqual([
			"queued",
			"starting",
			"active",
			"quiet",
			"stalled",
			"active",
			"finished",
		]);
	});

	it("after the child ends, its silence timer is gone: no report follows the final one", async () => {
		fx.faux.route("Say", [fauxAssistantMessage("hi")]);
		await fx.runner(FAST)(fx.request({ prompt: "Say hi" }), fx.context());
		const count = fx.reports.length;
		await sleep(FAST.stalledAfterMs * 3);
		expect(fx.reports).toHaveLength(count);
		expect(fx.reports.at(-1)?.status).toBe("finished");
	});

	it("every report carries lastActivityAt, and active reports an activity phrase", async () => {
		fx.faux.route("Say", [fauxAssistantMessage("hi")]);
		await fx.runner()(fx.request({ prompt: "Say hi" }), fx.context());
		const started = fx.reports.filter((report) => report.status !== "queued");
		for (const report of started) expect(report.lastActivityAt).toBeTypeOf("number");
		for (const report of started.filter((r) => r.status === "active")) expect(report.activity).toBeTruthy();
		expect(fx.reports.map((report) => report.activity)).toContain("writing");
	});
});

describe("createPiAgentRunner: the stall watchdog", () => {
	it("an agent type's stall_ms stops a silent child: shown stalled, retried once with a note, then failed", async () => {
		fx.dirs.write(".pi/agents/watched.md", agentFile("stall_ms: 600"));
		fx.faux.route("Think", [untilAborted(), untilAborted()]);
		const result = await fx.runner()(fx.request({ prompt: "Think hard", agentType: "watched" }), fx.context());
		expect(result.status).toBe("failed");
		expect(result.error).toMatch(/^stalled after \d+(\.\d)? s, again on its retry$/);
		expect(result.warnings).toEqual([expect.stringMatching(/^stalled after .* without progress; retried once$/)]);
		const tasks = fx.faux.requests.map((request) => request.task);
		expect(tasks).toHaveLength(2);
		expect(tasks[1]).toMatch(/^Think hard\n\nNote: an earlier attempt at this task was stopped after/);
		// Each attempt is its own child, and each was seen stalled before it was stopped.
		const ids = [...new Set(fx.reports.map((report) => report.id))];
		expect(ids).toHaveLength(2);
		for (const id of ids) expect(statusesOf(fx.reports, id).slice(-2)).toEqual(["stalled", "stopped"]);
	});

	it("a call's stallMs wins over its type's: 0 turns the watchdog off", async () => {
		fx.dirs.write(".pi/agents/watched.md", agentFile("stall_ms: 100"));
		fx.faux.route("Think", [untilAborted()]);
		const controller = new AbortController();
		const running = fx.runner(FAST)(
			fx.request({ prompt: "Think hard", agentType: "watched", stallMs: 0 }),
			fx.context(controller.signal),
		);
		await until(() => fx.reports.some((report) => report.status === "stalled"));
		await sleep(400);
		controller.abort();
		const result = await running;
		expect(result.status).toBe("stopped");
		expect(fx.faux.requests).toHaveLength(1);
	});
});

describe("describeToolCall", () => {
	it.each([
		["bash", { command: "npm test -- --run" }, "running npm test -- --run"],
		["read", { path: "src/a.ts" }, "reading src/a.ts"],
		["edit", { path: "src/a.ts" }, "editing src/a.ts"],
		["write", { path: "out.md" }, "writing out.md"],
		["grep", { pattern: "TODO" }, "searching for TODO"],
		["find", { pattern: "*.ts" }, "finding *.ts"],
		["ls", {}, "listing ."],
		["submit_result", { a: 1 }, "submitting the result"],
		["mystery", undefined, "running mystery"],
	])("%s %j → %s", (tool, args, phrase) => {
		expect(describeToolCall(tool, args)).toBe(phrase);
	});

	it("cuts a long command to one short line", () => {
		const phrase = describeToolCall("bash", { command: `echo ${"x".repeat(100)}\nls` });
		expect(phrase).toHaveLength(60);
		expect(phrase.endsWith("…")).toBe(true);
		expect(phrase).not.toContain("\n");
	});
});

describe("silenceThresholds", () => {
	it.each([
		["the defaults", {}, { quietAfterMs: 15_000, stalledAfterMs: 60_000, stallMs: undefined }],
		[
			"given ones",
			{ quietAfterMs: 25, stalledAfterMs: 200 },
			{ quietAfterMs: 25, stalledAfterMs: 200, stallMs: undefined },
		],
		[
			"stalled not after quiet",
			{ quietAfterMs: 100, stalledAfterMs: 50 },
			{ quietAfterMs: 100, stalledAfterMs: 101, stallMs: undefined },
		],
		["a watchdog of 0 (none)", { stallMs: 0 }, { quietAfterMs: 15_000, stalledAfterMs: 60_000, stallMs: undefined }],
		[
			"a negative watchdog (none)",
			{ stallMs: -5 },
			{ quietAfterMs: 15_000, stalledAfterMs: 60_000, stallMs: undefined },
		],
		[
			"a watchdog sooner than stalled",
			{ stallMs: 30_000 },
			{ quietAfterMs: 15_000, stalledAfterMs: 30_000, stallMs: 30_000 },
		],
		[
			"a watchdog sooner than quiet",
			{ stallMs: 10_000 },
			{ quietAfterMs: 5_000, stalledAfterMs: 10_000, stallMs: 10_000 },
		],
		[
			"a watchdog later than both",
			{ stallMs: 90_000 },
			{ quietAfterMs: 15_000, stalledAfterMs: 60_000, stallMs: 90_000 },
		],
	])("%s", (_name, options, expected) => {
		expect(silenceThresholds(options)).toEqual(expected);
	});
});
