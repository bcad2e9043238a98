/** A run's report from pi: `/workflows` → the run → "Report", `/workflows report <runId>`, `workflow_runs` "report". */
import { writeRunReport } from "../../report/index.ts";
import type { RunStore } from "../../runs/index.ts";

/** Writes the HTML report of `runId` next to its record and says where it is. */
export async function reportRun(store: RunStore, runId: string): Promise<string> {
	const { path, model, bytes } = await writeRunReport(store, runId);
	const sessions = model.sessions.length;
	const timeline =
		sessions === 0
			? " It has no timeline: the run was recorded before runs kept an event log."
			: ` ${sessions} ${sessions === 1 ? "session" : "sessions"}, ${model.calls.length} agent calls.`;
	return `Report of run ${runId}: ${path} (${Math.ceil(bytes / 1024)} KiB).${timeline} Open it in any browser: it is one file and fetches nothing.`;
}
