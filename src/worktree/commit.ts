/**
 * What local and remote isolated children share once a child is done: committing what it left in its worktree (the
 * same message and author either way), the files changed since the base, and waiting out another git command's lock.
 */
import { GitFailure, type GitOptions, runGit } from "./git.ts";
import { isLockFailure } from "./git-errors.ts";

/**
 * The repository's hooks do not run for our checkout and commit: a `post-checkout` that installs dependencies or a
 * `pre-commit` that runs the test suite would hold every isolated child of the repository in the queue behind it.
 */
export const NO_HOOKS = ["-c", "core.hooksPath=/dev/null"];
/** Used for the commit only when the repository has no `user.name`/`user.email` (git would refuse to commit). */
const FALLBACK_IDENTITY = { name: "pi-workflows", email: "pi-workflows@localhost" };
/** How a lock held by another git command is waited out before giving up: pauses between attempts, in ms. */
const LOCK_PAUSES = [50, 150, 400];

/** What a commit says of the child that made it. */
export interface CommitWho {
	/** The call's label, in the subject line. */
	label: string;
	/** The run's id, in the body. */
	runId: string;
}

/**
 * Commits everything the child left uncommitted in the worktree at `git.cwd` (tracked edits, new files, deletions),
 * author from the repository's config or pi-workflows; nothing when it left nothing. `extra` are `-c` settings for the
 * commit. Returns the tip afterwards.
 */
export async function commitLeftovers(who: CommitWho, git: GitOptions, extra: readonly string[] = []): Promise<string> {
	const inTree = (args: string[]) => runGit(args, git);
	const status = (await inTree(["status", "--porcelain", "-z", "--untracked-files=all"])).stdout;
	if (status.length > 0) {
		await retryLocked(() => inTree(["add", "--all"]));
		const identity = await missingIdentity(git);
		await retryLocked(() =>
			inTree([
				...identity,
				...NO_HOOKS,
				...extra,
				"-c",
				"commit.gpgsign=false",
				"commit",
				"--quiet",
				"-m",
				`workflows: ${oneLine(who.label)}`,
				"-m",
				`What the isolated child \`${oneLine(who.label)}\` of workflow run ${who.runId} changed, committed by pi-workflows.`,
			]),
		);
	}
	return (await inTree(["rev-parse", "HEAD"])).stdout.trim();
}

/** Paths (relative to the repository root) added, changed or deleted between `base` and `tip`, sorted. */
export async function changedFiles(base: string, tip: string, git: GitOptions): Promise<string[]> {
	const diff = (await runGit(["diff", "--name-only", "--no-renames", "-z", base, tip], git)).stdout;
	return diff.split("\0").filter(Boolean).sort();
}

/** What a branch changed against its base: `git diff --stat`'s text, and per file the lines added and removed. */
export interface DiffStat {
	text: string;
	/** Binary files have no line counts. */
	files: { path: string; added?: number; removed?: number }[];
}

/** `git diff --stat` and `--numstat` of `base..tip` (no renames, as `changedFiles`). */
export async function diffStat(base: string, tip: string, git: GitOptions): Promise<DiffStat> {
	const text = (await runGit(["diff", "--stat=120", "--no-renames", base, tip], git)).stdout.trimEnd();
	const numstat = (await runGit(["diff", "--numstat", "--no-renames", "-z", base, tip], git)).stdout;
	const files: DiffStat["files"] = [];
	for (const row of numstat.split("\0")) {
		const [added, removed, path] = row.split("\t");
		if (!path) continue;
		files.push({
			path,
			...(added !== "-" ? { added: Number(added) } : {}),
			...(removed !== "-" ? { removed: Number(removed) } : {}),
		});
	}
	return { text, files };
}

/** `-c user.name=… -c user.email=…` for whichever the repository does not configure, so the commit cannot fail on it. */
async function missingIdentity(git: GitOptions): Promise<string[]> {
	const extra: string[] = [];
	for (const key of ["name", "email"] as const) {
		const set = await runGit(["config", "--get", `user.${key}`], git).then(
			(out) => out.stdout.trim() !== "",
			() => false,
		);
		if (!set) extra.push("-c", `user.${key}=${FALLBACK_IDENTITY[key]}`);
	}
	return extra;
}

/**
 * Runs `command` again while another git command holds a lock it needs, a few times, then gives up; `between` undoes
 * what a failed attempt may have half done.
 */
export async function retryLocked<T>(command: () => Promise<T>, between?: () => Promise<void>): Promise<T> {
	for (let attempt = 0; ; attempt++) {
		try {
			return await command();
		} catch (error) {
			const pause = LOCK_PAUSES[attempt];
			if (pause === undefined || !(error instanceof GitFailure) || !isLockFailure(error)) throw error;
			await between?.();
			await new Promise((resolve) => setTimeout(resolve, pause));
		}
	}
}

/** Text on one line, runs of white space as one space. */
export function oneLine(text: string): string {
	return text.replace(/\s+/g, " ").trim();
}
