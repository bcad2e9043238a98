/**
 * Progress of a workflow run: the tracker that folds runtime events into envelopes, and the text and tool-result
 * views. No pi here: the pi widget and status controller (`ui.ts`, `widget.ts`) are reached through `src/pi.ts`.
 */

// Envelope and tool result
export {
	type WorkflowAgentCallStatus,
	type WorkflowAgentStateCounts,
	type WorkflowKeptBranch,
	type WorkflowPhaseStatus,
	type WorkflowProgressAgentCall,
	type WorkflowProgressDetails,
	type WorkflowProgressEnvelope,
	type WorkflowProgressError,
	type WorkflowProgressLog,
	type WorkflowProgressPhase,
	type WorkflowProgressResultOptions,
	type WorkflowProgressStatus,
	type WorkflowProgressToolResult,
	type WorkflowProgressTotals,
	workflowProgressResult,
} from "./envelope.ts";
// Text
export { type FormatWorkflowProgressOptions, formatWorkflowProgress, summarizeWorkflowProgress } from "./format.ts";
// JSON safety
export { toJsonSafe, type WorkflowUnsupportedValue } from "./json-safe.ts";
// Tracker
export {
	createWorkflowProgressTracker,
	type WorkflowProgressOutcome,
	type WorkflowProgressTracker,
	type WorkflowProgressTrackerOptions,
} from "./tracker.ts";
