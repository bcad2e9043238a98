/**
 * The mutable state behind a tracker. Counters move as calls change state, so an event never rescans the run;
 * `envelope()` copies only what changed since the last envelope (plus the few running calls, whose clocks moved).
 */
import type { SerializedWorkflowError } from "../errors.ts";
import type { WorkflowAgentCallRef, WorkflowProgressEvent } from "../runtime/events.ts";
import type { WorkflowAgentChild, WorkflowFailure, WorkflowMeta } from "../runtime/types.ts";
import type {
	WorkflowAgentCallStatus,
	WorkflowAgentStateCounts,
	WorkflowProgressAgentCall,
	WorkflowProgressEnvelope,
	WorkflowProgressError,
	WorkflowProgressStatus,
} from "./envelope.ts";
import { emptyCounts, PhaseBook, type PhaseSlot } from "./phase-book.ts";
import { RecentLogs } from "./recent-logs.ts";

interface CallRecord {
	/** Working copy; snapshots are taken from it. */
	data: WorkflowProgressAgentCall;
	/** Position in `agentCalls`. */
	pos: number;
	/** Where the call is counted now (status and phase), so a change can move it. */
	counted?: PhaseSlot;
	tokens: number;
	toolUses: number;
}

/** How a run ended, from `run_end`, `complete()` or `error()`. */
export interface RunEnding {
	status: Exclude<WorkflowProgressStatus, "running">;
	time: number;
	result?: unknown;
	error?: SerializedWorkflowError | WorkflowProgressError;
	failures?: WorkflowFailure[];
	tokens?: number;
}

const ACTIVE_CHILD = new Set(["starting", "active", "quiet", "stalled"]);

/** Everything a tracker knows about one run. */
export class RunState {
	meta: WorkflowMeta | undefined;
	status: WorkflowProgressStatus = "running";
	startedAt: number;
	endedAt: number | undefined;
	updatedAt: number;
	ended = false;
	private result: unknown;
	private hasResult = false;
	private error: WorkflowProgressError | undefined;
	private currentPhase: string | undefined;
	private readonly phaseParents = new Map<string, string | undefined>();
	private readonly phases = new PhaseBook();
	private readonly logs: RecentLogs;
	private readonly maxPreviewChars: number;

	private readonly calls = new Map<string, CallRecord>();
	private readonly dirtyCalls = new Set<CallRecord>();
	/** Queued or running calls: the ones a run's end must settle. */
	private readonly activeCalls = new Set<CallRecord>();
	private readonly runningCalls = new Set<CallRecord>();
	private lastStarted: CallRecord | undefined;
	private callSnapshots: WorkflowProgressAgentCall[] = [];

	private readonly agentPositions = new Map<string, number>();
	private readonly dirtyAgents = new Map<number, WorkflowAgentChild>();
	private agentSnapshots: WorkflowAgentChild[] = [];

	private failures: WorkflowFailure[] = [];
	private failuresSnapshot: WorkflowFailure[] | undefined = [];
	private readonly totals: WorkflowAgentStateCounts = emptyCounts();
	private tokens = 0;
	private toolUses = 0;

	private cached: WorkflowProgressEnvelope | undefined;
	/** `updatedAt` when running calls' elapsed times were last refreshed. */
	private snapshotsAt = Number.NaN;

	constructor(options: { meta?: WorkflowMeta; startedAt: number; maxLogs: number; maxPreviewChars: number }) {
		this.startedAt = options.startedAt;
		this.updatedAt = options.startedAt;
		this.logs = new RecentLogs(options.maxLogs);
		this.maxPreviewChars = options.maxPreviewChars;
		if (options.meta) this.setMeta(options.meta);
	}

