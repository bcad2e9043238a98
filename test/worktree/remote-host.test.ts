import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
	busyRepos,
	hostFetchBranch,
	hostRunCommit,
	matchingRemote,
	openRemoteWorkspace,
	repositoryName,
	sameRepository,
	takeRemoteBranch,
} from "../../src/worktree/index.ts";
import { createTempRemote, readHost, type TempRemote } from "../helpers/git-remote.ts";

let repo: TempRemote;
beforeEach(() => {
	repo = createTempRemote();
});
afterEach(() => {
	repo.dispose();
	expect(busyRepos()).toBe(0);
});

const RUN = "wf-20261201-120000-abcd12";

describe("hostRunCommit", () => {
	it("a clean repository: HEAD, its root and where the run's directory is, no warnings", async () => {
		expect(await hostRunCommit({ cwd: repo.host, remote: "origin" })).toEqual({
			commit: repo.head(),
			repo: repo.host,
			subdir: "",
			warnings: [],
		});
		expect((await hostRunCommit({ cwd: join(repo.host, "src") })).subdir).toBe("src");
	});

	it("uncommitted changes: a warning that children see the last commit, not them", async () => {
		repo.write("src/math.js", "edited\n");
		repo.write("new.txt", "untracked\n");
		const sent = await hostRunCommit({ cwd: repo.host });
		expect(sent.commit).toBe(repo.head());
		expect(sent.warnings).toEqual([
			`The working tree at ${repo.host} has uncommitted changes (2 paths): remote children work on its last commit ${repo.head().slice(0, 12)}, not on them. Commit and push them first if the children need them`,
		]);
	});

	it("a commit not pushed to the workers' remote: a warning saying to push it", async () => {
		repo.write("x.txt", "x\n");
		repo.git(["add", "x.txt"]);
		repo.git(["commit", "--quiet", "-m", "local only"]);
		const sent = await hostRunCommit({ cwd: repo.host, remote: "origin" });
		expect(sent.warnings).toEqual([
			`The run's commit ${repo.head().slice(0, 12)} is on no branch of remote \`origin\` as this repository last fetched it: push it (\`git push origin HEAD\`), or workers cannot fetch it and its children fail`,
		]);
		expect((await hostRunCommit({ cwd: repo.host })).warnings).toEqual([
			`The run's commit ${repo.head().slice(0, 12)} is on no remote branch as this repository last fetched them: push it (\`git push\`) to the workers' \`--repo\`, or its children fail`,
		]);
		repo.git(["push", "--quiet", "origin", "main"]);
		expect((await hostRunCommit({ cwd: repo.host, remote: "origin" })).warnings).toEqual([]);
		expect((await hostRunCommit({ cwd: repo.host })).warnings).toEqual([]);
		repo.git(["remote", "remove", "origin"]);
		expect((await hostRunCommit({ cwd: repo.host })).warnings).toEqual([
			`The repository at ${repo.host} has no remote, and workers fetch the run's commit ${repo.head().slice(0, 12)} from theirs (\`--repo\`): push it there first, or its children fail`,
		]);
	});

	it("no repository, or no commit: no commit to send, and a warning that children run without a workspace", async () => {
		const bare = mkdtempSync(join(tmpdir(), "pi-workflows-norepo-"));
		try {
			expect(await hostRunCommit({ cwd: bare })).toEqual({
				warnings: [
					`${bare} is not inside a git working tree: remote children run without a workspace (no checkout of the project on their worker)`,
				],
			});
			mkdirSync(join(bare, "empty"));
			repo.git(["init", "--quiet"], join(bare, "empty"));
			const empty = await hostRunCommit({ cwd: join(bare, "empty") });
			expect(empty.commit).toBeUndefined();
			expect(empty.warnings[0]).toContain("has no commit yet: remote children run without a workspace");
		} finally {
			rmSync(bare, { recursive: true, force: true });
		}
	});
});

