import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkflowError } from "../../src/errors.ts";
import {
	busyRepos,
	openRemoteWorkspace,
	prepareClone,
	type RemoteWorkspaceOptions,
	remoteWorkspaceNote,
} from "../../src/worktree/index.ts";
import { createTempRemote, type TempRemote } from "../helpers/git-remote.ts";

let repo: TempRemote;
beforeEach(() => {
	repo = createTempRemote();
});
afterEach(() => {
	repo.dispose();
	expect(busyRepos()).toBe(0);
});

const RUN = "wf-20261201-120000-abcd12";
const options = (extra: Partial<RemoteWorkspaceOptions> = {}): RemoteWorkspaceOptions => ({
	repoUrl: repo.remote,
	cacheDir: repo.cache,
	commit: repo.head(),
	runId: RUN,
	label: "Fix: add() subtracts",
	...extra,
});

/** The error `promise` rejects with. */
async function failure(promise: Promise<unknown>): Promise<WorkflowError> {
	const error = await promise.then(
		() => undefined,
		(e: unknown) => e,
	);
	expect(error).toBeInstanceOf(WorkflowError);
	return error as WorkflowError;
}

/** The remote's branches under the run's prefix. */
function remoteBranches(): string[] {
	return repo
		.git(["for-each-ref", "--format=%(refname:short)", `refs/heads/workflows/${RUN}/`], repo.remote)
		.split("\n")
		.filter(Boolean)
		.sort();
}

/** Worktree entries git still records in the worker's clone. */
function cloneWorktrees(clone: string): string[] {
	const entries = join(clone, "worktrees");
	return existsSync(entries) ? readdirSync(entries) : [];
}

