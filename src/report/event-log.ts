/**
 * The run's event log as the report reads it: `<runDir>/events.jsonl`, one runtime progress event per line with the
 * session it belongs to (1 = the first run, 2 = its first resume…), `session_start` lines opening each session and
 * `events_dropped` lines counting what the bounded writer left out. A stand-in for `readEventLog` of
 * src/runs/event-log.ts (issue 25's writer): the report reads the log only through `readRunEvents`, so swapping is
 * one line. Never throws for what is in the file; a missing file is `undefined`.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { WorkflowProgressEvent } from "../runtime/events.ts";

/** The log's file name in the run's folder. */
export const EVENT_LOG_FILE = "events.jsonl";

/** One progress event as the log keeps it. */
export type LoggedEvent = WorkflowProgressEvent & { session: number };

/** A session's opening line. */
export interface LoggedSession {
	session: number;
	time: number;
	resumed: boolean;
}

/** What the log holds. */
export interface RunEventLog {
	sessions: LoggedSession[];
	events: LoggedEvent[];
	/** Events the writer dropped (its bound), over every session. */
	dropped: number;
	/** Lines that could not be read, with their line numbers. */
	problems: string[];
}

/** Reads `<runDir>/events.jsonl`; undefined when the run has none (recorded before the log, or never started). */
export async function readRunEvents(runDir: string): Promise<RunEventLog | undefined> {
	let text: string;
	try {
		text = await readFile(join(runDir, EVENT_LOG_FILE), "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
		return { sessions: [], events: [], dropped: 0, problems: [`events.jsonl could not be read: ${String(error)}`] };
	}
	return parseRunEvents(text);
}

/** Parses the log's text (pure); a torn last line (no newline) is dropped silently. */
export function parseRunEvents(text: string): RunEventLog {
	const log: RunEventLog = { sessions: [], events: [], dropped: 0, problems: [] };
	const lines = text.split("\n");
	if (!text.endsWith("\n")) lines.pop();
	lines.forEach((line, index) => {
		if (line.trim() === "") return;
		let value: unknown;
		try {
			value = JSON.parse(line);
		} catch {
			log.problems.push(`events.jsonl line ${index + 1}: not JSON`);
			return;
		}
		const record = value as Record<string, unknown>;
		if (typeof value !== "object" || value === null || typeof record.type !== "string") {
			log.problems.push(`events.jsonl line ${index + 1}: not an event`);
			return;
		}
		const session = typeof record.session === "number" && record.session >= 1 ? record.session : 1;
		if (record.type === "session_start") {
			const time = typeof record.time === "number" ? record.time : Number.NaN;
			log.sessions.push({ session, time, resumed: record.resumed === true });
		} else if (record.type === "events_dropped") {
			log.dropped += typeof record.count === "number" && record.count > 0 ? record.count : 0;
		} else if (typeof record.time === "number" && Number.isFinite(record.time)) {
			log.events.push({ ...(record as unknown as WorkflowProgressEvent), session });
		} else {
			log.problems.push(`events.jsonl line ${index + 1}: an event without a time`);
		}
	});
	return log;
}
