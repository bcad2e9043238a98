/**
 * Builds runtime progress event sequences by hand for tracker, format and widget tests: a clock that only moves
 * when told, and call refs remembered by index so each call's events repeat the same identity.
 */
import type { WorkflowAgentCallRef, WorkflowProgressEvent } from "../../src/runtime/core/events.ts";
import type { WorkflowAgentChild, WorkflowCost, WorkflowFailure, WorkflowMeta } from "../../src/runtime/core/types.ts";

export const T0 = 1_700_000_000_000;

export const META: WorkflowMeta = {
	name: "review-and-fix",
	description: "Review a change and fix what is found",
	phases: [{ title: "review" }, { title: "fix", detail: "one agent per finding" }, { title: "verify" }],
};

interface CallOptions {
	phase?: string;
	agentType?: string;
}

/** A hand-driven event stream; `sink` (e.g. a tracker) receives each event as it is emitted. */
export function eventBuilder(start = T0, sink?: (event: WorkflowProgressEvent) => void) {
	let time = start;
	const events: WorkflowProgressEvent[] = [];
	const refs = new Map<number, WorkflowAgentCallRef>();
	const startedAt = new Map<number, number>();
	const emit = <E extends WorkflowProgressEvent>(event: E): E => {
		events.push(event);
		sink?.(event);
		return event;
	};
	const ref = (index: number): WorkflowAgentCallRef => {
		const found = refs.get(index);
		if (!found) throw new Error(`call ${index} was never queued in this builder`);
		return found;
	};
	return {
		events,
		get time() {
			return time;
		},
		tick(ms: number) {
			time += ms;
			return this;
		},
		runStart(meta: WorkflowMeta = META, costLimitUsd?: number) {
			return emit({
				type: "run_start",
				time,
				meta,
				cwd: "/work",
				...(costLimitUsd !== undefined ? { costLimitUsd } : {}),
			});
		},
		phaseStart(phase: string, parent?: string, budget?: { agentCalls?: number; tokens?: number; costUsd?: number }) {
			return emit({
				type: "phase_start",
				time,
				phase,
				...(parent !== undefined ? { parent } : {}),
				...(budget !== undefined ? { budget } : {}),
			});
		},
		phaseEnd(phase: string) {
			return emit({ type: "phase_end", time, phase });
		},
		log(message: string, level: "info" | "warn" | "error" = "info", data?: unknown) {
			return emit({ type: "log", time, level, message, ...(data !== undefined ? { data: data as never } : {}) });
		},
		/** Registers the call's identity and emits `agent_queued`. */
		queued(index: number, label: string, options: CallOptions = {}) {
			const callRef: WorkflowAgentCallRef = {
				key: `key-${index}`,
				index,
				label,
				agentType: options.agentType ?? "general-purpose",
				...(options.phase !== undefined ? { phase: options.phase } : {}),
			};
			refs.set(index, callRef);
			return emit({
				type: "agent_queued",
				time,
				...callRef,
				promptPreview: `Prompt for ${label}`,
				hasSchema: false,
			});
		},
		/** Registers the identity without emitting anything (for out-of-order tests). */
		define(index: number, label: string, options: CallOptions = {}) {
			refs.set(index, {
				key: `key-${index}`,
				index,
				label,
				agentType: options.agentType ?? "general-purpose",
				...(options.phase !== undefined ? { phase: options.phase } : {}),
			});
		},
		started(index: number, attempt = 1) {
			startedAt.set(index, time);
			return emit({ type: "agent_started", time, ...ref(index), attempt });
		},
		child(index: number, child: Partial<WorkflowAgentChild> = {}) {
			return emit({ type: "agent_child", time, ...ref(index), child: this.childReport(index, child) });
		},
		/** A child report as a runner makes it (with `callKey`), not wrapped in an event. */
		childReport(index: number, child: Partial<WorkflowAgentChild> = {}): WorkflowAgentChild {
			const callRef = ref(index);
			return {
				id: `agent-${index}`,
				type: callRef.agentType,
				status: "active",
				description: callRef.label,
				callKey: callRef.key,
				callIndex: index,
				lastActivityAt: time,
				...child,
			};
		},
		retry(index: number, attempt: number, reason: string) {
			return emit({ type: "agent_retry", time, ...ref(index), attempt, reason });
		},
		finished(
			index: number,
			preview: string,
			usage: { tokens?: number; toolUses?: number; cost?: WorkflowCost; model?: string; cached?: boolean } = {},
		) {
			return emit({
				type: "agent_finished",
				time,
				...ref(index),
				agentId: `agent-${index}`,
				resultPreview: preview,
				...(usage.tokens !== undefined ? { usage: { input: 0, output: usage.tokens, total: usage.tokens } } : {}),
				...(usage.toolUses !== undefined ? { toolUses: usage.toolUses } : {}),
				...(usage.cost !== undefined ? { cost: usage.cost } : {}),
				...(usage.model !== undefined ? { model: usage.model } : {}),
				...(usage.cached ? { cached: true } : {}),
				durationMs: usage.cached ? 0 : time - (startedAt.get(index) ?? time),
				attempts: usage.cached ? 0 : 1,
			});
		},
		failed(index: number, error: string, options: { code?: string; skipped?: boolean; thrown?: boolean } = {}) {
			return emit({
				type: "agent_failed",
				time,
				...ref(index),
				error,
				...(options.code !== undefined ? { code: options.code } : {}),
				thrown: options.thrown ?? false,
				skipped: options.skipped ?? false,
				durationMs: time - (startedAt.get(index) ?? time),
			});
		},
		/** A provider wait that `index`'s attempt met (or, without an index, another run sharing the queue did). */
		waitStarted(
			waitMs: number,
			options: { index?: number; totalWaitMs?: number; lengthened?: boolean; retryAfterMs?: number } = {},
		) {
			return emit({
				type: "provider_wait_started",
				time,
				kind: "rate_limit",
				message: '429 {"type":"error","error":{"type":"rate_limit_error"}}',
				waitMs,
				until: time + waitMs,
				...(options.retryAfterMs !== undefined ? { retryAfterMs: options.retryAfterMs } : {}),
				...(options.lengthened ? { lengthened: true } : {}),
				totalWaitMs: options.totalWaitMs ?? waitMs,
				maxWaitMs: 1_800_000,
				...(options.index !== undefined ? { call: ref(options.index) } : {}),
			});
		},
		waitEnded(totalWaitMs: number, outcome: "over" | "stopped" = "over") {
			return emit({ type: "provider_wait_ended", time, outcome, waitedMs: totalWaitMs, totalWaitMs });
		},
		slotFailed(kind: "parallel" | "pipeline", index: number, error: string, phase?: string) {
			return emit({ type: "slot_failed", time, kind, index, error, ...(phase !== undefined ? { phase } : {}) });
		},
		runEnd(
			status: "completed" | "failed" | "stopped",
			options: { result?: unknown; error?: { code: string; message: string }; failures?: WorkflowFailure[] } = {},
		) {
			return emit({
				type: "run_end",
				time,
				status,
				...(options.result !== undefined ? { result: options.result as never } : {}),
				...(options.error !== undefined ? { error: options.error as never } : {}),
				failures: options.failures ?? [],
				counts: { calls: refs.size, started: startedAt.size, completed: 0, failed: 0, skipped: 0 },
				usage: { input: 0, output: 0, total: 0 },
				cost: { usd: 0 },
				durationMs: time - start,
			});
		},
	};
}