describe("openRemoteWorkspace", () => {
	it("a child that edits: committed as a local isolated child's, pushed as workflows/<runId>/<slug>, worktree gone", async () => {
		const space = await openRemoteWorkspace(options());
		expect(space.root.startsWith(repo.cache)).toBe(true);
		expect(space.cwd).toBe(space.root);
		expect(space.base).toBe(repo.head());
		expect(space.branch).toBe(`workflows/${RUN}/fix-add-subtracts`);
		expect(repo.git(["rev-parse", "HEAD"], space.cwd).trim()).toBe(repo.head());
		writeFileSync(join(space.cwd, "src/math.js"), "export const add = (a, b) => a + b;\n");
		writeFileSync(join(space.cwd, "NOTES.md"), "new\n");
		rmSync(join(space.cwd, "README.md"));
		const result = await space.finish();
		expect(result).toEqual({
			changed: true,
			pushed: true,
			branch: `workflows/${RUN}/fix-add-subtracts`,
			remote: repo.remote,
			commit: expect.stringMatching(/^[0-9a-f]{40}$/),
			files: ["NOTES.md", "README.md", "src/math.js"],
		});
		expect(remoteBranches()).toEqual([`workflows/${RUN}/fix-add-subtracts`]);
		expect(repo.git(["rev-parse", `workflows/${RUN}/fix-add-subtracts`], repo.remote).trim()).toBe(result.commit);
		expect(repo.git(["show", `${result.commit}:src/math.js`], repo.remote)).toContain("a + b");
		expect(repo.git(["log", "-1", "--format=%s%n%b", result.commit ?? ""], repo.remote)).toContain(
			"workflows: Fix: add() subtracts",
		);
		expect(repo.git(["log", "-1", "--format=%b", result.commit ?? ""], repo.remote)).toContain(RUN);
		expect(existsSync(space.root)).toBe(false);
		expect(cloneWorktrees(space.clone.path)).toEqual([]);
		// Finishing again gives the same result and does nothing more.
		expect(await space.finish()).toBe(result);
		await space.dispose();
	});

	it("a read-only child: no commit, no branch, no push, worktree gone", async () => {
		const space = await openRemoteWorkspace(options({ label: "look around" }));
		expect(await space.finish()).toEqual({ changed: false, pushed: false });
		expect(remoteBranches()).toEqual([]);
		expect(existsSync(space.root)).toBe(false);
		expect(cloneWorktrees(space.clone.path)).toEqual([]);
	});

	it("commits the child made itself are pushed, with its edits left uncommitted on top", async () => {
		const space = await openRemoteWorkspace(options({ label: "own commit" }));
		writeFileSync(join(space.cwd, "a.txt"), "a\n");
		repo.git(["add", "a.txt"], space.cwd);
		repo.git(["-c", "user.name=Child", "-c", "user.email=c@x", "commit", "--quiet", "-m", "child's own"], space.cwd);
		writeFileSync(join(space.cwd, "b.txt"), "b\n");
		const result = await space.finish();
		expect(result.files).toEqual(["a.txt", "b.txt"]);
		expect(
			repo
				.git(["log", "--format=%s", `main..${result.branch}`], repo.remote)
				.trim()
				.split("\n"),
		).toEqual(["workflows: own commit", "child's own"]);
	});

	it("works in the host's subdirectory of the worktree, made when the commit has nothing there", async () => {
		const space = await openRemoteWorkspace(options({ subdir: "src" }));
		expect(space.cwd).toBe(join(space.root, "src"));
		expect(existsSync(join(space.cwd, "math.js"))).toBe(true);
		const fresh = await openRemoteWorkspace(options({ subdir: "docs/new", label: "fresh" }));
		expect(existsSync(fresh.cwd)).toBe(true);
		expect(await fresh.finish()).toEqual({ changed: false, pushed: false });
		await space.dispose();
		const error = await failure(openRemoteWorkspace(options({ subdir: "../outside" })));
		expect(error.code).toBe("worktree_failed");
		expect(error.message).toContain("must be inside the repository");
	});

	it("tells the child where it works and which branch its changes go to", async () => {
		const space = await openRemoteWorkspace(options());
		expect(remoteWorkspaceNote(space)).toBe(
			`You are working in a checkout of commit ${repo.head().slice(0, 12)} of the project at ${space.cwd}, on another machine than the person who started the run (their uncommitted changes are not here). When you finish, everything you changed is committed and pushed to the project's remote as branch \`workflows/${RUN}/fix-add-subtracts\` (or that name with a number) for them to merge. Work only inside ${space.root}.`,
		);
		await space.dispose();
	});

	it("keeps one clone per URL in the cache and fetches a commit pushed after the clone was made", async () => {
		const first = await openRemoteWorkspace(options({ label: "one" }));
		await first.finish();
		repo.write("later.txt", "later\n");
		repo.git(["add", "later.txt"]);
		repo.git(["commit", "--quiet", "-m", "later"]);
		repo.git(["push", "--quiet", "origin", "main"]);
		const second = await openRemoteWorkspace(options({ label: "two" }));
		expect(second.clone.path).toBe(first.clone.path);
		expect(existsSync(join(second.cwd, "later.txt"))).toBe(true);
		await second.dispose();
		expect(readdirSync(repo.cache).filter((name) => name.endsWith(".git"))).toHaveLength(1);
	});

	it("several children at once on one clone, each with its own worktree and branch", async () => {
		const labels = ["a", "b", "c", "d", "e", "f"];
		const spaces = await Promise.all(labels.map((label) => openRemoteWorkspace(options({ label }))));
		expect(new Set(spaces.map((space) => space.root)).size).toBe(labels.length);
		expect(new Set(spaces.map((space) => space.clone.path)).size).toBe(1);
		spaces.forEach((space, i) => {
			if (i % 2 === 0) writeFileSync(join(space.cwd, `${labels[i]}.txt`), `${i}\n`);
		});
		const results = await Promise.all(spaces.map((space) => space.finish()));
		expect(results.map((result) => result.pushed)).toEqual([true, false, true, false, true, false]);
		expect(remoteBranches()).toEqual([`workflows/${RUN}/a`, `workflows/${RUN}/c`, `workflows/${RUN}/e`]);
		expect(cloneWorktrees(spaces[0]?.clone.path ?? "")).toEqual([]);
	});

	it("label collisions: one label twice at once, and a name already on the remote, get -2, -3", async () => {
		repo.git(["push", "--quiet", "origin", `main:refs/heads/workflows/${RUN}/fix`]);
		const [one, two] = await Promise.all([
			openRemoteWorkspace(options({ label: "fix" })),
			openRemoteWorkspace(options({ label: "fix" })),
		]);
		expect(one?.root).not.toBe(two?.root);
		for (const space of [one, two]) if (space) writeFileSync(join(space.cwd, "x.txt"), space.root);
		const results = await Promise.all([one?.finish(), two?.finish()]);
		expect(results.map((result) => result?.branch).sort()).toEqual([
			`workflows/${RUN}/fix-2`,
			`workflows/${RUN}/fix-3`,
		]);
		// The branch already there is left as it was.
		expect(repo.git(["rev-parse", `workflows/${RUN}/fix`], repo.remote).trim()).toBe(repo.head());
	});

	it("a name another worker takes between the look and the push: the lease refuses it, the next name is used", async () => {
		// The real git, except that right after this worker looks at the remote's names, another pushes `race`.
		const shim = join(repo.cache, "..", "git-shim.sh");
		writeFileSync(
			shim,
			`#!/bin/sh
if [ "$1" = "ls-remote" ]; then
  out=$(git "$@") || exit $?
  git push --quiet origin ${repo.head()}:refs/heads/workflows/${RUN}/race || exit 1
  [ -n "$out" ] && echo "$out"
  exit 0
fi
exec git "$@"
`,
			{ mode: 0o755 },
		);
		const space = await openRemoteWorkspace(options({ label: "race", git: shim }));
		writeFileSync(join(space.cwd, "x.txt"), "x\n");
		const result = await space.finish();
		expect(result).toMatchObject({ pushed: true, branch: `workflows/${RUN}/race-2` });
		expect(repo.git(["rev-parse", `workflows/${RUN}/race`], repo.remote).trim()).toBe(repo.head());
	});

	it("fetches and pushes with ssh in batch mode (no passphrase prompt at the worker's terminal), unless git is told its own ssh", async () => {
		const log = join(repo.cache, "..", "ssh.log");
		const shim = join(repo.cache, "..", "git-shim.sh");
		writeFileSync(shim, `#!/bin/sh\necho "$1 [$GIT_SSH_COMMAND]" >> ${log}\nexec git "$@"\n`, { mode: 0o755 });
		const space = await openRemoteWorkspace(options({ git: shim, label: "ssh" }));
		writeFileSync(join(space.cwd, "x.txt"), "x\n");
		await space.finish();
		const lines = () => readFileSync(log, "utf8").split("\n");
		// The fetch runs as `git -c gc.autoDetach=false fetch …`.
		expect(lines()).toEqual(
			expect.arrayContaining([
				"-c [ssh -o BatchMode=yes]",
				"ls-remote [ssh -o BatchMode=yes]",
				"push [ssh -o BatchMode=yes]",
			]),
		);
		expect(lines().filter((line) => line.startsWith("worktree "))).toEqual(expect.arrayContaining(["worktree []"]));
		rmSync(log);
		repo.git(["config", "core.sshCommand", "ssh -i /somewhere/key"], space.clone.path);
		const own = await openRemoteWorkspace(options({ git: shim, label: "own ssh" }));
		writeFileSync(join(own.cwd, "x.txt"), "x\n");
		await own.finish();
		expect(lines()).toContain("push []");
	});

	it("a commit not on the remote: worktree_commit_missing, saying to push it", async () => {
		repo.write("local.txt", "only here\n");
		repo.git(["add", "local.txt"]);
		repo.git(["commit", "--quiet", "-m", "not pushed"]);
		const error = await failure(openRemoteWorkspace(options()));
		expect(error.code).toBe("worktree_commit_missing");
		expect(error.message).toBe(
			`The run's commit ${repo.head().slice(0, 12)} is not on ${repo.remote}: the worker fetched every branch and tag and none has it. Push the commit the run started from (\`git push\` on the host), then run again`,
		);
	});

	it("a remote that cannot be read: worktree_remote_failed, naming the URL and git's words", async () => {
		const missing = join(repo.cache, "..", "nowhere.git");
		const error = await failure(openRemoteWorkspace(options({ repoUrl: missing })));
		expect(error.code).toBe("worktree_remote_failed");
		expect(error.message).toContain(`The worker could not fetch the run's commit from ${missing} (`);
		expect(error.message).toContain("does not appear to be a git repository");
		expect(error.message).toContain(`try \`git ls-remote ${missing}\` on the worker`);
		await expect(prepareClone({ repoUrl: missing, cacheDir: repo.cache })).rejects.toMatchObject({
			code: "worktree_remote_failed",
		});
		await expect(prepareClone({ repoUrl: "--upload-pack=x", cacheDir: repo.cache })).rejects.toMatchObject({
			code: "worktree_remote_failed",
			message: expect.stringContaining("(--upload-pack=x) reads as an option"),
		});
	});

	it("push rejected by a hook: the result says why, the commit is kept in the clone, and a retry pushes it", async () => {
		repo.hook("pre-receive", 'echo "pushes are closed today" >&2\nexit 1');
		const space = await openRemoteWorkspace(options({ label: "closed" }));
		writeFileSync(join(space.cwd, "x.txt"), "x\n");
		const result = await space.finish();
		const branch = `workflows/${RUN}/closed`;
		expect(result).toEqual({
			changed: true,
			pushed: false,
			branch,
			remote: repo.remote,
			commit: expect.any(String),
			files: ["x.txt"],
			error: expect.any(String),
			kept: { clone: space.clone.path, branch },
		});
		const tip = result.commit ?? "";
		expect(result.error).toBe(
			`Could not push branch \`${branch}\` to ${repo.remote}: pushes are closed today; pre-receive hook declined. The commit ${tip.slice(0, 12)} is kept in the worker's clone ${space.clone.path} as branch \`${branch}\`: push it from there (\`git -C ${space.clone.path} push origin ${branch}\`) once the remote takes it.`,
		);
		expect(remoteBranches()).toEqual([]);
		expect(existsSync(space.root)).toBe(false);
		rmSync(join(repo.remote, "hooks", "pre-receive"));
		repo.git(["push", "--quiet", "origin", branch], space.clone.path);
		expect(remoteBranches()).toEqual([branch]);
	});

	it("a remote gone by the time of the push: the result says so and keeps the commit", async () => {
		const space = await openRemoteWorkspace(options({ label: "gone" }));
		writeFileSync(join(space.cwd, "x.txt"), "x\n");
		rmSync(repo.remote, { recursive: true, force: true });
		const result = await space.finish();
		expect(result.pushed).toBe(false);
		expect(result.error).toContain(`Could not push branch \`workflows/${RUN}/gone\` to ${repo.remote}: `);
		expect(result.error).toContain("does not appear to be a git repository");
		expect(repo.git(["rev-parse", `refs/heads/workflows/${RUN}/gone`], space.clone.path).trim()).toBe(result.commit);
		// A later child of that label does not reuse the name its retry needs.
		repo.git(["init", "--quiet", "--bare", repo.remote], repo.cache);
		repo.git(["push", "--quiet", "origin", "main"]);
		const next = await openRemoteWorkspace(options({ label: "gone" }));
		writeFileSync(join(next.cwd, "y.txt"), "y\n");
		expect((await next.finish()).branch).toBe(`workflows/${RUN}/gone-2`);
	});

	it("changes that cannot be committed (a held lock): finish fails with worktree_locked, and the worktree stays where it says", async () => {
		const space = await openRemoteWorkspace(options({ label: "locked" }));
		writeFileSync(join(space.cwd, "x.txt"), "x\n");
		const record = repo.git(["rev-parse", "--absolute-git-dir"], space.cwd).trim();
		writeFileSync(join(record, "index.lock"), "");
		const error = await failure(space.finish());
		expect(error.code).toBe("worktree_locked");
		expect(error.message).toContain(`The worktree is left at ${space.root}: commit or remove it by hand.`);
		await space.dispose();
		expect(existsSync(join(space.root, "x.txt"))).toBe(true);
		expect(remoteBranches()).toEqual([]);
	});

	it("dispose gives the child up: no commit, no push, no worktree", async () => {
		const space = await openRemoteWorkspace(options({ label: "given up" }));
		writeFileSync(join(space.cwd, "x.txt"), "x\n");
		await space.dispose();
		await space.dispose();
		expect(existsSync(space.root)).toBe(false);
		expect(cloneWorktrees(space.clone.path)).toEqual([]);
		expect(remoteBranches()).toEqual([]);
	});

	it("a worktree whose worker process died is removed by the next workspace on the clone; a live one's is not", async () => {
		const dead = await openRemoteWorkspace(options({ label: "dead worker" }));
		const live = await openRemoteWorkspace(options({ label: "live worker" }));
		writeFileSync(join(dead.cwd, "half-done.txt"), "x\n");
		// A process of this machine that has ended, as the owner of the first worktree.
		const gone = spawnSync(process.execPath, ["-e", "process.pid"]).pid;
		const record = repo.git(["rev-parse", "--absolute-git-dir"], dead.cwd).trim();
		writeFileSync(join(record, "pi-workflows-owner"), `${hostname()} ${gone}\n`);
		const next = await openRemoteWorkspace(options({ label: "next" }));
		expect(existsSync(dead.root)).toBe(false);
		expect(existsSync(live.root)).toBe(true);
		expect(cloneWorktrees(next.clone.path).sort()).toEqual(["live-worker", "next"]);
		await live.dispose();
		await next.dispose();
	});

	it("a child that removed its own worktree folder: its commits still reach the remote", async () => {
		const space = await openRemoteWorkspace(options({ label: "rm" }));
		writeFileSync(join(space.cwd, "a.txt"), "a\n");
		repo.git(["add", "a.txt"], space.cwd);
		repo.git(["-c", "user.name=C", "-c", "user.email=c@x", "commit", "--quiet", "-m", "kept"], space.cwd);
		rmSync(space.root, { recursive: true, force: true });
		const result = await space.finish();
		expect(result).toMatchObject({ pushed: true, files: ["a.txt"] });
		expect(cloneWorktrees(space.clone.path)).toEqual([]);
	});

	it.each([
		["an abbreviated commit id", { commit: "abc123def456" }, "needs the full id of the run's commit"],
		["a commit that is not hex", { commit: "HEAD" }, "needs the full id of the run's commit"],
		["a run id with a path in it", { runId: "../../x" }, "cannot be part of a branch name"],
		["a run id with a ref in it", { runId: "x:refs/heads/main" }, "cannot be part of a branch name"],
	])("%s is refused before git runs", async (_, extra, said) => {
		const error = await failure(openRemoteWorkspace(options(extra)));
		expect(error.code).toBe("worktree_failed");
		expect(error.message).toContain(said);
		expect(existsSync(repo.cache)).toBe(false);
	});
});
