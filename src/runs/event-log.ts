/**
 * A run's event log, `events.jsonl` beside its journal: every progress event the run emitted (and what its host
 * adds: a child's stall retry, restart, pause, steer, its conversation file), one JSON object a line, each with the
 * session it happened in (1 the first run, 2 the first resume, …). The journal is the durable part; this is the
 * record of how the run went, for reports: appended through a buffer (no fsync per event), bounded in bytes with
 * what was dropped counted, and kept across resumes. The format is docs/event-log.md.
 */

import type { FileHandle } from "node:fs/promises";
import { open, readFile } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage } from "../errors.ts";
import { lineShapeProblem } from "./event-log-shapes.ts";
import { errnoCode, FILE_MODE, storeError } from "./files.ts";

/** The event log's file name in a run's folder. */
export const EVENT_LOG_FILE = "events.jsonl";
/** Default bound of `events.jsonl`, every session included: a 1,000-agent run takes about a tenth of it. */
export const DEFAULT_EVENT_LOG_BYTES = 16 * 1024 * 1024;
/** Default time between flushes of the buffer. */
export const DEFAULT_EVENT_LOG_FLUSH_MS = 1000;
/** The buffer is written at once when it holds this much. */
const FLUSH_BYTES = 64 * 1024;
/** A longer line loses its bulky fields (`result`, `data`, `args`), else it is dropped. */
const LINE_BYTES = 64 * 1024;
/** Fields a line too long goes without, named in its `cut`. */
const BULKY_FIELDS = ["result", "data", "args", "meta", "failures"] as const;
/** Chatter stops at this share of the bound, so lifecycle lines (phases, calls, waits) keep the rest. */
const CHATTER_SHARE = 0.75;
/** At most one `events_dropped` line this often while drops go on (and one at close). */
const DROPPED_EVERY_MS = 60_000;

/** One event as the writer takes it: a runtime progress event or a host's line, with its epoch-ms time. */
export interface EventLogEvent {
	type: string;
	time: number;
	[field: string]: unknown;
}

/** A line of `events.jsonl` the reader skipped, and why. */
export interface EventLogProblem {
	/** 1-based line number in the file. */
	line: number;
	reason: string;
}

/** One line as the reader gives it back. */
export interface EventLogLine extends EventLogEvent {
	/** 1 for the first run, 2 for the first resume, … */
	session: number;
}

/** Options of `openEventLog`. */
export interface EventLogOptions {
	/** The bound of the whole file, every session included. Default: `DEFAULT_EVENT_LOG_BYTES` (16 MiB). */
	maxBytes?: number;
	/** Time between flushes of the buffer. Default: 1000. */
	flushMs?: number;
	/** Whether this session resumes the run. Default: true when the log already has a session. */
	resumed?: boolean;
}

/** The writer of one session of a run's event log. */
export interface EventLogWriter {
	/** This session's number. */
	readonly session: number;
	readonly path: string;
	/** Events this session dropped to stay within the bound. */
	readonly dropped: number;
	/** Why the log stopped being written, once a write failed (the run goes on without it). */
	readonly problem: string | undefined;
	/** Adds `event` to the buffer. Never throws; after `close` it is ignored. */
	append(event: EventLogEvent): void;
	/** Writes what the buffer holds. Never rejects. */
	flush(): Promise<void>;
	/** Writes the buffer and what was dropped, syncs once and closes. Never rejects; closing twice is harmless. */
	close(): Promise<void>;
}

/** What `readEventLog` found. */
export interface EventLogRead {
	/** False when the run has no `events.jsonl` (recorded before the log existed): read its journal and snapshot. */
	found: boolean;
	path: string;
	/** Each session (`session_start` line), in order, with what it holds. */
	sessions: EventLogSession[];
	/** Every other line, in file order (which is emit order). */
	events: EventLogLine[];
	/** Events the bound dropped, all sessions. */
	dropped: number;
	/** Of those, how many of each `type`. */
	droppedByType: Record<string, number>;
	/** Lines that could not be read, and why (a torn last line is not one: see `torn`). */
	problems: EventLogProblem[];
	/** The file ends in a part line (its writer died mid-write); it was left out. */
	torn: boolean;
}

/** One session of a run as its event log has it. */
export interface EventLogSession {
	session: number;
	/** Epoch ms the session started. */
	time: number;
	resumed: boolean;
	/** Lines of the session read (its `session_start` and `events_dropped` not counted). */
	events: number;
	dropped: number;
	/** Epoch ms of its `run_end`, when it has one (a session without one crashed or was cut by the bound). */
	ended?: number;
}

/** Kinds the bound never drops: one each a session, and a report needs both (their size is `LINE_BYTES` at most). */
const KEPT_KINDS: readonly string[] = ["run_start", "run_end"];

/** Kinds kept back first when the log nears its bound. */
function isChatter(event: EventLogEvent): boolean {
	return event.type === "agent_child" || (event.type === "log" && event.level === "info");
}

