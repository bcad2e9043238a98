/**
 * Background runs through a real parent pi session (faux provider, the extension loaded through pi's resource
 * loader): the call returns at once, the run outlives an Esc on the parent, reports back exactly once, and stops
 * on `workflow_runs` stop and on session shutdown with its record written.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ExtensionUIContext, getAgentDir } from "@earendil-works/pi-coding-agent";
import { stripTerminalSequences } from "@earendil-works/pi-tui";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createParentSession, type ParentSession } from "../../scripts/parent-session.ts";
import type { WorkflowProgressDetails } from "../../src/progress/index.ts";
import { createRunStore } from "../../src/runs/index.ts";
import {
	createFauxHarness,
	type FauxHarness,
	type FauxReply,
	fauxAssistantMessage,
	fauxToolCall,
	untilAborted,
} from "../helpers/faux.ts";
import { until } from "../helpers/until.ts";
import { darkTheme } from "../progress/theme.ts";

const PARENT_TASK = "Please run the workflow";
const SCRIPT = `export const meta = { name: "bg", description: "d" };
const a = await agent("first child");
const b = await agent("second child");
return { a, b };`;

function call(tool: string, args: Parameters<typeof fauxToolCall>[1]) {
	return fauxAssistantMessage([fauxToolCall(tool, args)], { stopReason: "toolUse" });
}

/** A reply that waits until `open()` is called. */
function gate(text: string): { reply: FauxReply; open: () => void } {
	let open = () => {};
	const opened = new Promise<void>((resolve) => {
		open = resolve;
	});
	const reply: FauxReply = async () => {
		await opened;
		return fauxAssistantMessage(text);
	};
	return { reply, open };
}

