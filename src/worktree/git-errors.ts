/** What a failed git command's message means, for the codes of `isolation: "worktree"` errors (git runs with LC_ALL=C). */
import type { GitFailure } from "./git.ts";

/** The code a failure of `git worktree add -b` (or a later command) gets. */
export type GitFailureCode = "worktree_branch_exists" | "worktree_locked" | "worktree_failed";

/** Another git command holds a lock file this one needs (`index.lock`, a ref's `.lock`…). */
export function isLockFailure(failure: GitFailure): boolean {
	return /\.lock'?: File exists|Unable to create '[^']*\.lock'/.test(failure.stderr);
}

/** A lock before a name clash: "cannot lock ref …: Unable to create ….lock" is a lock, not a branch in the way. */
export function classifyGitFailure(failure: GitFailure): GitFailureCode {
	if (failure.timedOut) return "worktree_failed";
	if (isLockFailure(failure)) return "worktree_locked";
	const said = failure.stderr;
	// "a branch named 'x' already exists"; "'refs/heads/workflows' exists; cannot create 'refs/heads/workflows/…'"
	if (/branch named '[^']*' already exists|' exists; cannot create '/.test(said)) return "worktree_branch_exists";
	return "worktree_failed";
}

/** The line of git's message that says what went wrong, without its "fatal: " or "error: " prefix. */
export function gitSaid(stderr: string): string {
	const lines = stderr
		.split("\n")
		.map((line) => line.trim())
		.filter(Boolean);
	const main = lines.find((line) => /^(fatal|error): /.test(line)) ?? lines[0] ?? "";
	return main.replace(/^(fatal|error): /, "");
}
