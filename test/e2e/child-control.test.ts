/**
 * Per-child control through a real parent pi session (faux provider, the extension loaded through pi's resource
 * loader): `workflow_runs` steers a running child of a background run (the message reaches its next turn), skips
 * one (null, "skipped by the user", no retries) and restarts one (the script gets the second attempt's answer);
 * the stall watchdog stops a child the provider never answers, retries it once with a note, then gives null, and
 * lets go of one whose provider ignores the abort too.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getAgentDir } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createParentSession, type ParentSession } from "../../scripts/parent-session.ts";
import type { WorkflowProgressDetails } from "../../src/progress/index.ts";
import { createRunStore } from "../../src/runs/index.ts";
import {
	createDeafCalls,
	createFauxHarness,
	type FauxHarness,
	type FauxReply,
	fauxAssistantMessage,
	fauxToolCall,
	untilAborted,
} from "../helpers/faux.ts";
import { until } from "../helpers/until.ts";

const PARENT_TASK = "Please run the workflow";

function call(tool: string, args: Parameters<typeof fauxToolCall>[1]) {
	return fauxAssistantMessage([fauxToolCall(tool, args)], { stopReason: "toolUse" });
}

describe("per-child control in a real pi session", () => {
	let harness: FauxHarness;
	let cwd: string;
	let parent: ParentSession;

	beforeEach(async () => {
		harness = await createFauxHarness();
		cwd = mkdtempSync(join(tmpdir(), "wf-control-"));
	});
	afterEach(() => {
		parent?.dispose();
		harness.dispose();
		rmSync(cwd, { recursive: true, force: true });
	});

	function results(name: string) {
		return parent.toolEvents.flatMap((event) =>
			event.type === "tool_execution_end" && event.toolName === name
				? [event.result as { content: Array<{ text?: string }>; details: WorkflowProgressDetails }]
				: [],
		);
	}

	const requestsFor = (task: string) => harness.requests.filter((r) => r.task.includes(task));

	/** A parent session on the faux provider, given PARENT_TASK. The SDK's sessions run as print mode, where a
	 * background request runs blocking: `rpc` binds the extensions as an interactive host would. */
	async function startParent(mode?: "rpc"): Promise<void> {
		parent = await createParentSession({
			cwd,
			agentDir: harness.agentDir,
			modelRuntime: harness.modelRuntime,
			model: harness.model,
		});
		if (mode) await parent.session.bindExtensions({ mode });
		await parent.session.prompt(PARENT_TASK);
	}

	/**
	 * Starts `script` in the background; once `ready` holds, the parent's next turn makes the `workflow_runs` call
	 * `action(runId)` gives. Resolves with the run id, that call's result text and the run's snapshot.
	 */
	async function controlRun(
		script: string,
		ready: () => boolean,
		action: (runId: string) => Record<string, string>,
		afterAction = () => {},
	) {
		let runId = "";
		harness.route(PARENT_TASK, [
			call("workflow", { script, background: true }),
			fauxAssistantMessage("started"),
			() => call("workflow_runs", action(runId)),
			fauxAssistantMessage("asked"),
			fauxAssistantMessage("noted the result"),
		]);
		await startParent("rpc");
		runId = results("workflow")[0]?.details.runId ?? "";
		expect(runId).not.toBe("");
		await until(ready, "the child to be running");
		await parent.session.prompt("Now act on the child");
		afterAction();
		const said = results("workflow_runs")[0]?.content[0]?.text ?? "";
		await until(() => harness.requests.some((r) => r.last.text.includes("Background workflow run")), "the run's end");
		const store = createRunStore({ cwd, root: join(getAgentDir(), "workflow-runs") });
		const snapshot = await (await store.open(runId)).readSnapshot();
		return { runId, said, snapshot };
	}

	it("steer: the message reaches the running child at its next turn, and the child acts on it", async () => {
		let release = () => {};
		const gate = new Promise<void>((resolve) => {
			release = resolve;
		});
		const firstTurn: FauxReply = async () => {
			await gate;
			return call("ls", { path: "." });
		};
		harness.route("long task", [
			firstTurn,
			(request) => fauxAssistantMessage(`finished, last told: ${request.last.role}: ${request.last.text}`),
		]);
		// The steer is queued while the child's first turn streams; then the turn ends with a tool call.
		const { said, snapshot } = await controlRun(
			`export const meta = { name: "steer", description: "d" };\nreturn await agent("long task", { label: "worker" });`,
			() => requestsFor("long task").length === 1,
			(runId) => ({ action: "steer", runId, child: "#1", message: "Also check the tests folder" }),
			release,
		);
		expect(said).toBe("Sent to `worker` (#1): it reads the message at its next turn.");
		expect(snapshot).toMatchObject({
			status: "completed",
			value: "finished, last told: user: Also check the tests folder",
		});
		// The child's second request carries the steer after the tool result of its first turn.
		const second = requestsFor("long task")[1];
		const roles = second?.messages.map((message) => message.role);
		expect(roles?.slice(-3)).toEqual(["assistant", "toolResult", "user"]);
	});

	it("skip: the child ends, agent() gives null with cause 'skipped by the user', and its retries are not used", async () => {
		harness.route("skip me", [untilAborted(), fauxAssistantMessage("a retry must not happen")]);
		harness.route("after", [fauxAssistantMessage("B")]);
		const { said, snapshot } = await controlRun(
			`export const meta = { name: "skip", description: "d" };
const a = await agent("skip me", { label: "slow one", retries: 2 });
const b = await agent("after");
return { a, b };`,
			() => requestsFor("skip me").length === 1,
			(runId) => ({ action: "skip", runId, child: "slow one" }),
		);
		expect(said).toBe('Skipped `slow one` (#1): its agent() call gives null ("skipped by the user").');
		expect(snapshot).toMatchObject({ status: "completed", value: { a: null, b: "B" } });
		expect(snapshot?.failures).toEqual([
			expect.objectContaining({ label: "slow one", cause: "skipped by the user" }),
		]);
		expect(requestsFor("skip me")).toHaveLength(1);
	});

	it("restart: a fresh attempt, and the script gets the second attempt's answer", async () => {
		harness.route("flaky", [untilAborted(), fauxAssistantMessage("the second attempt's answer")]);
		const { said, snapshot } = await controlRun(
			`export const meta = { name: "restart", description: "d" };\nreturn await agent("flaky task");`,
			() => requestsFor("flaky").length === 1,
			(runId) => ({ action: "restart", runId, child: "1" }),
		);
		expect(said).toBe("Restarting `flaky task` (#1): a fresh attempt; the script gets its answer.");
		expect(snapshot).toMatchObject({ status: "completed", value: "the second attempt's answer", failures: [] });
		expect(snapshot?.counts).toMatchObject({ calls: 1, completed: 1, failed: 0 });
		const [first, second] = requestsFor("flaky");
		expect(first?.signal?.aborted).toBe(true);
		// A fresh session: the second attempt's conversation starts over with the same task.
		expect(second?.messages.filter((message) => message.role === "user")).toHaveLength(1);
		expect(second?.task).toBe("flaky task");
	});

	it("pause: the child's turn stops, it shows paused and waits; a steer resumes the same conversation", async () => {
		harness.route("pause me", [
			untilAborted(),
			(request) =>
				fauxAssistantMessage(
					`resumed with: ${request.last.text} (${request.messages.map((message) => message.role).join(", ")})`,
				),
		]);
		let runId = "";
		harness.route(PARENT_TASK, [
			call("workflow", {
				script: `export const meta = { name: "p", description: "d" };\nreturn await agent("pause me", { label: "thinker", stallMs: 1500 });`,
				background: true,
			}),
			fauxAssistantMessage("started"),
			() => call("workflow_runs", { action: "pause", runId, child: "thinker" }),
			() => call("workflow_runs", { action: "status", runId }),
			fauxAssistantMessage("paused it"),
			() => call("workflow_runs", { action: "steer", runId, child: "#1", message: "Go on, but be brief" }),
			fauxAssistantMessage("resumed it"),
			fauxAssistantMessage("noted"),
		]);
		await startParent("rpc");
		runId = results("workflow")[0]?.details.runId ?? "";
		await until(() => requestsFor("pause me").length === 1, "the child");
		await parent.session.prompt("Pause it");
		const [paused, status] = results("workflow_runs").map((result) => result.content[0]?.text ?? "");
		expect(paused).toBe("Pausing `thinker` (#1): its turn stops and it waits; steer it with a message to go on.");
		expect(status).toMatch(/▸ #1 thinker \(general-purpose\) · paused, waiting for a message/);
		// Paused is not stalled: waiting past its stallMs, the watchdog leaves it alone and no new attempt starts.
		await new Promise((resolve) => setTimeout(resolve, 2000));
		expect(requestsFor("pause me")).toHaveLength(1);
		await parent.session.prompt("Resume it");
		expect(results("workflow_runs")[2]?.content[0]?.text).toBe(
			"Sent to `thinker` (#1): it goes on with the message.",
		);
		await until(() => harness.requests.some((r) => r.last.text.includes("Background workflow run")), "the run's end");
		const store = createRunStore({ cwd, root: join(getAgentDir(), "workflow-runs") });
		const snapshot = await (await store.open(runId)).readSnapshot();
		// The same session: the task, the stopped turn and the message are all in its conversation.
		expect(snapshot).toMatchObject({
			status: "completed",
			value: "resumed with: Go on, but be brief (system, user, assistant, user)",
		});
	});

	it("a child that is not there, or no longer running, is a coded error the model can read", async () => {
		harness.route("quick", [fauxAssistantMessage("done quickly")]);
		harness.route("slow", [untilAborted(), fauxAssistantMessage("second")]);
		let runId = "";
		harness.route(PARENT_TASK, [
			call("workflow", {
				script: `export const meta = { name: "e", description: "d" };\nconst q = await agent("quick");\nreturn [q, await agent("slow")];`,
				background: true,
			}),
			fauxAssistantMessage("started"),
			() => call("workflow_runs", { action: "skip", runId, child: "#10" }),
			() => call("workflow_runs", { action: "restart", runId, child: "quick" }),
			() => call("workflow_runs", { action: "steer", runId, child: "slow" }),
			() => call("workflow_runs", { action: "stop", runId }),
			fauxAssistantMessage("done"),
			fauxAssistantMessage("noted"),
		]);
		await startParent("rpc");
		runId = results("workflow")[0]?.details.runId ?? "";
		await until(() => requestsFor("slow").length === 1, "the slow child");
		await parent.session.prompt("Now act on the children");
		const texts = parent.toolEvents.flatMap((event) =>
			event.type === "tool_execution_end" && event.toolName === "workflow_runs"
				? [
						{
							isError: event.isError,
							text: (event.result as { content: Array<{ text?: string }> }).content[0]?.text,
						},
					]
				: [],
		);
		expect(texts.slice(0, 3)).toEqual([
			{ isError: true, text: "No agent call `#10` in this run. Running or queued: #2 slow" },
			{ isError: true, text: "`quick` (#1) has already completed; only a running child can be restarted" },
			{ isError: true, text: "Nothing to send to `slow` (#2): give the message after the child" },
		]);
	});

	it("stall watchdog: a child the provider never answers is stopped, retried once with a note, then null", async () => {
		harness.route("hang", [untilAborted(), untilAborted()]);
		harness.route("fine", [fauxAssistantMessage("F")]);
		harness.route(PARENT_TASK, [
			call("workflow", {
				script: `export const meta = { name: "stall", description: "d" };
const a = await agent("hang forever", { label: "hanger", stallMs: 1000 });
return { a, b: await agent("fine") };`,
			}),
			fauxAssistantMessage("done"),
		]);
		await startParent();
		const { envelope } = results("workflow")[0]?.details ?? ({} as WorkflowProgressDetails);
		expect(envelope.result).toEqual({ a: null, b: "F" });
		expect(envelope.failures).toHaveLength(1);
		expect(envelope.failures[0]?.cause).toMatch(/^stalled after \d+(\.\d)? s, again on its retry$/);
		const [first, second] = requestsFor("hang forever");
		expect(requestsFor("hang forever")).toHaveLength(2);
		expect(first?.signal?.aborted).toBe(true);
		expect(second?.task).toMatch(/^hang forever\n\nNote: an earlier attempt at this task was stopped after \d/);
		expect(envelope.logs.map((entry) => entry.message)).toEqual([
			expect.stringMatching(/^`hanger`: stalled after \d+(\.\d)? s without progress; retried once$/),
		]);
	});

	it("stall watchdog: a child whose provider ignores abort is let go after the grace, retried once, then null", async () => {
		const deaf = createDeafCalls();
		harness.route("hang", [deaf.reply(), deaf.reply()]);
		harness.route("fine", [fauxAssistantMessage("F")]);
		harness.route(PARENT_TASK, [
			call("workflow", {
				script: `export const meta = { name: "deaf", description: "d" };
const a = await agent("hang forever", { label: "hanger", stallMs: 1500 });
return { a, b: await agent("fine") };`,
			}),
			fauxAssistantMessage("done"),
		]);
		try {
			await startParent();
			const { envelope } = results("workflow")[0]?.details ?? ({} as WorkflowProgressDetails);
			expect(envelope.result).toEqual({ a: null, b: "F" });
			expect(envelope.failures.map((failure) => failure.cause)).toEqual([
				"stalled after 1.5 s, again on its retry; 2 attempts did not stop when asked and were abandoned",
			]);
			expect(deaf.started).toBe(2);
			// The log gives the stall as measured, which a loaded machine stretches past the 1.5 s asked for.
			expect(envelope.logs.map((entry) => entry.message)).toEqual([
				expect.stringMatching(
					/^`hanger`: stalled after 1\.\d s without progress and did not stop when asked \(abandoned\); retried once$/,
				),
			]);
		} finally {
			deaf.release();
		}
	});

	it("stall watchdog: a retry that answers gives the script its answer", async () => {
		harness.route("hang", [untilAborted(), fauxAssistantMessage("recovered")]);
		harness.route(PARENT_TASK, [
			call("workflow", {
				script: `export const meta = { name: "stall", description: "d" };\nreturn await agent("hang once", { stallMs: 1000 });`,
			}),
			fauxAssistantMessage("done"),
		]);
		await startParent();
		const { envelope } = results("workflow")[0]?.details ?? ({} as WorkflowProgressDetails);
		expect(envelope.status).toBe("completed");
		expect(envelope.result).toBe("recovered");
		expect(envelope.failures).toEqual([]);
	});
});