/** The log's bytes, or undefined when the run has none. */
async function readLogBytes(path: string): Promise<Buffer | undefined> {
	try {
		return await readFile(path);
	} catch (error) {
		if (errnoCode(error) !== "ENOENT") throw storeError(error, path, "read the event log");
		return undefined;
	}
}

/** Opens the event log of the run in `runDir` for a new session. A torn last line is cut first. */
export async function openEventLog(runDir: string, options: EventLogOptions = {}): Promise<EventLogWriter> {
	const path = join(runDir, EVENT_LOG_FILE);
	const bytes = (await readLogBytes(path)) ?? Buffer.alloc(0);
	const complete = bytes.lastIndexOf(0x0a) + 1;
	const last = lastSession(bytes.subarray(0, complete));
	let handle: FileHandle;
	try {
		handle = await open(path, "a", FILE_MODE);
		await handle.chmod(FILE_MODE);
		if (complete < bytes.length) await handle.truncate(complete);
	} catch (error) {
		throw storeError(error, path, "open the event log");
	}
	const session = last + 1;
	const writer = new FileEventLog(handle, path, session, complete, options);
	writer.header({ type: "session_start", session, time: Date.now(), resumed: options.resumed ?? last > 0 });
	return writer;
}

/** The highest session number in the log's complete lines (0 when none). */
function lastSession(bytes: Buffer): number {
	let highest = 0;
	const text = bytes.toString("utf8");
	const pattern = /^.*"session_start".*$/gm;
	for (const match of text.matchAll(pattern)) {
		try {
			const line = JSON.parse(match[0]) as { type?: unknown; session?: unknown };
			if (line.type === "session_start" && typeof line.session === "number" && line.session > highest) {
				highest = line.session;
			}
		} catch {
			// A bad line is the reader's problem to report; it names no session.
		}
	}
	return highest;
}

class FileEventLog implements EventLogWriter {
	readonly session: number;
	readonly path: string;
	dropped = 0;
	problem: string | undefined;
	readonly #handle: FileHandle;
	readonly #maxBytes: number;
	readonly #chatterBytes: number;
	/** Bytes in the file plus the buffer's. */
	#size: number;
	#buffer: string[] = [];
	#bufferBytes = 0;
	/** Drops not yet written as an `events_dropped` line, by kind. */
	#unreported = new Map<string, number>();
	#lastDroppedLine = 0;
	#writing: Promise<void> = Promise.resolve();
	#timer: ReturnType<typeof setInterval> | undefined;
	#closed = false;

	constructor(handle: FileHandle, path: string, session: number, size: number, options: EventLogOptions) {
		this.#handle = handle;
		this.path = path;
		this.session = session;
		this.#size = size;
		this.#maxBytes = options.maxBytes ?? DEFAULT_EVENT_LOG_BYTES;
		this.#chatterBytes = Math.floor(this.#maxBytes * CHATTER_SHARE);
		this.#timer = setInterval(() => void this.flush(), options.flushMs ?? DEFAULT_EVENT_LOG_FLUSH_MS);
		// The log never keeps a process alive: a run that ends closes it, one that crashes loses a second of it.
		this.#timer.unref?.();
	}

	/** A line the bound does not hold back (a session's start, a count of drops). */
	header(line: EventLogEvent): void {
		this.#push(`${JSON.stringify(line)}\n`);
	}

