/**
 * `tool()` in a real pi session, through pi's own loader: a script's `tool("bash", …)` runs the session's real bash
 * through `ctx.executeTool`, so a second extension's `tool_call` hook sees every call and can block one; the result
 * reaches the script; a resume replays it unless `replay: false`. The same extension listens on `pi.events` for the
 * runs' lifecycle announcements.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createParentSession, type ParentSession } from "../../scripts/parent-session.ts";
import type { WorkflowProgressDetails } from "../../src/progress/index.ts";
import { createFauxHarness, type FauxHarness, fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";

const PARENT_TASK = "Please run the gate";

interface Seen {
	/** Commands the parent's `tool_call` hook saw for bash. */
	hooked: string[];
	/** Lifecycle announcements, as `channel` and data. */
	announced: Array<{ channel: string; data: Record<string, unknown> }>;
}

/** A policy extension: blocks `rm`, records every bash call, and listens to the workflow runs' announcements. */
function policyExtension(seen: Seen) {
	return (pi: ExtensionAPI) => {
		pi.on("tool_call", (event) => {
			if (event.toolName !== "bash") return;
			const command = String((event.input as { command?: unknown }).command);
			seen.hooked.push(command);
			if (command.startsWith("rm ")) return { block: true, reason: "policy: no rm from workflows" };
		});
		for (const channel of [
			"workflows:run_started",
			"workflows:agent_finished",
			"workflows:tool_finished",
			"workflows:run_ended",
		]) {
			pi.events.on(channel, (data) => seen.announced.push({ channel, data: data as Record<string, unknown> }));
		}
	};
}

const SCRIPT = `export const meta = { name: "gate", description: "a tool gate" };
const listed = await tool("bash", { command: "echo listed-$RANDOM$RANDOM" });
const gate = await tool("bash", { command: "echo gate-$RANDOM$RANDOM; exit 3" }, { replay: false, label: "the gate" });
let refused = null;
try { await tool("bash", { command: "rm -rf ./nothing" }); } catch (e) { refused = e.code + " " + e.message; }
let missing = null;
try { await tool("workflow", { script: "x" }); } catch (e) { missing = e.code; }
const summary = await agent("summarise " + gate.details.exit_code);
return { listed: listed.output.trim(), gate: gate.output, exit: gate.details.exit_code, isError: gate.isError, refused, missing, summary };`;

describe("tool() in a real pi session", () => {
	let harness: FauxHarness;
	let cwd: string;
	let parent: ParentSession;
	let seen: Seen;

	beforeEach(async () => {
		harness = await createFauxHarness();
		cwd = mkdtempSync(join(tmpdir(), "wf-script-tools-"));
		seen = { hooked: [], announced: [] };
	});
	afterEach(() => {
		parent?.dispose();
		harness.dispose();
		rmSync(cwd, { recursive: true, force: true });
	});

	function workflowEnds(): Array<{ details: WorkflowProgressDetails; isError: boolean }> {
		return parent.toolEvents
			.filter((e) => e.type === "tool_execution_end" && e.toolName === "workflow")
			.map((e) => {
				const end = e as unknown as { result: { details: WorkflowProgressDetails }; isError: boolean };
				return { details: end.result.details, isError: end.isError };
			});
	}

	it("runs bash through the session's hooks, which can refuse a call; a resume replays all but replay: false", async () => {
		let runId = "";
		harness.route(PARENT_TASK, [
			fauxAssistantMessage([fauxToolCall("workflow", { script: SCRIPT })], { stopReason: "toolUse" }),
			fauxAssistantMessage("ran"),
			() => fauxAssistantMessage([fauxToolCall("workflow", { resume: runId })], { stopReason: "toolUse" }),
			fauxAssistantMessage("resumed"),
		]);
		harness.route("summarise 3", [fauxAssistantMessage("the gate failed with 3")]);
		parent = await createParentSession({
			cwd,
			agentDir: harness.agentDir,
			modelRuntime: harness.modelRuntime,
			model: harness.model,
			extensions: { factories: [{ name: "policy", factory: policyExtension(seen) }], tools: ["bash"] },
		});
		await parent.session.prompt(PARENT_TASK);
		const [first] = workflowEnds();
		if (!first) throw new Error("the workflow tool did not finish");
		expect(first.details.envelope.status).toBe("completed");
		const value = first.details.envelope.result as Record<string, unknown>;
		expect(value.listed).toMatch(/^listed-\d+$/);
		expect(value.gate).toMatch(/^gate-\d+\n+Command exited with code 3$/);
		expect(value).toMatchObject({
			exit: 3,
			isError: true,
			missing: "tool_refused",
			summary: "the gate failed with 3",
		});
		expect(value.refused).toContain('tool_refused `tool("bash")` was refused: policy: no rm from workflows');
		expect(seen.hooked).toEqual([
			"echo listed-$RANDOM$RANDOM",
			"echo gate-$RANDOM$RANDOM; exit 3",
			"rm -rf ./nothing",
		]);
		runId = first.details.runId ?? "";
		expect(runId).toMatch(/^wf-/);
		const logs = first.details.envelope.logs.map((entry) => entry.message);
		expect(logs).toContainEqual(expect.stringMatching(/^\$ the gate · \d+\.\ds · exit 3$/));

		await parent.session.prompt("Resume it");
		const second = workflowEnds()[1];
		if (!second) throw new Error("the resume did not finish");
		const again = second.details.envelope.result as Record<string, unknown>;
		// Replayed: the same random output, and the hook never saw it again; the gate ran again (replay: false).
		expect(again.listed).toBe(value.listed);
		expect(again.gate).not.toBe(value.gate);
		expect(seen.hooked.slice(3)).toEqual(["echo gate-$RANDOM$RANDOM; exit 3", "rm -rf ./nothing"]);

		const channels = seen.announced.map((a) => a.channel);
		expect(channels).toEqual([
			"workflows:run_started",
			"workflows:tool_finished",
			"workflows:tool_finished",
			"workflows:agent_finished",
			"workflows:run_ended",
			"workflows:run_started",
			"workflows:tool_finished",
			"workflows:tool_finished",
			"workflows:agent_finished",
			"workflows:run_ended",
		]);
		expect(seen.announced.every((a) => a.data.runId === runId && a.data.name === "gate")).toBe(true);
		expect(seen.announced[4]?.data).toMatchObject({
			status: "completed",
			counts: { calls: 1, completed: 1 },
			tools: { calls: 4, replayed: 0, errors: 1, failed: 2 },
			// faux/faux-1 has no price: its reply counts as unknown, never as $0.
			cost: { usd: 0, unpriced: expect.any(Number) },
		});
		expect(seen.announced[6]?.data).toMatchObject({
			tool: "bash",
			label: "echo listed-$RANDOM$RANDOM",
			cached: true,
		});
		expect(seen.announced[7]?.data).toMatchObject({ label: "the gate", exitCode: 3, isError: true, cached: false });
	});
});
