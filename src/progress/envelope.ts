/**
 * The progress envelope (one snapshot of a run, as the tracker folds it from events) and the tool-result shape the
 * `workflow` tool streams and returns. Everything here is plain data; `workflowProgressResult` makes it JSON-safe.
 */
import type { WorkflowAgentChild, WorkflowChildState, WorkflowFailure, WorkflowMeta } from "../runtime/types.ts";
import { formatWorkflowProgress } from "./format.ts";
import { boundText, toJsonSafe, utf8Length } from "./json-safe.ts";

/** Status of a whole run. `error` means the host failed around the run (it threw), not the script. */
export type WorkflowProgressStatus = "running" | "completed" | "failed" | "stopped" | "error";

/** Status of one declared or seen phase. */
export type WorkflowPhaseStatus = "pending" | "running" | "done" | "failed";

/** Status of one `agent()` call. */
export type WorkflowAgentCallStatus = "queued" | "running" | "completed" | "failed" | "stopped";

/** Agent calls by status. */
export interface WorkflowAgentStateCounts {
	queued: number;
	running: number;
	completed: number;
	failed: number;
	stopped: number;
	/** All calls seen. */
	total: number;
}

/** One phase: declared in `meta.phases`, or first seen in a `phase_start` event or an agent call. */
export interface WorkflowProgressPhase {
	title: string;
	/** From `meta.phases[i].detail`. */
	detail?: string;
	/** True when `meta.phases` names it. */
	declared: boolean;
	status: WorkflowPhaseStatus;
	/** Agent calls made in this phase, by status. */
	agents: WorkflowAgentStateCounts;
	/** Epoch ms of its first start (or first agent call). */
	startedAt?: number;
	/** Epoch ms when it last ended; absent while running. */
	endedAt?: number;
	/** Time spent so far, as of `envelope.updatedAt`; frozen once the phase ends. */
	elapsedMs?: number;
}

/** One log entry. */
export interface WorkflowProgressLog {
	time: number;
	level: "info" | "warn" | "error";
	message: string;
	data?: unknown;
	phase?: string;
}

/** One `agent()` call. */
export interface WorkflowProgressAgentCall {
	/** Stable call key. */
	key: string;
	/** 0-based call index; -1 until the call's own events arrive. */
	index: number;
	label: string;
	agentType: string;
	phase?: string;
	/** Nested workflow that made the call. */
	workflow?: string;
	status: WorkflowAgentCallStatus;
	/** What the child appears to be doing (starting, active, quiet, stalled…), as its runner reports it. */
	activity?: WorkflowChildState;
	/** A short phrase for the current activity ("reading 3 files…"). */
	activityText?: string;
	/** The child's id, once the runner reports one. */
	agentId?: string;
	/** 1-based attempt (schema retries). */
	attempt: number;
	promptPreview?: string;
	model?: string;
	/** First characters of the answer (capped). */
	resultPreview?: string;
	/** Why it failed or stopped (capped). */
	error?: string;
	code?: string;
	/** True when it never reached the runner. */
	skipped?: boolean;
	/** True when `agent()` threw into the script instead of giving null. */
	thrown?: boolean;
	/** Total tokens. */
	tokens?: number;
	toolUses?: number;
	turns?: number;
	queuedAt?: number;
	startedAt?: number;
	endedAt?: number;
	/** Epoch ms of the child's last sign of life. */
	lastActivityAt?: number;
	/** Running time so far, as of `envelope.updatedAt`; frozen once the call ends. */
	elapsedMs?: number;
}

/** Totals over the whole run. */
export interface WorkflowProgressTotals {
	agents: WorkflowAgentStateCounts;
	tokens: number;
	toolUses: number;
}

/** An error as the envelope carries it. */
export interface WorkflowProgressError {
	message: string;
	code?: string;
	line?: number;
	column?: number;
}

/** One snapshot of a run. Plain data; treat it as immutable. */
export interface WorkflowProgressEnvelope {
	meta?: WorkflowMeta;
	status: WorkflowProgressStatus;
	/** Declared phases first, in `meta.phases` order, then the others as they appeared. */
	phases: WorkflowProgressPhase[];
	/** The most recent log entries, oldest first. */
	logs: WorkflowProgressLog[];
	/** Log entries seen but not kept in `logs`. */
	droppedLogs: number;
	/** Children as their runners reported them, in order of first report. */
	agents: WorkflowAgentChild[];
	/** One entry per `agent()` call, in order of first sight. */
	agentCalls: WorkflowProgressAgentCall[];
	currentPhase?: string;
	/** Label of the agent call that started most recently and is still running. */
	currentTask?: string;
	/** Epoch ms when the run started. */
	startedAt: number;
	/** Epoch ms when it ended; absent while running. */
	endedAt?: number;
	/** Epoch ms of the latest event folded in; every `elapsedMs` is "as of" this moment. */
	updatedAt: number;
	/** Run time in ms, as of `updatedAt`; final once ended. */
	duration: number;
	/** What the script returned (completed runs). */
	result?: unknown;
	error?: WorkflowProgressError;
	totals: WorkflowProgressTotals;
	/** Failed calls and null slots: live while running, the runtime's census once it ends. */
	failures: WorkflowFailure[];
}

