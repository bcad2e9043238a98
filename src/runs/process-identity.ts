/**
 * Who a process is, beyond its pid: its host and its start time, so a lock can tell a live holder from a dead one
 * whose pid was reused. Start ticks come from `/proc/<pid>/stat` (Linux); elsewhere only `kill(pid, 0)` decides.
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import type { RunLockInfo } from "./types.ts";

/** The start time of `pid` in clock ticks since boot, or undefined where `/proc` does not say. */
function processStartTicks(pid: number | "self"): number | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		// Field 22 (starttime), counted after the command name, which is in parentheses and may hold spaces.
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		const ticks = Number(fields[19]);
		return Number.isSafeInteger(ticks) ? ticks : undefined;
	} catch {
		return undefined;
	}
}

/** This process, as a lock records it. */
export function currentProcess(): Pick<RunLockInfo, "pid" | "hostname" | "processStartedAt" | "startTicks"> {
	const startTicks = processStartTicks("self");
	return {
		pid: process.pid,
		hostname: hostname(),
		processStartedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
		...(startTicks === undefined ? {} : { startTicks }),
	};
}

/** `alive`, `dead`, or `unknown` (another host: it cannot be asked, so it counts as alive). */
export type HolderState = "alive" | "dead" | "unknown";

/** Whether the process a lock names still exists and is the same process. */
export function holderState(info: Pick<RunLockInfo, "pid" | "hostname" | "startTicks">): HolderState {
	if (info.hostname !== hostname()) return "unknown";
	try {
		process.kill(info.pid, 0);
	} catch (error) {
		// EPERM: the pid exists but belongs to another user, so it is alive.
		if ((error as { code?: unknown }).code === "ESRCH") return "dead";
	}
	if (info.startTicks === undefined) return "alive";
	const now = processStartTicks(info.pid);
	// A different start time means the holder died and its pid went to a newer process.
	return now === undefined || now === info.startTicks ? "alive" : "dead";
}
