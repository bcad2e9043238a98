/** A run's ledger of changes from pi: `/workflows` → the run → "Changes", `workflow_runs` "changes". */
import { visibleText } from "../../progress/visible-text.ts";
import { changesOfRecord, changesText, pathText, whoChanged } from "../../report/index.ts";
import type { RunStore } from "../../runs/index.ts";

/** The ledger of `runId` as text; with `path`, the one line that says which calls changed that file. */
export async function changesRun(store: RunStore, runId: string, path?: string): Promise<string> {
	const changes = await changesOfRecord(await store.open(runId));
	// Paths, labels and commands are the script's and the children's: no terminal controls reach the screen.
	if (path === undefined) return visibleText(changesText(changes));
	const who = whoChanged(changes, path);
	return who.length === 0
		? visibleText(
				`No call of run ${runId} wrote or edited ${pathText(path)} through a tool (a command may have, inside the shell).`,
			)
		: visibleText(`${pathText(path)} was changed by ${who.join(", then ")} (run ${runId}).`);
}
