/**
 * Where one job's child works on its worker. With `--repo` and a run that sent its commit: a worktree of that commit
 * from the worker's clone (src/worktree/remote-workspace.ts), whose changes are committed and pushed as
 * `workflows/<runId>/<label>` when the child ends. Otherwise an empty scratch folder, without `edit`/`write`: there is
 * no checkout of the host's project to change.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { errorMessage } from "../errors.ts";
import { isAlive, openRemoteWorkspace, type RemoteWorkspace, remoteWorkspaceNote } from "../worktree/index.ts";
import type { QueueJobData, QueueJobReturn } from "./protocol.ts";

/** Tools a child without a workspace does not get. */
export const WRITE_TOOLS = ["edit", "write"];

/** A worker's `--repo`: the repository, as this machine reaches it, and where its clone lives. */
export interface WorkerRepo {
	url: string;
	cacheDir: string;
}

/** One job's place. */
export interface JobPlace {
	cwd: string;
	/** False in a scratch folder: the child gets no `edit`/`write`. */
	writable: boolean;
	/** The child's prompt, with what it is told of where it works. */
	prompt(text: string): string;
	/** What holds for every child of this worker (said once per run by the host). */
	notes: string[];
	/** After the child: its changes committed and pushed (a worktree), for the host to fetch. */
	finish(): Promise<Pick<QueueJobReturn, "workspace"> & { warning?: string }>;
	dispose(): Promise<void>;
}

const SCRATCH_NOTE =
	"the queue's workers run without --repo: children work in empty scratch folders there, without edit/write (they answer, read what their prompt gives and run commands on the worker)";

/** Opens the place; throws the workspace's `WorkflowError` (`worktree_commit_missing`, `worktree_remote_failed`…). */
export async function openJobPlace(data: QueueJobData, repo: WorkerRepo | undefined): Promise<JobPlace> {
	const commit = data.workspace?.commit;
	if (repo && commit) {
		const space = await openRemoteWorkspace({
			repoUrl: repo.url,
			cacheDir: repo.cacheDir,
			commit,
			runId: data.runId,
			label: data.request.label,
			subdir: data.workspace?.subdir ?? "",
		});
		return worktreePlace(space);
	}
	const scratch = await scratchFolder();
	const why = repo
		? `the run sent no commit (its directory is not in a git repository with a commit): children work in empty scratch folders, without edit/write`
		: SCRATCH_NOTE;
	return {
		cwd: scratch,
		writable: false,
		prompt: (text) => text,
		notes: [why],
		finish: async () => ({}),
		dispose: () => rm(scratch, { recursive: true, force: true }),
	};
}

function worktreePlace(space: RemoteWorkspace): JobPlace {
	return {
		cwd: space.cwd,
		writable: true,
		prompt: (text) => `${text}\n\n${remoteWorkspaceNote(space)}`,
		notes: [],
		async finish() {
			try {
				const result = await space.finish();
				return { workspace: { result, base: space.base, path: space.root } };
			} catch (error) {
				return { warning: `its changes could not be committed on the worker: ${errorMessage(error)}` };
			}
		},
		dispose: () => space.dispose(),
	};
}

/** A new scratch folder of this worker's, which `sweepDeadScratch` removes once the worker is gone. */
export function scratchFolder(): Promise<string> {
	return mkdtemp(join(tmpdir(), `${machineScratch()}${process.pid}-`));
}

/**
 * A scratch folder's name says whose it is (`pwf-job-<host>-<pid>-…`: this machine and the worker's pid), so that the
 * folders of a worker that was killed (SIGKILL, out of memory), which could not remove them, go when the next worker
 * on the machine starts or stops. The host name keeps a worker from judging another container's pids that share the
 * temp folder.
 */
function machineScratch(): string {
	return `pwf-job-${hostname().replace(/[^A-Za-z0-9.]/g, "_")}-`;
}

/** Removes the scratch folders of this machine's workers that are no longer running; returns how many. */
export function sweepDeadScratch(dir = tmpdir()): Promise<number> {
	// isAlive counts a name without a pid as alive: such a folder is left.
	return removeScratch(dir, (pid) => !isAlive(pid));
}

/** Removes this worker's own scratch folders, as it quits without waiting for its children; returns how many. */
export function removeOwnScratch(dir = tmpdir()): Promise<number> {
	return removeScratch(dir, (pid) => pid === process.pid);
}

async function removeScratch(dir: string, whose: (pid: number) => boolean): Promise<number> {
	const mine = machineScratch();
	let removed = 0;
	for (const name of await readdir(dir).catch(() => [] as string[])) {
		if (!name.startsWith(mine)) continue;
		if (!whose(Number(/^(\d+)-/.exec(name.slice(mine.length))?.[1]))) continue;
		await rm(join(dir, name), { recursive: true, force: true }).catch(() => {});
		removed++;
	}
	return removed;
}
