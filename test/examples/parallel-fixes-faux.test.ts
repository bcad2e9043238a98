/**
 * parallel-fixes.js with real pi sessions on the faux provider in a real temporary git repository: the fixers
 * really edit files in their worktrees, and the merger really runs `git merge` through `bash` in the main tree.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { createRunnerFixture, type RunnerFixture } from "../children/runner-fixture.ts";
import { type FauxRequest, fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";
import { createTempRepo, type TempRepo } from "../helpers/git-repo.ts";
import { EXAMPLES_DIR, exampleSource } from "./harness.ts";

const RUN = "wf-20261201-130000-fix3s0";

let fx: RunnerFixture;
let repo: TempRepo;
beforeEach(async () => {
	fx = await createRunnerFixture();
	repo = createTempRepo();
});
afterEach(() => {
	fx.teardown();
	repo.dispose();
});

const toolUse = (name: string, args: Parameters<typeof fauxToolCall>[1]) =>
	fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" });
/** The branch the worktree note in the child's task names, as a model would read it. */
const branchOf = (request: FauxRequest) => /on branch `([^`]+)`/.exec(request.task)?.[1] ?? "?";
/** A fixer: one edit, then its answer with the branch from its note. */
const fixer = (path: string, oldText: string, newText: string) => [
	toolUse("edit", { path, edits: [{ oldText, newText }] }),
	(request: FauxRequest) =>
		toolUse("submit_result", { status: "fixed", summary: `edited ${path}`, branch: branchOf(request) }),
];

describe("parallel-fixes.js on real pi sessions and a real repository", () => {
	it("two fixers edit in their own worktrees at once; the merger merges both branches into main", async () => {
		fx.faux.route("add() subtracts", fixer("src/math.js", "a - b", "a + b"));
		fx.faux.route("README title", fixer("README.md", "# demo", "# Demo"));
		const merges: string[] = [];
		fx.faux.route("Merge these branches", [
			(request) => {
				const branches = [...request.task.matchAll(/^- (\S+):/gm)].map((m) => m[1] ?? "");
				merges.push(...branches);
				return toolUse("bash", { command: branches.map((b) => `git merge --no-ff --no-edit ${b}`).join(" && ") });
			},
			(request) => {
				expect(request.last).toMatchObject({ role: "toolResult", isError: false });
				return toolUse("submit_result", { merged: merges, conflicts: [], missing: [] });
			},
		]);

		const result = await runWorkflowScript(exampleSource("parallel-fixes.js"), {
			agentRunner: fx.runner({ cwd: repo.dir, worktreePlace: async () => ({ runId: RUN, dir: repo.runDir }) }),
			args: {
				fixes: [
					{ title: "add() subtracts", files: ["src/math.js"] },
					{ title: "README title", detail: "capitalise it" },
				],
			},
			cwd: repo.dir,
			filename: `${EXAMPLES_DIR}/parallel-fixes.js`,
		});

		expect(result.failures).toEqual([]);
		const branches = [`workflows/${RUN}/fix-1-add-subtracts`, `workflows/${RUN}/fix-2-readme-title`];
		expect(result.value).toEqual({
			fixes: [
				{ title: "add() subtracts", status: "fixed", summary: "edited src/math.js", branch: branches[0] },
				{ title: "README title", status: "fixed", summary: "edited README.md", branch: branches[1] },
			],
			merged: branches,
			conflicts: [],
			missing: [],
			unmerged: [],
		});
		// The merges really happened in the main tree: both edits are on main, each through a merge commit.
		expect(repo.read("src/math.js")).toContain("a + b");
		expect(repo.read("README.md")).toBe("# Demo\n");
		expect(repo.git(["log", "--merges", "--format=%s", "main"]).trim().split("\n")).toHaveLength(2);
		expect(repo.git(["status", "--porcelain"])).toBe("");
		expect(repo.leftovers()).toEqual({ worktrees: [], locks: [] });
		expect(fx.faux.pendingReplies()).toBe(0);
	});
});
