/**
 * `context: "fork"` where the runner has no parent conversation (the command line, a queue worker) and where it has
 * one, under the real runtime with pi sessions on the faux provider: a call that must fork fails with
 * `fork_unavailable` at its position before any child starts, `fork-or-fresh` starts fresh and says so once, an
 * agent file's `context: fork` fails naming the file, and a runner given a conversation seeds the child with it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parentConversationOf } from "../../src/host/parent-conversation.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { agentFile } from "../agents/agent-files.ts";
import { type FauxRequest, fauxAssistantMessage } from "../helpers/faux.ts";
import { createRunnerFixture, type RunnerFixture } from "./runner-fixture.ts";

const HEADER = 'export const meta = { name: "t", description: "forks without a parent" };\n';
const CLI_REASON = "it runs from the command line (`pi-workflows run`), where there is no session conversation";

/** The user messages a child's conversation holds, as its answer. */
function users(request: FauxRequest) {
	const texts = request.messages.filter((m) => m.role === "user").map((m) => JSON.stringify(m.content));
	return fauxAssistantMessage(texts.map((text) => (text.includes("PELICAN") ? "parent" : "task")).join(","));
}

let fx: RunnerFixture;
beforeAll(async () => {
	fx = await createRunnerFixture();
	fx.dirs.write(".pi/agents/forker.md", agentFile("context: fork", "You continue the session."));
	fx.faux.route(
		() => true,
		Array.from({ length: 4 }, () => users),
	);
});
afterAll(() => fx.teardown());

describe("forks where there is no parent conversation", () => {
	it('`context: "fork"` fails with fork_unavailable at the call, before any child starts', async () => {
		const before = fx.faux.requests.length;
		const source = `${HEADER}await agent("Task", { context: "fork", label: "scout" });`;
		const result = await runWorkflowScript(source, { agentRunner: fx.runner(), cwd: fx.dirs.cwd });
		expect(result.status).toBe("failed");
		expect(result.error?.code).toBe("fork_unavailable");
		expect(result.error?.message).toBe(
			'`scout` asks to start from the session\'s conversation (`context: "fork"`), and there is none here: this run has no parent conversation (it runs from the command line, on a queue worker, or from a command in a session with no messages yet). Write `context: "fork-or-fresh"` to start fresh where there is no conversation, or `context: "fresh"`, or run the workflow from a pi session with the `workflow` tool (2:12)',
		);
		expect(fx.faux.requests.length).toBe(before);
	});

	it('`context: "fork-or-fresh"` starts fresh and says so once in the log', async () => {
		const source = `${HEADER}return await Promise.all([agent("Task a", { context: "fork-or-fresh", label: "a" }), agent("Task b", { contextMode: "fork-or-fresh", label: "b" })]);`;
		const logs: string[] = [];
		const result = await runWorkflowScript(source, {
			agentRunner: fx.runner(),
			cwd: fx.dirs.cwd,
			onProgress: (event) => event.type === "log" && logs.push(event.message),
		});
		expect(result.status).toBe("completed");
		expect(result.value).toEqual(["task", "task"]);
		expect(logs).toEqual([
			'`a`: this run has no parent conversation (it runs from the command line, on a queue worker, or from a command in a session with no messages yet); children with `context: "fork-or-fresh"` start fresh',
		]);
	});

	it("an agent file's `context: fork` fails naming the file and the host's reason", async () => {
		const source = `${HEADER}await agent("Task", { agent: "forker" });`;
		const runner = fx.runner({ noParentConversation: CLI_REASON });
		const result = await runWorkflowScript(source, { agentRunner: runner, cwd: fx.dirs.cwd });
		expect(result.error?.code).toBe("fork_unavailable");
		expect(result.error?.message).toMatch(
			/^agent type `forker` \(.*\/\.pi\/agents\/forker\.md\), with `context: fork`, asks to start from the session's conversation \(`context: "fork"`\), and there is none here: it runs from the command line/,
		);
		expect(result.error).toMatchObject({ line: 2, column: 12 });
	});
});

describe("a runner given the parent conversation", () => {
	it("seeds a forked child's session with it; its call's `fresh` wins over the agent file", async () => {
		const branch = [
			{
				type: "message",
				id: "a",
				parentId: null,
				timestamp: "2026-12-03T00:00:00.000Z",
				message: userMessage("the code word is PELICAN"),
			},
			{
				type: "message",
				id: "b",
				parentId: "a",
				timestamp: "2026-12-03T00:00:01.000Z",
				message: fauxAssistantMessage("Noted."),
			},
		];
		const parentConversation = parentConversationOf(branch);
		if (!parentConversation) throw new Error("no conversation");
		const source = `${HEADER}return await Promise.all([agent("Task", { agent: "forker" }), agent("Task", { agent: "forker", context: "fresh" })]);`;
		const result = await runWorkflowScript(source, {
			agentRunner: fx.runner({ parentConversation }),
			cwd: fx.dirs.cwd,
			parentConversation,
		});
		expect(result.value).toEqual(["parent,task", "task"]);
	});
});

function userMessage(text: string) {
	return { role: "user", content: [{ type: "text", text }], timestamp: 0 };
}
