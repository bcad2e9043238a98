import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkflowError } from "../../src/errors.ts";
import { busyRepos, createRunWorktrees, labelSlug } from "../../src/worktree/index.ts";
import { createTempRepo, type TempRepo } from "../helpers/git-repo.ts";

let repo: TempRepo;
beforeEach(() => {
	repo = createTempRepo();
});
afterEach(() => {
	repo.dispose();
});

const RUN = "wf-20261201-120000-abcd12";
const worktrees = (extra: { git?: string } = {}) => createRunWorktrees({ runId: RUN, dir: repo.runDir, ...extra });

/** The error `promise` rejects with. */
async function failure(promise: Promise<unknown>): Promise<WorkflowError> {
	const error = await promise.then(
		() => undefined,
		(e: unknown) => e,
	);
	expect(error).toBeInstanceOf(WorkflowError);
	return error as WorkflowError;
}

describe("createRunWorktrees", () => {
	it("makes a worktree of HEAD on its own branch, outside the repository, without the main tree's uncommitted edits", async () => {
		repo.write("src/math.js", "uncommitted\n");
		const tree = await worktrees().open({ cwd: repo.dir, label: "Fix: add() subtracts" });
		expect(tree.branch).toBe(`workflows/${RUN}/fix-add-subtracts`);
		expect(tree.path).toBe(join(repo.runDir, "fix-add-subtracts"));
		expect(tree.path.startsWith(repo.dir)).toBe(false);
		expect(tree.base).toBe(repo.git(["rev-parse", "HEAD"]).trim());
		expect(repo.git(["show", "HEAD:src/math.js"], tree.path)).toContain("a - b");
		expect(existsSync(join(tree.path, "src/math.js"))).toBe(true);
		expect(repo.git(["rev-parse", "--abbrev-ref", "HEAD"], tree.path).trim()).toBe(tree.branch);
		await tree.close();
	});

	it("a dirty index does not block it: staged edits and a merge stopped on a conflict stay in the main tree", async () => {
		repo.git(["checkout", "--quiet", "-b", "other"]);
		repo.write("README.md", "# other\n");
		repo.git(["commit", "--quiet", "-am", "other"]);
		repo.git(["checkout", "--quiet", "main"]);
		repo.write("README.md", "# main\n");
		repo.git(["commit", "--quiet", "-am", "main"]);
		expect(() => repo.git(["merge", "other"])).toThrow();
		repo.write("staged.txt", "staged\n");
		repo.git(["add", "staged.txt"]);
		const tree = await worktrees().open({ cwd: repo.dir, label: "during a merge" });
		expect(repo.git(["status", "--porcelain"], tree.path)).toBe("");
		expect(existsSync(join(tree.path, "staged.txt"))).toBe(false);
		expect(await tree.close()).toEqual({ kept: false });
		expect(repo.git(["status", "--porcelain"])).toContain("UU README.md");
	});

	it("commits tracked edits, new files and deletions on the branch, removes the folder and keeps the branch", async () => {
		const tree = await worktrees().open({ cwd: repo.dir, label: "fix" });
		writeFileSync(join(tree.path, "src/math.js"), "export const add = (a, b) => a + b;\n");
		writeFileSync(join(tree.path, "NOTES.md"), "new\n");
		rmSync(join(tree.path, "README.md"));
		const outcome = await tree.close();
		expect(outcome).toEqual({
			kept: true,
			commit: expect.any(String),
			files: ["NOTES.md", "README.md", "src/math.js"],
		});
		expect(existsSync(tree.path)).toBe(false);
		expect(repo.git(["show", `${tree.branch}:src/math.js`])).toContain("a + b");
		expect(repo.git(["log", "-1", "--format=%s%n%b", tree.branch])).toContain(`workflows: fix`);
		expect(repo.git(["log", "-1", "--format=%b", tree.branch])).toContain(RUN);
		expect(repo.git(["diff", "--name-status", "main", tree.branch]).trim().split("\n")).toEqual([
			"A\tNOTES.md",
			"D\tREADME.md",
			"M\tsrc/math.js",
		]);
		// The main tree did not move.
		expect(repo.read("src/math.js")).toContain("a - b");
		expect(repo.git(["status", "--porcelain"])).toBe("");
		expect(repo.leftovers()).toEqual({ worktrees: [], locks: [] });
	});

	it("keeps a branch the child committed on itself, listing the files of its commits", async () => {
		const tree = await worktrees().open({ cwd: repo.dir, label: "self-commit" });
		writeFileSync(join(tree.path, "a.txt"), "a\n");
		repo.git(["add", "a.txt"], tree.path);
		repo.git(["commit", "--quiet", "-m", "child's own"], tree.path);
		const outcome = await tree.close();
		expect(outcome).toMatchObject({ kept: true, files: ["a.txt"] });
		expect(repo.git(["log", "--format=%s", `main..${tree.branch}`]).trim()).toBe("child's own");
	});

	it("removes the worktree and its branch when nothing changed", async () => {
		const tree = await worktrees().open({ cwd: repo.dir, label: "look only" });
		expect(await tree.close()).toEqual({ kept: false });
		expect(existsSync(tree.path)).toBe(false);
		expect(repo.git(["branch", "--list", "workflows/*"])).toBe("");
		expect(repo.leftovers()).toEqual({ worktrees: [], locks: [] });
	});

	it("gives calls with the same label distinct branches, also against branches an earlier attempt kept", async () => {
		const set = worktrees();
		const first = await set.open({ cwd: repo.dir, label: "fix" });
		const second = await set.open({ cwd: repo.dir, label: "fix" });
		expect([first.branch, second.branch]).toEqual([`workflows/${RUN}/fix`, `workflows/${RUN}/fix-2`]);
		writeFileSync(join(first.path, "x"), "x");
		await first.close();
		await second.close();
		// A resumed run has the same id: a new set of the same run does not reuse the kept branch.
		const again = await worktrees().open({ cwd: repo.dir, label: "fix" });
		expect(again.branch).toBe(`workflows/${RUN}/fix-2`);
		await again.close();
	});

	it("makes many at once in one repository without lock errors", async () => {
		const set = worktrees();
		const trees = await Promise.all(
			Array.from({ length: 6 }, (_, i) => set.open({ cwd: repo.dir, label: `child ${i}` })),
		);
		await Promise.all(
			trees.map(async (tree, i) => {
				writeFileSync(join(tree.path, `f${i}.txt`), `${i}\n`);
				return tree.close();
			}),
		);
		expect(repo.git(["branch", "--list", "workflows/*"]).trim().split("\n")).toHaveLength(6);
		expect(repo.leftovers()).toEqual({ worktrees: [], locks: [] });
		expect(busyRepos()).toBe(0);
	});

	it("works from a subdirectory: the child's directory is the same subdirectory of the worktree", async () => {
		const tree = await worktrees().open({ cwd: join(repo.dir, "src"), label: "sub" });
		expect(tree.cwd).toBe(join(tree.path, "src"));
		expect(tree.repo).toBe(repo.dir);
		await tree.close();
	});

	it("runs none of the repository's hooks: a post-checkout or post-commit that hangs, a pre-commit that refuses", async () => {
		const hooks = join(repo.dir, ".git", "hooks");
		for (const [hook, body] of [
			["post-checkout", "sleep 60"],
			["pre-commit", "exit 1"],
			["post-commit", "sleep 60"],
		]) {
			// Each hook leaves a mark before it does its part: a hook that ran is seen whatever the machine's load.
			writeFileSync(join(hooks, hook), `#!/bin/sh\ntouch "${join(repo.dir, `ran-${hook}`)}"\n${body}\n`, {
				mode: 0o755,
			});
		}
		const tree = await worktrees().open({ cwd: repo.dir, label: "hooked" });
		writeFileSync(join(tree.path, "x"), "x");
		expect(await tree.close()).toMatchObject({ kept: true, files: ["x"] });
		for (const hook of ["post-checkout", "pre-commit", "post-commit"]) {
			expect(existsSync(join(repo.dir, `ran-${hook}`)), `${hook} ran`).toBe(false);
		}
	});

	it("commits with a fallback identity when the repository has none", async () => {
		repo.git(["config", "--unset", "user.name"]);
		repo.git(["config", "--unset", "user.email"]);
		const tree = await worktrees().open({ cwd: repo.dir, label: "anon" });
		writeFileSync(join(tree.path, "x"), "x");
		const env = { HOME: repo.runDir, XDG_CONFIG_HOME: repo.runDir, GIT_CONFIG_NOSYSTEM: "1" };
		const saved = { ...process.env };
		Object.assign(process.env, env);
		try {
			expect(await tree.close()).toMatchObject({ kept: true });
		} finally {
			for (const key of Object.keys(env)) {
				if (saved[key] === undefined) delete process.env[key];
				else process.env[key] = saved[key];
			}
		}
		expect(repo.git(["log", "-1", "--format=%an <%ae>", tree.branch]).trim()).toBe(
			"pi-workflows <pi-workflows@localhost>",
		);
	});
});

