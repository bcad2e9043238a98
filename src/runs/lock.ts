/**
 * A run's lock, `lock` in its folder: at most one process runs (or resumes) a run at a time, and a dead holder
 * does not hold it forever. Taking it is an exclusive `link` of a complete temp file, so a reader never sees a
 * half-written lock. Taking over a dead holder's lock goes through a guard file named after that lock's token
 * (exclusive create): of several processes racing for the same stale lock exactly one gets the guard, checks the
 * lock is still the stale one, and renames its own over it.
 */
import { randomBytes } from "node:crypto";
import { link, open, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { WorkflowError } from "../errors.ts";
import { errnoCode, FILE_MODE, parseJsonFile, readTextIfExists, storeError } from "./files.ts";
import { currentProcess, holderState } from "./process-identity.ts";
import type { RunLock, RunLockInfo } from "./types.ts";

/** How often the lock may change hands under us before acquiring gives up. */
const ATTEMPTS = 5;

/** Takes the lock of the run in `dir`, or throws `run_busy` naming the live holder. */
export async function acquireRunLock(dir: string, runId: string): Promise<RunLock> {
	const lockPath = join(dir, "lock");
	const info: RunLockInfo = {
		...currentProcess(),
		acquiredAt: new Date().toISOString(),
		token: randomBytes(8).toString("hex"),
	};
	const temp = join(dir, `lock.${info.token}.tmp`);
	await writeExclusive(temp, `${JSON.stringify(info)}\n`).catch((error: unknown) => {
		throw storeError(error, temp, "take the lock");
	});
	try {
		for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
			try {
				await link(temp, lockPath);
				return new HeldLock(lockPath, info);
			} catch (error) {
				if (errnoCode(error) !== "EEXIST") throw storeError(error, lockPath, "take the lock");
			}
			const holder = await readLock(lockPath, runId);
			if (holder === undefined) continue; // released in between
			const state = holderState(holder);
			if (state !== "dead") throw busyError(runId, holder, state, lockPath);
			if (await takeOver(dir, lockPath, temp, holder, runId)) return new HeldLock(lockPath, info);
		}
		throw new WorkflowError(
			"run_busy",
			`The lock of run \`${runId}\` kept changing hands (${lockPath}). Another process is starting it: wait, then retry`,
			{ details: { runId, lockPath } },
		);
	} finally {
		await rm(temp, { force: true });
	}
}

/** The lock at `lockPath`, or undefined when there is none; `run_store` when it is not a lock. */
export async function readLock(lockPath: string, runId: string): Promise<RunLockInfo | undefined> {
	const text = await readTextIfExists(lockPath);
	if (text === undefined) return undefined;
	const remedy = `If no process is running run \`${runId}\`, delete it and retry`;
	const value = parseJsonFile(text, lockPath, remedy) as Partial<RunLockInfo> | null;
	const valid =
		typeof value === "object" &&
		value !== null &&
		Number.isSafeInteger(value.pid) &&
		(value.pid ?? 0) > 0 &&
		typeof value.hostname === "string" &&
		typeof value.token === "string" &&
		typeof value.acquiredAt === "string";
	if (!valid) {
		throw new WorkflowError("run_store", `${lockPath} is not a lock (no pid, host, token or time). ${remedy}`, {
			details: { runId, path: lockPath },
		});
	}
	return value as RunLockInfo;
}

/** Replaces the dead holder's lock with ours; false when someone else replaced it first. */
async function takeOver(
	dir: string,
	lockPath: string,
	temp: string,
	stale: RunLockInfo,
	runId: string,
): Promise<boolean> {
	const guard = join(dir, `lock.takeover-${stale.token.replace(/[^0-9a-z]/gi, "")}`);
	try {
		await writeExclusive(guard, `${JSON.stringify(currentProcess())}\n`);
	} catch (error) {
		if (errnoCode(error) !== "EEXIST") throw storeError(error, guard, "take over the lock");
		throw new WorkflowError(
			"run_busy",
			`Another process is taking over run \`${runId}\` from process ${stale.pid}, which is gone. Retry in a moment; if this persists, delete ${guard}`,
			{ details: { runId, pid: stale.pid, guardPath: guard } },
		);
	}
	try {
		// Only the guard's owner can change a lock holding this token, so the check and the rename cannot race.
		if ((await readLock(lockPath, runId))?.token !== stale.token) return false;
		await rename(temp, lockPath);
		return true;
	} finally {
		await rm(guard, { force: true });
	}
}

function busyError(runId: string, holder: RunLockInfo, state: "alive" | "unknown", lockPath: string): WorkflowError {
	const details = { runId, pid: holder.pid, hostname: holder.hostname, acquiredAt: holder.acquiredAt, lockPath };
	if (state === "unknown") {
		return new WorkflowError(
			"run_busy",
			`Run \`${runId}\` is held by process ${holder.pid} on host \`${holder.hostname}\` (since ${holder.acquiredAt}); this host cannot tell whether it is still running. Stop it there first, or delete ${lockPath} if that process is gone`,
			{ details },
		);
	}
	const who = holder.pid === process.pid ? `this process (${holder.pid})` : `process ${holder.pid}`;
	return new WorkflowError(
		"run_busy",
		`Run \`${runId}\` is still running in ${who} (since ${holder.acquiredAt}). Stop it first, or wait until it ends`,
		{ details },
	);
}

/** Creates `path` with `text`, failing with EEXIST when it exists; the content is on disk when it resolves. */
async function writeExclusive(path: string, text: string): Promise<void> {
	const handle = await open(path, "wx", FILE_MODE);
	try {
		await handle.writeFile(text, "utf8");
		await handle.sync();
	} finally {
		await handle.close();
	}
}

class HeldLock implements RunLock {
	readonly info: RunLockInfo;
	readonly #path: string;
	#held = true;

	constructor(path: string, info: RunLockInfo) {
		this.#path = path;
		this.info = info;
	}

	get held(): boolean {
		return this.#held;
	}

	async release(): Promise<void> {
		if (!this.#held) return;
		this.#held = false;
		const text = await readTextIfExists(this.#path);
		// Someone judged us dead and took the run over: the lock is theirs now, not ours to remove.
		if (text === undefined || !text.includes(`"token":"${this.info.token}"`)) return;
		await rm(this.#path, { force: true });
	}

	[Symbol.asyncDispose](): Promise<void> {
		return this.release();
	}
}
