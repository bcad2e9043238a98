/**
 * pi-workflows: sandboxed JavaScript workflow scripts. This entry is the host API and imports no pi package (a test
 * walks its import graph), so headless hosts and other extensions load it without pi; the pi extension, the pi
 * runner and the pi widget are `pi-workflows/pi` (`src/pi.ts`).
 */

// Authoring: what the static pass reports
export type { WorkflowDiagnostic } from "./authoring/index.ts";
// Errors
export type {
	SerializedWorkflowError,
	SourceLocation,
	WorkflowErrorCode,
	WorkflowErrorDetails,
	WorkflowErrorStage,
} from "./errors.ts";
export { askUnavailableError, isWorkflowError, toolRefusedError, WorkflowError } from "./errors.ts";
// Evaluation: is the workflow any good; each arm's figures and verdicts against the baseline, paired by case
// Blame: which agent() call of a failed run decided it, by replay against a passing run
export type {
	AnswerSources,
	ArmComparison,
	ArmSummary,
	ArmTrial,
	BlamedCall,
	BlameEffect,
	BlamePairs,
	BlameReport,
	BlameRunOptions,
	CompareArmsOptions,
	CompareArmsResult,
	ComparisonVerdict,
	Interval,
} from "./eval/index.ts";
export { blameRun, blameSentence, compareArms } from "./eval/index.ts";
// Replay tests: a script run against a recorded run, every call answered from its journal
export type { ReplayCassette } from "./host/cassette.ts";
export { cassettePathFor, loadRunCassette, readCassette, writeCassette } from "./host/cassette.ts";
export type {
	ReplayDivergence,
	ReplayTestOptions,
	ReplayTestReport,
	UnusedRecordedCall,
} from "./host/replay-test.ts";
export { testWorkflowAgainstRun } from "./host/replay-test.ts";
// Progress: tracker, text, tool result
export type {
	ProgressPlan,
	ProgressPlannedCalls,
	ProgressTiming,
	SlowMark,
	TimingBasis,
	WorkflowKeptBranch,
	WorkflowPhaseForecast,
	WorkflowProgressAgentCall,
	WorkflowProgressEnvelope,
	WorkflowProgressForecast,
	WorkflowProgressPhase,
	WorkflowProgressQuestion,
	WorkflowProgressStatus,
	WorkflowProgressToolResult,
	WorkflowProgressToolRun,
	WorkflowProgressToolSteps,
	WorkflowProgressTracker,
	WorkflowProgressTrackerOptions,
} from "./progress/index.ts";
export {
	createWorkflowProgressTracker,
	DEFAULT_SLOW_MULTIPLE,
	forecastLine,
	formatWorkflowProgress,
	liveSlowMark,
	slowText,
	timeLeftText,
	workflowProgressResult,
} from "./progress/index.ts";
// Report: a run's timeline as one self-contained HTML file, or as text
export type {
	ReportCall,
	ReportModel,
	ReportOutcome,
	ReportSession,
	ReportWhy,
	WriteReportOptions,
} from "./report/index.ts";
export {
	loadRunReport,
	REPORT_FILE,
	renderReportHtml,
	renderReportText,
	runReportText,
	writeRunReport,
} from "./report/index.ts";
// Run store: durable runs (record, journal, snapshot, lock) that hosts list and resume
export type {
	ConversationFile,
	DeletedRun,
	EventLogEvent,
	EventLogLine,
	EventLogOptions,
	EventLogProblem,
	EventLogRead,
	EventLogSession,
	EventLogWriter,
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
} from "./runs/index.ts";
export {
	createRunStore,
	DEFAULT_EVENT_LOG_BYTES,
	DEFAULT_RETENTION,
	defaultRunsRoot,
	deleteRun,
	isRunId,
	listConversations,
	pruneRuns,
	readEventLog,
} from "./runs/index.ts";
// Runtime: run a script; the runner seam, events and results
export type {
	CheckWorkflowOptions,
	JsonSchema,
	JsonValue,
	ParsedWorkflow,
	ProviderPause,
	WorkflowAgentCallRef,
	WorkflowAgentChild,
	WorkflowAgentCounts,
	WorkflowAgentRequest,
	WorkflowAgentResult,
	WorkflowAgentRunner,
	WorkflowAgentRunnerContext,
	WorkflowAgentStatus,
	WorkflowAskHandler,
	WorkflowBudgetOptions,
	WorkflowCallIdentity,
	WorkflowCheckReport,
	WorkflowChildState,
	WorkflowContinuation,
	WorkflowCost,
	WorkflowCostCapInfo,
	WorkflowCutOff,
	WorkflowDryCall,
	WorkflowDryPhase,
	WorkflowDryQuestion,
	WorkflowDryRun,
	WorkflowDryRunOptions,
	WorkflowDryRunPlan,
	WorkflowDryTool,
	WorkflowFailure,
	WorkflowFallback,
	WorkflowFanOutInfo,
	WorkflowJournal,
	WorkflowJournalEntry,
	WorkflowJournalSkippedLine,
	WorkflowLimits,
	WorkflowMeta,
	WorkflowNameMatch,
	WorkflowParentConversation,
	WorkflowPhaseMeta,
	WorkflowProgressEvent,
	WorkflowProviderBackoff,
	WorkflowProviderLimit,
	WorkflowProviderLimitKind,
	WorkflowProviderStop,
	WorkflowQuestion,
	WorkflowQueue,
	WorkflowQueueOptions,
	WorkflowResolver,
	WorkflowRunOptions,
	WorkflowRunResult,
	WorkflowTokenUsage,
	WorkflowTool,
	WorkflowToolCounts,
	WorkflowToolOutput,
	WorkflowToolResult,
	WorkflowTraceContext,
	WorkflowWorktree,
} from "./runtime/index.ts";
export {
	checkWorkflowScript,
	createWorkflowQueue,
	DEFAULT_AGENT_TYPE,
	DEFAULT_FAN_OUT_THRESHOLD,
	DEFAULT_LIMITS,
	DEFAULT_MAX_PROVIDER_WAIT_MS,
	dryRunPlanText,
	dryRunWorkflowScript,
	parseWorkflowSource,
	runWorkflowScript,
	SCHEMA_ATTEMPTS,
	shutdownSchemaWorker,
	validateArgs,
} from "./runtime/index.ts";
// Sandbox pool: warm a worker before the first run; end idle workers
export { shutdownSandboxPool, warmSandboxPool } from "./sandbox/index.ts";
