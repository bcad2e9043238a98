/**
 * The `agent()` calls of a run for the tracker: one working record per call key, counters by status (overall and
 * per phase) that move as a call changes, and copy-on-write snapshots so an envelope only rebuilds what changed.
 */
import type { WorkflowAgentCallRef } from "../runtime/core/events.ts";
import type { WorkflowCost } from "../runtime/core/types.ts";
import { addCosts } from "./cost-text.ts";
import type { WorkflowAgentCallStatus, WorkflowAgentStateCounts, WorkflowProgressAgentCall } from "./envelope.ts";
import { emptyCounts, type PhaseBook, type PhaseSlot } from "./phase-book.ts";

/** The tracker's working copy of one call. */
export interface CallRecord {
	/** Working copy; snapshots are taken from it. */
	data: WorkflowProgressAgentCall;
	/** Position in `agentCalls`. */
	pos: number;
	/** Where the call is counted now, so a change can move it. */
	counted?: PhaseSlot;
	tokens: number;
	toolUses: number;
	/** What it cost in this run, and the phase that cost is counted in. */
	cost?: WorkflowCost;
	costPhase?: string;
}

/** How a call ended. */
export interface CallEnding {
	status: WorkflowAgentCallStatus;
	time: number;
	elapsedMs?: number;
	tokens?: number;
	toolUses?: number;
	cost?: WorkflowCost;
	/** A replayed call's cost when it ran (saved by this run). */
	savedCost?: WorkflowCost;
}

/** What sees each call's snapshot as the book takes it, and gives back the one to keep (the forecast's marks). */
export interface CallSnapshotWatcher {
	snapped(call: WorkflowProgressAgentCall): WorkflowProgressAgentCall;
}

/** True for completed, failed and stopped. */
export function isTerminal(status: WorkflowAgentCallStatus): boolean {
	return status === "completed" || status === "failed" || status === "stopped";
}

/** The calls of one run. */
export class CallBook {
	readonly totals: WorkflowAgentStateCounts = emptyCounts();
	tokens = 0;
	toolUses = 0;
	/** What this run's calls cost, and what replayed ones cost when they ran. */
	cost: WorkflowCost = { usd: 0 };
	replayedCost: WorkflowCost | undefined;
	/** Completed calls whose answer came from the journal. */
	replayed = 0;
	private readonly phases: PhaseBook;
	private readonly records = new Map<string, CallRecord>();
	private readonly dirty = new Set<CallRecord>();
	/** Queued or running calls: the ones a run's end must settle. */
	private readonly active = new Set<CallRecord>();
	private readonly running = new Set<CallRecord>();
	private lastStarted: CallRecord | undefined;
	private snapshots: WorkflowProgressAgentCall[] = [];
	/** The "as of" time of the running calls' elapsed times in `snapshots`. */
	private snapshotsAt = Number.NaN;
	private watcher: CallSnapshotWatcher | undefined;

	constructor(phases: PhaseBook) {
		this.phases = phases;
	}

	/** The record of a call, created on first sight (out-of-order reports included) and kept in step with `ref`. */
	get(ref: WorkflowAgentCallRef, time: number): CallRecord {
		let record = this.records.get(ref.key);
		if (!record) {
			const data: WorkflowProgressAgentCall = {
				key: ref.key,
				index: ref.index,
				label: ref.label,
				agentType: ref.agentType,
				status: "queued",
				attempt: 1,
			};
			record = { data, pos: this.records.size, tokens: 0, toolUses: 0 };
			this.records.set(ref.key, record);
			this.active.add(record);
		}
		const data = record.data;
		// A placeholder made from a child report learns the call's real identity from the call's own events.
		if (ref.index >= 0) data.index = ref.index;
		data.label = ref.label;
		data.agentType = ref.agentType;
		if (ref.workflow !== undefined) data.workflow = ref.workflow;
		if (ref.phase !== undefined) data.phase = ref.phase;
		if (ref.continues !== undefined) data.continues = { ...ref.continues };
		this.count(record, time);
		this.dirty.add(record);
		return record;
	}

	/** Marks a record's data as changed, so the next snapshot copies it. */
	touched(record: CallRecord): void {
		this.dirty.add(record);
	}

