/**
 * The host's half of remote children's workspaces: the commit a run sends with its jobs (its repository's HEAD, with
 * warnings for what workers will not see), which of the repository's remotes the workers' `--repo` is, and fetching
 * a branch a worker pushed into the host's repository, where it looks like a local isolated child's kept branch.
 */
import { realpath, stat } from "node:fs/promises";
import { relative, resolve } from "node:path";
import { errorMessage, WorkflowError } from "../errors.ts";
import { changedFiles, retryLocked } from "./commit.ts";
import { GitFailure, type GitOptions, runGit } from "./git.ts";
import { gitSaid } from "./git-errors.ts";
import { firstFree } from "./naming.ts";
import { sameRepository } from "./remote-url.ts";
import { inRepoQueue } from "./repo-queue.ts";

/** How the host's git commands run. */
export interface HostGitOptions {
	/** The run's directory (anywhere inside the host's working tree). */
	cwd: string;
	/** Deadline of each local git command, in ms; a fetch gets ten times as long. Default: 30000. */
	timeoutMs?: number;
	/** The git executable. Default: "git" from PATH. */
	git?: string;
}

/** What a run sends its remote children to work on. */
export interface RunCommit {
	/** The full id of the repository's HEAD; absent when there is no repository or no commit (no workspace then). */
	commit?: string;
	/** The working tree's root. */
	repo?: string;
	/** Where the run's directory is inside it ("" at the root): the child works there in its worktree. */
	subdir?: string;
	/** What the run's log should say: uncommitted changes the children will not see, a commit not pushed, no repository. */
	warnings: string[];
}

/**
 * The run's commit: HEAD of the repository `cwd` is in. Warns when no branch of `remote` (a remote's name; default:
 * any remote), as the host last fetched it, has the commit. Never throws for a missing repository or commit.
 */
export async function hostRunCommit(options: HostGitOptions & { remote?: string }): Promise<RunCommit> {
	const head = await hostRunHead(options);
	if (!head.commit || !head.repo) return head;
	return { ...head, warnings: await hostCommitWarnings({ ...options, commit: head.commit, repo: head.repo }) };
}

/**
 * What a job needs of `hostRunCommit`, in one git command: the commit, the repository and the subdirectory; its
 * warnings only when there is no commit. `hostCommitWarnings` says the rest, which takes three more commands.
 */
export async function hostRunHead(options: HostGitOptions): Promise<RunCommit> {
	const none = (why: string): RunCommit => ({
		warnings: [`${why}: remote children run without a workspace (no checkout of the project on their worker)`],
	});
	const folder = await stat(options.cwd).catch(() => undefined);
	if (!folder?.isDirectory()) return none(`${options.cwd} is not a directory`);
	let lines: string[];
	try {
		const args = ["rev-parse", "--show-toplevel", "--verify", "--quiet", "HEAD^{commit}"];
		lines = (await runGit(args, gitOptions(options, options.cwd))).stdout.split("\n");
	} catch (error) {
		if (!(error instanceof GitFailure)) throw error;
		// Inside a working tree, git prints its top before it fails to find a commit; outside one, nothing.
		const top = error.stdout.split("\n")[0]?.trim();
		if (!top) return none(`${options.cwd} is not inside a git working tree`);
		return { ...none(`The git repository at ${top} has no commit yet`), repo: top };
	}
	const top = lines[0]?.trim() ?? "";
	const commit = lines[1]?.trim() ?? "";
	return { commit, repo: top, subdir: relative(top, await realpath(options.cwd)), warnings: [] };
}

/** What workers will not see of the run's commit: uncommitted changes, a commit on no remote branch. */
export async function hostCommitWarnings(
	options: HostGitOptions & { remote?: string; commit: string; repo: string },
): Promise<string[]> {
	const { commit, repo: top } = options;
	const warnings: string[] = [];
	const status = (await runGit(["status", "--porcelain", "-z", "--untracked-files=normal"], gitOptions(options, top)))
		.stdout;
	const dirty = status.split("\0").filter((entry) => /^.. /.test(entry)).length;
	if (dirty > 0) {
		warnings.push(
			`The working tree at ${top} has uncommitted changes (${dirty} ${dirty === 1 ? "path" : "paths"}): remote children work on its last commit ${commit.slice(0, 12)}, not on them. Commit and push them first if the children need them`,
		);
	}
	const pushed = await onSomeRemote(commit, top, options);
	if (pushed !== true) warnings.push(pushed);
	return warnings;
}

