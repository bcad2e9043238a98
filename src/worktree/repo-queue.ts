/**
 * Git commands that change a repository's shared state (worktrees, branches, refs) one at a time per repository:
 * git guards that state with lock files and fails at once, rather than waiting, when another command holds one.
 */

/** The tail of each repository's chain, by its git directory; an entry goes once its chain is idle. */
const tails = new Map<string, Promise<void>>();

/**
 * Runs `task` after every task queued before it for the repository whose git directory is `gitDir` (the common
 * directory, shared by all worktrees of a clone). A task that fails does not stop the ones after it.
 */
export function inRepoQueue<T>(gitDir: string, task: () => Promise<T>): Promise<T> {
	const before = tails.get(gitDir) ?? Promise.resolve();
	const result = before.then(task);
	const tail = result.then(
		() => undefined,
		() => undefined,
	);
	tails.set(gitDir, tail);
	tail.then(() => {
		if (tails.get(gitDir) === tail) tails.delete(gitDir);
	});
	return result;
}

/** Repositories with work queued or running (for tests that check nothing is left behind). */
export function busyRepos(): number {
	return tails.size;
}
