/**
 * Where a child on a worker machine works: a detached worktree of the run's commit from the worker's clone of the
 * repository. When the child is done, what it changed is committed (as a local isolated child's is) and pushed as
 * `workflows/<runId>/<label-slug>`; a child that changed nothing leaves no branch. The worktree goes either way.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import { isAbsolute, join, normalize, resolve } from "node:path";
import { errorMessage, WorkflowError } from "../errors.ts";
import { changedFiles, commitLeftovers, NO_HOOKS, retryLocked } from "./commit.ts";
import { GitFailure, runGit } from "./git.ts";
import { classifyGitFailure, gitSaid } from "./git-errors.ts";
import { branchPrefix, firstFree, labelSlug } from "./naming.ts";
import {
	checkCommitId,
	ensureCommit,
	local,
	openClone,
	type RemoteClone,
	type RemoteCloneOptions,
} from "./remote-clone.ts";
import { pushBranch } from "./remote-push.ts";
import { markOwner, sweepDeadWorktrees } from "./remote-sweep.ts";
import { inRepoQueue } from "./repo-queue.ts";

/** Options of `openRemoteWorkspace`. */
export interface RemoteWorkspaceOptions extends RemoteCloneOptions {
	/** The run's commit (full id), as the host sent it: the worktree is made from it. */
	commit: string;
	/** The run's id: the branch is `workflows/<runId>/<label-slug>`. */
	runId: string;
	/** The call's label: the branch's and the commit message's name for the child. */
	label: string;
	/** Where the child works inside the repository, relative to its root (the host's run directory). Default: "". */
	subdir?: string;
	/** The folder of the worktrees: each is `<worktreesDir>/<runId>/<label-slug>`. Default: `<cacheDir>/worktrees`. */
	worktreesDir?: string;
}

/** One remote child's workspace while it runs. */
export interface RemoteWorkspace {
	/** Where the child works: `subdir` inside the worktree. */
	readonly cwd: string;
	/** The worktree's root folder. */
	readonly root: string;
	/** The commit it was made from. */
	readonly base: string;
	/** The branch it will be pushed as, unless the name is taken on the remote by then (then `-2`, `-3`…). */
	readonly branch: string;
	/** The worker's clone it belongs to. */
	readonly clone: RemoteClone;
	/**
	 * Commits what the child changed, pushes it and removes the worktree. Throws a `WorkflowError` (`worktree_locked`,
	 * `worktree_failed`) only when the commit cannot be made, leaving the worktree where it is; a push that fails is in
	 * the result. Call once; later calls give the same result.
	 */
	finish(): Promise<RemoteWorkspaceResult>;
	/**
	 * Removes the worktree without saving anything (a child given up). After `finish()` it only waits for it: the
	 * worktree is gone then, or, when `finish()` failed, left where its error says. Safe to call twice.
	 */
	dispose(): Promise<void>;
}

/** What became of a remote child's workspace. */
export interface RemoteWorkspaceResult {
	/** The child changed files (or committed): its work is a commit past `base`. */
	changed: boolean;
	/** That commit is on the remote as `branch`. */
	pushed: boolean;
	/** The branch it was pushed as (or, when the push failed, is kept as in the worker's clone). Absent when unchanged. */
	branch?: string;
	/** The remote it was pushed to (the worker's `--repo`, a path made absolute), for the host to fetch it from. */
	remote?: string;
	/** The branch's tip. */
	commit?: string;
	/** Paths (relative to the repository root) added, changed or deleted since `base`, sorted. */
	files?: string[];
	/** Why the push failed, and where the commit is kept for a retry. */
	error?: string;
	/** Where the commit is kept when the push failed: a branch of the worker's clone. */
	kept?: { clone: string; branch: string };
}

/** A run id as the run store makes them (`wf-20261201-120000-abcd12`): safe in a ref and as a folder name. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Clones whose stale worktree records this process has pruned. */
const pruned = new Set<string>();