/** true when a remote-tracking branch (of `options.remote`, else of any remote) has `commit`; else the warning. */
async function onSomeRemote(
	commit: string,
	top: string,
	options: HostGitOptions & { remote?: string },
): Promise<true | string> {
	const git = (args: string[]) => runGit(args, gitOptions(options, top));
	const scope = options.remote !== undefined ? `refs/remotes/${options.remote}/` : "refs/remotes/";
	const on = (await git(["for-each-ref", "--count=1", "--contains", commit, "--format=%(refname)", scope])).stdout;
	if (on.trim()) return true;
	const short = commit.slice(0, 12);
	if (options.remote !== undefined) {
		return `The run's commit ${short} is on no branch of remote \`${options.remote}\` as this repository last fetched it: push it (\`git push ${options.remote} HEAD\`), or workers cannot fetch it and its children fail`;
	}
	const remotes = (await git(["remote"])).stdout.trim();
	if (!remotes) {
		return `The repository at ${top} has no remote, and workers fetch the run's commit ${short} from theirs (\`--repo\`): push it there first, or its children fail`;
	}
	return `The run's commit ${short} is on no remote branch as this repository last fetched them: push it (\`git push\`) to the workers' \`--repo\`, or its children fail`;
}

/** A remote of the host's repository. */
export interface HostRemote {
	/** Its name (`origin`). */
	name: string;
	/** The URL of it that matched. */
	url: string;
}

/**
 * The remote of the host's repository that is the workers' `--repo` (any of its fetch or push URLs naming the same
 * repository: scheme, user, `.git` aside); undefined when none is, or there is no repository.
 */
export async function matchingRemote(options: HostGitOptions & { repoUrl: string }): Promise<HostRemote | undefined> {
	const git = (args: string[]) => runGit(args, gitOptions(options, options.cwd));
	const names = await git(["remote"]).then(
		(out) => out.stdout.split("\n").filter(Boolean),
		() => [],
	);
	const top = await git(["rev-parse", "--show-toplevel"]).then(
		(out) => out.stdout.trim(),
		() => options.cwd,
	);
	for (const name of names) {
		const urls = new Set<string>();
		for (const flags of [["--all"], ["--push", "--all"]]) {
			const out = await git(["remote", "get-url", ...flags, name]).catch(() => undefined);
			for (const url of out?.stdout.split("\n") ?? []) if (url) urls.add(url);
		}
		for (const url of urls) {
			// A remote's relative path is relative to the working tree's root; `--repo` is as the worker was given it.
			if (sameRepository(url, options.repoUrl, top)) return { name, url };
		}
	}
	return undefined;
}

/** A branch a remote child's worker pushes: `workflows/<run id>/<label-slug>[-n]`. */
const PUSHED_BRANCH = /^workflows\/[A-Za-z0-9][A-Za-z0-9._-]*\/[a-z0-9][a-z0-9-]*$/;

/** Git's own plain transports: the only ones a fetch from a URL a worker names may use. */
const PLAIN_TRANSPORTS = ["file", "git", "ssh", "http", "https"];
/**
 * The environment that holds git to them. Not `-c protocol.allow=never`: a `protocol.<name>.allow` in the person's
 * own config outranks it, while `GIT_ALLOW_PROTOCOL` overrides every config.
 */
const PLAIN_ONLY = { GIT_ALLOW_PROTOCOL: PLAIN_TRANSPORTS.join(":") };

/** What `hostFetchBranch` made. */
export interface FetchedBranch {
	/** The host's branch: `branch` itself, or `branch-2`… when a branch of that name with another commit is there. */
	branch: string;
	/** Its tip: the child's commit. */
	commit: string;
	/** With `base`: paths added, changed or deleted since it, sorted. */
	files?: string[];
}

/**
 * Fetches the branch a worker pushed (`workflows/<runId>/<label-slug>`) from `remote` (a remote's name or a URL)
 * into the host's repository as a branch of the same name, as a local isolated child's kept branch is. Throws
 * `worktree_remote_failed` when it cannot be fetched, `worktree_failed` when the branch's tip is not `commit`.
 */