describe("matchingRemote", () => {
	it("finds the host's remote that is the workers' --repo, whichever spelling each uses", async () => {
		repo.git(["remote", "add", "upstream", "git@github.com:acme/widgets.git"]);
		repo.git(["remote", "add", "fork", "https://github.com/me/widgets"]);
		repo.git(["remote", "set-url", "--push", "fork", "ssh://git@github.com/me/widgets-push.git"]);
		expect(await matchingRemote({ cwd: repo.host, repoUrl: repo.remote })).toEqual({
			name: "origin",
			url: repo.remote,
		});
		expect(await matchingRemote({ cwd: repo.host, repoUrl: `file://${repo.remote}/` })).toMatchObject({
			name: "origin",
		});
		expect(await matchingRemote({ cwd: repo.host, repoUrl: "https://GitHub.com/acme/widgets/" })).toEqual({
			name: "upstream",
			url: "git@github.com:acme/widgets.git",
		});
		expect(await matchingRemote({ cwd: repo.host, repoUrl: "git@github.com:me/widgets-push" })).toMatchObject({
			name: "fork",
		});
		expect(await matchingRemote({ cwd: repo.host, repoUrl: "https://github.com/someone/else" })).toBeUndefined();
		expect(await matchingRemote({ cwd: tmpdir(), repoUrl: repo.remote })).toBeUndefined();
	});

	it.each([
		["https://github.com/o/r.git", "git@github.com:o/r", true],
		["ssh://git@github.com:22/o/r.git", "https://user:token@github.com/o/r/", true],
		["git@gitlab.com:o/r.git", "git@github.com:o/r.git", false],
		["https://github.com/o/r", "https://github.com/o/r2", false],
		["/srv/git/r.git", "file:///srv/git/r.git", true],
	])("%s and %s name one repository: %s", (a, b, same) => {
		expect(sameRepository(a, b)).toBe(same);
	});

	it("a relative folder is resolved against the given base", () => {
		expect(repositoryName("../remote.git", repo.host)).toBe(repositoryName(repo.remote));
	});
});