/** Worktree folders handed out in this process and not yet removed: two children of one label get two folders. */
const inUse = new Set<string>();

/**
 * Opens a child's workspace: the worker's clone of `repoUrl` (made and fetched into as needed), a detached worktree
 * of `commit` in it. Throws a `WorkflowError`: `worktree_remote_failed` (the remote cannot be read),
 * `worktree_commit_missing` (the commit was never pushed), `worktree_git_missing`, `worktree_locked` or
 * `worktree_failed`.
 */
export async function openRemoteWorkspace(options: RemoteWorkspaceOptions): Promise<RemoteWorkspace> {
	const subdir = normalize(options.subdir ?? "");
	if (isAbsolute(subdir) || subdir === ".." || subdir.startsWith("../")) {
		throw new WorkflowError(
			"worktree_failed",
			`A remote child's directory must be inside the repository, and \`subdir\` is ${JSON.stringify(options.subdir)}. The host sends where its run's directory is relative to the repository's root: this is a bug of the host, please report it`,
			{ details: { subdir: options.subdir } },
		);
	}
	if (!RUN_ID.test(options.runId) || options.runId.includes("..")) {
		throw new WorkflowError(
			"worktree_failed",
			`A remote child's branch is named after its run, and the run id ${JSON.stringify(options.runId)} cannot be part of a branch name (letters, digits, ".", "_" and "-" only). The host sends it: this is a bug of the host, please report it`,
			{ details: { runId: options.runId } },
		);
	}
	checkCommitId(options.commit);
	const clone = await openClone(options);
	await ensureCommit(clone, options.commit, options);
	const worktreesDir = resolve(options.worktreesDir ?? join(options.cacheDir, "worktrees"));
	const runFolder = join(worktreesDir, options.runId);
	const git = (args: string[], cwd = clone.path) => runGit(args, local(options, cwd));
	const root = await inRepoQueue(clone.path, async () => {
		const slug = await firstFree(
			labelSlug(options.label),
			async (candidate) => inUse.has(join(runFolder, candidate)) || existsSync(join(runFolder, candidate)),
		);
		const path = join(runFolder, slug);
		inUse.add(path);
		try {
			await mkdir(runFolder, { recursive: true, mode: 0o700 });
			// A worker killed mid-job leaves its worktrees: folders and git's records of them, holding their commits.
			await sweepDeadWorktrees(clone, worktreesDir, options).catch(() => undefined);
			if (!pruned.has(clone.path)) {
				// Records of worktrees whose folders someone removed, once per clone and process (the sweep prunes after itself).
				await git(["worktree", "prune"]).catch(() => undefined);
				pruned.add(clone.path);
			}
			await retryLocked(() => git([...NO_HOOKS, "worktree", "add", "--quiet", "--detach", path, options.commit]));
			return path;
		} catch (error) {
			inUse.delete(path);
			await removeWorktree(clone, path, options).catch(() => undefined);
			throw workspaceError(error, { clone, step: "make the child's worktree" });
		}
	});
	const cwd = join(root, subdir);
	let adminDir: string;
	try {
		adminDir = (await git(["rev-parse", "--absolute-git-dir"], root)).stdout.trim();
		await markOwner(adminDir);
		// The host's directory may hold nothing committed (a new folder): the child still starts there.
		await mkdir(cwd, { recursive: true });
	} catch (error) {
		await inRepoQueue(clone.path, () => removeWorktree(clone, root, options)).catch(() => undefined);
		inUse.delete(root);
		throw workspaceError(error, { clone, step: "make the child's worktree" });
	}
	let finished: Promise<RemoteWorkspaceResult> | undefined;
	let disposed = false;

	const finish = async (): Promise<RemoteWorkspaceResult> => {
		let tip: string;
		let files: string[] = [];
		try {
			// Outside the clone's queue: a detached worktree's commit writes only its own index and HEAD, and objects.
			tip = await settledTip(root, adminDir, options);
			if (tip !== options.commit) files = await changedFiles(options.commit, tip, local(options, clone.path));
		} catch (error) {
			throw workspaceError(error, { clone, step: "save the child's changes", path: root });
		}
		if (tip === options.commit) {
			await release();
			return { changed: false, pushed: false };
		}
		const pushed = await pushBranch(clone, { tip, runId: options.runId, slug: labelSlug(options.label) }, options);
		await release();
		const made = { changed: true, branch: pushed.branch, remote: clone.url, commit: tip, files };
		if (pushed.pushed) return { ...made, pushed: true };
		return {
			...made,
			pushed: false,
			error: pushed.error,
			kept: { clone: clone.path, branch: pushed.branch },
		};
	};
	/** The worktree goes (its commit is on the remote or kept in the clone); its folder name is free again. */
	const release = async () => {
		disposed = true;
		await inRepoQueue(clone.path, () => removeWorktree(clone, root, options)).catch(() => undefined);
		inUse.delete(root);
	};

	return {
		cwd,
		root,
		base: options.commit,
		branch: `${branchPrefix(options.runId)}${labelSlug(options.label)}`,
		clone,
		finish() {
			finished ??= finish();
			return finished;
		},
		async dispose() {
			// After a finish() that failed, the worktree stays where its error said it is (for a person to save it by hand;
			// the sweep takes it once this process has ended).
			if (finished) return void (await finished.catch(() => undefined));
			if (!disposed) await release();
		},
	};
}