	/** Moves a call forward to queued or running; a finished call never reopens. */
	setStatus(record: CallRecord, status: "queued" | "running", time: number): void {
		this.dirty.add(record);
		if (isTerminal(record.data.status)) return;
		record.data.status = status;
		if (status === "running") {
			this.running.add(record);
			record.data.startedAt ??= time;
			this.lastStarted = record;
		}
		this.count(record, time);
	}

	/** Ends a call (once; later endings are ignored). */
	settle(record: CallRecord, ending: CallEnding): void {
		this.dirty.add(record);
		const data = record.data;
		if (isTerminal(data.status)) return;
		data.status = ending.status;
		data.endedAt = ending.time;
		if (data.cached && ending.status === "completed") this.replayed++;
		const { elapsedMs } = ending;
		// A call that never started (cancelled while queued, refused) has no running time, not a zero one.
		if (elapsedMs !== undefined && (elapsedMs > 0 || data.startedAt !== undefined)) data.elapsedMs = elapsedMs;
		else if (data.startedAt !== undefined) data.elapsedMs = Math.max(0, ending.time - data.startedAt);
		this.setUsage(record, ending.tokens ?? record.tokens, ending.toolUses ?? record.toolUses);
		if (ending.cost !== undefined) this.setCost(record, ending.cost);
		if (ending.savedCost !== undefined) {
			data.savedCost = ending.savedCost;
			this.replayedCost = addCosts(this.replayedCost, ending.savedCost);
		}
		this.active.delete(record);
		this.running.delete(record);
		if (this.lastStarted === record) this.lastStarted = undefined;
		this.count(record, ending.time);
	}

	/** Ends every call still queued or running as stopped (the run ended without settling them). */
	settleAll(time: number, error: string): void {
		for (const record of [...this.active]) {
			record.data.error ??= error;
			this.settle(record, { status: "stopped", time });
		}
	}

	/** Sets a call's token and tool-use numbers, moving the totals by the difference. */
	setUsage(record: CallRecord, tokens: number | undefined, toolUses: number | undefined): void {
		this.dirty.add(record);
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

	/** Sets what a call cost so far, moving the run's and its phase's totals by the difference. */
	setCost(record: CallRecord, cost: WorkflowCost): void {
		this.dirty.add(record);
		const before = record.cost;
		this.cost = addCosts(addCosts(this.cost, before, -1), cost);
		this.phases.addCost(record.costPhase, before, -1);
		this.phases.addCost(record.data.phase, cost, 1);
		record.cost = cost;
		record.costPhase = record.data.phase;
		record.data.cost = cost;
	}

	/** From now on `watcher` sees every snapshot taken, starting with every call's at the next `list`. */
	watch(watcher: CallSnapshotWatcher): void {
		this.watcher = watcher;
		for (const record of this.records.values()) this.dirty.add(record);
	}

	/** Label of the call that started most recently and still runs (else any running one). */
	currentTask(): string | undefined {
		return (this.lastStarted ?? this.running.values().next().value)?.data.label;
	}

	/** The calls as snapshots, copying only changed ones and refreshing running ones' elapsed time as of `now`. */
	list(now: number): WorkflowProgressAgentCall[] {
		const clocksMoved = this.running.size > 0 && this.snapshotsAt !== now;
		if (this.dirty.size === 0 && !clocksMoved) return this.snapshots;
		const list = this.snapshots.slice();
		const snap = (record: CallRecord) => {
			const data = record.data;
			const { startedAt } = data;
			const snapshot =
				data.status === "running" && startedAt !== undefined
					? { ...data, elapsedMs: Math.max(0, now - startedAt) }
					: { ...data };
			list[record.pos] = this.watcher ? this.watcher.snapped(snapshot) : snapshot;
		};
		for (const record of this.dirty) snap(record);
		if (clocksMoved) for (const record of this.running) snap(record);
		this.dirty.clear();
		this.snapshotsAt = now;
		this.snapshots = list;
		return list;
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
		// A call first seen without its phase (a bare child report) moves its cost there once the phase is known.
		if (record.cost && record.costPhase !== phase) this.setCost(record, record.cost);
	}
}