describe("a remote child's branch reaching the host", () => {
	it("worker edits and pushes; the host fetches the branch as a local kept branch with the change", async () => {
		const sent = await hostRunCommit({ cwd: repo.host, remote: "origin" });
		const space = await openRemoteWorkspace({
			repoUrl: repo.remote,
			cacheDir: repo.cache,
			commit: sent.commit ?? "",
			runId: RUN,
			label: "fix add",
			subdir: sent.subdir ?? "",
		});
		writeFileSync(join(space.cwd, "src/math.js"), "export const add = (a, b) => a + b;\n");
		const done = await space.finish();
		expect(done.pushed).toBe(true);
		const remote = await matchingRemote({ cwd: repo.host, repoUrl: repo.remote });
		const fetched = await hostFetchBranch({
			cwd: repo.host,
			remote: remote?.name ?? "",
			branch: done.branch ?? "",
			commit: done.commit ?? "",
			base: sent.commit ?? "",
		});
		expect(fetched).toEqual({ branch: `workflows/${RUN}/fix-add`, commit: done.commit, files: ["src/math.js"] });
		expect(repo.git(["show", `workflows/${RUN}/fix-add:src/math.js`])).toContain("a + b");
		expect(repo.git(["log", "-1", "--format=%s", `workflows/${RUN}/fix-add`]).trim()).toBe("workflows: fix add");
		// The host's working tree and its branch did not move; no staging ref is left.
		expect(readHost(repo, "src/math.js")).toContain("a - b");
		expect(repo.git(["rev-parse", "--abbrev-ref", "HEAD"]).trim()).toBe("main");
		expect(repo.git(["for-each-ref", "refs/pi-workflows/"])).toBe("");
		// Fetching again (a resumed run) finds the branch already there.
		expect((await hostFetchBranch({ cwd: repo.host, remote: "origin", branch: fetched.branch })).branch).toBe(
			fetched.branch,
		);
	});

	it("a host branch of that name at another commit is left alone: the fetched one gets -2", async () => {
		const branch = `workflows/${RUN}/fix`;
		repo.git(["branch", branch]);
		repo.write("y.txt", "y\n");
		repo.git(["add", "y.txt"]);
		repo.git(["commit", "--quiet", "-m", "worker's"]);
		repo.git(["push", "--quiet", "origin", `HEAD:refs/heads/${branch}`]);
		const tip = repo.head();
		repo.git(["reset", "--quiet", "--hard", "HEAD~1"]);
		const fetched = await hostFetchBranch({ cwd: repo.host, remote: repo.remote, branch });
		expect(fetched).toEqual({ branch: `${branch}-2`, commit: tip });
		expect(repo.git(["rev-parse", branch]).trim()).toBe(repo.head());
	});

	it("a branch the remote does not have: worktree_remote_failed, saying how to fetch it by hand", async () => {
		await expect(
			hostFetchBranch({ cwd: repo.host, remote: "origin", branch: `workflows/${RUN}/nothing` }),
		).rejects.toMatchObject({
			code: "worktree_remote_failed",
			message: expect.stringContaining(
				`The host could not fetch branch \`workflows/${RUN}/nothing\` from origin (couldn't find remote ref refs/heads/workflows/${RUN}/nothing). A worker pushed the child's changes there: fetch it by hand (\`git fetch origin workflows/${RUN}/nothing:workflows/${RUN}/nothing\`)`,
			),
		});
	});

	it.each([
		["a branch outside workflows/", { branch: "main" }, "which is not a remote child's branch"],
		["a branch with a path in it", { branch: `workflows/${RUN}/../../main` }, "which is not a remote child's branch"],
		[
			"a refspec for a branch",
			{ branch: `workflows/${RUN}/x:refs/heads/main` },
			"which is not a remote child's branch",
		],
		["an option for a remote", { remote: "--upload-pack=touch /tmp/pwned" }, "which is not a git URL"],
	])("a worker's report of %s is refused before git runs", async (_, extra, said) => {
		await expect(
			hostFetchBranch({ cwd: repo.host, remote: "origin", branch: `workflows/${RUN}/fix`, ...extra }),
		).rejects.toMatchObject({ code: "worktree_failed", message: expect.stringContaining(said) });
		expect(repo.git(["branch", "--list"]).trim()).toBe("* main");
	});

	it("a URL that names a remote helper is not fetched from (git's plain transports only)", async () => {
		// A helper on PATH that git would run for `evil::…` (an "user" transport, allowed by git's default policy).
		const bin = mkdtempSync(join(tmpdir(), "pi-workflows-helper-"));
		const marker = join(bin, "ran");
		writeFileSync(join(bin, "git-remote-evil"), `#!/bin/sh\ntouch ${marker}\nexit 1\n`, { mode: 0o755 });
		const path = process.env.PATH;
		process.env.PATH = `${bin}:${path}`;
		try {
			await expect(
				hostFetchBranch({ cwd: repo.host, remote: "evil::somewhere", branch: `workflows/${RUN}/x` }),
			).rejects.toMatchObject({
				code: "worktree_remote_failed",
				message: expect.stringContaining(
					"plain transports only (file, git, ssh, http, https), and `evil` is not one",
				),
			});
			expect(existsSync(marker)).toBe(false);
			// The same helper as a remote the person configured is theirs to use.
			repo.git(["remote", "add", "mine", "evil::somewhere"]);
			await expect(
				hostFetchBranch({ cwd: repo.host, remote: "mine", branch: `workflows/${RUN}/x` }),
			).rejects.toMatchObject({ code: "worktree_remote_failed" });
			expect(existsSync(marker)).toBe(true);
		} finally {
			process.env.PATH = path;
			rmSync(bin, { recursive: true, force: true });
		}
	});

	it("a URL naming `ext::` is refused even when the person's git config allows that transport", async () => {
		// `protocol.ext.allow = always` in the person's own config outranks `-c protocol.allow=never`.
		const home = mkdtempSync(join(tmpdir(), "pi-workflows-home-"));
		const marker = join(home, "ran");
		writeFileSync(join(home, "gitconfig"), '[protocol "ext"]\n\tallow = always\n');
		const global = process.env.GIT_CONFIG_GLOBAL;
		process.env.GIT_CONFIG_GLOBAL = join(home, "gitconfig");
		try {
			await expect(
				hostFetchBranch({ cwd: repo.host, remote: `ext::sh -c touch% ${marker}`, branch: `workflows/${RUN}/x` }),
			).rejects.toMatchObject({
				code: "worktree_remote_failed",
				message: expect.stringContaining(
					"the host fetches a worker's branch over git's plain transports only (file, git, ssh, http, https), and `ext` is not one",
				),
			});
			expect(existsSync(marker)).toBe(false);
		} finally {
			if (global === undefined) delete process.env.GIT_CONFIG_GLOBAL;
			else process.env.GIT_CONFIG_GLOBAL = global;
			rmSync(home, { recursive: true, force: true });
		}
	});

	it("a branch moved past the child's commit: worktree_failed, and nothing made on the host", async () => {
		const branch = `workflows/${RUN}/moved`;
		repo.git(["push", "--quiet", "origin", `HEAD:refs/heads/${branch}`]);
		await expect(
			hostFetchBranch({ cwd: repo.host, remote: "origin", branch, commit: "0".repeat(40) }),
		).rejects.toMatchObject({ code: "worktree_failed", message: expect.stringContaining("something else moved it") });
		expect(repo.git(["branch", "--list", "workflows/*"])).toBe("");
	});
});

