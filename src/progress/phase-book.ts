/**
 * The phases of a run for the tracker: declared ones (from `meta.phases`) in their order, then the others as they
 * appear, each with agent counts by status and a clock that starts on first use and freezes when it goes idle.
 */
import type { WorkflowCost, WorkflowPhaseMeta } from "../runtime/core/types.ts";
import { addCosts, hasCost } from "./cost-text.ts";
import type { WorkflowAgentCallStatus, WorkflowAgentStateCounts, WorkflowProgressPhase } from "./envelope.ts";

interface PhaseRecord {
	title: string;
	detail?: string;
	declared: boolean;
	counts: WorkflowAgentStateCounts;
	/** `phase_start`s not yet matched by a `phase_end`. */
	open: number;
	startedAt?: number;
	endedAt?: number;
	/** The run ended unsuccessfully while this phase was still going. */
	cutShort: boolean;
	cost?: WorkflowCost;
	budget?: WorkflowProgressPhase["budget"];
}

/** Where one agent call is counted. */
export interface PhaseSlot {
	phase: string | undefined;
	status: WorkflowAgentCallStatus;
}

/** Zeroed agent counts. */
export function emptyCounts(): WorkflowAgentStateCounts {
	return { queued: 0, running: 0, completed: 0, failed: 0, stopped: 0, total: 0 };
}

/** The phases of one run. */
export class PhaseBook {
	private readonly records = new Map<string, PhaseRecord>();
	/** Declared titles in `meta.phases` order. */
	private declaredOrder: string[] = [];
	/** Every title in order of first sight. */
	private readonly seenOrder: string[] = [];
	private finished = false;

	declare(phases: readonly WorkflowPhaseMeta[]): void {
		this.declaredOrder = [];
		for (const phase of phases) {
			const record = this.get(phase.title);
			record.declared = true;
			if (phase.detail !== undefined) record.detail = phase.detail;
			this.declaredOrder.push(phase.title);
		}
	}

	open(title: string, time: number, budget?: WorkflowProgressPhase["budget"]): void {
		const record = this.get(title);
		record.open++;
		if (budget !== undefined) record.budget = budget;
		this.retime(record, time);
	}

	/** Adds (or, with `sign` -1, takes back) a call's cost in phase `title`. */
	addCost(title: string | undefined, cost: WorkflowCost | undefined, sign: 1 | -1): void {
		if (title === undefined || cost === undefined) return;
		const record = this.get(title);
		record.cost = addCosts(record.cost, cost, sign);
	}

	close(title: string, time: number): void {
		const record = this.records.get(title);
		if (!record) return;
		record.open = Math.max(0, record.open - 1);
		this.retime(record, time);
	}

	/** Moves one call from where it was counted (if anywhere) to `to`. */
	move(from: PhaseSlot | undefined, to: PhaseSlot, time: number): void {
		if (from?.phase !== undefined) {
			const record = this.get(from.phase);
			record.counts[from.status]--;
			if (from.phase !== to.phase) record.counts.total--;
			this.retime(record, time);
		}
		if (to.phase !== undefined) {
			const record = this.get(to.phase);
			record.counts[to.status]++;
			if (from?.phase !== to.phase) record.counts.total++;
			this.retime(record, time);
		}
	}

	/** The run ended: every phase stops its clock; one still going when the run failed is marked failed. */
	finish(time: number, unsuccessful: boolean): void {
		for (const record of this.records.values()) {
			const wasRunning = this.isRunning(record);
			record.open = 0;
			if (wasRunning) {
				record.endedAt = time;
				record.cutShort = unsuccessful;
			}
		}
		this.finished = true;
	}

	snapshot(now: number): WorkflowProgressPhase[] {
		const declared = new Set(this.declaredOrder);
		const titles = [...this.declaredOrder, ...this.seenOrder.filter((title) => !declared.has(title))];
		return titles.map((title) => this.toPhase(this.get(title), now));
	}

	private get(title: string): PhaseRecord {
		let record = this.records.get(title);
		if (!record) {
			record = { title, declared: false, counts: emptyCounts(), open: 0, cutShort: false };
			this.records.set(title, record);
			this.seenOrder.push(title);
		}
		return record;
	}

	private isRunning(record: PhaseRecord): boolean {
		return !this.finished && (record.open > 0 || record.counts.queued + record.counts.running > 0);
	}

	/** Starts the clock on first use, freezes it when the phase goes idle, restarts the freeze if it is re-entered. */
	private retime(record: PhaseRecord, time: number): void {
		if (this.isRunning(record)) {
			record.startedAt ??= time;
			delete record.endedAt;
		} else if (record.startedAt !== undefined) {
			record.endedAt ??= time;
		}
	}

	private toPhase(record: PhaseRecord, now: number): WorkflowProgressPhase {
		const phase: WorkflowProgressPhase = {
			title: record.title,
			declared: record.declared,
			status: this.status(record),
			agents: { ...record.counts },
		};
		if (record.detail !== undefined) phase.detail = record.detail;
		if (hasCost(record.cost)) phase.cost = record.cost;
		if (record.budget !== undefined) phase.budget = record.budget;
		if (record.startedAt !== undefined) {
			phase.startedAt = record.startedAt;
			if (record.endedAt !== undefined) phase.endedAt = record.endedAt;
			phase.elapsedMs = Math.max(0, (record.endedAt ?? now) - record.startedAt);
		}
		return phase;
	}

	private status(record: PhaseRecord): WorkflowProgressPhase["status"] {
		if (this.isRunning(record)) return "running";
		if (record.startedAt === undefined && record.counts.total === 0) return "pending";
		// Stopped calls left the phase's work undone just as failed ones did.
		const { failed, stopped } = record.counts;
		return failed > 0 || stopped > 0 || record.cutShort ? "failed" : "done";
	}
}
