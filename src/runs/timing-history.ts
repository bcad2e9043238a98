/**
 * How long a project's earlier runs took, call by call: each finished `agent()` call's duration with its workflow,
 * phase, label, agent type and model, how many calls of each phase ran at once, and each completed run's wall time,
 * read from their event logs (`events.jsonl`). Time left and slow marks (src/progress/forecast.ts) learn from it.
 * Newest runs first within a bound on runs and bytes; a run whose log cannot be read is left out, never a throw.
 */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { CallTiming, ProgressTiming } from "../runtime/core/timing.ts";
import { EVENT_LOG_FILE, type EventLogLine, readEventLog } from "./event-log.ts";
import { newestRunIds } from "./history.ts";
import type { RunStore } from "./types.ts";

/** Default: the newest runs `readTimingHistory` reads. */
export const DEFAULT_TIMING_RUNS = 30;
/** Default: the bytes of event logs it reads in all (64 MiB); a log past what is left is passed over. */
export const DEFAULT_TIMING_BYTES = 64 * 1024 * 1024;

export interface TimingHistoryOptions {
	/** A run to leave out: the one asking. Default: none. */
	exclude?: string;
	/** Default: `DEFAULT_TIMING_RUNS`. */
	maxRuns?: number;
	/** Default: `DEFAULT_TIMING_BYTES`. */
	maxBytes?: number;
}

/** The timing history of the store's project, from its newest runs' event logs. Never rejects. */
export async function readTimingHistory(store: RunStore, options: TimingHistoryOptions = {}): Promise<ProgressTiming> {
	const ids = await newestRunIds(store, options.maxRuns ?? DEFAULT_TIMING_RUNS, options.exclude);
	let left = options.maxBytes ?? DEFAULT_TIMING_BYTES;
	const history: ProgressTiming = { calls: [], phases: [], runs: [] };
	for (const id of ids) {
		const dir = join(store.dir, id);
		try {
			const size = (await stat(join(dir, EVENT_LOG_FILE))).size;
			if (size > left) continue;
			left -= size;
			const run = runTiming((await readEventLog(dir)).events);
			history.calls.push(...run.calls);
			history.phases.push(...run.phases);
			history.runs.push(...run.runs);
		} catch {
			// No log (a run recorded before there was one), or one that cannot be read: nothing to learn from it.
		}
	}
	return history;
}

/**
 * One run's timing from its event log's lines (pure): every call that ran a child and finished (a replayed one took
 * no time), each phase's concurrency (summed call durations over the span from its first call's start to its last
 * call's end), and the run's wall time when it has one session that completed (a resumed run's time says little).
 */
export function runTiming(lines: readonly Pick<EventLogLine, "type" | "time">[]): ProgressTiming {
	let workflow: string | undefined;
	let sessions = 0;
	let completedMs: number | undefined;
	const calls: CallTiming[] = [];
	const spans = new Map<string, { phase?: string; start: number; end: number; sum: number }>();
	for (const line of lines as readonly Record<string, unknown>[]) {
		if (line.type === "run_start") {
			sessions++;
			const meta = line.meta as Record<string, unknown> | undefined;
			if (typeof meta?.name === "string") workflow = meta.name;
		} else if (line.type === "run_end") {
			if (line.status === "completed" && typeof line.durationMs === "number") completedMs = line.durationMs;
		} else if (line.type === "agent_finished" && line.cached !== true) {
			const call = durationSample(line);
			if (!call) continue;
			calls.push(call);
			const key = call.phase ?? "";
			const end = line.time as number;
			const span = spans.get(key) ?? {
				...(call.phase !== undefined ? { phase: call.phase } : {}),
				start: end - call.durationMs,
				end,
				sum: 0,
			};
			span.start = Math.min(span.start, end - call.durationMs);
			span.end = Math.max(span.end, end);
			span.sum += call.durationMs;
			spans.set(key, span);
		}
	}
	const named = <T extends object>(sample: T): T & { workflow?: string } =>
		workflow !== undefined ? { ...sample, workflow } : sample;
	const phases = [...spans.values()].flatMap(({ phase, start, end, sum }) =>
		end > start ? [named({ ...(phase !== undefined ? { phase } : {}), concurrency: sum / (end - start) })] : [],
	);
	return {
		calls: calls.map(named),
		phases,
		runs: sessions === 1 && completedMs !== undefined ? [named({ durationMs: completedMs })] : [],
	};
}

function durationSample(line: Record<string, unknown>): CallTiming | undefined {
	const { label, agentType, phase, model, durationMs, time } = line;
	if (typeof label !== "string" || typeof agentType !== "string" || typeof time !== "number") return undefined;
	if (typeof durationMs !== "number" || !Number.isFinite(durationMs) || durationMs < 0) return undefined;
	return {
		...(typeof phase === "string" ? { phase } : {}),
		label,
		agentType,
		...(typeof model === "string" ? { model } : {}),
		durationMs,
	};
}