export async function hostFetchBranch(
	options: HostGitOptions & { remote: string; branch: string; commit?: string; base?: string },
): Promise<FetchedBranch> {
	// The name and the URL come from a worker's result: only a branch of ours, and never read as an option of git.
	if (!PUSHED_BRANCH.test(options.branch) || options.branch.includes("..")) {
		throw new WorkflowError(
			"worktree_failed",
			`A worker reported branch ${JSON.stringify(options.branch)}, which is not a remote child's branch (\`workflows/<run id>/<label-slug>\`): the host does not fetch it`,
			{ details: { branch: options.branch, remote: options.remote } },
		);
	}
	if (options.remote.startsWith("-") || options.remote.trim() === "") {
		throw new WorkflowError(
			"worktree_failed",
			`A worker reported the remote ${JSON.stringify(options.remote)}, which is not a git URL or a remote's name: the host does not fetch from it`,
			{ details: { branch: options.branch, remote: options.remote } },
		);
	}
	const top = await runGit(
		["rev-parse", "--show-toplevel", "--git-common-dir"],
		gitOptions(options, options.cwd),
	).then(
		(out) => out.stdout.split("\n"),
		(error: unknown) => {
			throw new WorkflowError(
				"worktree_not_a_repo",
				`The host cannot take branch \`${options.branch}\` a worker pushed: ${options.cwd} is not inside a git working tree (${error instanceof GitFailure ? gitSaid(error.stderr) : errorMessage(error)}). Fetch it by hand in the repository (\`git fetch ${options.remote} ${options.branch}:${options.branch}\`)`,
				{ details: { cwd: options.cwd, remote: options.remote, branch: options.branch } },
			);
		},
	);
	const repo = top[0] ?? options.cwd;
	const gitDir = await realpath(resolve(options.cwd, top[1] ?? ".git"));
	const named = await runGit(["remote"], gitOptions(options, repo)).then(
		(out) => out.stdout.split("\n").includes(options.remote),
		() => false,
	);
	// A URL (not a remote the person configured) gets git's plain transports only: no remote helpers (`ext::`, `fd::`…).
	const git = (args: string[], timeoutMs?: number) =>
		runGit(args, {
			...gitOptions(options, repo),
			...(timeoutMs ? { timeoutMs } : {}),
			...(named ? {} : { env: PLAIN_ONLY }),
		});
	const staging = `refs/pi-workflows/fetched/${options.branch}`;
	return inRepoQueue(gitDir, async () => {
		try {
			await git(
				[
					"fetch",
					"--quiet",
					"--no-tags",
					"--no-write-fetch-head",
					"--",
					options.remote,
					`+refs/heads/${options.branch}:${staging}`,
				],
				(options.timeoutMs ?? 30_000) * 10,
			);
		} catch (error) {
			const said = error instanceof GitFailure ? gitSaid(error.stderr) || error.message : errorMessage(error);
			const refused = error instanceof GitFailure ? /transport '([^']*)' not allowed/.exec(error.stderr) : null;
			if (refused) {
				throw new WorkflowError(
					"worktree_remote_failed",
					`The host did not fetch branch \`${options.branch}\` from ${options.remote}: the host fetches a worker's branch over git's plain transports only (${PLAIN_TRANSPORTS.join(", ")}), and \`${refused[1]}\` is not one. Start the workers with a --repo URL of one of those; a worker that names another URL is not one of yours`,
					{ details: { repo, remote: options.remote, branch: options.branch } },
				);
			}
			throw new WorkflowError(
				"worktree_remote_failed",
				`The host could not fetch branch \`${options.branch}\` from ${options.remote} (${said}). A worker pushed the child's changes there: fetch it by hand (\`git fetch ${options.remote} ${options.branch}:${options.branch}\`)`,
				{ details: { repo, remote: options.remote, branch: options.branch } },
			);
		}
		try {
			const commit = (await git(["rev-parse", staging])).stdout.trim();
			if (options.commit !== undefined && options.commit !== commit) {
				throw new WorkflowError(
					"worktree_failed",
					`Branch \`${options.branch}\` on ${options.remote} is at ${commit.slice(0, 12)}, not at the child's commit ${options.commit.slice(0, 12)}: something else moved it. Fetch the child's commit by hand (\`git fetch ${options.remote} ${options.commit}\`)`,
					{ details: { repo, remote: options.remote, branch: options.branch, commit: options.commit } },
				);
			}
			const local = await firstFree(options.branch, async (name) => {
				const there = await git(["rev-parse", "--verify", "--quiet", `refs/heads/${name}`]).then(
					(out) => out.stdout.trim(),
					() => "",
				);
				return there !== "" && there !== commit;
			});
			// An empty old value: made only if still absent (or already at the commit), never moved.
			const there = await git(["rev-parse", "--verify", "--quiet", `refs/heads/${local}`]).then(
				(out) => out.stdout.trim(),
				() => "",
			);
			if (there !== commit) await retryLocked(() => git(["update-ref", `refs/heads/${local}`, commit, ""]));
			const files =
				options.base !== undefined
					? await changedFiles(options.base, commit, gitOptions(options, repo))
					: undefined;
			return { branch: local, commit, ...(files ? { files } : {}) };
		} catch (error) {
			if (error instanceof WorkflowError) throw error;
			throw new WorkflowError(
				"worktree_failed",
				`The host fetched branch \`${options.branch}\` from ${options.remote} but could not make it a branch of ${repo} (${error instanceof GitFailure ? gitSaid(error.stderr) || error.message : errorMessage(error)}). Fetch it by hand (\`git fetch ${options.remote} ${options.branch}:${options.branch}\`)`,
				{ details: { repo, remote: options.remote, branch: options.branch } },
			);
		} finally {
			await git(["update-ref", "-d", staging]).catch(() => undefined);
		}
	});
}

function gitOptions(options: HostGitOptions, cwd: string): GitOptions {
	return {
		cwd,
		...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
		...(options.git !== undefined ? { git: options.git } : {}),
	};
}
