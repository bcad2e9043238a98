/**
 * The git worktrees of one run's isolated children: each made from the repository's current HEAD on a branch of
 * its own (`workflows/<runId>/<label-slug>`) in a folder of the run's, and, when its child is done, either committed
 * and kept as that branch (the folder goes) or removed with its branch when nothing changed.
 */
import { existsSync } from "node:fs";
import { mkdir, realpath, rm, stat } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { errorMessage, WorkflowError } from "../errors.ts";
import { changedFiles, commitLeftovers, NO_HOOKS, retryLocked } from "./commit.ts";
import { GitFailure, type GitOptions, runGit } from "./git.ts";
import { classifyGitFailure, gitSaid } from "./git-errors.ts";
import { branchPrefix, firstFree, labelSlug } from "./naming.ts";
import { inRepoQueue } from "./repo-queue.ts";

/** Options of `createRunWorktrees`. */
export interface RunWorktreesOptions {
	/** The run's id: branches are `workflows/<runId>/<label-slug>`. */
	runId: string;
	/** The run's folder for worktrees, outside every repository; made (0700) at the first `open`. */
	dir: string;
	/** Deadline of each git command, in ms. Default: 30000. */
	timeoutMs?: number;
	/** The git executable. Default: "git" from PATH. */
	git?: string;
}

/** One child's worktree while the child runs. */
export interface Worktree {
	/** The worktree's root folder. */
	readonly path: string;
	/** Where the child works: the run's directory at the same place inside the worktree. */
	readonly cwd: string;
	/** The branch the worktree has checked out, made for this child. */
	readonly branch: string;
	/** The commit it was made from (the repository's HEAD then). */
	readonly base: string;
	/** The main working tree the run's directory is in. */
	readonly repo: string;
	/**
	 * An interrupted earlier attempt's worktree, reopened (see `RunWorktrees.open`): "kept" with that attempt's
	 * changes, or "remade" from HEAD at the same place and on the same branch (that attempt left no change).
	 */
	readonly reopened?: "kept" | "remade";
	/**
	 * Commits what the child changed on `branch` and removes the folder, or removes folder and branch when nothing
	 * changed. Throws a `WorkflowError` (`worktree_locked`, `worktree_failed`), leaving the folder as it is, when git
	 * cannot do it. Call once.
	 */
	close(): Promise<WorktreeOutcome>;
}

/** What became of a worktree. */
export type WorktreeOutcome =
	| { kept: false }
	| {
			kept: true;
			/** The branch tip: the child's commits, then one with what it left uncommitted. */
			commit: string;
			/** Paths (relative to the repository root) added, changed or deleted since `base`, sorted. */
			files: string[];
	  };

/** The worktrees of one run. */
export interface RunWorktrees {
	/**
	 * Makes the worktree of one child from the current HEAD of the repository `cwd` is in. Throws a `WorkflowError`:
	 * `worktree_git_missing`, `worktree_not_a_repo`, `worktree_no_commit`, `worktree_branch_exists`,
	 * `worktree_locked` or `worktree_failed`, each saying what to do.
	 *
	 * `reopen` is where an interrupted earlier attempt of the same call worked (its `Worktree.cwd`): when that is one
	 * of this run's worktrees and no child works in it now, the new attempt goes on in it (`reopened`) rather than in
	 * a new one: its folder as a killed host left it, its kept branch checked out again where the folder was, or, when
	 * the branch went because that attempt changed nothing, the same folder and branch made again from HEAD.
	 */
	open(options: { cwd: string; label: string; reopen?: string }): Promise<Worktree>;
}

