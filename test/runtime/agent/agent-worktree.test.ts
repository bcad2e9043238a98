/** What a runner says of an isolated child's worktree reaches events and the census as plain data; the script gets only the answer. */
import { describe, expect, it } from "vitest";
import type { WorkflowAgentRunner, WorkflowProgressEvent } from "../../../src/runtime/index.ts";
import { runWorkflowScript } from "../../../src/runtime/index.ts";
import { HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const TREE = { path: "/runs/wf-1/worktrees/fix", branch: "workflows/wf-1/fix" };

async function run(runner: WorkflowAgentRunner, body: string) {
	const events: WorkflowProgressEvent[] = [];
	const result = await runWorkflowScript(HEADER + body, { agentRunner: runner, onProgress: (e) => events.push(e) });
	return { result, events };
}

describe("agent() and a runner's worktree report", () => {
	it("a completed child: the script gets the answer, agent_finished and agent_child carry the worktree", async () => {
		const runner: WorkflowAgentRunner = async (request, { reportChild }) => {
			reportChild({
				id: "c1",
				type: request.agentType,
				status: "active",
				description: request.label,
				worktree: TREE,
			});
			return {
				id: "c1",
				type: request.agentType,
				status: "completed",
				result: "fixed",
				worktree: { ...TREE, kept: true, files: ["a.ts"], fileCount: 1, commit: "abc" },
			};
		};
		const { result, events } = await run(
			runner,
			'return await agent("Fix", { label: "fix", isolation: "worktree" });',
		);
		expect(result.value).toBe("fixed");
		expect(events.find((e) => e.type === "agent_child")).toMatchObject({ child: { worktree: TREE } });
		expect(events.find((e) => e.type === "agent_finished")).toMatchObject({
			worktree: { ...TREE, kept: true, files: ["a.ts"], fileCount: 1, commit: "abc" },
		});
	});

	it("a failed child: its code and worktree are in the census and in agent_failed", async () => {
		const runner: WorkflowAgentRunner = async (request) => ({
			id: "c1",
			type: request.agentType,
			status: "failed",
			error: "no repository here",
			code: "worktree_not_a_repo",
			worktree: { ...TREE, kept: true, files: ["half.txt"] },
		});
		const { result, events } = await run(
			runner,
			'return await agent("Fix", { label: "fix", isolation: "worktree" });',
		);
		expect(result.value).toBeNull();
		expect(result.failures).toEqual([
			expect.objectContaining({
				cause: "no repository here",
				code: "worktree_not_a_repo",
				worktree: { ...TREE, kept: true, files: ["half.txt"] },
			}),
		]);
		expect(events.find((e) => e.type === "agent_failed")).toMatchObject({ code: "worktree_not_a_repo" });
	});

	it("a report that is not plain data is read without running getters, typed fields only, at most 100 files", async () => {
		let getterRan = false;
		const odd = {
			...TREE,
			kept: "yes",
			files: [...Array.from({ length: 150 }, (_, i) => `f${i}`), 42],
			fileCount: -1,
			get commit() {
				getterRan = true;
				return "abc";
			},
		};
		const runner: WorkflowAgentRunner = async (request) => ({
			id: "c1",
			type: request.agentType,
			status: "completed",
			result: "ok",
			worktree: odd as never,
		});
		const { events } = await run(runner, 'return await agent("Fix", { isolation: "worktree" });');
		const finished = events.find((e) => e.type === "agent_finished");
		expect(finished?.type === "agent_finished" && finished.worktree).toEqual({
			...TREE,
			files: Array.from({ length: 100 }, (_, i) => `f${i}`),
		});
		expect(getterRan).toBe(false);
	});

	it("a worktree without a path or branch is left out", async () => {
		const runner: WorkflowAgentRunner = async (request) => ({
			id: "c1",
			type: request.agentType,
			status: "completed",
			result: "ok",
			worktree: { branch: 7 } as never,
		});
		const { events } = await run(runner, 'return await agent("Fix");');
		expect(events.find((e) => e.type === "agent_finished")).not.toHaveProperty("worktree");
	});
});
