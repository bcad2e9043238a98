/**
 * The progress envelope (one snapshot of a run, as the tracker folds it from events) and the tool-result shape the
 * `workflow` tool streams and returns. Everything here is plain data; `workflowProgressResult` makes it JSON-safe.
 */
import type {
	WorkflowAgentChild,
	WorkflowChildState,
	WorkflowFailure,
	WorkflowMeta,
	WorkflowWorktree,
} from "../runtime/types.ts";
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
	/** 1-based attempt (schema retries); 0 for a call replayed from the journal. */
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
	/** True when the answer was replayed from the journal of the run this one resumes (no child ran). */
	cached?: boolean;
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
	/** An isolated child's worktree (`isolation: "worktree"`): where it works, then the branch its changes are kept on. */
	worktree?: WorkflowWorktree;
}

/** A branch an isolated child's changes were committed on, kept for the caller to merge. */
export interface WorkflowKeptBranch {
	branch: string;
	/** The `agent()` call whose child made it (index -1 when the runner did not say). */
	label: string;
	index: number;
	/** Files changed on it, relative to the repository root (the first 20; the call's `worktree` lists up to 100). */
	files: string[];
	/** How many files changed. */
	fileCount: number;
	commit?: string;
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
	/** Branches isolated children's changes were kept on, in call order; absent when there are none. */
	branches?: WorkflowKeptBranch[];
}

/** `details` of a workflow tool result: JSON-safe and size-bounded. */
export interface WorkflowProgressDetails {
	summary: string;
	envelope: WorkflowProgressEnvelope;
	/** The run's id in the run store, when the host keeps one (resume it with this id). */
	runId?: string;
	/** What was left out to stay within `maxDetailsBytes`, when anything was. */
	omitted?: { agentCalls: number; agents: number; logs: number; failures: number; branches: number; result: boolean };
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

/**
 * The JSON-safe tool result for an envelope: `content` is the summary, the result as JSON (once ended) and the
 * progress text, bounded to `maxTextBytes`; `details` holds the envelope with non-JSON values replaced by markers,
 * bounded to `maxDetailsBytes`. Work is bounded by those sizes, not by the size of the run.
 */
export function workflowProgressResult(
	envelope: WorkflowProgressEnvelope,
	summary: string,
	options: WorkflowProgressResultOptions = {},
): WorkflowProgressToolResult {
	const maxTextBytes = options.maxTextBytes ?? DEFAULT_MAX_TEXT_BYTES;
	const maxDetailsBytes = options.maxDetailsBytes ?? DEFAULT_MAX_DETAILS_BYTES;
	// A top-level undefined means "no result" (a script that returned nothing), not an unsupported value.
	const result = envelope.result !== undefined ? { value: toJsonSafe(envelope.result) } : undefined;
	return {
		content: [{ type: "text", text: boundText(resultText(envelope, result, summary, maxTextBytes), maxTextBytes) }],
		details: boundDetails(envelope, result, summary, maxDetailsBytes),
	};
}

function resultText(
	envelope: WorkflowProgressEnvelope,
	result: { value: unknown } | undefined,
	summary: string,
	maxTextBytes: number,
): string {
	const parts = [summary];
	if (envelope.status !== "running" && result) {
		// Compact JSON when pretty JSON would not fit: the model needs the data more than the indentation.
		const pretty = JSON.stringify(result.value, null, 2);
		const json = utf8Length(pretty) > maxTextBytes / 2 ? JSON.stringify(result.value) : pretty;
		// The result goes right after the summary so that truncation eats progress detail, not the answer.
		parts.push(`Result:\n${json}`);
	}
	parts.push(formatWorkflowProgress(envelope));
	return parts.filter((part) => part.length > 0).join("\n\n");
}

/**
 * Packs the envelope into `maxBytes` of JSON: the scalar fields always, then failures, the result, agent calls
 * (running and failed first, then the newest), logs and agents (newest first), each while it fits. Lists keep their
 * original order; `omitted` counts what was left out.
 */
function boundDetails(
	envelope: WorkflowProgressEnvelope,
	result: { value: unknown } | undefined,
	summary: string,
	maxBytes: number,
): WorkflowProgressDetails {
	const { agentCalls, agents, logs, failures, branches = [], result: _result, ...scalars } = envelope;
	const base = toJsonSafe(scalars) as Omit<
		WorkflowProgressEnvelope,
		"agentCalls" | "agents" | "logs" | "failures" | "branches"
	>;
	const worstOmitted = { agentCalls: 1e9, agents: 1e9, logs: 1e9, failures: 1e9, branches: 1e9, result: false };
	const empty = { ...base, agentCalls: [], agents: [], logs: [], failures: [] };
	let left = maxBytes - utf8Length(JSON.stringify({ summary, envelope: empty, omitted: worstOmitted }));
	const take = <T>(items: readonly T[], order: Iterable<number>): T[] => {
		const kept = new Map<number, T>();
		for (const i of order) {
			const safe = toJsonSafe(items[i]) as T;
			// +1 for the comma; stop at the first miss so the work stays bounded by the budget.
			const size = utf8Length(JSON.stringify(safe)) + 1;
			if (size > left) break;
			left -= size;
			kept.set(i, safe);
		}
		return [...kept.keys()].sort((a, b) => a - b).map((i) => kept.get(i) as T);
	};
	const keptFailures = take(failures, range(0, failures.length));
	// Kept branches are the run's output as much as its result: right after the failures, oldest first.
	const keptBranches = take(branches, range(0, branches.length));
	let keepResult = false;
	if (result) {
		const size = utf8Length(JSON.stringify({ result: result.value }));
		keepResult = size <= left;
		if (keepResult) left -= size;
	}
	const keptCalls = take(agentCalls, callOrder(agentCalls));
	const keptLogs = take(logs, range(logs.length - 1, -1));
	const keptAgents = take(agents, range(agents.length - 1, -1));
	const packed: WorkflowProgressEnvelope = {
		...base,
		agentCalls: keptCalls,
		agents: keptAgents,
		logs: keptLogs,
		failures: keptFailures,
		...(keptBranches.length > 0 ? { branches: keptBranches } : {}),
		...(keepResult && result ? { result: result.value } : {}),
	};
	const omitted = {
		agentCalls: agentCalls.length - keptCalls.length,
		agents: agents.length - keptAgents.length,
		logs: logs.length - keptLogs.length,
		failures: failures.length - keptFailures.length,
		branches: branches.length - keptBranches.length,
		result: result !== undefined && !keepResult,
	};
	const complete =
		omitted.agentCalls + omitted.agents + omitted.logs + omitted.failures + omitted.branches === 0 && !omitted.result;
	return complete ? { summary, envelope: packed } : { summary, envelope: packed, omitted };
}

/** Indexes from `from` towards `to` (exclusive), either direction. */
function* range(from: number, to: number): Generator<number> {
	const step = from <= to ? 1 : -1;
	for (let i = from; i !== to; i += step) yield i;
}

/** Running and failed calls first (they matter most), then the others from the newest back. */
function* callOrder(calls: readonly WorkflowProgressAgentCall[]): Generator<number> {
	const urgent = (call: WorkflowProgressAgentCall | undefined) =>
		call?.status === "running" || call?.status === "failed";
	for (let i = 0; i < calls.length; i++) if (urgent(calls[i])) yield i;
	for (let i = calls.length - 1; i >= 0; i--) if (!urgent(calls[i])) yield i;
}