describe("takeRemoteBranch", () => {
	/** A child on a worker that writes `files` (none: reads only) and finishes. */
	async function child(label: string, files: string[]) {
		const space = await openRemoteWorkspace({
			repoUrl: repo.remote,
			cacheDir: repo.cache,
			commit: repo.head(),
			runId: RUN,
			label,
		});
		for (const file of files) writeFileSync(join(space.cwd, file), `${label}\n`);
		return { space, result: await space.finish() };
	}

	it("a pushed branch becomes a kept branch of the host's repository, reported as a local one is", async () => {
		const { space, result } = await child("fix", ["a.txt", "b.txt"]);
		const taken = await takeRemoteBranch({ cwd: repo.host, result, base: repo.head(), path: space.root });
		expect(taken).toEqual({
			worktree: {
				path: space.root,
				branch: `workflows/${RUN}/fix`,
				kept: true,
				files: ["a.txt", "b.txt"],
				fileCount: 2,
				commit: result.commit,
			},
		});
		expect(repo.git(["rev-parse", `workflows/${RUN}/fix`]).trim()).toBe(result.commit);
	});

	it("a read-only child: nothing to take", async () => {
		const { result } = await child("read", []);
		expect(await takeRemoteBranch({ cwd: repo.host, result, base: repo.head() })).toEqual({});
	});

	it("no remote of the host is the worker's: fetched from the worker's URL itself", async () => {
		const { result } = await child("by url", ["c.txt"]);
		repo.git(["remote", "remove", "origin"]);
		const taken = await takeRemoteBranch({ cwd: repo.host, result, base: repo.head() });
		expect(taken.worktree?.branch).toBe(`workflows/${RUN}/by-url`);
	});

	it("a push that failed, or a host that cannot fetch: a warning saying where the changes are", async () => {
		repo.hook("pre-receive", "exit 1");
		const refused = await child("refused", ["d.txt"]);
		expect(await takeRemoteBranch({ cwd: repo.host, result: refused.result, base: repo.head() })).toEqual({
			warning: refused.result.error,
		});
		rmSync(join(repo.remote, "hooks", "pre-receive"));
		const pushed = await child("pushed", ["e.txt"]);
		const elsewhere = mkdtempSync(join(tmpdir(), "pi-workflows-norepo-"));
		try {
			const taken = await takeRemoteBranch({ cwd: elsewhere, result: pushed.result, base: repo.head() });
			expect(taken.worktree).toBeUndefined();
			expect(taken.warning).toContain(
				`The child's changes are on branch \`workflows/${RUN}/pushed\` of ${repo.remote}, and could not be brought to this repository: The host cannot take branch`,
			);
		} finally {
			rmSync(elsewhere, { recursive: true, force: true });
		}
	});
});
