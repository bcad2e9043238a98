/**
 * A replay cassette: what a replay test needs of a run that happened (its args, how it ended, its value and its
 * journal's entries), read from the run store or kept as a file beside a saved workflow
 * (`review.js` → `review.cassette.json`), so the test outlives the run's record when retention prunes it.
 */
import { randomBytes } from "node:crypto";
import { lstat, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { readRegularFile } from "../agents/regular-file.ts";
import { errorMessage, WorkflowError } from "../errors.ts";
import { createRunStore, readRunJournal } from "../runs/index.ts";
import type { JsonValue, WorkflowJournalEntry } from "../runtime/core/types.ts";

/** What a replay test answers calls from and compares the value with. */
export interface ReplayCassette {
	/** The format: 1. */
	version: 1;
	/** The run it was taken from. */
	runId: string;
	/** The workflow's `meta.name` in that run. */
	name?: string;
	/** The run's args: the test's args unless it is given others. */
	args?: JsonValue;
	/** How the run ended; `interrupted` when it has no snapshot (it crashed, or is still running). */
	status: "completed" | "failed" | "stopped" | "interrupted";
	/** The script's value, when the run completed with one. */
	value?: JsonValue;
	/** The journal's entries (agent answers, `tool()` results, `ask()` answers), in the order written. */
	journal: WorkflowJournalEntry[];
	/** Journal lines that could not be read when it was taken (`journal.jsonl:12: not JSON`). */
	unreadable?: string[];
}

/** Where the cassette of the script `filename` lives: beside it, `<name>.cassette.json`. */
export function cassettePathFor(filename: string): string {
	return `${filename.replace(/\.js$/, "")}.cassette.json`;
}

/**
 * The cassette of run `runId` of the project `cwd`, read from its record without opening anything for writing: the
 * run's files are left as they are. Throws `run_not_found` / `run_id_invalid` as the store does.
 */
export async function loadRunCassette(options: {
	cwd: string;
	runId: string;
	/** Where run records live. Default: `<agentDir>/workflow-runs`. */
	runsRoot?: string;
}): Promise<ReplayCassette> {
	const store = createRunStore({ cwd: options.cwd, ...(options.runsRoot ? { root: options.runsRoot } : {}) });
	const record = await store.open(options.runId);
	const snapshot = await record.readSnapshot();
	const { entries, problems } = await readRunJournal(join(record.dir, "journal.jsonl"));
	const { info } = record;
	return {
		version: 1,
		runId: record.id,
		...(info.meta?.name ? { name: info.meta.name } : {}),
		...(info.args !== undefined ? { args: info.args } : {}),
		status: snapshot?.status ?? "interrupted",
		...(snapshot?.status === "completed" && snapshot.value !== undefined ? { value: snapshot.value } : {}),
		journal: entries,
		...(problems.length > 0 ? { unreadable: problems.map((p) => `journal.jsonl:${p.line}: ${p.reason}`) } : {}),
	};
}

/**
 * Default: the largest cassette file read (64 MiB): a journal of many large answers fits, a file planted to fill
 * memory does not.
 */
export const MAX_CASSETTE_BYTES = 64 * 1024 * 1024;

/**
 * Reads a cassette file; `run_store` saying what is wrong with it when it is not one. Only a regular file of at most
 * `MAX_CASSETTE_BYTES` is read: a committed FIFO or device would otherwise hang the test or fill memory.
 */
export async function readCassette(path: string): Promise<ReplayCassette> {
	const read = readRegularFile(path, MAX_CASSETTE_BYTES);
	if (!read.ok) throw cassetteError(path, `cannot be read (${read.reason})`);
	const { text } = read;
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch (error) {
		throw cassetteError(path, `is not JSON (${errorMessage(error)})`);
	}
	const problem = cassetteProblem(parsed);
	if (problem) throw cassetteError(path, problem);
	return parsed as ReplayCassette;
}

/**
 * Writes `cassette` to `path` as readable JSON (one entry a line would hide nothing; tabs keep diffs small): to a
 * temp file in the same folder, then renamed over it, so a committed link at `path` is never written through and a
 * crash leaves the old cassette whole. A link or anything but a regular file at `path` is refused (`run_store`).
 */
export async function writeCassette(path: string, cassette: ReplayCassette): Promise<void> {
	const existing = await lstat(path).catch(() => undefined);
	if (existing?.isSymbolicLink()) {
		throw new WorkflowError(
			"run_store",
			`The replay cassette ${path} is a symbolic link: a cassette is saved only as a regular file beside its workflow. Remove the link, then save again: pi-workflows test <file|name> --against <runId> --save`,
			{ details: { path } },
		);
	}
	if (existing && !existing.isFile()) {
		throw new WorkflowError(
			"run_store",
			`The replay cassette ${path} is not a regular file: a cassette is saved only as a regular file beside its workflow. Move it away, then save again: pi-workflows test <file|name> --against <runId> --save`,
			{ details: { path } },
		);
	}
	const text = `${JSON.stringify(cassette, null, "\t")}\n`;
	const bytes = Buffer.byteLength(text);
	if (bytes > MAX_CASSETTE_BYTES) {
		// Written, it could never be read back: `readCassette` refuses it.
		throw new WorkflowError(
			"run_store",
			`The replay cassette ${path} would be ${bytes} bytes, over the limit of ${MAX_CASSETTE_BYTES} bytes a cassette is read at: test against a run made with fewer or smaller answers, or use --against <runId> without --save`,
			{ details: { path, bytes, limit: MAX_CASSETTE_BYTES } },
		);
	}
	const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
	try {
		// `wx`: the temp name is new; should something appear there, it is not written through either.
		await writeFile(temp, text, { flag: "wx" });
		await rename(temp, path);
	} catch (error) {
		await rm(temp, { force: true });
		throw new WorkflowError(
			"run_store",
			`Cannot save the replay cassette ${path} (${errorMessage(error)}). Check the folder's permissions and disk space, then save again`,
			{ details: { path } },
		);
	}
}

const STATUSES = ["completed", "failed", "stopped", "interrupted"];

function cassetteProblem(value: unknown): string | undefined {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return "is not a JSON object";
	const c = value as Partial<Record<keyof ReplayCassette, unknown>>;
	if (c.version !== 1) return `has version ${JSON.stringify(c.version)}; this version reads 1`;
	if (typeof c.runId !== "string") return "has no `runId`";
	if (typeof c.status !== "string" || !STATUSES.includes(c.status))
		return `has no \`status\` (${STATUSES.join(", ")})`;
	if (!Array.isArray(c.journal)) return "has no `journal` array";
	const bad = c.journal.findIndex(
		(entry: unknown) =>
			typeof entry !== "object" || entry === null || typeof (entry as { key?: unknown }).key !== "string",
	);
	if (bad >= 0) return `has a journal entry without a string \`key\` (entry ${bad + 1})`;
	return undefined;
}

function cassetteError(path: string, what: string): WorkflowError {
	return new WorkflowError(
		"run_store",
		`The replay cassette ${path} ${what}. Save it again from a run: pi-workflows test <file|name> --against <runId> --save`,
		{ details: { path } },
	);
}