/** `details` of a workflow tool result: JSON-safe and size-bounded. */
export interface WorkflowProgressDetails {
	summary: string;
	envelope: WorkflowProgressEnvelope;
	/** What was left out to stay within `maxDetailsBytes`, when anything was. */
	omitted?: { agentCalls: number; agents: number; logs: number; failures: number; result: boolean };
}

/** The shape pi tool results (and partial updates) take. */
export interface WorkflowProgressToolResult {
	content: Array<{ type: "text"; text: string }>;
	details: WorkflowProgressDetails;
}

/** Options of `workflowProgressResult`. */
export interface WorkflowProgressResultOptions {
	/** Bytes (UTF-8) of text for the model. Default: 65536. */
	maxTextBytes?: number;
	/** Bytes of JSON in `details`. Default: 262144. */
	maxDetailsBytes?: number;
}

const DEFAULT_MAX_TEXT_BYTES = 64 * 1024;
const DEFAULT_MAX_DETAILS_BYTES = 256 * 1024;
/** Entries kept per list when details must shrink. */
const SHRUNK_LIST = 50;

/**
 * The JSON-safe tool result for an envelope: `content` is the summary, the progress text and (once ended) the result
 * as JSON, bounded to `maxTextBytes`; `details` holds the envelope with non-JSON values replaced by markers.
 */
export function workflowProgressResult(
	envelope: WorkflowProgressEnvelope,
	summary: string,
	options: WorkflowProgressResultOptions = {},
): WorkflowProgressToolResult {
	const maxTextBytes = options.maxTextBytes ?? DEFAULT_MAX_TEXT_BYTES;
	const maxDetailsBytes = options.maxDetailsBytes ?? DEFAULT_MAX_DETAILS_BYTES;
	const safe = toJsonSafe(envelope) as unknown as WorkflowProgressEnvelope;
	return {
		content: [{ type: "text", text: boundText(resultText(safe, summary, maxTextBytes), maxTextBytes) }],
		details: boundDetails({ summary, envelope: safe }, maxDetailsBytes),
	};
}

function resultText(envelope: WorkflowProgressEnvelope, summary: string, maxTextBytes: number): string {
	const parts = [summary, formatWorkflowProgress(envelope)];
	if (envelope.status !== "running" && envelope.result !== undefined) {
		// Compact JSON when pretty JSON would not fit: the model needs the data more than the indentation.
		const pretty = JSON.stringify(envelope.result, null, 2);
		const json = utf8Length(pretty) > maxTextBytes / 2 ? JSON.stringify(envelope.result) : pretty;
		// The result goes first after the summary so that truncation eats progress detail, not the answer.
		parts.splice(1, 0, `Result:\n${json}`);
	}
	return parts.filter((part) => part.length > 0).join("\n\n");
}

/**
 * Shrinks details step by step until they fit: long lists to their most telling entries (running and failed calls
 * first), then without the result, then without the lists at all. `omitted` says what went.
 */
function boundDetails(details: WorkflowProgressDetails, maxBytes: number): WorkflowProgressDetails {
	if (utf8Length(JSON.stringify(details)) <= maxBytes) return details;
	const full = details.envelope;
	const fits = (candidate: WorkflowProgressDetails) => utf8Length(JSON.stringify(candidate)) <= maxBytes;
	const shrink = (limit: number, keepResult: boolean): WorkflowProgressDetails => {
		const calls = pickCalls(full.agentCalls, limit);
		const agents = limit === 0 ? [] : full.agents.slice(-limit);
		const logs = limit === 0 ? [] : full.logs.slice(-limit);
		const failures = full.failures.slice(0, limit);
		const envelope: WorkflowProgressEnvelope = { ...full, agentCalls: calls, agents, logs, failures };
		if (!keepResult) delete envelope.result;
		const omitted = {
			agentCalls: full.agentCalls.length - calls.length,
			agents: full.agents.length - agents.length,
			logs: full.logs.length - logs.length,
			failures: full.failures.length - failures.length,
			result: !keepResult && "result" in full,
		};
		return { ...details, envelope, omitted };
	};
	const steps = [shrink(SHRUNK_LIST, true), shrink(SHRUNK_LIST, false)];
	return steps.find(fits) ?? shrink(0, false);
}

/** Running and failed calls first (they matter most), then the latest others, in their original order. */
function pickCalls(calls: WorkflowProgressAgentCall[], limit: number): WorkflowProgressAgentCall[] {
	if (calls.length <= limit) return calls;
	if (limit === 0) return [];
	const keep = new Set<WorkflowProgressAgentCall>();
	for (const call of calls) {
		if (keep.size >= limit) break;
		if (call.status === "running" || call.status === "failed") keep.add(call);
	}
	for (let i = calls.length - 1; i >= 0 && keep.size < limit; i--) keep.add(calls[i] as WorkflowProgressAgentCall);
	return calls.filter((call) => keep.has(call));
}
