/**
 * The tool-result shape the `workflow` tool streams and returns for an envelope: the summary, the result and the
 * progress text for the model, and the envelope made JSON-safe and size-bounded in `details`.
 */
import type { WorkflowProgressAgentCall, WorkflowProgressEnvelope } from "./envelope.ts";
import { formatWorkflowProgress } from "./format.ts";
import { boundText, toJsonSafe, utf8Length } from "./json-safe.ts";
import { DATA_FENCE_NOTE, dataFence, neutralizeModelText } from "./model-text.ts";

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
	/**
	 * For a model that reads the text as a tool result or message: the result, the failures' causes, the error and
	 * the log each between a data fence naming its source, and frame-like markup escaped (model-text.ts); `details`
	 * keep the exact values. Default: false.
	 */
	fenceData?: boolean;
	/**
	 * With `fenceData`: the text the model reads in place of `summary`, which stays in `details` for people (one
	 * that leaves the run's error to its fence: `summarizeWorkflowProgress` with `fenceData`). Default: `summary`.
	 */
	modelSummary?: string;
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
	const fence = options.fenceData === true;
	const text = resultText(envelope, result, fence ? (options.modelSummary ?? summary) : summary, maxTextBytes, fence);
	return {
		content: [{ type: "text", text: boundText(text, maxTextBytes) }],
		details: boundDetails(envelope, result, summary, maxDetailsBytes),
	};
}

function resultText(
	envelope: WorkflowProgressEnvelope,
	result: { value: unknown } | undefined,
	summary: string,
	maxTextBytes: number,
	fence: boolean,
): string {
	const parts = fence ? [neutralizeModelText(summary), DATA_FENCE_NOTE] : [summary];
	if (envelope.status !== "running" && result) {
		// Compact JSON when pretty JSON would not fit: the model needs the data more than the indentation.
		const pretty = JSON.stringify(result.value, null, 2);
		const json = utf8Length(pretty) > maxTextBytes / 2 ? JSON.stringify(result.value) : pretty;
		// The result goes right after the summary so that truncation eats progress detail, not the answer.
		const block = `Result:\n${json}`;
		parts.push(
			fence ? dataFence("the script's return value, with what children and tools wrote in it", block) : block,
		);
	}
	parts.push(formatWorkflowProgress(envelope, { fenceData: fence }));
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
