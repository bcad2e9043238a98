/**
 * pi-workflows: sandboxed JavaScript workflow scripts for pi. Named exports are the host API; the default export
 * is the pi extension that registers the `workflow` tool.
 */

// Authoring: what the static pass reports
export type { WorkflowDiagnostic } from "./authoring/index.ts";
// Errors
export type { SerializedWorkflowError, SourceLocation, WorkflowErrorCode, WorkflowErrorDetails } from "./errors.ts";
export { isWorkflowError, WorkflowError } from "./errors.ts";
// Progress: tracker, text, tool result, pi widget
export type {
	WorkflowProgressAgentCall,
	WorkflowProgressEnvelope,
	WorkflowProgressPhase,
	WorkflowProgressStatus,
	WorkflowProgressToolResult,
	WorkflowProgressTracker,
	WorkflowProgressTrackerOptions,
	WorkflowProgressUi,
	WorkflowProgressUiContext,
	WorkflowProgressUiOptions,
} from "./progress/index.ts";
export {
	createWorkflowProgressTracker,
	createWorkflowProgressUi,
	formatWorkflowProgress,
	workflowProgressResult,
} from "./progress/index.ts";
// Run store: durable runs (record, journal, snapshot, lock) that hosts list and resume
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
} from "./runs/index.ts";
export { createRunStore, defaultRunsRoot, isRunId } from "./runs/index.ts";
// Runtime: run a script; the runner seam, events and results
export type {
	CheckWorkflowOptions,
	JsonSchema,
	JsonValue,
	ParsedWorkflow,
	WorkflowAgentCallRef,
	WorkflowAgentChild,
	WorkflowAgentCounts,
	WorkflowAgentRequest,
	WorkflowAgentResult,
	WorkflowAgentRunner,
	WorkflowAgentRunnerContext,
	WorkflowAgentStatus,
	WorkflowBudgetOptions,
	WorkflowCheckReport,
	WorkflowChildState,
	WorkflowCutOff,
	WorkflowFailure,
	WorkflowJournal,
	WorkflowJournalEntry,
	WorkflowLimits,
	WorkflowMeta,
	WorkflowPhaseMeta,
	WorkflowProgressEvent,
	WorkflowQueue,
	WorkflowQueueOptions,
	WorkflowResolver,
	WorkflowRunOptions,
	WorkflowRunResult,
	WorkflowTokenUsage,
} from "./runtime/index.ts";
export {
	checkWorkflowScript,
	createWorkflowQueue,
	DEFAULT_AGENT_TYPE,
	DEFAULT_LIMITS,
	parseWorkflowSource,
	runWorkflowScript,
	SCHEMA_ATTEMPTS,
	shutdownSchemaWorker,
	validateArgs,
} from "./runtime/index.ts";
// Sandbox pool: warm a worker before the first run; end idle workers
export { shutdownSandboxPool, warmSandboxPool } from "./sandbox/index.ts";
// pi extension (default export) and the pi-backed runner
export type { AgentTypeConfig, PiAgentRunnerOptions, WorkflowToolOptions } from "./tool/index.ts";
export { createPiAgentRunner, createWorkflowTool, default, loadAgentTypes } from "./tool/index.ts";
