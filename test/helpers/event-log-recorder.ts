/**
 * Records a run's progress events as `<runDir>/events.jsonl` in issue 25's format (one event per line plus its
 * `session`; a `session_start` line opening each session), for report tests and the bench while the store's own
 * writer is not there. Synchronous appends: a test's run is small, and the file is whole when the run ends.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import type { WorkflowProgressEvent } from "../../src/runtime/index.ts";

/** An `onProgress` that appends every event of session `session` to the run's event log. */
export function eventLogRecorder(runDir: string, session: number): (event: WorkflowProgressEvent) => void {
	const path = join(runDir, "events.jsonl");
	appendFileSync(
		path,
		`${JSON.stringify({ type: "session_start", session, time: Date.now(), resumed: session > 1 })}\n`,
	);
	return (event) => appendFileSync(path, `${JSON.stringify({ ...event, session })}\n`);
}
