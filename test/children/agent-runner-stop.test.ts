import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WRAP_UP_MESSAGE } from "../../src/children/turn-limit.ts";
import { cancelledError } from "../../src/errors.ts";
import { agentFile } from "../agents/agent-files.ts";
import { fauxAssistantMessage, fauxToolCall, untilAborted } from "../helpers/faux.ts";
import { createRunnerFixture, type RunnerFixture, statusesOf } from "./runner-fixture.ts";

let fx: RunnerFixture;
beforeEach(async () => {
	fx = await createRunnerFixture();
	fx.dirs.write("a.txt", "alpha");
});
afterEach(() => {
	fx.teardown();
});

/** Resolves once the provider has seen `count` requests. */
async function requestsSeen(count: number): Promise<void> {
	while (fx.faux.requests.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
}

const readA = () => fauxAssistantMessage([fauxToolCall("read", { path: "a.txt" })], { stopReason: "toolUse" });

describe("createPiAgentRunner: abort", () => {
	it("aborting mid-run stops the session: status stopped with the signal's reason, and no session left running", async () => {
		fx.faux.route("Work", [untilAborted()]);
		const controller = new AbortController();
		const running = fx.runner()(fx.request({ prompt: "Work forever" }), fx.context(controller.signal));
		await requestsSeen(1);
		expect(fx.tracker.live.size).toBe(1);
		controller.abort(cancelledError());
		const result = await running;
		expect(result).toMatchObject({ status: "stopped", error: "The workflow was cancelled" });
		expect(fx.tracker.live.size).toBe(0);
		expect(fx.tracker.created[0].isStreaming).toBe(false);
		expect(statusesOf(fx.reports).at(-1)).toBe("stopped");
	});

	it("aborting while a tool runs stops the child too", async () => {
		fx.faux.route("Sleep", [
			fauxAssistantMessage([fauxToolCall("bash", { command: "sleep 30" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("never reached"),
		]);
		const controller = new AbortController();
		const running = fx.runner()(fx.request({ prompt: "Sleep a while" }), fx.context(controller.signal));
		while (!fx.reports.some((report) => report.activity === "running sleep 30")) {
			await new Promise((resolve) => setTimeout(resolve, 5));
		}
		controller.abort();
		const result = await running;
		expect(result.status).toBe("stopped");
		expect(fx.tracker.live.size).toBe(0);
	});

	it("with a signal aborted before the call: stopped at once, no session created", async () => {
		const controller = new AbortController();
		controller.abort("user pressed Esc");
		const result = await fx.runner()(fx.request(), fx.context(controller.signal));
		expect(result).toMatchObject({ status: "stopped", error: "user pressed Esc" });
		expect(fx.tracker.created).toEqual([]);
		expect(statusesOf(fx.reports)).toEqual(["queued", "stopped"]);
	});
});

describe("createPiAgentRunner: max_turns", () => {
	it("at max_turns a child still using tools is told to wrap up, and its answer after that completes the call", async () => {
		fx.dirs.write(".pi/agents/brief.md", agentFile("max_turns: 2\ntools: read"));
		fx.faux.route("Explore", [
			readA(),
			readA(),
			(request) =>
				fauxAssistantMessage(request.last.role === "user" ? `wrapped: ${request.last.text}` : "no wrap-up"),
		]);
		const result = await fx.runner()(fx.request({ prompt: "Explore", agentType: "brief" }), fx.context());
		expect(result).toMatchObject({
			status: "completed",
			result: `wrapped: ${WRAP_UP_MESSAGE}`,
			warnings: ["reached max_turns (2) and was told to wrap up"],
		});
		expect(fx.reports.at(-1)).toMatchObject({ maxTurns: 2, turns: 3 });
	});

	it("a child that answers within max_turns is not steered", async () => {
		fx.dirs.write(".pi/agents/brief.md", agentFile("max_turns: 2\ntools: read"));
		fx.faux.route("Explore", [readA(), fauxAssistantMessage("done")]);
		const result = await fx.runner()(fx.request({ prompt: "Explore", agentType: "brief" }), fx.context());
		expect(result).toMatchObject({ status: "completed", result: "done" });
		expect(result.warnings).toBeUndefined();
		expect(fx.faux.requests.map((request) => request.last.text)).not.toContain(WRAP_UP_MESSAGE);
	});

	it("a child that keeps going past the grace turns is stopped and fails", async () => {
		fx.dirs.write(".pi/agents/brief.md", agentFile("max_turns: 1\ntools: read"));
		fx.faux.route("Explore", Array.from({ length: 10 }, readA));
		const result = await fx.runner({ graceTurns: 2 })(
			fx.request({ prompt: "Explore", agentType: "brief" }),
			fx.context(),
		);
		expect(result).toMatchObject({
			status: "failed",
			error: "stopped after max_turns (1) and the grace turns without a final answer",
		});
		// One turn, then two grace turns; the abort lands before a fourth request completes.
		expect(fx.faux.requests.length).toBeLessThanOrEqual(4);
		expect(fx.tracker.live.size).toBe(0);
	});

	it("a schema child at max_turns is told to submit its result", async () => {
		fx.dirs.write(".pi/agents/brief.md", agentFile("max_turns: 1\ntools: read"));
		fx.faux.route("Explore", [
			readA(),
			(request) =>
				fauxAssistantMessage([fauxToolCall("submit_result", { note: request.last.text })], {
					stopReason: "toolUse",
				}),
		]);
		const schema = { type: "object", properties: { note: { type: "string" } }, required: ["note"] };
		const result = await fx.runner()(fx.request({ prompt: "Explore", agentType: "brief", schema }), fx.context());
		expect(result.structuredOutput).toEqual({
			note: "Wrap up immediately — submit your final answer with `submit_result` now.",
		});
	});
});