/** The worktree's tip once what the child left is committed; from git's record when the child removed the folder. */
async function settledTip(root: string, adminDir: string, options: RemoteWorkspaceOptions): Promise<string> {
	// No gc from the commit: it would run beside the clone's queue; the clone's fetches run it inside the queue.
	const noGc = ["-c", "gc.auto=0"];
	if (existsSync(root))
		return commitLeftovers({ label: options.label, runId: options.runId }, local(options, root), noGc);
	return (await readFile(join(adminDir, "HEAD"), "utf8")).trim();
}

async function removeWorktree(clone: RemoteClone, path: string, options: RemoteCloneOptions): Promise<void> {
	const git = (args: string[]) => runGit(args, local(options, clone.path));
	if (existsSync(path)) {
		await retryLocked(() => git(["worktree", "remove", "--force", path])).catch(() => undefined);
		await rm(path, { recursive: true, force: true });
	}
	await retryLocked(() => git(["worktree", "prune"]));
}

function workspaceError(error: unknown, where: { clone: RemoteClone; step: string; path?: string }): WorkflowError {
	if (error instanceof WorkflowError) return error;
	const kept = where.path ? ` The worktree is left at ${where.path}: commit or remove it by hand.` : "";
	const details = { repo: where.clone.url, clone: where.clone.path, ...(where.path ? { path: where.path } : {}) };
	if (error instanceof GitFailure && classifyGitFailure(error) === "worktree_locked") {
		return new WorkflowError(
			"worktree_locked",
			`Could not ${where.step}: a git lock file in the worker's clone ${where.clone.path} is held (${gitSaid(error.stderr)}). Another git command is running there, or one crashed and left the lock: remove the \`.lock\` file it names if no git process is running.${kept}`,
			{ details },
		);
	}
	return new WorkflowError("worktree_failed", `Could not ${where.step} (${errorMessage(error)}).${kept}`, {
		details,
	});
}

/** What the child is told of where it works: a checkout of the run's commit, whose changes are pushed when it ends. */
export function remoteWorkspaceNote(space: RemoteWorkspace): string {
	return [
		`You are working in a checkout of commit ${space.base.slice(0, 12)} of the project at ${space.cwd}, on another machine than the person who started the run (their uncommitted changes are not here).`,
		`When you finish, everything you changed is committed and pushed to the project's remote as branch \`${space.branch}\` (or that name with a number) for them to merge. Work only inside ${space.root}.`,
	].join(" ");
}
