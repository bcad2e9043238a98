/**
 * The forecast's inputs, kept up to date as the run's calls change: per phase, the calls seen and done, how many of
 * each label the run made against the plan's, the work still to start (planned calls not made yet, queued calls) and
 * the running calls, whose time so far moves with the clock. A forecast then costs the phases and the running calls,
 * not a walk over the run: the tracker makes one per event, and a big run has thousands of calls.
 * It answers as `Forecaster.forecast` (forecast.ts) would over the same calls.
 */
import type { PhaseForecast, ProgressPlan, RunCall, RunForecast, TimingIndex, UsualDuration } from "./forecast.ts";

/** How many calls the forecast has read, in all: tests read it to show an envelope's cost does not grow with the run. */
export const forecastReads = { calls: 0 };

type Usual = UsualDuration | undefined;

/** One call as counted now: where, and what it adds. */
interface Counted {
	phase: PhaseTally;
	label: string;
	agentType: string;
	model: string | undefined;
	status: RunCall["status"];
	usual: Usual;
	/** The call's latest snapshot: a running call's time so far is read from it. */
	call: RunCall;
}

/** What one label's planned calls not made yet add to their phase's work still to start. */
interface PlannedLeft {
	count: number;
	work: number;
	unknown: number;
	project: number;
	longest: number[];
}

const NOTHING_LEFT: PlannedLeft = { count: 0, work: 0, unknown: 0, project: 0, longest: [] };

/** A label of one phase: the plan's groups of it (in plan order) and how many of it the run made. */
interface LabelTally {
	groups: { count: number; usual: Usual }[];
	made: number;
	left: PlannedLeft;
}

/** One phase's counts and the work still to start in it. */
interface PhaseTally {
	phase?: string;
	planned: boolean;
	seen: number;
	done: number;
	labels: Map<string, LabelTally>;
	/** Planned calls not made yet, over all labels. */
	plannedLeft: number;
	/** Work still to start (ms) and its longest piece: planned calls not made yet and queued calls. */
	work: number;
	longest: MaxBag;
	/** Calls still to start or running with no usual duration (time left is then not known), or the project's. */
	unknown: number;
	project: number;
	running: Set<Counted>;
}

/** The forecast of one run, kept as its calls' snapshots arrive. */
export class ForecastTally {
	private readonly plan: ProgressPlan | undefined;
	/** The history, indexed; undefined without one (then time left is not known). */
	private readonly timing: TimingIndex | undefined;
	private readonly phases = new Map<string, PhaseTally>();
	private readonly byKey = new Map<string, Counted>();
	private readonly plannedTotal: number;

	constructor(plan: ProgressPlan | undefined, timing: TimingIndex | undefined) {
		this.plan = plan;
		this.timing = timing;
		let total = 0;
		for (const planned of plan?.calls ?? []) {
			const phase = this.phaseOf(planned.phase);
			phase.planned = true;
			this.label(phase, planned.label).groups.push({ count: planned.count, usual: timing?.usualOf(planned) });
			total += planned.count;
		}
		for (const phase of this.phases.values()) for (const label of phase.labels.keys()) this.relabel(phase, label, 0);
		this.plannedTotal = total;
	}

	/** The call `key` as its latest snapshot has it. */
	set(key: string, call: RunCall): void {
		forecastReads.calls++;
		const before = this.byKey.get(key);
		const phase = this.phaseOf(call.phase);
		if (
			before &&
			before.phase === phase &&
			before.label === call.label &&
			before.status === call.status &&
			before.agentType === call.agentType &&
			before.model === call.model
		) {
			// Counted the same (a running call whose clock moved): only its snapshot changes.
			before.call = call;
			return;
		}
		if (before) this.count(before, -1);
		const counted: Counted = {
			phase,
			label: call.label,
			agentType: call.agentType,
			model: call.model,
			status: call.status,
			usual: this.timing?.usualOf(call),
			call,
		};
		this.count(counted, 1);
		this.byKey.set(key, counted);
	}

	/** The run's forecast now: its phases' and in all. */
	forecast(): RunForecast {
		const phases: PhaseForecast[] = [];
		for (const phase of this.phases.values())
			if (phase.planned || phase.seen > 0) phases.push(this.phaseForecast(phase));
		const done = phases.reduce((sum, p) => sum + p.done, 0);
		const expected = phases.reduce((sum, p) => sum + p.expected, 0);
		const unknown = phases.some((p) => p.remainingMs === null);
		const bases = phases.filter((p) => p.expected > p.done).map((p) => p.basis);
		return {
			done,
			expected,
			grown: this.plan !== undefined && expected > this.plannedTotal,
			remainingMs: unknown ? null : phases.reduce((sum, p) => sum + (p.remainingMs ?? 0), 0),
			basis: unknown ? "none" : bases.includes("project") ? "project" : "workflow",
			phases,
		};
	}