describe("createRunWorktrees errors", () => {
	it("not a git repository: worktree_not_a_repo, saying what to do", async () => {
		const plain = join(repo.runDir, "..", "plain");
		mkdirSync(plain, { recursive: true });
		const error = await failure(worktrees().open({ cwd: plain, label: "x" }));
		expect(error.code).toBe("worktree_not_a_repo");
		expect(error.message).toContain(`${plain} is not inside a git working tree`);
		expect(error.message).toContain("leave `isolation` out");
	});

	it("no commit yet: worktree_no_commit", async () => {
		const empty = createTempRepo({ commit: false });
		try {
			const error = await failure(
				createRunWorktrees({ runId: RUN, dir: empty.runDir }).open({ cwd: empty.dir, label: "x" }),
			);
			expect(error.code).toBe("worktree_no_commit");
			expect(error.message).toContain("has no commit yet (HEAD is unborn)");
			expect(empty.leftovers()).toEqual({ worktrees: [], locks: [] });
		} finally {
			empty.dispose();
		}
	});

	it("a branch in the way (a branch named `workflows`): worktree_branch_exists, and nothing half-made", async () => {
		repo.git(["branch", "workflows"]);
		const error = await failure(worktrees().open({ cwd: repo.dir, label: "fix" }));
		expect(error.code).toBe("worktree_branch_exists");
		expect(error.message).toContain(`git cannot create branch \`workflows/${RUN}/fix\``);
		expect(error.message).toContain("'refs/heads/workflows' exists");
		expect(
			repo
				.git(["branch", "--list"])
				.trim()
				.split("\n")
				.map((b) => b.trim()),
		).toEqual(["* main", "workflows"]);
		expect(repo.leftovers()).toEqual({ worktrees: [], locks: [] });
		expect(existsSync(join(repo.runDir, "fix"))).toBe(false);
	});

	it("a held lock: worktree_locked after a few retries, naming the lock file", async () => {
		const lock = join(repo.dir, ".git", "refs", "heads", "workflows", RUN, "fix.lock");
		mkdirSync(join(lock, ".."), { recursive: true });
		writeFileSync(lock, "");
		const error = await failure(worktrees().open({ cwd: repo.dir, label: "fix" }));
		expect(error.code).toBe("worktree_locked");
		expect(error.message).toContain("fix.lock");
		expect(error.message).toContain("remove the `.lock` file");
		rmSync(lock);
		expect(repo.leftovers()).toEqual({ worktrees: [], locks: [] });
	});

	it("git missing: worktree_git_missing", async () => {
		const error = await failure(worktrees({ git: "git-that-is-not-there" }).open({ cwd: repo.dir, label: "x" }));
		expect(error.code).toBe("worktree_git_missing");
		expect(error.message).toContain("`git-that-is-not-there` was not found on PATH");
	});
});

describe("labelSlug", () => {
	it.each([
		["Fix: parse() drops the last line", "fix-parse-drops-the-last-line"],
		["  ÉTÉ café ", "ete-cafe"],
		["../../etc", "etc"],
		["!!!", "agent"],
		["x".repeat(80), "x".repeat(48)],
	])("%s → %s", (label, slug) => {
		expect(labelSlug(label)).toBe(slug);
	});
});
