/**
 * `isolation: "worktree"` through the real `workflow` tool in a real pi session: the branch is named after the
 * tool's run id, the worktree lives in the run's folder, and the result the model sees lists the kept branch.
 */
import { join } from "node:path";
import { getAgentDir } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createParentSession, type ParentSession } from "../../scripts/parent-session.ts";
import { createRunStore } from "../../src/runs/index.ts";
import { createFauxHarness, type FauxHarness, fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";
import { createTempRepo, type TempRepo } from "../helpers/git-repo.ts";
import { workflowToolEnd } from "../helpers/workflow-tool-end.ts";

const PARENT_TASK = "Please run the isolated workflow";

describe('isolation: "worktree" through the workflow tool', () => {
	let harness: FauxHarness;
	let repo: TempRepo;
	let parent: ParentSession | undefined;

	beforeEach(async () => {
		harness = await createFauxHarness();
		repo = createTempRepo();
	});
	afterEach(() => {
		parent?.dispose();
		harness.dispose();
		repo.dispose();
	});

	it("names the branch after the run, keeps the worktree in the run's folder, and lists the branch at the end", async () => {
		const script = `export const meta = { name: "iso", description: "one isolated fixer" };
return await agent("Fix add in src/math.js", { label: "fix add", isolation: "worktree" });`;
		harness.route(PARENT_TASK, [
			fauxAssistantMessage([fauxToolCall("workflow", { script })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		harness.route("Fix add", [
			fauxAssistantMessage(
				[fauxToolCall("edit", { path: "src/math.js", edits: [{ oldText: "a - b", newText: "a + b" }] })],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("add() fixed"),
		]);
		parent = await createParentSession({
			cwd: repo.dir,
			agentDir: harness.agentDir,
			modelRuntime: harness.modelRuntime,
			model: harness.model,
		});
		await parent.session.prompt(PARENT_TASK);

		const end = workflowToolEnd(parent);
		expect(end.isError).toBe(false);
		const runId = end.details.runId ?? "";
		expect(runId).toMatch(/^wf-/);
		const branch = `workflows/${runId}/fix-add`;
		expect(repo.git(["show", `${branch}:src/math.js`])).toContain("a + b");
		expect(repo.read("src/math.js")).toContain("a - b");
		expect(repo.leftovers()).toEqual({ worktrees: [], locks: [] });

		const record = await createRunStore({ cwd: repo.dir, root: join(getAgentDir(), "workflow-runs") }).open(runId);
		const task = harness.requests.find((request) => request.task.includes("Fix add"))?.task ?? "";
		expect(task).toContain(`isolated git worktree at ${join(record.dir, "worktrees", "fix-add")}`);

		const text = end.text;
		expect(text).toContain('Result:\n"add() fixed"');
		expect(text).toContain(`Kept branches (1), to merge or delete:\n  ${branch} · #1 fix add · 1 file: src/math.js`);
		expect(end.details.envelope.branches).toEqual([expect.objectContaining({ branch, files: ["src/math.js"] })]);
		// The run's snapshot keeps the same text for /workflows.
		expect((await record.readSnapshot())?.progress).toContain(`Kept branches (1)`);
	});
});