	append(event: EventLogEvent): void {
		if (this.#closed || this.problem) return;
		let line: string | undefined;
		try {
			line = fitLine({ ...event, session: this.session });
		} catch {
			// An event that cannot be written as JSON (a cycle, a BigInt from a host) is dropped, counted.
		}
		const bound = KEPT_KINDS.includes(event.type)
			? Number.POSITIVE_INFINITY
			: isChatter(event)
				? this.#chatterBytes
				: this.#maxBytes;
		if (line === undefined || this.#size + Buffer.byteLength(line) > bound) {
			this.dropped++;
			this.#unreported.set(event.type, (this.#unreported.get(event.type) ?? 0) + 1);
			if (Date.now() - this.#lastDroppedLine >= DROPPED_EVERY_MS) this.#reportDropped();
			return;
		}
		this.#push(line);
	}

	flush(): Promise<void> {
		if (this.#buffer.length === 0) return this.#writing;
		const text = this.#buffer.join("");
		this.#buffer = [];
		this.#bufferBytes = 0;
		this.#writing = this.#writing.then(() => this.#write(text));
		return this.#writing;
	}

	async close(): Promise<void> {
		if (this.#closed) return this.#writing;
		this.#closed = true;
		clearInterval(this.#timer);
		this.#reportDropped();
		await this.flush();
		await this.#writing;
		try {
			// Once per session: the log of a run that ended is on disk like its snapshot.
			if (!this.problem) await this.#handle.datasync();
		} catch (error) {
			this.problem ??= errorMessage(error);
		}
		await this.#handle.close().catch(() => undefined);
	}

	#push(line: string): void {
		const size = Buffer.byteLength(line);
		this.#buffer.push(line);
		this.#bufferBytes += size;
		this.#size += size;
		if (this.#bufferBytes >= FLUSH_BYTES) void this.flush();
	}

	#reportDropped(): void {
		if (this.#unreported.size === 0 || this.problem) return;
		const kinds = Object.fromEntries(this.#unreported);
		const count = [...this.#unreported.values()].reduce((sum, n) => sum + n, 0);
		this.#unreported.clear();
		this.#lastDroppedLine = Date.now();
		this.header({ type: "events_dropped", session: this.session, count, kinds, time: this.#lastDroppedLine });
	}

	async #write(text: string): Promise<void> {
		if (this.problem) return;
		const bytes = Buffer.from(text, "utf8");
		try {
			let written = 0;
			while (written < bytes.length) {
				written += (await this.#handle.write(bytes, written, bytes.length - written)).bytesWritten;
			}
		} catch (error) {
			// The run goes on without its log: the journal, not this file, is what a resume needs.
			this.problem = storeError(error, this.path, "append to the event log").message;
		}
	}
}

/** The line for `event`, its bulky fields cut when it is too long; undefined when even that is too long. */
function fitLine(event: EventLogEvent): string | undefined {
	const line = `${JSON.stringify(event)}\n`;
	if (Buffer.byteLength(line) <= LINE_BYTES) return line;
	const cut: string[] = [];
	const slim: Record<string, unknown> = { ...event };
	for (const field of BULKY_FIELDS) {
		if (slim[field] === undefined) continue;
		delete slim[field];
		cut.push(field);
	}
	const shorter = `${JSON.stringify({ ...slim, cut })}\n`;
	return cut.length > 0 && Buffer.byteLength(shorter) <= LINE_BYTES ? shorter : undefined;
}

/** Reads the event log of the run in `runDir`. Never throws for what is in the file; `found: false` when there is none. */
export async function readEventLog(runDir: string): Promise<EventLogRead> {
	const path = join(runDir, EVENT_LOG_FILE);
	const bytes = await readLogBytes(path);
	if (bytes === undefined) {
		return { found: false, path, sessions: [], events: [], dropped: 0, droppedByType: {}, problems: [], torn: false };
	}
	return { found: true, path, ...parseEventLog(bytes) };
}

/** Parses the bytes of an event log (pure). A last line without its newline is torn, left out. */
export function parseEventLog(bytes: Buffer): Omit<EventLogRead, "found" | "path"> {
	const complete = bytes.lastIndexOf(0x0a) + 1;
	const lines = bytes.subarray(0, complete).toString("utf8").split("\n");
	lines.pop();
	const sessions = new Map<number, EventLogSession>();
	const events: EventLogLine[] = [];
	const problems: EventLogProblem[] = [];
	let dropped = 0;
	const droppedByType: Record<string, number> = {};
	const sessionOf = (n: number): EventLogSession => {
		let found = sessions.get(n);
		if (!found) {
			// Its `session_start` was lost (a hand edit): the session still counts, starting at its first line.
			found = { session: n, time: Number.NaN, resumed: n > 1, events: 0, dropped: 0 };
			sessions.set(n, found);
		}
		return found;
	};
	lines.forEach((text, index) => {
		if (text.trim() === "") return;
		const line = parseLine(text);
		if (typeof line === "string") {
			problems.push({ line: index + 1, reason: line });
			return;
		}
		if (line.type === "session_start") {
			const known = sessions.get(line.session);
			sessions.set(line.session, {
				session: line.session,
				time: line.time,
				resumed: line.resumed === true,
				events: known?.events ?? 0,
				dropped: known?.dropped ?? 0,
			});
			return;
		}
		const session = sessionOf(line.session);
		if (Number.isNaN(session.time)) session.time = line.time;
		if (line.type === "events_dropped") {
			const count = typeof line.count === "number" && line.count > 0 ? line.count : 0;
			session.dropped += count;
			dropped += count;
			const kinds = typeof line.kinds === "object" && line.kinds !== null ? Object.entries(line.kinds) : [];
			for (const [kind, n] of kinds) {
				if (typeof n === "number" && n > 0) droppedByType[kind] = (droppedByType[kind] ?? 0) + n;
			}
			return;
		}
		session.events++;
		if (line.type === "run_end") session.ended = line.time;
		events.push(line);
	});
	return {
		sessions: [...sessions.values()].sort((a, b) => a.session - b.session),
		events,
		dropped,
		droppedByType,
		problems,
		torn: complete < bytes.length,
	};
}

function parseLine(text: string): EventLogLine | string {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		return `not JSON (${errorMessage(error)})`;
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) return "not an object";
	const line = value as Record<string, unknown>;
	if (typeof line.type !== "string" || line.type === "") return "`type` is not a non-empty string";
	if (typeof line.time !== "number" || !Number.isFinite(line.time)) return "`time` is not a number";
	if (typeof line.session !== "number" || !Number.isInteger(line.session) || line.session < 1) {
		return "`session` is not a positive integer";
	}
	return lineShapeProblem(line) ?? (line as EventLogLine);
}
