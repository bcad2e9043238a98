/**
 * Folds runtime progress events and child reports into `WorkflowProgressEnvelope`s. Pure: no timers, no I/O.
 * Each event costs O(1) amortized: counters move incrementally, snapshots are rebuilt only for what changed, and
 * the envelope is cached until the next change.
 */
import type { WorkflowProgressEvent } from "../runtime/core/events.ts";
import type { WorkflowAgentChild, WorkflowMeta, WorkflowRunResult } from "../runtime/core/types.ts";
import type { WorkflowProgressEnvelope, WorkflowProgressError, WorkflowProgressStatus } from "./envelope.ts";
import type { ProgressPlan, ProgressTiming } from "./forecast.ts";
import { summarizeWorkflowProgress } from "./format.ts";
import { RunState } from "./run-state.ts";

/** Options of `createWorkflowProgressTracker`. */
export interface WorkflowProgressTrackerOptions {
	/** Meta known before `run_start` arrives (e.g. parsed by the host). Default: none until `run_start`. */
	initialMeta?: WorkflowMeta;
	/** Log entries kept in `envelope.logs`. Default: 50. */
	maxLogs?: number;
	/** Characters kept of result previews and errors. Default: 240. */
	maxPreviewChars?: number;
	/** Clock for the start time before any event and for `error()`. Default: Date.now. */
	now?: () => number;
	/** A call or run over this multiple of its history's median is marked slow. Default: `DEFAULT_SLOW_MULTIPLE` (5). */
	slowMultiple?: number;
}

/** An envelope with a one-line summary of it, as `complete()` and `error()` return. */
export interface WorkflowProgressOutcome {
	envelope: WorkflowProgressEnvelope;
	summary: string;
}

/** Merges runtime events and child reports into envelopes. */
export interface WorkflowProgressTracker {
	/** Folds one event from `runWorkflowScript`'s `onProgress`. */
	updateFromProgressEvent(event: WorkflowProgressEvent): void;
	/**
	 * Measures progress against a plan and a history from now on (`envelope.forecast`); either may be undefined, and
	 * either may come later (a plan computed in the background): what was given before is kept.
	 */
	forecastWith(plan: ProgressPlan | undefined, timing: ProgressTiming | undefined): void;
	/** Folds one child report from a runner (a no-op for reports the runtime already forwarded). */
	updateChildAgent(child: WorkflowAgentChild): void;
	/** The current envelope; with `status`, a copy that reports that status instead. Cached until something changes. */
	getEnvelope(status?: WorkflowProgressStatus): WorkflowProgressEnvelope;
	/** Ends the run from `runWorkflowScript`'s result (a no-op if `run_end` already did). */
	complete(result: WorkflowRunResult): WorkflowProgressOutcome;
	/** Ends the run with status `error`: the host failed around the run. */
	error(error: unknown): WorkflowProgressOutcome;
}

/** Creates a tracker for one run. */
export function createWorkflowProgressTracker(options: WorkflowProgressTrackerOptions = {}): WorkflowProgressTracker {
	const now = options.now ?? Date.now;
	const state = new RunState({
		meta: options.initialMeta,
		startedAt: now(),
		maxLogs: options.maxLogs ?? 50,
		maxPreviewChars: options.maxPreviewChars ?? 240,
		...(options.slowMultiple !== undefined ? { slowMultiple: options.slowMultiple } : {}),
	});
	const outcome = (): WorkflowProgressOutcome => {
		const envelope = state.envelope();
		return { envelope, summary: summarizeWorkflowProgress(envelope) };
	};
	return {
		updateFromProgressEvent: (event) => state.apply(event),
		forecastWith: (plan, timing) => state.forecastWith(plan, timing),
		updateChildAgent: (child) => state.child(child, undefined, child.lastActivityAt),
		getEnvelope(status) {
			const envelope = state.envelope();
			return status === undefined || status === envelope.status ? envelope : { ...envelope, status };
		},
		complete(result) {
			if (!state.ended) {
				state.end({
					status: result.status,
					time: state.startedAt + result.durationMs,
					result: result.value,
					error: result.error,
					failures: result.failures,
					tokens: result.usage.total,
					...(result.cost !== undefined ? { cost: result.cost } : {}),
					...(result.replayedCost !== undefined ? { replayedCost: result.replayedCost } : {}),
					...(result.counts.continued
						? { continued: { calls: result.counts.continued, tokens: result.continuedTokens ?? 0 } }
						: {}),
					durationMs: result.durationMs,
					...(result.providerWaits ? { providerWaits: result.providerWaits } : {}),
				});
			}
			return outcome();
		},
		error(error) {
			state.end({ status: "error", time: Math.max(now(), state.updatedAt), error: toProgressError(error) });
			return outcome();
		},
	};
}

/** Reads message, code and position from anything thrown, without trusting its shape. */
export function toProgressError(error: unknown): WorkflowProgressError {
	if (typeof error !== "object" || error === null) return { message: String(error) };
	const record = error as Record<string, unknown>;
	const out: WorkflowProgressError = {
		message: typeof record.message === "string" ? record.message : String(error),
	};
	if (typeof record.code === "string") out.code = record.code;
	const location = record.location as Record<string, unknown> | undefined;
	const line = record.line ?? location?.line;
	const column = record.column ?? location?.column;
	if (typeof line === "number") out.line = line;
	if (typeof column === "number") out.column = column;
	return out;
}
