/**
 * The lock of installed workflows: the sha256 of each workflow a pi package brought, recorded when the extension or
 * the CLI first sees the package at its version (its install or update), beside pi's package list:
 * `<agentDir>/workflows.lock.json` for user packages, `<cwd>/.pi/workflows.lock.json` for project ones. A file that
 * no longer matches its locked digest does not run until it is re-installed or re-approved (`pi-workflows verify
 * <name> --accept`); the lock also keeps the last verify of each workflow at that digest.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** What the lock keeps of one installed workflow. */
export interface LockEntry {
	sha256: string;
	/** The file it was read from. */
	file: string;
	/** The package's source as pi's settings hold it. */
	source: string;
	/** The package's version (or git commit) the digest was recorded at. */
	version: string;
	lockedAt: string;
	/** The last `verify` of this digest: its verdict and one line on why. */
	verified?: { ok: boolean; sha256: string; summary: string; at: string };
}

export interface WorkflowLock {
	version: 1;
	workflows: Record<string, LockEntry>;
}

/** The lock file of a scope's packages. */
export function lockFileFor(scope: "user" | "project", places: { cwd: string; agentDir: string }): string {
	return scope === "user"
		? join(places.agentDir, "workflows.lock.json")
		: join(places.cwd, ".pi", "workflows.lock.json");
}

/** The lock at `file`; an empty one when there is none (or it does not read: then every workflow is seen anew). */
export function readLock(file: string): WorkflowLock {
	try {
		const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<WorkflowLock>;
		if (parsed && parsed.version === 1 && parsed.workflows && typeof parsed.workflows === "object") {
			return { version: 1, workflows: { ...parsed.workflows } };
		}
	} catch {
		// none yet, or unreadable: start a new one
	}
	return { version: 1, workflows: {} };
}

/** Writes the lock whole, through a temp file and a rename, so a reader never sees half of it. */
export function writeLock(file: string, lock: WorkflowLock): void {
	mkdirSync(dirname(file), { recursive: true });
	const temp = `${file}.${randomBytes(4).toString("hex")}.tmp`;
	try {
		writeFileSync(temp, `${JSON.stringify(lock, null, 2)}\n`);
		renameSync(temp, file);
	} catch (error) {
		rmSync(temp, { force: true });
		throw error;
	}
}

/** Changes one lock file under a read-modify-write. */
export function updateLock(file: string, change: (lock: WorkflowLock) => void): WorkflowLock {
	const lock = readLock(file);
	change(lock);
	writeLock(file, lock);
	return lock;
}

export function sha256Of(text: string): string {
	return createHash("sha256").update(text).digest("hex");
}
