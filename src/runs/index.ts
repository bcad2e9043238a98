/** The file-backed run store: durable runs (record, journal, snapshot, lock) that any host can list, resume and prune. */
export {
	type CallConversationFiles,
	CONVERSATIONS_DIR,
	type ConversationFile,
	conversationCwd,
	conversationsByCall,
	createConversationFile,
	labelSlug,
	listConversations,
	readConversationLines,
	readKeptConversation,
} from "./conversations.ts";
export {
	DEFAULT_EVENT_LOG_BYTES,
	EVENT_LOG_FILE,
	type EventLogEvent,
	type EventLogLine,
	type EventLogOptions,
	type EventLogProblem,
	type EventLogRead,
	type EventLogSession,
	type EventLogWriter,
	readEventLog,
} from "./event-log.ts";
export {
	type CallCostSample,
	type CostHistory,
	type CostHistoryOptions,
	DEFAULT_HISTORY_RUNS,
	type RunCostSample,
	readCostHistory,
} from "./history.ts";
export { readRunJournal } from "./journal.ts";
export { defaultRunsRoot } from "./paths.ts";
export {
	PLAN_FILE,
	type PlannedCallGroup,
	type PlannedPhase,
	type RunPlanFile,
	readPlanFile,
	type UsdRange,
	writePlanFile,
} from "./plan-file.ts";
export {
	DEFAULT_KEEP,
	DEFAULT_OLDER_THAN_DAYS,
	DEFAULT_RETENTION,
	deleteRun,
	pruneRuns,
	RESUMABLE_DAYS,
} from "./retention.ts";
export { isRunId, newRunId } from "./run-id.ts";
export { readScriptVersion, SCRIPTS_DIR, scriptSha256 } from "./script-versions.ts";
export { type RunSessionSpend, type RunSpend, spentInAll } from "./spend.ts";
export { createRunStore } from "./store.ts";
export {
	DEFAULT_TIMING_BYTES,
	DEFAULT_TIMING_RUNS,
	readTimingHistory,
	runTiming,
	type TimingHistoryOptions,
} from "./timing-history.ts";
export type {
	DeletedRun,
	JournalProblem,
	KeptRun,
	PrunedRun,
	PruneOptions,
	PruneResult,
	RetentionRule,
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
	ScriptTier,
} from "./types.ts";