	/**
	 * Per label, the plan's count or the run's when it made more; time left is the phase's remaining work (calls
	 * still to start at their usual durations, running ones' usual durations less their time so far, never below
	 * zero) over its usual concurrency, and never less than the longest of them.
	 */
	private phaseForecast(phase: PhaseTally): PhaseForecast {
		const base = {
			...(phase.phase !== undefined ? { phase: phase.phase } : {}),
			done: phase.done,
			expected: phase.seen + phase.plannedLeft,
		};
		if (!this.plan || !this.timing || phase.unknown > 0) return { ...base, remainingMs: null, basis: "none" };
		let work = phase.work;
		let longest = Math.max(0, phase.longest.max() ?? 0);
		for (const counted of phase.running) {
			forecastReads.calls++;
			const rest = Math.max(0, (counted.usual?.ms ?? 0) - (counted.call.elapsedMs ?? 0));
			work += rest;
			longest = Math.max(longest, rest);
		}
		const remainingMs = Math.round(Math.max(work / this.timing.concurrencyOf(phase.phase), longest));
		return { ...base, remainingMs, basis: phase.project > 0 ? "project" : "workflow" };
	}

	/** Adds (`sign` 1) or takes back (-1) what one call counts for. */
	private count(counted: Counted, sign: 1 | -1): void {
		const { phase, status, usual } = counted;
		phase.seen += sign;
		const label = this.label(phase, counted.label);
		this.relabel(phase, counted.label, label.made + sign);
		if (status !== "queued" && status !== "running") {
			phase.done += sign;
			return;
		}
		if (!usual) phase.unknown += sign;
		else if (usual.basis === "project") phase.project += sign;
		if (status === "running") {
			if (sign === 1) phase.running.add(counted);
			else phase.running.delete(counted);
			return;
		}
		if (!usual) return;
		phase.work += sign * usual.ms;
		if (sign === 1) phase.longest.add(usual.ms);
		else phase.longest.remove(usual.ms);
	}

	/** Sets how many calls of `name` the run made in `phase`, moving what its planned calls not made add. */
	private relabel(phase: PhaseTally, name: string, made: number): void {
		const label = this.label(phase, name);
		const before = label.left;
		const after = plannedLeft(label.groups, made);
		label.made = made;
		label.left = after;
		phase.plannedLeft += after.count - before.count;
		phase.work += after.work - before.work;
		phase.unknown += after.unknown - before.unknown;
		phase.project += after.project - before.project;
		// Added before taken back, so an unchanged value stays in the bag.
		for (const ms of after.longest) phase.longest.add(ms);
		for (const ms of before.longest) phase.longest.remove(ms);
	}

	private label(phase: PhaseTally, name: string): LabelTally {
		let found = phase.labels.get(name);
		if (!found) {
			found = { groups: [], made: 0, left: NOTHING_LEFT };
			phase.labels.set(name, found);
		}
		return found;
	}

	private phaseOf(phase: string | undefined): PhaseTally {
		const key = phase ?? "";
		let found = this.phases.get(key);
		if (!found) {
			found = {
				...(phase !== undefined ? { phase } : {}),
				planned: false,
				seen: 0,
				done: 0,
				labels: new Map(),
				plannedLeft: 0,
				work: 0,
				longest: new MaxBag(),
				unknown: 0,
				project: 0,
				running: new Set(),
			};
			this.phases.set(key, found);
		}
		return found;
	}
}

/** The planned calls of one label not made yet: the run's `made` calls take the plan's groups in plan order. */
function plannedLeft(groups: readonly { count: number; usual: Usual }[], made: number): PlannedLeft {
	if (groups.length === 0) return NOTHING_LEFT;
	const left: PlannedLeft = { count: 0, work: 0, unknown: 0, project: 0, longest: [] };
	let rest = made;
	for (const group of groups) {
		const taken = Math.min(group.count, rest);
		rest -= taken;
		const count = group.count - taken;
		if (count === 0) continue;
		left.count += count;
		if (!group.usual) {
			left.unknown++;
			continue;
		}
		if (group.usual.basis === "project") left.project++;
		left.work += group.usual.ms * count;
		left.longest.push(group.usual.ms);
	}
	return left;
}

/**
 * Numbers with repeats and their largest, as they come and go: counts by value, and a heap of values whose stale
 * entries (a value whose count fell to zero) are dropped when they reach the top; rebuilt when stale ones pile up.
 */
class MaxBag {
	private readonly counts = new Map<number, number>();
	private heap: number[] = [];

	add(value: number): void {
		const count = this.counts.get(value) ?? 0;
		this.counts.set(value, count + 1);
		if (count > 0) return;
		this.push(value);
		if (this.heap.length > 2 * this.counts.size + 32) {
			this.heap = [];
			for (const live of this.counts.keys()) this.push(live);
		}
	}

	remove(value: number): void {
		const count = this.counts.get(value) ?? 0;
		if (count <= 1) this.counts.delete(value);
		else this.counts.set(value, count - 1);
	}

	max(): number | undefined {
		while (this.heap.length > 0 && !this.counts.has(this.heap[0] as number)) this.pop();
		return this.heap[0];
	}

	private push(value: number): void {
		const heap = this.heap;
		heap.push(value);
		let at = heap.length - 1;
		while (at > 0) {
			const parent = (at - 1) >> 1;
			if ((heap[parent] as number) >= value) break;
			heap[at] = heap[parent] as number;
			at = parent;
		}
		heap[at] = value;
	}

	private pop(): void {
		const heap = this.heap;
		const last = heap.pop() as number;
		if (heap.length === 0) return;
		let at = 0;
		for (;;) {
			const left = 2 * at + 1;
			if (left >= heap.length) break;
			const right = left + 1;
			const child = right < heap.length && (heap[right] as number) > (heap[left] as number) ? right : left;
			if ((heap[child] as number) <= last) break;
			heap[at] = heap[child] as number;
			at = child;
		}
		heap[at] = last;
	}
}