/** Creates the worktree set of one run. */
export function createRunWorktrees(options: RunWorktreesOptions): RunWorktrees {
	const handedOut = new Set<string>();
	/** Slugs of the worktrees open now: an earlier attempt's is reopened only once that attempt closed it. */
	const working = new Set<string>();

	/** A new worktree from `head` on a branch of its own; its slug. */
	async function addFresh(repo: RepoPlace, label: string, head: string): Promise<string> {
		const prefix = branchPrefix(options.runId);
		const slug = await firstFree(
			labelSlug(label),
			async (candidate) =>
				handedOut.has(candidate) ||
				existsSync(join(options.dir, candidate)) ||
				(await branchExists(`${prefix}${candidate}`, repo.top, options)),
		);
		handedOut.add(slug);
		await addWorktree(repo, slug, head, options);
		return slug;
	}

	return {
		async open({ cwd, label, reopen }) {
			const repo = await findRepo(cwd, options);
			const head = await headCommit(repo.top, options);
			return inRepoQueue(repo.gitDir, async () => {
				const earlier = reopen ? await reopenEarlier(reopen, repo, head, working, options) : undefined;
				const slug = earlier?.slug ?? (await addFresh(repo, label, head));
				const base = earlier?.base ?? head;
				handedOut.add(slug);
				working.add(slug);
				const branch = `${branchPrefix(options.runId)}${slug}`;
				const path = join(options.dir, slug);
				const worktree: Worktree = {
					path,
					cwd: join(path, repo.subdir),
					branch,
					base,
					repo: repo.top,
					...(earlier ? { reopened: earlier.reopened } : {}),
					close: () =>
						inRepoQueue(repo.gitDir, () =>
							closeWorktree({ path, branch, base, top: repo.top, label, options })
								.catch((error: unknown) => {
									throw toWorktreeError(error, {
										repo: repo.top,
										branch,
										step: "save the child's changes",
										path,
									});
								})
								.finally(() => working.delete(slug)),
						),
				};
				return worktree;
			});
		},
	};
}

/**
 * The earlier worktree `reopen` (a `Worktree.cwd`) was in, ready to work in again, and the commit it was made from;
 * undefined when it is not one of this run's, a child works in it now, or its folder is no longer its branch's
 * worktree. A folder still there (its host was killed) is reused as it is; a gone folder (the attempt was closed) gets
 * the branch checked out again; a gone branch (the attempt changed nothing) is made again from HEAD in the same place.
 */
async function reopenEarlier(
	reopen: string,
	repo: RepoPlace,
	head: string,
	working: ReadonlySet<string>,
	options: RunWorktreesOptions,
): Promise<{ slug: string; base: string; reopened: "kept" | "remade" } | undefined> {
	const inside = relative(options.dir, reopen);
	const slug = inside.split(sep)[0] ?? "";
	if (!slug || slug === ".." || isAbsolute(inside) || working.has(slug)) return undefined;
	const branch = `${branchPrefix(options.runId)}${slug}`;
	const path = join(options.dir, slug);
	if (!(await branchExists(branch, repo.top, options))) {
		if (existsSync(path)) return undefined;
		await addWorktree(repo, slug, head, options);
		return { slug, base: head, reopened: "remade" };
	}
	const inRepo = (args: string[]) => runGit(args, gitOptions(options, repo.top));
	if (existsSync(path)) {
		if (!(await isWorktreeOf(path, branch, options))) return undefined;
	} else {
		try {
			await retryLocked(() => inRepo(["worktree", "prune"]));
			await retryLocked(() => inRepo([...NO_HOOKS, "worktree", "add", "--quiet", path, branch]));
		} catch (error) {
			// The branch is the earlier attempt's work: only the half-made folder goes.
			await rm(path, { recursive: true, force: true }).catch(() => undefined);
			await inRepo(["worktree", "prune"]).catch(() => undefined);
			throw toWorktreeError(error, { repo: repo.top, branch, step: "reopen the interrupted attempt's worktree" });
		}
	}
	// The commit the worktree was made from: what its branch's changes are counted from when it closes.
	const base = await inRepo(["merge-base", head, branch]).then(
		(out) => out.stdout.trim(),
		() => head,
	);
	return { slug, base, reopened: "kept" };
}

