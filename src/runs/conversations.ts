/**
 * Children's conversations in a run's folder: `children/<index>-<label-slug>-<n>.jsonl`, one file per session of a
 * call's child (a restart, a stall retry, a fallback model or a resume makes another, so `n` counts them), private
 * like the rest of the record. The store only names, makes and lists the files; what is in them is the host's
 * (the pi runner writes pi session files).
 */
import { constants, type Stats } from "node:fs";
import { type FileHandle, lstat, open, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage } from "../errors.ts";
import { ensurePrivateDir, errnoCode, FILE_MODE, storeError } from "./files.ts";

/** The folder of a run's children's conversations, in the run's folder. */
export const CONVERSATIONS_DIR = "children";
/** The longest label slug in a file name. */
const SLUG_MAX = 40;
/** A call whose child has this many sessions in one run is an odd one; past it, nothing more is kept. */
const MAX_SESSIONS = 999;
const NAME = /^(\d{3,})-([a-z0-9-]*)-(\d+)\.jsonl$/;

/** One conversation file of a run. */
export interface ConversationFile {
	/** The call's index (in the session that ran it). */
	index: number;
	/** The label as it is in the name. */
	slug: string;
	/** Which of the call's sessions this is, from 1. */
	n: number;
	/** Relative to the run's folder: `children/003-review-auth-1.jsonl`. */
	path: string;
	/** Its size; 0 when refused. */
	bytes: number;
	/** Why it is not read (to follow its name): "is now a link (to /x)", "is in a folder that is now a link …". */
	refused?: string;
}

/** `review-auth` for "Review: auth!"; `agent` when nothing is left. */
export function labelSlug(label: string): string {
	const slug = label
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, "-")
		.slice(0, SLUG_MAX)
		.replace(/^-+|-+$/g, "");
	return slug || "agent";
}

/**
 * Makes the next conversation file of call `index` in the run's folder (its folder 0700, the file 0600 and new:
 * an earlier session's file is never written over), with `firstLine` in it. Resolves with its path relative to
 * `runDir`. Throws `run_store` when it cannot.
 */
export async function createConversationFile(
	runDir: string,
	call: { index: number; label: string },
	firstLine: string,
): Promise<string> {
	const dir = join(runDir, CONVERSATIONS_DIR);
	await ensurePrivateDir(dir);
	const stem = `${String(call.index).padStart(3, "0")}-${labelSlug(call.label)}`;
	for (let n = 1; n <= MAX_SESSIONS; n++) {
		const name = `${stem}-${n}.jsonl`;
		const path = join(dir, name);
		try {
			const handle = await open(path, "wx", FILE_MODE);
			try {
				await handle.chmod(FILE_MODE);
				await handle.writeFile(firstLine, "utf8");
			} finally {
				await handle.close();
			}
			return `${CONVERSATIONS_DIR}/${name}`;
		} catch (error) {
			if (errnoCode(error) !== "EEXIST") throw storeError(error, path, "create the conversation file");
		}
	}
	throw storeError(new Error(`${MAX_SESSIONS} sessions already kept`), join(dir, stem), "keep another conversation");
}

/**
 * What a continued child can start from: the kept conversation's lines, or why that file is refused, said to follow
 * "which" ("is now a link (to /x)", "cannot be read as a conversation: line 3 is not JSON (…)"), and whether a link
 * is why.
 */
export type ConversationLines = { lines: string[] } | { refused: string; link: boolean };

/**
 * The lines of conversation file `path` (relative to `runDir`, as results name it) after its first (pi's session
 * header): what a continued child starts from. Undefined when the file is not there, or the path names no file of
 * the run's `children/` folder (a hand-edited journal). Refused (`refused` says why) when the file or its folder is
 * a link, is not a regular file, or a line is not a session entry: a continued child's history goes to a provider,
 * so it comes only from what the run itself kept. Throws `run_store` when it cannot be read.
 */
export async function readConversationLines(runDir: string, path: string): Promise<ConversationLines | undefined> {
	const kept = await readKeptConversation(runDir, path);
	if (!kept || !("text" in kept)) return kept;
	const lines = kept.text.split("\n");
	const entries: string[] = [];
	for (let i = 1; i < lines.length; i++) {
		const line = lines[i] ?? "";
		if (line.trim() === "") continue;
		const problem = entryProblem(line);
		if (problem) return { refused: `cannot be read as a conversation: line ${i + 1} ${problem}`, link: false };
		entries.push(line);
	}
	return { lines: entries };
}

/**
 * The whole text of conversation file `path` (relative to `runDir`), read only from the run's own `children/`
 * folder: refused (`refused` says why, to follow "which") when the file or its folder is a link or the file is not a
 * regular one (a FIFO put there does not block). Undefined when it is not there or the path names no file of that
 * folder. Throws `run_store` when it cannot be read.
 */
export async function readKeptConversation(
	runDir: string,
	path: string,
): Promise<{ text: string } | { refused: string; link: boolean } | undefined> {
	const name = path.startsWith(`${CONVERSATIONS_DIR}/`) ? path.slice(CONVERSATIONS_DIR.length + 1) : "";
	if (!NAME.test(name)) return undefined;
	const dir = join(runDir, CONVERSATIONS_DIR);
	const file = join(dir, name);
	const folder = await folderRefusal(dir);
	if (folder === null) return undefined;
	if (folder) return folder;
	let handle: FileHandle;
	try {
		// No link followed, and a FIFO put there does not block the open.
		handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
	} catch (error) {
		const code = errnoCode(error);
		if (code === "ENOENT") return undefined;
		if (code === "ELOOP" || code === "EMLINK") return { refused: `is now ${await linkOrKind(file)}`, link: true };
		throw storeError(error, file, "read the conversation in");
	}
	try {
		const info = await handle.stat();
		if (!info.isFile()) return { refused: `is now ${await linkOrKind(file, info)}`, link: false };
		return { text: await handle.readFile("utf8") };
	} catch (error) {
		throw storeError(error, file, "read the conversation in");
	} finally {
		await handle.close();
	}
}