describe("background workflow runs in a real pi session", () => {
	let harness: FauxHarness;
	let cwd: string;
	let parent: ParentSession;

	beforeEach(async () => {
		harness = await createFauxHarness();
		cwd = mkdtempSync(join(tmpdir(), "wf-bg-"));
	});
	afterEach(() => {
		parent?.dispose();
		harness.dispose();
		rmSync(cwd, { recursive: true, force: true });
	});

	async function startParent(mode?: "rpc"): Promise<void> {
		parent = await createParentSession({
			cwd,
			agentDir: harness.agentDir,
			modelRuntime: harness.modelRuntime,
			model: harness.model,
		});
		// The SDK's sessions run as print mode, where no later turn can take a completion message.
		if (mode) await parent.session.bindExtensions({ mode });
	}

	function toolResults(name: string) {
		return parent.toolEvents.flatMap((event) =>
			event.type === "tool_execution_end" && event.toolName === name
				? [
						event.result as {
							content: Array<{ text?: string }>;
							details: WorkflowProgressDetails;
						},
					]
				: [],
		);
	}

	const completions = () => harness.requests.filter((r) => r.last.text.includes("Background workflow run"));

	it("returns at once, outlives an Esc on the parent, and reports back exactly once", async () => {
		const second = gate("B");
		harness.route(PARENT_TASK, [
			call("workflow", { script: SCRIPT, background: true }),
			untilAborted(),
			fauxAssistantMessage("noted the result"),
		]);
		harness.route("first child", [fauxAssistantMessage("A")]);
		harness.route("second child", [second.reply]);
		await startParent("rpc");

		const prompt = parent.session.prompt(PARENT_TASK);
		await until(() => toolResults("workflow").length === 1, "the tool to return");
		const started = toolResults("workflow")[0];
		const runId = started?.details.runId ?? "";
		expect(started?.content[0]?.text).toContain(`in the background as run \`${runId}\``);
		// Esc on the parent's turn: the background run must not notice.
		await until(() => harness.requests.some((r) => r.task.includes("second child")), "the second child");
		await parent.session.abort();
		await prompt;
		const child = harness.requests.find((r) => r.task.includes("second child"));
		expect(child?.signal?.aborted).toBe(false);

		second.open();
		await until(() => completions().length === 1, "the completion message");
		const message = completions()[0]?.last.text ?? "";
		expect(message).toContain(`Background workflow run \`${runId}\` ended`);
		expect(message).toContain('"a": "A"');
		// The first line names the run; a completed one needs no second line saying so again.
		expect(message).not.toContain(`Run \`${runId}\`.`);
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(completions()).toHaveLength(1);

		// pi draws it with the extension's renderer: a status line, not `[workflow-run]` and the raw text.

		const sent = parent.session.messages.find((m) => m.role === "custom" && m.customType === "workflow-run");
		const renderer = parent.session.extensionRunner.getMessageRenderer("workflow-run");
		const options = { expanded: false, outputPad: 1, keyText: () => "ctrl+o", keyHint: () => "ctrl+o to expand" };
		const drawn = sent && renderer?.(sent as Parameters<typeof renderer>[0], options, darkTheme())?.render(100);
		expect(stripTerminalSequences(drawn?.[1] ?? "")).toMatch(
			new RegExp(`^ ✓ bg ${runId} · completed · 2 agents \\(2 completed\\) · [\\d.]+k? tokens · [\\d.]+m?s\\s*$`),
		);

		const snapshot = await (
			await createRunStore({ cwd, root: join(getAgentDir(), "workflow-runs") }).open(runId)
		).readSnapshot();
		expect(snapshot).toMatchObject({ status: "completed", value: { a: "A", b: "B" } });
	});

	it("stops on workflow_runs stop; the completion message says stopped and gives the resume call", async () => {
		let runId = "";
		harness.route(PARENT_TASK, [
			call("workflow", { script: SCRIPT, background: true }),
			fauxAssistantMessage("started"),
			() => call("workflow_runs", { action: "stop", runId }),
			fauxAssistantMessage("stopped it"),
			fauxAssistantMessage("saw the completion"),
		]);
		harness.route("first child", [fauxAssistantMessage("A")]);
		harness.route("second child", [untilAborted()]);
		await startParent("rpc");
		await parent.session.prompt(PARENT_TASK);
		runId = toolResults("workflow")[0]?.details.runId ?? "";
		await until(() => harness.requests.some((r) => r.task.includes("second child")), "the second child");

		await parent.session.prompt("stop it");
		const stop = toolResults("workflow_runs")[0]?.content[0]?.text ?? "";
		expect(stop).toContain(`Stopped run ${runId}.`);
		expect(stop).toContain(`Resume: workflow({ resume: "${runId}" })`);
		expect(harness.requests.find((r) => r.task.includes("second child"))?.signal?.aborted).toBe(true);
		await until(() => completions().length === 1, "the completion message");
		expect(completions()[0]?.last.text).toContain(
			`1 agent result is saved. Resume with workflow({ resume: "${runId}" })`,
		);
	});

	it("/workflows in the TUI: lists the live run first, and stops it once the person confirms", async () => {
		harness.route(PARENT_TASK, [
			call("workflow", { script: SCRIPT, background: true }),
			fauxAssistantMessage("started"),
			fauxAssistantMessage("saw the completion"),
		]);
		harness.route("first child", [fauxAssistantMessage("A")]);
		harness.route("second child", [untilAborted()]);
		await startParent();
		// A person at the terminal: picks the first run in the list, says yes to stopping it.
		const offered: string[][] = [];
		const shown: string[] = [];
		const person: Record<string, unknown> = {
			select: async (_title: string, options: string[]) => {
				offered.push(options);
				return options[0];
			},
			confirm: async () => true,
			notify: (text: string) => shown.push(text),
		};
		const uiContext = new Proxy(person, {
			get: (target, key) => (key in target ? target[key as string] : () => undefined),
		}) as unknown as ExtensionUIContext;
		await parent.session.bindExtensions({ uiContext, mode: "tui" });
		await parent.session.prompt(PARENT_TASK);
		const runId = toolResults("workflow")[0]?.details.runId ?? "";
		await until(() => harness.requests.some((r) => r.task.includes("second child")), "the second child");

		await parent.session.prompt("/workflows");
		expect(offered[0]?.[0]).toMatch(new RegExp(`^${runId} · bg · running \\(background\\)`));
		await until(() => shown.length > 0, "the stopped run's view");
		expect(harness.requests.find((r) => r.task.includes("second child"))?.signal?.aborted).toBe(true);
		expect(shown[0]).toContain(`Run ${runId} (bg): stopped`);
		// Its final progress: the agent calls and how each ended.
		expect(shown[0]).toMatch(/#1 first child \(general-purpose\) · completed/);
		expect(shown[0]).toMatch(/#2 second child \(general-purpose\) · stopped/);
		expect(shown[0]).toContain(`Resume: workflow({ resume: "${runId}" })`);
	});

	it("on session shutdown: stops the run, with its snapshot written as stopped", async () => {
		harness.route(PARENT_TASK, [call("workflow", { script: SCRIPT, background: true }), fauxAssistantMessage("ok")]);
		harness.route("first child", [fauxAssistantMessage("A")]);
		harness.route("second child", [untilAborted()]);
		await startParent("rpc");
		await parent.session.prompt(PARENT_TASK);
		const runId = toolResults("workflow")[0]?.details.runId ?? "";
		await until(() => harness.requests.some((r) => r.task.includes("second child")), "the second child");

		await parent.session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
		expect(harness.requests.find((r) => r.task.includes("second child"))?.signal?.aborted).toBe(true);
		// The session is ending: the stopped run must not start a turn on it with its completion message.
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(completions()).toHaveLength(0);
		const record = await createRunStore({ cwd, root: join(getAgentDir(), "workflow-runs") }).open(runId);
		expect(await record.readSnapshot()).toMatchObject({ status: "stopped" });
		expect((await record.journal()).size).toBe(1);
	});

	it("in print mode: runs blocking and says so", async () => {
		harness.route(PARENT_TASK, [call("workflow", { script: SCRIPT, background: true }), fauxAssistantMessage("ok")]);
		harness.route("first child", [fauxAssistantMessage("A")]);
		harness.route("second child", [fauxAssistantMessage("B")]);
		await startParent();
		await parent.session.prompt(PARENT_TASK);
		const result = toolResults("workflow")[0];
		expect(result?.details.envelope.status).toBe("completed");
		expect(result?.content[0]?.text).toContain("Ran blocking: background runs need an interactive session");
	});
});
