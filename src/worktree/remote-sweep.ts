/**
 * Worktrees of a worker that died mid-job: each remote workspace records its owner (machine and process) beside
 * git's own record of the worktree, and a later workspace on that clone removes those whose process is gone. Their
 * jobs run again elsewhere (the queue gives a dead worker's jobs to another), so nothing in them is wanted.
 */
import { existsSync } from "node:fs";
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname, join, sep } from "node:path";
import { runGit } from "./git.ts";
import { local, type RemoteClone, type RemoteCloneOptions } from "./remote-clone.ts";

/** The file in a worktree's git directory (`<clone>/worktrees/<name>/`) that names the process using it. */
const OWNER_FILE = "pi-workflows-owner";

/** Records this process as the worktree's owner. */
export async function markOwner(adminDir: string): Promise<void> {
	await writeFile(join(adminDir, OWNER_FILE), `${hostname()} ${process.pid}\n`);
}

/**
 * Removes the clone's worktrees whose owner is a process of this machine that has ended (folder and git's record);
 * a worktree of another machine sharing the cache, or of a live process, is left, and so is any folder outside
 * `within` (the worktrees' folder). Returns the folders removed. Runs in the clone's queue.
 */
export async function sweepDeadWorktrees(
	clone: RemoteClone,
	within: string,
	options: RemoteCloneOptions,
): Promise<string[]> {
	const records = join(clone.path, "worktrees");
	const names = existsSync(records) ? await readdir(records) : [];
	const removed: string[] = [];
	for (const name of names) {
		const owner = await readFile(join(records, name, OWNER_FILE), "utf8").catch(() => "");
		const [machine, pid] = owner.trim().split(" ");
		if (machine !== hostname() || !pid || isAlive(Number(pid))) continue;
		const gitFile = await readFile(join(records, name, "gitdir"), "utf8").catch(() => "");
		const folder = gitFile.trim() ? dirname(gitFile.trim()) : undefined;
		// Only folders of our own worktree tree: a record pointing elsewhere is not ours to delete.
		if (folder?.startsWith(`${within}${sep}`)) {
			await runGit(["worktree", "remove", "--force", folder], local(options, clone.path)).catch(() => undefined);
			await rm(folder, { recursive: true, force: true });
			removed.push(folder);
		}
	}
	if (removed.length > 0) await runGit(["worktree", "prune"], local(options, clone.path)).catch(() => undefined);
	return removed;
}

/**
 * A process of this machine still runs (or runs as another user: also alive). Also how a queue worker tells a dead
 * worker's scratch folders (`src/queue/job-place.ts`).
 */
export function isAlive(pid: number): boolean {
	if (!Number.isInteger(pid) || pid <= 0) return true;
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}