/** Why the `children/` folder `dir` is refused (a link, not a folder); null when it is not there. */
async function folderRefusal(dir: string): Promise<{ refused: string; link: boolean } | undefined | null> {
	const folder = await lstat(dir).catch((error: unknown) => {
		if (errnoCode(error) === "ENOENT") return undefined;
		throw storeError(error, dir, "read the conversations folder");
	});
	if (!folder) return null;
	if (folder.isDirectory()) return undefined;
	return { refused: `is in a folder that is now ${await linkOrKind(dir, folder)}`, link: folder.isSymbolicLink() };
}

/** "a link (to /elsewhere)", "a folder", "a FIFO": what stands where a kept file or folder should be. */
async function linkOrKind(path: string, info?: Stats): Promise<string> {
	const seen = info ?? (await lstat(path).catch(() => undefined));
	if (!seen || seen.isSymbolicLink()) {
		const target = await readlink(path).catch(() => undefined);
		return `a link${target !== undefined ? ` (to ${target})` : ""}`;
	}
	return seen.isDirectory() ? "a folder" : seen.isFIFO() ? "a FIFO" : "not a regular file";
}

/** Why one line is not a pi session entry (a JSON object with a `type`), or undefined when it is one. */
function entryProblem(line: string): string | undefined {
	let value: unknown;
	try {
		value = JSON.parse(line);
	} catch (error) {
		return `is not JSON (${errorMessage(error)})`;
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) return "is not an object";
	return typeof (value as { type?: unknown }).type === "string" ? undefined : "has no `type`";
}

/** Bytes of a conversation file's first line read to find its call: pi's header with a long `cwd` fits. */
const HEADER_BYTES = 16 * 1024;

/** What `conversationsByCall` found: each call's newest file, and the files whose header could not be read. */
export interface CallConversationFiles {
	/** Call key → path (relative to the run's folder) of its newest conversation. */
	byKey: Map<string, string>;
	/** Files passed over: a link, another kind of file, a header that does not parse. */
	unread: ConversationFile[];
}

/**
 * The newest conversation file of each call, by the call key its header names (`callKey`, which the pi runner
 * writes): where an interrupted child's conversation is found on a resume, whatever its index in the session that
 * ran it. Links are not followed: they and other files whose header cannot be read are listed apart, by name.
 */
export async function conversationsByCall(runDir: string): Promise<CallConversationFiles> {
	const newest = new Map<string, { path: string; time: string }>();
	const unread: ConversationFile[] = [];
	for (const file of await listConversations(runDir)) {
		const header = await readHeader(join(runDir, file.path));
		const key = header?.callKey;
		if (typeof key !== "string") {
			unread.push(file);
			continue;
		}
		const time = typeof header?.timestamp === "string" ? header.timestamp : "";
		const seen = newest.get(key);
		if (!seen || seen.time <= time) newest.set(key, { path: file.path, time });
	}
	return { byKey: new Map([...newest].map(([key, { path }]) => [key, path])), unread };
}

/**
 * The folder the session of conversation file `path` (relative to `runDir`) worked in, from its header: where an
 * isolated child's worktree was. Undefined when the header cannot be read or names none.
 */
export async function conversationCwd(runDir: string, path: string): Promise<string | undefined> {
	const cwd = (await readHeader(join(runDir, path)))?.cwd;
	return typeof cwd === "string" ? cwd : undefined;
}

/** A conversation file's first line as an object, never following a link; undefined when it is not one. */
async function readHeader(file: string): Promise<Record<string, unknown> | undefined> {
	let handle: FileHandle;
	try {
		handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
	} catch {
		return undefined;
	}
	try {
		if (!(await handle.stat()).isFile()) return undefined;
		const buffer = Buffer.alloc(HEADER_BYTES);
		const { bytesRead } = await handle.read(buffer, 0, HEADER_BYTES, 0);
		const text = buffer.subarray(0, bytesRead).toString("utf8");
		const end = text.indexOf("\n");
		const value: unknown = JSON.parse(end === -1 ? text : text.slice(0, end));
		return typeof value === "object" && value !== null && !Array.isArray(value)
			? (value as Record<string, unknown>)
			: undefined;
	} catch {
		return undefined;
	} finally {
		await handle.close();
	}
}

/** The run's conversation files, by call index then session; none when the run kept none. */
export async function listConversations(runDir: string): Promise<ConversationFile[]> {
	const dir = join(runDir, CONVERSATIONS_DIR);
	let names: string[];
	try {
		names = await readdir(dir);
	} catch (error) {
		if (errnoCode(error) === "ENOENT") return [];
		throw storeError(error, dir, "list the conversations in");
	}
	// Listed as the continue path reads them: a link or another kind of file is named with why, never followed.
	const folder = await folderRefusal(dir);
	const files: ConversationFile[] = [];
	for (const name of names) {
		const match = NAME.exec(name);
		if (!match) continue;
		const info = await lstat(join(dir, name)).catch(() => undefined);
		if (info === undefined) continue;
		const refused = folder
			? folder.refused
			: info.isFile()
				? undefined
				: `is now ${await linkOrKind(join(dir, name), info)}`;
		files.push({
			index: Number(match[1]),
			slug: match[2] ?? "",
			n: Number(match[3]),
			path: `${CONVERSATIONS_DIR}/${name}`,
			bytes: refused ? 0 : info.size,
			...(refused ? { refused } : {}),
		});
	}
	return files.sort((a, b) => a.index - b.index || a.n - b.n);
}
