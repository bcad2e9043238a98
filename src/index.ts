/**
 * pi-workflows: sandboxed JavaScript workflow scripts for pi. Named exports are the host API; the default export
 * is the pi extension that registers the `workflow` tool.
 */

export type { SerializedWorkflowError, SourceLocation, WorkflowErrorCode, WorkflowErrorDetails } from "./errors.ts";
// Errors
export { isWorkflowError, WorkflowError } from "./errors.ts";
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
// Sandbox pool: warm a worker before the first run; end idle workers (e.g. before a process exits on its own)
export { shutdownSandboxPool, warmSandboxPool } from "./sandbox/index.ts";

// Progress
export {
	createWorkflowProgressTracker,
	createWorkflowProgressUi,
	formatWorkflowProgress,
	workflowProgressResult,
} from "./progress/index.ts";
export type {
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
	WorkflowChildState,
	WorkflowFailure,
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
// Runtime
export {
	createWorkflowQueue,
	DEFAULT_AGENT_TYPE,
	DEFAULT_LIMITS,
	parseWorkflowSource,
	runWorkflowScript,
	SCHEMA_ATTEMPTS,
	validateArgs,
} from "./runtime/index.ts";
export type { AgentTypeConfig, PiAgentRunnerOptions, WorkflowToolOptions } from "./tool/index.ts";
// pi extension and the pi-backed runner
export { createPiAgentRunner, createWorkflowTool, default, loadAgentTypes } from "./tool/index.ts";
