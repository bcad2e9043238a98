/**
 * `context: "fork"` through pi's own loader: a parent session on the faux provider talks first ("the code word is
 * PELICAN"), then calls the `workflow` tool. Forked children (the call's `context`, pi-dynamic-workflows' spelling
 * `contextMode`, an agent file's `context: fork`) see that earlier exchange and not the `workflow` call itself; a
 * fresh child does not see it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contentText, type Message } from "@earendil-works/pi-ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createParentSession, type ParentSession } from "../../scripts/parent-session.ts";
import type { WorkflowProgressDetails } from "../../src/progress/index.ts";
import {
	createFauxHarness,
	type FauxHarness,
	type FauxRequest,
	fauxAssistantMessage,
	fauxToolCall,
} from "../helpers/faux.ts";

const FIRST = "Remember this: the code word is PELICAN";
const RUN = "Please run the workflow";

/** The child's answer: the user messages its conversation holds, and whether it holds the `workflow` call. */
function childAnswer(request: FauxRequest) {
	const users = request.messages
		.filter((message: Message) => message.role === "user")
		.map((message) => (typeof message.content === "string" ? message.content : contentText(message.content)));
	const sawCall = request.messages.some(
		(message) =>
			message.role === "assistant" &&
			message.content.some((part) => part.type === "toolCall" && part.name === "workflow"),
	);
	return fauxAssistantMessage(
		`${users.map((text) => text.split(":")[0]).join(" | ")}${sawCall ? " + workflow call" : ""}`,
	);
}

describe("forked children see the session's conversation", () => {
	let harness: FauxHarness;
	let cwd: string;
	let parent: ParentSession;
	let details: WorkflowProgressDetails;

	beforeAll(async () => {
		harness = await createFauxHarness();
		cwd = mkdtempSync(join(tmpdir(), "wf-fork-"));
		mkdirSync(join(cwd, ".pi", "agents"), { recursive: true });
		writeFileSync(
			join(cwd, ".pi", "agents", "forker.md"),
			"---\nname: forker\ndescription: starts from the session\ncontext: fork\n---\nYou continue the session.\n",
		);
		const script = `export const meta = { name: "forks", description: "d" };
const [forked, peer, file, fresh, overridden] = await Promise.all([
	agent("Task one: what is the code word?", { context: "fork", label: "forked" }),
	agent("Task two: what is the code word?", { contextMode: "fork", label: "peer" }),
	agent("Task three: what is the code word?", { agent: "forker", label: "file" }),
	agent("Task four: what is the code word?", { label: "fresh" }),
	agent("Task five: what is the code word?", { agent: "forker", context: "fresh", label: "overridden" }),
]);
return { forked, peer, file, fresh, overridden };`;
		// Routed by the newest message: a forked child's first user message is the parent's, not its task.
		const last = (text: string) => (request: FauxRequest) => request.last.text === text;
		harness.route(last(FIRST), [fauxAssistantMessage("Noted.")]);
		harness.route(last(RUN), [
			fauxAssistantMessage([fauxToolCall("workflow", { script })], { stopReason: "toolUse" }),
		]);
		harness.route((request) => request.last.role === "toolResult", [fauxAssistantMessage("done")]);
		harness.route(
			(request) => request.last.text.startsWith("Task "),
			Array.from({ length: 5 }, () => childAnswer),
		);
		parent = await createParentSession({
			cwd,
			agentDir: harness.agentDir,
			modelRuntime: harness.modelRuntime,
			model: harness.model,
		});
		await parent.session.prompt(FIRST);
		await parent.session.prompt(RUN);
		const end = parent.toolEvents.find((e) => e.type === "tool_execution_end" && e.toolName === "workflow");
		if (end?.type !== "tool_execution_end") throw new Error("the workflow tool did not finish");
		details = (end.result as { details: WorkflowProgressDetails }).details;
	});
	afterAll(() => {
		parent?.dispose();
		harness?.dispose();
		rmSync(cwd, { recursive: true, force: true });
	});

	it("forks by the call's `context`, `contextMode` and the agent file's `context: fork`; fresh otherwise", () => {
		expect(details.envelope.status).toBe("completed");
		// A forked child's conversation: the first exchange, the run prompt, then its task (not the workflow call).
		expect(details.envelope.result).toEqual({
			forked: "Remember this | Please run the workflow | Task one",
			peer: "Remember this | Please run the workflow | Task two",
			file: "Remember this | Please run the workflow | Task three",
			fresh: "Task four",
			overridden: "Task five",
		});
	});
});
