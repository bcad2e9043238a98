/** A `WorkflowJournal` in memory, as a host's store would keep it, for runtime tests that resume. */
import type { WorkflowJournal, WorkflowJournalEntry } from "../../src/runtime/index.ts";

/** A journal that keeps copies, last record of a key winning; `writes` counts records. With `listed`, it has `list()`
 * (what a resume reads to say why a call missed). */
export function memoryJournal(
	options: { listed?: boolean } = {},
): WorkflowJournal & { entries: Map<string, WorkflowJournalEntry>; writes: number } {
	const entries = new Map<string, WorkflowJournalEntry>();
	const journal = {
		entries,
		writes: 0,
		lookup: (key: string) => entries.get(key),
		record: async (entry: WorkflowJournalEntry) => {
			journal.writes++;
			entries.set(entry.key, structuredClone(entry));
		},
		...(options.listed ? { list: () => [...entries.values()] } : {}),
	};
	return journal;
}
