/**
 * The store's file primitives: private folders (0700) and files (0600) whatever the umask, atomic writes (temp file,
 * fsync, rename), JSON reads, and file-system errors turned into `run_store` errors that name the path and the fix.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { errorMessage, WorkflowError } from "../errors.ts";

/** Mode of every folder the store makes. */
export const DIR_MODE = 0o700;
/** Mode of every file the store writes. */
export const FILE_MODE = 0o600;

/** Makes `path` (and missing parents) and sets it to 0700. */
export async function ensurePrivateDir(path: string): Promise<void> {
	try {
		await mkdir(path, { recursive: true, mode: DIR_MODE });
		await chmod(path, DIR_MODE);
	} catch (error) {
		throw storeError(error, path, "create the folder");
	}
}

/** Writes `text` to `path` so a reader sees the old file or the whole new one, never a part. */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
	const temp = `${path}.${randomBytes(4).toString("hex")}.tmp`;
	try {
		const handle = await open(temp, "wx", FILE_MODE);
		try {
			await handle.chmod(FILE_MODE);
			await handle.writeFile(text, "utf8");
			await handle.sync();
		} finally {
			await handle.close();
		}
		await rename(temp, path);
	} catch (error) {
		await rm(temp, { force: true }).catch(() => {});
		throw storeError(error, path, "write");
	}
}

/** The text of `path`, or undefined when it does not exist. */
export async function readTextIfExists(path: string): Promise<string | undefined> {
	try {
		return await readFile(path, "utf8");
	} catch (error) {
		if (errnoCode(error) === "ENOENT") return undefined;
		throw storeError(error, path, "read");
	}
}

/** Parses JSON text, or throws `run_store` naming the file and what to do. */
export function parseJsonFile(text: string, path: string, remedy: string): unknown {
	try {
		return JSON.parse(text);
	} catch (error) {
		const why = errorMessage(error);
		throw new WorkflowError("run_store", `${path} is not valid JSON (${why}). ${remedy}`, {
			details: { path },
		});
	}
}

/** The `code` of a Node file-system error (`ENOENT`, `EACCES`…), if it has one. */
export function errnoCode(error: unknown): string | undefined {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" ? code : undefined;
}

/** A file-system failure as `run_store`: what failed, on which path, and what to do about it. */
export function storeError(error: unknown, path: string, action: string): WorkflowError {
	if (error instanceof WorkflowError) return error;
	const code = errnoCode(error);
	const why = errorMessage(error);
	const fix =
		code === "EACCES" || code === "EPERM"
			? `Permission denied: run as the user who owns it, or give it back to yourself (\`chmod 700\` for a folder, \`chmod 600\` for a file)`
			: code === "ENOSPC"
				? "The disk is full: free some space and retry"
				: "Check that the path is a folder you can write to, then retry";
	return new WorkflowError("run_store", `Cannot ${action} ${path}: ${why}. ${fix}`, {
		details: { path, ...(code ? { errno: code } : {}) },
		cause: error,
	});
}
