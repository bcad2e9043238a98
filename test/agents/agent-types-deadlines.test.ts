import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunnerFixture, type RunnerFixture } from "../children/runner-fixture.ts";
import { fauxAssistantMessage, fauxToolCall, untilAborted } from "../helpers/faux.ts";
import { agentFile } from "./agent-files.ts";

let fx: RunnerFixture;
beforeEach(async () => {
	fx = await createRunnerFixture();
});
afterEach(() => {
	fx.teardown();
});

describe("agent files: per-type deadlines", () => {
	it("timeout_ms: a call without its own timeoutMs fails when the type's deadline passes, and its session ends", async () => {
		fx.dirs.write(".pi/agents/slow.md", agentFile("tools: none\ntimeout_ms: 30"));
		fx.faux.route("Hang", [untilAborted()]);
		const result = await fx.runner()(fx.request({ prompt: "Hang", agentType: "slow" }), fx.context());
		expect(result).toMatchObject({
			status: "failed",
			error: "timed out after 30 ms (`timeout_ms` of agent type `slow`)",
		});
		expect(fx.tracker.live.size).toBe(0);
	});

	it("timeoutMs (camelCase): the same deadline", async () => {
		fx.dirs.write(".pi/agents/slow.md", agentFile("tools: none\ntimeoutMs: 30"));
		fx.faux.route("Hang", [untilAborted()]);
		const result = await fx.runner()(fx.request({ prompt: "Hang", agentType: "slow" }), fx.context());
		expect(result.error).toContain("`timeout_ms` of agent type `slow`");
	});

	it("the call's own timeoutMs wins: the type's shorter one is not applied", async () => {
		fx.dirs.write(".pi/agents/slow.md", agentFile("tools: none\ntimeout_ms: 20"));
		fx.faux.route("Wait", [
			(request) =>
				new Promise((resolve) => {
					const timer = setTimeout(() => resolve(fauxAssistantMessage("done after a while")), 150);
					request.signal?.addEventListener("abort", () => {
						clearTimeout(timer);
						resolve(fauxAssistantMessage("aborted"));
					});
				}),
		]);
		const result = await fx.runner()(
			fx.request({ prompt: "Wait", agentType: "slow", timeoutMs: 60_000 }),
			fx.context(),
		);
		expect(result).toMatchObject({ status: "completed", result: "done after a while" });
	});

	it("tool_timeout_ms: a tool call that never ends is stopped with an error the child reads, and the child goes on", async () => {
		fx.dirs.write(
			".pi/agents/tools/stuck.ts",
			`export default function (pi) {
	pi.registerTool({
		name: "stuck_tool",
		label: "Stuck",
		description: "Never finishes",
		parameters: { type: "object", properties: {} },
		execute: () => new Promise(() => {}),
	});
}
`,
		);
		fx.dirs.write(
			".pi/agents/careful.md",
			agentFile("tools: stuck_tool\nsubagent_only_extensions: ./tools/stuck.ts\ntoolTimeoutMs: 40"),
		);
		fx.faux.route("Try", [
			fauxAssistantMessage([fauxToolCall("stuck_tool", {})], { stopReason: "toolUse" }),
			(request) => fauxAssistantMessage(`tool said: ${request.last.text} (error: ${request.last.isError})`),
		]);
		const result = await fx.runner()(fx.request({ prompt: "Try", agentType: "careful" }), fx.context());
		expect(result.status).toBe("completed");
		expect(result.result).toContain(
			"tool `stuck_tool` did not finish within 40 ms (`tool_timeout_ms` of agent type `careful`) and was stopped",
		);
		expect(result.result).toContain("(error: true)");
	});

	it("tool_timeout_ms leaves a quick tool alone", async () => {
		fx.dirs.write("notes.txt", "remember the milk");
		fx.dirs.write(".pi/agents/careful.md", agentFile("tools: read\ntool_timeout_ms: 60000"));
		fx.faux.route("Read", [
			fauxAssistantMessage([fauxToolCall("read", { path: "notes.txt" })], { stopReason: "toolUse" }),
			(request) => fauxAssistantMessage(`notes: ${request.last.text}`),
		]);
		const result = await fx.runner()(fx.request({ prompt: "Read", agentType: "careful" }), fx.context());
		expect(result).toMatchObject({ status: "completed", result: "notes: remember the milk" });
	});
});
