/**
 * `context: "fork"` on the runtime's side, with a scripted runner (pi is not the point here; test/e2e/fork-context
 * and test/children/agent-runner-fork run real sessions): the option and its pi-dynamic-workflows spelling, what the
 * runner is told, the key, a replay needing no conversation, the static pass, the fan-out question's and the dry
 * run's figures, and the cut of the parent's branch at the `workflow` call.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { forkCostText } from "../../../src/host/estimate.ts";
import { parentConversationOf } from "../../../src/host/parent-conversation.ts";
import { estimateDryPlan } from "../../../src/host/run-estimate.ts";
import type { WorkflowFanOutInfo } from "../../../src/runtime/core/types.ts";
import {
	checkWorkflowScript,
	dryRunWorkflowScript,
	runWorkflowScript,
	type WorkflowParentConversation,
	type WorkflowRunOptions,
} from "../../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { memoryJournal } from "../../helpers/memory-journal.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const PARENT: WorkflowParentConversation = { entries: [], messages: 4, tokens: 12_300 };

async function run(body: string, options: Partial<WorkflowRunOptions> = {}) {
	const fake = createFakeRunner();
	const result = await runWorkflowScript(`${HEADER}${body}`, { agentRunner: fake.runner, ...options });
	return { result, fake };
}

describe("the option", () => {
	it("tells the runner `fork` only where there is a conversation; `fresh` and unset are passed as they are", async () => {
		const body = `await agent("a", { context: "fork" }); await agent("b", { contextMode: "fork-or-fresh" });
await agent("c", { context: "fresh" }); await agent("d");`;
		const withParent = await run(body, { parentConversation: PARENT });
		expect(withParent.fake.requests.map((r) => r.context)).toEqual(["fork", "fork", "fresh", undefined]);
		const without = await run(body.replace(`await agent("a", { context: "fork" }); `, ""));
		expect(without.fake.requests.map((r) => r.context)).toEqual(["fresh", "fresh", undefined]);
	});

	it("refuses a value it does not know, by the name the script wrote, in both tiers", async () => {
		const body = `await agent("x", { contextMode: "isolated" });`;
		const message =
			'`agent()` option `contextMode` must be one of "fresh", "fork", "fork-or-fresh", got "isolated" (2:12)';
		const { result } = await run(body);
		expect(result.error?.code).toBe("agent_options_invalid");
		expect(result.error?.message).toBe(message);
		expect(checkWorkflowScript(`${HEADER}${body}`).diagnostics.map((d) => `${d.code} ${d.line}:${d.column}`)).toEqual(
			["agent_options_invalid 2:12"],
		);
		const both = await run(`await agent("x", { context: "fork", contextMode: "fresh" });`);
		expect(both.result.error?.message).toBe(
			"`agent()` options `context` and `contextMode` are the same option; give one (2:12)",
		);
	});

	it("refuses `resume` with a `context`: a conversation starts once", async () => {
		const body = `const a = await agent("a", { label: "r" }); await agent("b", { resume: "r", contextMode: "fork" });`;
		const { result, fake } = await run(body, { parentConversation: PARENT });
		expect(result.error?.code).toBe("agent_options_invalid");
		expect(result.error?.message).toBe(
			'`agent()` option `resume` continues an earlier child\'s conversation, and `contextMode: "fork"` says where a new one starts: give one of them (2:56)',
		);
		// The static pass reads the literal options: refused before any child starts.
		expect(fake.requests).toEqual([]);
		expect(checkWorkflowScript(`${HEADER}${body}`).diagnostics.map((d) => `${d.code} ${d.line}:${d.column}`)).toEqual(
			["agent_options_invalid 2:56"],
		);
	});

	it("the static pass accepts both spellings", () => {
		const body = `await agent("a", { context: "fork" }); await agent("b", { contextMode: "fork" });`;
		expect(checkWorkflowScript(`${HEADER}${body}`).diagnostics).toEqual([]);
	});
});

describe("keys and the journal", () => {
	it("a forked call's key says it forks; a recorded one replays without a conversation", async () => {
		const journal = memoryJournal();
		const first = await run(`await agent("x", { context: "fork" }); await agent("x");`, {
			journal,
			parentConversation: PARENT,
		});
		const [forked, fresh] = first.fake.requests.map((r) => r.key);
		expect(forked).not.toBe(fresh);
		// A resume from the command line: no conversation, and the forked call replays, no child and no error.
		const again = await run(`await agent("x", { context: "fork" }); return "resumed";`, { journal });
		expect(again.result.status).toBe("completed");
		expect(again.fake.requests).toEqual([]);
	});
});

describe("what forking costs", () => {
	it("the fan-out question carries the conversation's size when the script forks, and not otherwise", async () => {
		const asked: WorkflowFanOutInfo[] = [];
		const confirmFanOut = async (info: WorkflowFanOutInfo) => {
			asked.push(info);
			return true;
		};
		const fan = (opts: string) => `await parallel([1, 2, 3].map((n) => () => agent("item " + n${opts})));`;
		const options = { parentConversation: PARENT, confirmFanOut, fanOutThreshold: 2 };
		await run(fan(`, { context: "fork" }`), options);
		await run(fan(""), options);
		expect(asked.map((info) => info.forkTokens)).toEqual([12_300, undefined]);
		expect(forkCostText(12_300, 3, "these 3")).toBe(
			'Each agent that forks (`context: "fork"`) first reads the session\'s conversation, about 12.3k tokens: up to 36.9k tokens for these 3, on top of the estimate.',
		);
	});

	it("a dry run marks the calls that fork and the tokens each reads", async () => {
		const source = `${HEADER}await agent("a", { context: "fork" }); await agent("b");`;
		const { plan } = await dryRunWorkflowScript(source, { parentConversation: PARENT });
		expect(plan.calls.map((call) => call.forks)).toEqual([true, undefined]);
		expect(plan.forkTokens).toBe(12_300);
		const cli = await dryRunWorkflowScript(source, {});
		expect(cli.plan.error?.code).toBe("fork_unavailable");
		// The dry run's estimate says what the forked call reads, from a project with no runs yet.
		const runsRoot = mkdtempSync(join(tmpdir(), "wf-fork-estimate-"));
		try {
			const { text } = await estimateDryPlan(plan, { cwd: runsRoot, runsRoot });
			expect(text.split("\n").at(-1)).toBe(
				'An agent that forks (`context: "fork"`) first reads the session\'s conversation, about 12.3k tokens, on top of the estimate.',
			);
		} finally {
			rmSync(runsRoot, { recursive: true, force: true });
		}
	});
});

describe("the parent's branch", () => {
	const entry = (id: string, role: string, content: unknown[]) => ({
		type: "message",
		id,
		parentId: null,
		message: { role, content },
	});
	const branch = [
		{ type: "model_change", id: "m", parentId: null },
		entry("u1", "user", [{ type: "text", text: "x".repeat(40) }]),
		entry("a1", "assistant", [
			{ type: "text", text: "on it" },
			{ type: "toolCall", id: "call-7", name: "workflow", arguments: {} },
		]),
		entry("r1", "toolResult", [{ type: "text", text: "sibling result" }]),
	];

	it("is cut before the assistant message holding the `workflow` call", () => {
		const parent = parentConversationOf(branch, "call-7");
		expect(parent?.entries.map((e) => e.id)).toEqual(["m", "u1"]);
		expect(parent?.messages).toBe(1);
		expect(parent?.tokens).toBe(Math.ceil(JSON.stringify([{ type: "text", text: "x".repeat(40) }]).length / 4));
	});

	it("is whole for a command (no call), and there is none without a message", () => {
		expect(parentConversationOf(branch)?.entries).toHaveLength(4);
		expect(parentConversationOf(branch.slice(0, 1))).toBeUndefined();
	});
});
