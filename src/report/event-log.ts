/**
 * The run's event log as the report reads it: `readEventLog` of the run store (src/runs/event-log.ts, the format in
 * docs/event-log.md), its lines taken as the runtime's progress events with their session. Lines of a type the
 * report does not draw (a host's own lines) pass through and are ignored by the fold.
 */
import { readEventLog } from "../runs/event-log.ts";
import type { WorkflowProgressEvent } from "../runtime/core/events.ts";

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

/** Reads `<runDir>/events.jsonl`; undefined when the run has none (recorded before the log existed). */
export async function readRunEvents(runDir: string): Promise<RunEventLog | undefined> {
	const read = await readEventLog(runDir);
	if (!read.found) return undefined;
	return {
		sessions: read.sessions.map(({ session, time, resumed }) => ({ session, time, resumed })),
		// The store's reader checks a line's shape (type, time, session); its fields are the runtime's event's.
		events: read.events as unknown as LoggedEvent[],
		dropped: read.dropped,
		problems: read.problems.map((problem) => `events.jsonl line ${problem.line}: ${problem.reason}`),
	};
}