/** Makes the worktree `slug` of the run from `head`, on its new branch; nothing of it is left when git refuses. */
async function addWorktree(repo: RepoPlace, slug: string, head: string, options: RunWorktreesOptions): Promise<void> {
	const branch = `${branchPrefix(options.runId)}${slug}`;
	const path = join(options.dir, slug);
	await mkdir(options.dir, { recursive: true, mode: 0o700 });
	try {
		const undo = () => undoAdd({ branch, path, top: repo.top, options });
		await retryLocked(
			() =>
				runGit(
					[...NO_HOOKS, "worktree", "add", "--quiet", "-b", branch, path, head],
					gitOptions(options, repo.top),
				),
			undo,
		);
	} catch (error) {
		await undoAdd({ branch, path, top: repo.top, options });
		throw toWorktreeError(error, { repo: repo.top, branch, step: "make the worktree" });
	}
}

/** Whether the folder `path` is the root of a worktree with `branch` checked out. */
async function isWorktreeOf(path: string, branch: string, options: RunWorktreesOptions): Promise<boolean> {
	try {
		const out = await runGit(
			["rev-parse", "--show-toplevel", "--symbolic-full-name", "HEAD"],
			gitOptions(options, path),
		);
		const [top = "", ref = ""] = out.stdout.trim().split("\n");
		return ref === `refs/heads/${branch}` && (await realpath(top)) === (await realpath(path));
	} catch (error) {
		if (error instanceof GitFailure && !error.timedOut) return false;
		throw error;
	}
}

interface RepoPlace {
	/** The main working tree's root (where `.git` is for a normal clone). */
	top: string;
	/** The common git directory, shared by every worktree of the clone: the key of the repository's queue. */
	gitDir: string;
	/** Where `cwd` is inside the working tree. */
	subdir: string;
}

async function findRepo(cwd: string, options: RunWorktreesOptions): Promise<RepoPlace> {
	const folder = await stat(cwd).catch(() => undefined);
	if (!folder?.isDirectory()) {
		throw new WorkflowError(
			"worktree_not_a_repo",
			`\`isolation: "worktree"\` needs the run's directory to be in a git repository, and ${cwd} is not a directory. Run the workflow from inside a repository, or leave \`isolation\` out`,
			{ details: { cwd } },
		);
	}
	let out: string;
	try {
		out = (await runGit(["rev-parse", "--show-toplevel", "--git-common-dir"], gitOptions(options, cwd))).stdout;
	} catch (error) {
		if (!(error instanceof GitFailure)) throw error;
		throw new WorkflowError(
			"worktree_not_a_repo",
			`\`isolation: "worktree"\` needs a git repository, and ${cwd} is not inside a git working tree (git said: ${gitSaid(error.stderr)}). Run the workflow in a repository (\`git init\`, then commit), or leave \`isolation\` out`,
			{ details: { cwd } },
		);
	}
	const [top = "", common = ""] = out.split("\n");
	const real = await realpath(cwd);
	return { top, gitDir: await realpath(resolve(cwd, common)), subdir: relative(top, real) };
}

async function headCommit(top: string, options: RunWorktreesOptions): Promise<string> {
	try {
		return (
			await runGit(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], gitOptions(options, top))
		).stdout.trim();
	} catch (error) {
		if (!(error instanceof GitFailure) || error.timedOut) throw error;
		throw new WorkflowError(
			"worktree_no_commit",
			`The git repository at ${top} has no commit yet (HEAD is unborn), and an isolated child's worktree is made from HEAD. Commit once (\`git commit --allow-empty -m init\` will do), or leave \`isolation\` out`,
			{ details: { repo: top } },
		);
	}
}

async function branchExists(branch: string, top: string, options: RunWorktreesOptions): Promise<boolean> {
	try {
		await runGit(["show-ref", "--verify", "--quiet", `refs/heads/${branch}`], gitOptions(options, top));
		return true;
	} catch (error) {
		if (error instanceof GitFailure && !error.timedOut) return false;
		throw error;
	}
}

