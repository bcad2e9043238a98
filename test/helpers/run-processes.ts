/**
 * The processes of one test run: every process the suite's workers start inherits the run's marker in its
 * environment (`PI_WORKFLOWS_TEST_RUN`, vitest.config.ts), so a process still alive when the run ends is one a
 * test left behind, whoever its parent is now. Reads Linux's /proc; elsewhere it finds none.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";

/** The environment variable whose value marks a run's processes. */
export const RUN_MARKER = "PI_WORKFLOWS_TEST_RUN";

/** One live process of the run. */
export interface RunProcess {
	pid: number;
	/** Its command line, spaces between the arguments, cut to 160 characters. */
	command: string;
}

/** Live (not zombie) processes whose environment carries `marker`, but for those in `except`. */
export function runProcesses(marker: string, except: ReadonlySet<number> = new Set()): RunProcess[] {
	if (!existsSync("/proc")) return [];
	const entry = `${RUN_MARKER}=${marker}`;
	const found: RunProcess[] = [];
	for (const name of readdirSync("/proc")) {
		const pid = Number(name);
		if (!Number.isInteger(pid) || except.has(pid) || !alive(pid)) continue;
		const environ = readProc(pid, "environ");
		if (environ === undefined || !environ.split("\0").includes(entry)) continue;
		const command = (readProc(pid, "cmdline") ?? "").split("\0").join(" ").trim();
		found.push({ pid, command: command.length > 160 ? `${command.slice(0, 159)}…` : command });
	}
	return found;
}

/** The pids whose parent is `parent`: a run's own worker processes, which vitest ends itself. */
export function childPids(parent: number): Set<number> {
	const pids = new Set<number>();
	if (!existsSync("/proc")) return pids;
	for (const name of readdirSync("/proc")) {
		const pid = Number(name);
		if (Number.isInteger(pid) && statFields(pid)?.[1] === String(parent)) pids.add(pid);
	}
	return pids;
}

/** Whether `pid` is a running process: a zombie has ended and waits only for its parent to read its status. */
export function alive(pid: number): boolean {
	const state = statFields(pid)?.[0];
	return state !== undefined && state !== "Z";
}

/** Ends each process with SIGKILL; one that has gone meanwhile is fine. */
export function reap(processes: readonly RunProcess[]): void {
	for (const { pid } of processes) {
		try {
			process.kill(pid, "SIGKILL");
		} catch {
			// Already gone.
		}
	}
}

/** State and parent pid from /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
function statFields(pid: number): string[] | undefined {
	const stat = readProc(pid, "stat");
	if (stat === undefined) return undefined;
	return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

function readProc(pid: number, file: string): string | undefined {
	try {
		return readFileSync(`/proc/${pid}/${file}`, "utf8");
	} catch {
		return undefined; // gone, or another user's
	}
}