	apply(event: WorkflowProgressEvent): void {
		this.touch(event.time);
		switch (event.type) {
			case "run_start":
				this.startedAt = event.time;
				this.setMeta(event.meta);
				return;
			case "phase_start":
				this.phaseParents.set(event.phase, event.parent);
				this.currentPhase = event.phase;
				this.phases.open(event.phase, event.time);
				return;
			case "phase_end":
				if (this.currentPhase === event.phase) this.currentPhase = this.phaseParents.get(event.phase);
				this.phases.close(event.phase, event.time);
				return;
			case "log":
				this.logs.add({
					time: event.time,
					level: event.level,
					message: event.message,
					...(event.data !== undefined ? { data: event.data } : {}),
					...(event.phase !== undefined ? { phase: event.phase } : {}),
				});
				return;
			case "agent_queued": {
				const record = this.callFor(event, event.time);
				record.data.promptPreview = event.promptPreview;
				if (event.model !== undefined) record.data.model = event.model;
				record.data.queuedAt ??= event.time;
				this.changed(record);
				return;
			}
			case "agent_started": {
				const record = this.callFor(event, event.time);
				record.data.attempt = event.attempt;
				record.data.startedAt ??= event.time;
				this.lastStarted = record;
				this.setStatus(record, "running", event.time);
				return;
			}
			case "agent_retry": {
				const record = this.callFor(event, event.time);
				record.data.attempt = event.attempt;
				record.data.activityText = this.cap(`retrying: ${event.reason}`);
				this.setStatus(record, "running", event.time);
				return;
			}
			case "agent_child":
				this.child(event.child, event, event.time);
				return;
			case "agent_finished": {
				const record = this.callFor(event, event.time);
				const data = record.data;
				if (event.agentId !== undefined) data.agentId = event.agentId;
				data.resultPreview = this.cap(event.resultPreview);
				data.attempt = event.attempts;
				data.activity = "finished";
				delete data.activityText;
				this.settle(record, "completed", event.time, event.durationMs, event.usage?.total, event.toolUses);
				return;
			}
			case "agent_failed": {
				const record = this.callFor(event, event.time);
				const data = record.data;
				if (event.agentId !== undefined) data.agentId = event.agentId;
				data.error = this.cap(event.error);
				if (event.code !== undefined) data.code = event.code;
				if (event.skipped) data.skipped = true;
				if (event.thrown) data.thrown = true;
				const stopped = event.code === "cancelled" || data.activity === "stopped";
				delete data.activityText;
				this.settle(
					record,
					stopped ? "stopped" : "failed",
					event.time,
					event.durationMs,
					event.usage?.total,
					event.toolUses,
				);
				this.addFailure({
					kind: "agent",
					index: event.index,
					key: event.key,
					label: event.label,
					agentType: event.agentType,
					...(event.phase !== undefined ? { phase: event.phase } : {}),
					cause: event.error,
					...(event.code !== undefined ? { code: event.code } : {}),
				});
				return;
			}
			case "slot_failed":
				this.addFailure({
					kind: event.kind,
					index: event.index,
					...(event.phase !== undefined ? { phase: event.phase } : {}),
					cause: event.error,
				});
				return;
			case "run_end":
				this.end({
					status: event.status,
					time: event.time,
					...(event.result !== undefined ? { result: event.result } : {}),
					...(event.error !== undefined ? { error: event.error } : {}),
					failures: event.failures,
					tokens: event.usage.total,
				});
				return;
		}
	}

	/** A child report, from the runner directly or forwarded in an `agent_child` event (`ref` then names the call). */
	child(child: WorkflowAgentChild, ref: WorkflowAgentCallRef | undefined, time: number | undefined): void {
		if (time !== undefined) this.touch(time);
		else this.cached = undefined;
		const snapshot = { ...child };
		let pos = this.agentPositions.get(child.id);
		if (pos === undefined) {
			pos = this.agentPositions.size;
			this.agentPositions.set(child.id, pos);
		}
		this.dirtyAgents.set(pos, snapshot);

		const key = ref?.key ?? child.callKey;
		if (key === undefined) return;
		const record = this.callFor(
			ref ?? { key, index: child.callIndex ?? -1, label: child.description, agentType: child.type },
			time ?? child.startedAt ?? this.updatedAt,
		);
		const data = record.data;
		data.agentId = child.id;
		data.activity = child.status;
		if (child.activity !== undefined) data.activityText = this.cap(child.activity);
		if (child.turns !== undefined) data.turns = child.turns;
		if (child.model !== undefined) data.model ??= child.model;
		if (child.lastActivityAt !== undefined) data.lastActivityAt = child.lastActivityAt;
		if (child.startedAt !== undefined) data.startedAt ??= child.startedAt;
		if (isTerminal(data.status)) {
			this.changed(record);
			return;
		}
		// Live numbers only while the call runs; its end event carries the final ones.
		this.setUsage(record, child.tokens, child.toolUses);
		if (record.data.status === "queued" && ACTIVE_CHILD.has(child.status)) {
			this.setStatus(record, "running", time ?? this.updatedAt);
		} else {
			this.changed(record);
		}
	}