interface ClosePlan {
	path: string;
	branch: string;
	base: string;
	top: string;
	label: string;
	options: RunWorktreesOptions;
}

async function closeWorktree(plan: ClosePlan): Promise<WorktreeOutcome> {
	const { path, branch, top, options } = plan;
	const inRepo = (args: string[]) => runGit(args, gitOptions(options, top));
	if (!existsSync(path)) {
		// The child removed its own folder: forget the worktree, and keep the branch only if it committed something.
		await retryLocked(() => inRepo(["worktree", "prune"]));
		return settleBranch(plan, (await inRepo(["rev-parse", `refs/heads/${branch}`])).stdout.trim());
	}
	const tip = await commitLeftovers({ label: plan.label, runId: options.runId }, gitOptions(options, path));
	// Ignored files (build output, dependencies) are all that can be left: they go with the folder.
	await retryLocked(() => inRepo(["worktree", "remove", "--force", path]));
	return settleBranch(plan, tip);
}

/** With the folder gone: a branch that moved past `base` is kept; one that did not is deleted. */
async function settleBranch(plan: ClosePlan, tip: string): Promise<WorktreeOutcome> {
	const { branch, base, top, options } = plan;
	const inRepo = (args: string[]) => runGit(args, gitOptions(options, top));
	if (tip === base) {
		await retryLocked(() => inRepo(["branch", "--quiet", "-D", branch]));
		return { kept: false };
	}
	return { kept: true, commit: tip, files: await changedFiles(base, tip, gitOptions(options, top)) };
}

/**
 * After a failed `worktree add`: no half-made worktree and no branch of it. The branch is ours whatever git said: the
 * name was free when the repository's queue gave us our turn, and names under `workflows/<runId>/` are this run's.
 */
async function undoAdd({
	branch,
	path,
	top,
	options,
}: {
	branch: string;
	path: string;
	top: string;
	options: RunWorktreesOptions;
}): Promise<void> {
	const inRepo = (args: string[]) => runGit(args, gitOptions(options, top));
	await rm(path, { recursive: true, force: true }).catch(() => undefined);
	await inRepo(["worktree", "prune"]).catch(() => undefined);
	await inRepo(["branch", "--quiet", "-D", branch]).catch(() => undefined);
}

function toWorktreeError(
	error: unknown,
	where: { repo: string; branch: string; step: string; path?: string },
): WorkflowError {
	if (error instanceof WorkflowError) return error;
	const kept = where.path ? ` The worktree is left at ${where.path}: commit or remove it by hand.` : "";
	const details = { repo: where.repo, branch: where.branch, ...(where.path ? { path: where.path } : {}) };
	if (!(error instanceof GitFailure)) {
		return new WorkflowError("worktree_failed", `Could not ${where.step} (${errorMessage(error)}).${kept}`, {
			details,
		});
	}
	const said = gitSaid(error.stderr);
	switch (classifyGitFailure(error)) {
		case "worktree_branch_exists":
			return new WorkflowError(
				"worktree_branch_exists",
				`git cannot create branch \`${where.branch}\` in ${where.repo}: ${said}. Delete or rename the branch in the way (\`git branch -m\`), or give the call another \`label\``,
				{ details },
			);
		case "worktree_locked":
			return new WorkflowError(
				"worktree_locked",
				`Could not ${where.step}: a git lock file in ${where.repo} is held (${said}). Another git command is running there, or one crashed and left the lock: wait for it, or remove the \`.lock\` file it names if no git process is running.${kept}`,
				{ details },
			);
		default:
			return new WorkflowError("worktree_failed", `Could not ${where.step}: ${error.message}.${kept}`, { details });
	}
}

function gitOptions(options: RunWorktreesOptions, cwd: string): GitOptions {
	return {
		cwd,
		...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
		...(options.git !== undefined ? { git: options.git } : {}),
	};
}
