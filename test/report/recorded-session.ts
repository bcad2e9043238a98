/**
 * One session of a recorded run as a host runs it, for the report's test runs: under the record's lock, with its
 * journal and event log open, the snapshot written at the end. A second session is a resume.
 */
import type { EventLogEvent, RunRecord } from "../../src/runs/index.ts";
import { runWorkflowScript, type WorkflowRunOptions } from "../../src/runtime/index.ts";

export async function runRecordedSession(
	record: RunRecord,
	script: string,
	session: number,
	options: Omit<WorkflowRunOptions, "journal" | "onProgress">,
): Promise<void> {
	const lock = await record.acquire();
	try {
		// A resume starts from no snapshot, as the durable host does.
		if (session > 1) await record.clearSnapshot();
		const journal = await record.journal();
		const log = await record.eventLog({ resumed: session > 1 });
		const result = await runWorkflowScript(script, {
			...options,
			journal,
			onProgress: (event) => log.append(event as unknown as EventLogEvent),
		});
		await log.close();
		await journal.close();
		await record.writeSnapshot(result);
	} finally {
		await lock.release();
	}
}