	end(ending: RunEnding): void {
		this.cached = undefined;
		this.ended = true;
		this.status = ending.status;
		this.endedAt ??= Math.max(ending.time, this.startedAt);
		this.updatedAt = Math.max(this.updatedAt, this.endedAt);
		if ("result" in ending) {
			this.result = ending.result;
			this.hasResult = ending.result !== undefined;
		}
		if (ending.error) this.error = toEnvelopeError(ending.error);
		if (ending.failures) {
			this.failures = [...ending.failures];
			this.failuresSnapshot = undefined;
		}
		if (ending.tokens !== undefined) this.tokens = Math.max(this.tokens, ending.tokens);
		const time = this.endedAt;
		// Calls the runtime never settled (a host that stopped forwarding events): they did not finish.
		for (const record of [...this.activeCalls]) {
			record.data.error ??= "The workflow ended before this call finished";
			const elapsed = record.data.startedAt !== undefined ? time - record.data.startedAt : undefined;
			this.settle(record, "stopped", time, elapsed, undefined, undefined);
		}
		this.phases.finish(time, ending.status !== "completed");
	}

	envelope(): WorkflowProgressEnvelope {
		if (this.cached) return this.cached;
		const envelope: WorkflowProgressEnvelope = {
			...(this.meta ? { meta: this.meta } : {}),
			status: this.status,
			phases: this.phases.snapshot(this.updatedAt),
			logs: this.logs.snapshot(),
			droppedLogs: this.logs.dropped,
			agents: this.agentList(),
			agentCalls: this.callList(),
			...(this.currentPhase !== undefined ? { currentPhase: this.currentPhase } : {}),
			...(this.currentTask() !== undefined ? { currentTask: this.currentTask() } : {}),
			startedAt: this.startedAt,
			...(this.endedAt !== undefined ? { endedAt: this.endedAt } : {}),
			updatedAt: this.updatedAt,
			duration: Math.max(0, (this.endedAt ?? this.updatedAt) - this.startedAt),
			...(this.hasResult ? { result: this.result } : {}),
			...(this.error ? { error: this.error } : {}),
			totals: { agents: { ...this.totals }, tokens: this.tokens, toolUses: this.toolUses },
			failures: this.failureList(),
		};
		this.cached = envelope;
		return envelope;
	}

	private setMeta(meta: WorkflowMeta): void {
		this.meta = meta;
		this.phases.declare(meta.phases ?? []);
	}

	private touch(time: number): void {
		this.cached = undefined;
		if (time > this.updatedAt) this.updatedAt = time;
	}

	private cap(text: string): string {
		return text.length > this.maxPreviewChars ? `${text.slice(0, this.maxPreviewChars - 1)}…` : text;
	}

	/** The record of a call, created on first sight (out-of-order reports included) and kept in step with `ref`. */
	private callFor(ref: WorkflowAgentCallRef, time: number): CallRecord {
		let record = this.calls.get(ref.key);
		if (!record) {
			record = {
				data: {
					key: ref.key,
					index: ref.index,
					label: ref.label,
					agentType: ref.agentType,
					status: "queued",
					attempt: 1,
				},
				pos: this.calls.size,
				tokens: 0,
				toolUses: 0,
			};
			this.calls.set(ref.key, record);
			this.activeCalls.add(record);
		}
		const data = record.data;
		// A placeholder made from a child report learns the call's real identity from the call's own events.
		if (ref.index >= 0) data.index = ref.index;
		data.label = ref.label;
		data.agentType = ref.agentType;
		if (ref.workflow !== undefined) data.workflow = ref.workflow;
		if (ref.phase !== undefined) data.phase = ref.phase;
		this.count(record, time);
		return record;
	}

	private setStatus(record: CallRecord, status: WorkflowAgentCallStatus, time: number): void {
		// Only forward: a late or repeated report never reopens a finished call.
		if (isTerminal(record.data.status)) {
			this.changed(record);
			return;
		}
		record.data.status = status;
		if (status === "running") {
			this.runningCalls.add(record);
			record.data.startedAt ??= time;
		}
		this.count(record, time);
		this.changed(record);
	}

