/**
 * The session's tools for children, through pi's own loader: a small extension registers `lookup_ticket` next to
 * ours; a workflow child on the faux provider calls it, the tool really runs (in the parent session, through its
 * hooks) and its output reaches the child. Agent types name session tools like built-ins; one that is missing is a
 * warning in the run's log, not a crash.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createParentSession, type ParentSession } from "../../scripts/parent-session.ts";
import type { WorkflowProgressDetails } from "../../src/progress/index.ts";
import { createFauxHarness, type FauxHarness, fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";

const PARENT_TASK = "Please run the workflow";

/** What the tool saw, so a test can tell it really ran (and with which arguments, through which hooks). */
interface TicketLog {
	calls: string[];
	hooked: string[];
}

function ticketExtension(log: TicketLog) {
	return (pi: ExtensionAPI) => {
		pi.registerTool({
			name: "lookup_ticket",
			label: "Lookup ticket",
			description: "Looks up a ticket by id",
			parameters: Type.Object({ id: Type.String() }),
			async execute(_id, params: { id: string }) {
				log.calls.push(params.id);
				return { content: [{ type: "text", text: `ticket ${params.id}: the login page is slow` }], details: {} };
			},
		});
		// The parent's hooks see a child's calls as they see the model's own.
		pi.on("tool_call", (event) => {
			if (event.toolName === "lookup_ticket") log.hooked.push(JSON.stringify(event.input));
		});
	};
}

describe("the session's tools for children", () => {
	let harness: FauxHarness;
	let cwd: string;
	let parent: ParentSession;
	let log: TicketLog;

	beforeEach(async () => {
		harness = await createFauxHarness();
		cwd = mkdtempSync(join(tmpdir(), "wf-session-tools-"));
		log = { calls: [], hooked: [] };
	});
	afterEach(() => {
		parent?.dispose();
		harness.dispose();
		rmSync(cwd, { recursive: true, force: true });
	});

	async function run(script: string): Promise<WorkflowProgressDetails> {
		harness.route(PARENT_TASK, [
			fauxAssistantMessage([fauxToolCall("workflow", { script })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		parent = await createParentSession({
			cwd,
			agentDir: harness.agentDir,
			modelRuntime: harness.modelRuntime,
			model: harness.model,
			extensions: { factories: [{ name: "tickets", factory: ticketExtension(log) }], tools: ["lookup_ticket"] },
		});
		await parent.session.prompt(PARENT_TASK);
		const end = parent.toolEvents.find((e) => e.type === "tool_execution_end" && e.toolName === "workflow");
		if (end?.type !== "tool_execution_end") throw new Error("the workflow tool did not finish");
		return (end.result as { details: WorkflowProgressDetails }).details;
	}

	/** A child that calls `lookup_ticket`, then answers with the tool result it saw. */
	function ticketChild(task: string) {
		harness.route(task, [
			fauxAssistantMessage([fauxToolCall("lookup_ticket", { id: "T-42" })], { stopReason: "toolUse" }),
			(request) => fauxAssistantMessage(`child saw: ${request.last.text}`),
		]);
	}

	it("a general-purpose child gets the session's tool, calls it, and its output reaches the child", async () => {
		ticketChild("triage T-42");
		const details = await run(`export const meta = { name: "t", description: "d" };
return await agent("triage T-42");`);
		expect(details.envelope.status).toBe("completed");
		expect(log.calls).toEqual(["T-42"]);
		expect(log.hooked).toEqual(['{"id":"T-42"}']);
		expect(details.envelope.result).toBe("child saw: ticket T-42: the login page is slow");
		const child = harness.requests.find((r) => r.task === "triage T-42");
		expect(child?.tools).toContain("lookup_ticket");
		expect(child?.tools).not.toContain("workflow");
		expect(child?.tools).not.toContain("workflow_runs");
	});

	it("an agent type names the session's tool like a built-in; one it names that is missing is a logged warning", async () => {
		mkdirSync(join(cwd, ".pi", "agents"), { recursive: true });
		writeFileSync(
			join(cwd, ".pi", "agents", "triager.md"),
			"---\nname: triager\ntools: read, lookup_ticket, jira_search\n---\nYou triage tickets.\n",
		);
		writeFileSync(join(cwd, ".pi", "agents", "reader.md"), "---\nname: reader\ntools: read\n---\nYou read.\n");
		ticketChild("triage T-42");
		harness.route("read it", [fauxAssistantMessage("read")]);
		const details = await run(`export const meta = { name: "t", description: "d" };
const a = await agent("triage T-42", { agent: "triager", label: "triage" });
const b = await agent("read it", { agent: "reader" });
return { a, b };`);
		expect(details.envelope.result).toEqual({ a: "child saw: ticket T-42: the login page is slow", b: "read" });
		const triager = harness.requests.find((r) => r.task === "triage T-42");
		expect(triager?.tools.sort()).toEqual(["lookup_ticket", "read"]);
		const reader = harness.requests.find((r) => r.task === "read it");
		expect(reader?.tools).toEqual(["read"]);
		expect(details.envelope.logs.map((entry) => `${entry.level}: ${entry.message}`)).toEqual([
			"warn: `triage`: agent type `triager` names tool `jira_search`, which this session does not have (its tools beyond pi's built-ins: lookup_ticket); the child ran without it",
		]);
	});

	it("a call's own `tools` may name the session's tool; `disallowed_tools` keeps it from a type", async () => {
		mkdirSync(join(cwd, ".pi", "agents"), { recursive: true });
		writeFileSync(
			join(cwd, ".pi", "agents", "locked.md"),
			"---\nname: locked\ndisallowed_tools: lookup_ticket\n---\nNo tickets.\n",
		);
		ticketChild("triage T-42");
		harness.route("locked", [fauxAssistantMessage("no tools for me")]);
		const details = await run(`export const meta = { name: "t", description: "d" };
const a = await agent("triage T-42", { tools: ["lookup_ticket"] });
const b = await agent("locked work", { agent: "locked" });
return { a, b };`);
		expect(details.envelope.result).toEqual({
			a: "child saw: ticket T-42: the login page is slow",
			b: "no tools for me",
		});
		expect(harness.requests.find((r) => r.task === "triage T-42")?.tools).toEqual(["lookup_ticket"]);
		expect(harness.requests.find((r) => r.task === "locked work")?.tools).not.toContain("lookup_ticket");
	});
});
