/** The file-backed run store: durable runs (record, journal, snapshot, lock) that any host can list and resume. */
export { defaultRunsRoot } from "./paths.ts";
export { isRunId, newRunId } from "./run-id.ts";
export { createRunStore } from "./store.ts";
export type {
	JournalProblem,
	RunCreateOptions,
	RunInfo,
	RunJournal,
	RunLock,
	RunLockInfo,
	RunRecord,
	RunSnapshot,
	RunStatus,
	RunStore,
	RunStoreOptions,
	RunSummary,
} from "./types.ts";