	private settle(
		record: CallRecord,
		status: WorkflowAgentCallStatus,
		time: number,
		elapsedMs: number | undefined,
		tokens: number | undefined,
		toolUses: number | undefined,
	): void {
		if (isTerminal(record.data.status)) {
			this.changed(record);
			return;
		}
		const data = record.data;
		data.status = status;
		data.endedAt = time;
		// A call that never started (cancelled while queued, refused) has no running time, not a zero one.
		if (elapsedMs !== undefined && (elapsedMs > 0 || data.startedAt !== undefined)) data.elapsedMs = elapsedMs;
		else if (data.startedAt !== undefined) data.elapsedMs = Math.max(0, time - data.startedAt);
		this.setUsage(record, tokens ?? record.tokens, toolUses ?? record.toolUses);
		this.activeCalls.delete(record);
		this.runningCalls.delete(record);
		if (this.lastStarted === record) this.lastStarted = undefined;
		this.count(record, time);
		this.changed(record);
	}

	private setUsage(record: CallRecord, tokens: number | undefined, toolUses: number | undefined): void {
		if (tokens !== undefined) {
			this.tokens += tokens - record.tokens;
			record.tokens = tokens;
			record.data.tokens = tokens;
		}
		if (toolUses !== undefined) {
			this.toolUses += toolUses - record.toolUses;
			record.toolUses = toolUses;
			record.data.toolUses = toolUses;
		}
	}

	/** Moves the call's contribution to the counters of its current status and phase. */
	private count(record: CallRecord, time: number): void {
		const { status, phase } = record.data;
		const before = record.counted;
		if (before && before.status === status && before.phase === phase) return;
		if (before) this.totals[before.status]--;
		else this.totals.total++;
		this.totals[status]++;
		this.phases.move(before, { status, phase }, time);
		record.counted = { status, phase };
	}

	private changed(record: CallRecord): void {
		this.cached = undefined;
		this.dirtyCalls.add(record);
	}

	private addFailure(failure: WorkflowFailure): void {
		this.failures.push(failure);
		this.failuresSnapshot = undefined;
	}

	private currentTask(): string | undefined {
		const record = this.lastStarted ?? this.runningCalls.values().next().value;
		return record?.data.label;
	}

	private callList(): WorkflowProgressAgentCall[] {
		const clocksMoved = this.runningCalls.size > 0 && this.snapshotsAt !== this.updatedAt;
		if (this.dirtyCalls.size === 0 && !clocksMoved) return this.callSnapshots;
		const list = this.callSnapshots.slice();
		const snap = (record: CallRecord) => {
			const data = record.data;
			const { startedAt } = data;
			list[record.pos] =
				data.status === "running" && startedAt !== undefined
					? { ...data, elapsedMs: Math.max(0, this.updatedAt - startedAt) }
					: { ...data };
		};
		for (const record of this.dirtyCalls) snap(record);
		if (clocksMoved) for (const record of this.runningCalls) snap(record);
		this.dirtyCalls.clear();
		this.snapshotsAt = this.updatedAt;
		this.callSnapshots = list;
		return list;
	}

	private agentList(): WorkflowAgentChild[] {
		if (this.dirtyAgents.size === 0) return this.agentSnapshots;
		const list = this.agentSnapshots.slice();
		for (const [pos, child] of this.dirtyAgents) list[pos] = child;
		this.dirtyAgents.clear();
		this.agentSnapshots = list;
		return list;
	}

	private failureList(): WorkflowFailure[] {
		this.failuresSnapshot ??= this.failures.slice();
		return this.failuresSnapshot;
	}
}

function isTerminal(status: WorkflowAgentCallStatus): boolean {
	return status === "completed" || status === "failed" || status === "stopped";
}

function toEnvelopeError(error: SerializedWorkflowError | WorkflowProgressError): WorkflowProgressError {
	return {
		message: error.message,
		...(error.code !== undefined ? { code: error.code } : {}),
		...(error.line !== undefined ? { line: error.line } : {}),
		...(error.column !== undefined ? { column: error.column } : {}),
	};
}
