/**
 * Progress of a workflow run: the tracker that folds runtime events into envelopes, and the text and tool-result
 * views. No pi here: the pi widget and status controller (`ui.ts`, `widget.ts`) are reached through `src/pi.ts`.
 */

// Text
export { formatCost, formatUsd, hasCost, hasSaving } from "./cost-text.ts";
// Envelope and tool result
export type {
	WorkflowAgentCallStatus,
	WorkflowAgentStateCounts,
	WorkflowKeptBranch,
	WorkflowPhaseForecast,
	WorkflowPhaseStatus,
	WorkflowProgressAgentCall,
	WorkflowProgressEnvelope,
	WorkflowProgressError,
	WorkflowProgressForecast,
	WorkflowProgressLog,
	WorkflowProgressPhase,
	WorkflowProgressQuestion,
	WorkflowProgressStatus,
	WorkflowProgressToolRun,
	WorkflowProgressToolSteps,
	WorkflowProgressTotals,
} from "./envelope.ts";
// Progress against the plan
export {
	DEFAULT_SLOW_MULTIPLE,
	type ProgressPlan,
	type ProgressPlannedCalls,
	type ProgressTiming,
	type SlowMark,
	type TimingBasis,
} from "./forecast.ts";
export {
	doneOfExpected,
	forecastLine,
	forecastSummary,
	liveRunSlowMark,
	liveSlowMark,
	roughDuration,
	slowText,
	timeLeftText,
} from "./forecast-text.ts";
export {
	type FormatWorkflowProgressOptions,
	formatWorkflowProgress,
	type SummarizeWorkflowProgressOptions,
	summarizeWorkflowProgress,
} from "./format.ts";
// JSON safety
export { toJsonSafe, type WorkflowUnsupportedValue } from "./json-safe.ts";
export {
	type WorkflowProgressDetails,
	type WorkflowProgressResultOptions,
	type WorkflowProgressToolResult,
	workflowProgressResult,
} from "./tool-result.ts";
// Tracker
export {
	createWorkflowProgressTracker,
	type WorkflowProgressOutcome,
	type WorkflowProgressTracker,
	type WorkflowProgressTrackerOptions,
} from "./tracker.ts";
