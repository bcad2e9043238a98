/** The workflow runtime: run a script, and the types a host implements (the runner) or receives (events, result). */

export { SCHEMA_ATTEMPTS } from "./agent/call.ts";
export { DEFAULT_AGENT_TYPE } from "./agent/options.ts";
export type { ReplaySchemaMiss } from "./agent/replay.ts";
export { callIdentity, differences, nearestEntry, readIdentity, similarity } from "./agent/replay-miss.ts";
export type { BudgetSnapshot } from "./core/budget.ts";
export { usdText } from "./core/cost.ts";
export type {
	AgentChildEvent,
	AgentFailedEvent,
	AgentFinishedEvent,
	AgentQueuedEvent,
	AgentRetryEvent,
	AgentStartedEvent,
	AskAnsweredEvent,
	AskFailedEvent,
	AskRef,
	AskStartedEvent,
	CostCapEvent,
	LogEvent,
	PhaseEndEvent,
	PhaseStartEvent,
	ProviderWaitEndedEvent,
	ProviderWaitStartedEvent,
	RunEndEvent,
	RunStartEvent,
	SlotFailedEvent,
	ToolFailedEvent,
	ToolFinishedEvent,
	ToolRef,
	ToolStartedEvent,
	WorkflowAgentCallRef,
	WorkflowProgressEvent,
} from "./core/events.ts";
export { DEFAULT_MAX_PROVIDER_WAIT_MS } from "./core/provider-wait.ts";
export type { ProviderPause, WorkflowQueue, WorkflowQueueOptions } from "./core/queue.ts";
export { createWorkflowQueue } from "./core/queue.ts";
export type {
	JsonSchema,
	JsonValue,
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
	WorkflowChildState,
	WorkflowContinuation,
	WorkflowCost,
	WorkflowCostCapInfo,
	WorkflowCutOff,
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
	WorkflowProviderBackoff,
	WorkflowProviderLimit,
	WorkflowProviderLimitKind,
	WorkflowProviderStop,
	WorkflowQuestion,
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
} from "./core/types.ts";
export { DRY_CHILD_PREFIX, dryAgentResult } from "./dry/answer.ts";
export {
	DEFAULT_MODEL,
	type WorkflowDryBranch,
	type WorkflowDryCall,
	type WorkflowDryPhase,
	type WorkflowDryQuestion,
	type WorkflowDryRunPlan,
	type WorkflowDryTool,
} from "./dry/plan.ts";
export { DEFAULT_MODEL_TEXT, dryRunPlanText, fencedBashSite } from "./dry/plan-text.ts";
export { createDryAsk, type DryAnswers, fencedToolOutput, READ_ONLY_TOOLS } from "./dry/stand-ins.ts";
export type { ParsedWorkflow } from "./meta/read.ts";
export { parseWorkflowSource, validateArgs } from "./meta/read.ts";
export { dryRunWorkflowScript, type WorkflowDryRun, type WorkflowDryRunOptions } from "./run/dry-run.ts";
export { resolveWorkflowPath } from "./run/nested.ts";
export { DEFAULT_LIMITS, DEFAULT_MAX_RESULT_BYTES, runWorkflowScript } from "./run/run.ts";
export type { CheckWorkflowOptions, WorkflowCheckReport } from "./run/script-check.ts";
export { checkWorkflowScript } from "./run/script-check.ts";
export { shutdownSchemaWorker } from "./schema/schema-worker-host.ts";
export { DEFAULT_FAN_OUT_THRESHOLD, spentSoFar } from "./spend/fan-out.ts";
export type { PhaseBudgetLimits } from "./spend/phase-budget.ts";
export { MAX_TOOL_OUTPUT_CHARS, RESERVED_TOOLS } from "./step/call.ts";
