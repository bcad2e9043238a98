/**
 * A run's journal over `journal.jsonl`: loaded once, then appended to with group commit. Records that arrive while
 * a write+fdatasync is in flight are written together and flushed by the next one, and all resolve after it, so
 * concurrent calls share an fsync while each record still resolves only once its line is durable.
 */
import type { FileHandle } from "node:fs/promises";
import { open, readFile } from "node:fs/promises";
import { WorkflowError } from "../errors.ts";
import type { WorkflowJournalEntry, WorkflowJournalSkippedLine } from "../runtime/core/types.ts";
import { errnoCode, FILE_MODE, storeError } from "./files.ts";
import { entryShapeProblem, parseJournal } from "./journal-lines.ts";
import type { JournalProblem, RunJournal } from "./types.ts";

interface Pending {
	entry: WorkflowJournalEntry;
	line: string;
	resolve: () => void;
	reject: (error: unknown) => void;
}

/**
 * The entries of the journal at `path` (missing: none) and the lines it could not read, without opening it for
 * writing: a torn last line stays as it is. For readers that must leave the run untouched (a replay test).
 */
export async function readRunJournal(
	path: string,
): Promise<{ entries: WorkflowJournalEntry[]; problems: JournalProblem[] }> {
	const { entries, problems } = parseJournal(await readJournalBytes(path));
	return { entries: [...entries.values()], problems };
}

/** The journal's bytes; a journal not written yet is empty. */
async function readJournalBytes(path: string): Promise<Buffer> {
	try {
		return await readFile(path);
	} catch (error) {
		if (errnoCode(error) !== "ENOENT") throw storeError(error, path, "read the journal");
		return Buffer.alloc(0);
	}
}

/** Loads the journal at `path` (missing: empty) and opens it for appending. */
export async function openRunJournal(path: string, runId: string): Promise<RunJournal> {
	const bytes = await readJournalBytes(path);
	const contents = parseJournal(bytes);
	let handle: FileHandle;
	try {
		handle = await open(path, "a", FILE_MODE);
		await handle.chmod(FILE_MODE);
		// A torn last line is cut before anything is appended, or the next line would be glued to it; a whole last
		// line that lost its newline (a hand edit) is kept and ended.
		if (contents.completeBytes < bytes.length) await handle.truncate(contents.completeBytes);
		if (contents.needsNewline) await handle.write("\n");
	} catch (error) {
		throw storeError(error, path, "open the journal");
	}
	return new FileJournal(handle, path, runId, contents.entries, contents.problems);
}

class FileJournal implements RunJournal {
	readonly problems: readonly JournalProblem[];
	readonly #handle: FileHandle;
	readonly #path: string;
	readonly #runId: string;
	readonly #entries: Map<string, WorkflowJournalEntry>;
	#queue: Pending[] = [];
	#flushing = false;
	/** Resolved when a flush loop ends, for `close`. */
	#idle: (() => void)[] = [];
	#closed = false;
	/** Set when a write failed part-way: the file may end in a torn line, so nothing more is appended. */
	#broken: WorkflowError | undefined;

	constructor(
		handle: FileHandle,
		path: string,
		runId: string,
		entries: Map<string, WorkflowJournalEntry>,
		problems: JournalProblem[],
	) {
		this.#handle = handle;
		this.#path = path;
		this.#runId = runId;
		this.#entries = entries;
		this.problems = problems;
	}

	get size(): number {
		return this.#entries.size;
	}

	lookup(key: string): WorkflowJournalEntry | undefined {
		return this.#entries.get(key);
	}

	skipped(): WorkflowJournalSkippedLine[] {
		return this.problems.map(({ line, reason, key }) => ({
			where: `${this.#path}:${line}`,
			reason,
			...(key !== undefined ? { key } : {}),
		}));
	}

	entries(): WorkflowJournalEntry[] {
		return [...this.#entries.values()];
	}

	record(entry: WorkflowJournalEntry): Promise<void> {
		if (this.#closed) {
			return Promise.reject(
				new WorkflowError(
					"run_store",
					`The journal of run \`${this.#runId}\` is closed; open it again with \`record.journal()\``,
				),
			);
		}
		if (this.#broken) return Promise.reject(this.#broken);
		const problem = entryShapeProblem(entry);
		if (problem) {
			return Promise.reject(
				new TypeError(`Expected a journal entry for run ${this.#runId}, got one whose ${problem}`),
			);
		}
		const line = `${JSON.stringify(entry)}\n`;
		return new Promise((resolve, reject) => {
			this.#queue.push({ entry, line, resolve, reject });
			if (!this.#flushing) {
				this.#flushing = true;
				void this.#flush();
			}
		});
	}

	async close(): Promise<void> {
		if (this.#closed) return;
		this.#closed = true;
		if (this.#flushing) await new Promise<void>((resolve) => this.#idle.push(resolve));
		await this.#handle.close();
	}

	[Symbol.asyncDispose](): Promise<void> {
		return this.close();
	}

	/** Writes and fdatasyncs batches until the queue is empty; each batch is whatever arrived during the last one. Never rejects. */
	async #flush(): Promise<void> {
		while (this.#queue.length > 0) {
			const batch = this.#queue;
			this.#queue = [];
			try {
				if (this.#broken) throw this.#broken;
				await this.#append(Buffer.from(batch.map((pending) => pending.line).join(""), "utf8"));
				for (const { entry } of batch) {
					this.#entries.delete(entry.key);
					this.#entries.set(entry.key, entry);
				}
				for (const pending of batch) pending.resolve();
			} catch (error) {
				for (const pending of batch) pending.reject(error);
			}
		}
		this.#flushing = false;
		for (const resolve of this.#idle.splice(0)) resolve();
	}

	async #append(bytes: Buffer): Promise<void> {
		let written = 0;
		try {
			while (written < bytes.length) {
				written += (await this.#handle.write(bytes, written, bytes.length - written)).bytesWritten;
			}
			await this.#handle.datasync();
		} catch (error) {
			const failure = storeError(error, this.#path, "append to the journal");
			if (written > 0) this.#broken = failure;
			throw failure;
		}
	}
}
