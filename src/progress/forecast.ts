/**
 * Progress against a run's plan, as pure functions: the calls expected (the plan's, grown when the run makes more),
 * time left from earlier runs' call durations and concurrency, and which calls run slower than usual. No clock and
 * no I/O: the tracker hands in what it folded, the host the plan and the history (src/runs/timing-history.ts).
 */
import type { CallTiming, PhaseTiming, ProgressTiming, RunTiming } from "../runtime/core/timing.ts";

export type { CallTiming, PhaseTiming, ProgressTiming, RunTiming };

/** Planned calls alike (a dry run's, grouped): the phase they are made in (absent: outside any), label, agent, model. */
export interface ProgressPlannedCalls {
	phase?: string;
	label: string;
	agentType: string;
	model?: string;
	count: number;
}

/** What the tracker measures progress against: a dry run's planned calls. */
export interface ProgressPlan {
	calls: ProgressPlannedCalls[];
}

/** Where a duration came from: this workflow's earlier runs, the project's (same agent type and model), or nowhere. */
export type TimingBasis = "workflow" | "project" | "none";

/** Default: a call or run over this multiple of its history's median is marked slower than usual. */
export const DEFAULT_SLOW_MULTIPLE = 5;

/** The middle value (the mean of the two middle ones for an even count); undefined for none. */
export function median(values: readonly number[]): number | undefined {
	if (values.length === 0) return undefined;
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[mid] : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** A call as the forecast sees it. */
export interface ForecastCall {
	phase?: string;
	label: string;
	agentType: string;
	model?: string;
}

/**
 * The usual duration of a call like `call`: the median of this workflow's earlier calls of the same phase and label
 * (else the same label), else of the project's calls of the same agent type and model (else agent type); none else.
 */
export function usualDuration(
	call: ForecastCall,
	workflow: string | undefined,
	timing: ProgressTiming,
): { ms: number; basis: Exclude<TimingBasis, "none"> } | undefined {
	const own = workflow !== undefined ? timing.calls.filter((c) => c.workflow === workflow) : [];
	const tries: [CallTiming[], Exclude<TimingBasis, "none">][] = [
		[own.filter((c) => c.label === call.label && c.phase === call.phase), "workflow"],
		[own.filter((c) => c.label === call.label), "workflow"],
		[timing.calls.filter((c) => c.agentType === call.agentType && c.model === call.model), "project"],
		[timing.calls.filter((c) => c.agentType === call.agentType), "project"],
	];
	for (const [samples, basis] of tries) {
		const ms = median(samples.map((c) => c.durationMs));
		if (ms !== undefined) return { ms, basis };
	}
	return undefined;
}

/** A usual duration and where it came from. */
export type UsualDuration = { ms: number; basis: Exclude<TimingBasis, "none"> };

/**
 * The history indexed for one workflow: `usualDuration` and `usualConcurrency` answered from samples grouped once,
 * and each answer kept. A big run asks about a thousand kinds of call (a label per item) and the history may hold
 * as many calls: filtering it for each would cost their product.
 */
export class TimingIndex {
	private readonly timing: ProgressTiming;
	private readonly workflow: string | undefined;
	/** Median durations by this workflow's label and phase, by its label, by agent type and model, by agent type. */
	private readonly ownByPhase: Map<string, number>;
	private readonly ownByLabel: Map<string, number>;
	private readonly byModel: Map<string, number>;
	private readonly byType: Map<string, number>;
	private readonly usual = new Map<string, UsualDuration | undefined>();
	private readonly concurrency = new Map<string | undefined, number>();

	constructor(timing: ProgressTiming, workflow: string | undefined) {
		this.timing = timing;
		this.workflow = workflow;
		const ownByPhase = new Map<string, number[]>();
		const ownByLabel = new Map<string, number[]>();
		const byModel = new Map<string, number[]>();
		const byType = new Map<string, number[]>();
		const push = (map: Map<string, number[]>, key: string, ms: number) => {
			const found = map.get(key);
			if (found) found.push(ms);
			else map.set(key, [ms]);
		};
		for (const call of timing.calls) {
			if (workflow !== undefined && call.workflow === workflow) {
				push(ownByPhase, kindKey(call.label, call.phase), call.durationMs);
				push(ownByLabel, call.label, call.durationMs);
			}
			push(byModel, kindKey(call.agentType, call.model), call.durationMs);
			push(byType, call.agentType, call.durationMs);
		}
		// Each group's median once: many kinds share a group (every label of one agent type without its own history).
		this.ownByPhase = medians(ownByPhase);
		this.ownByLabel = medians(ownByLabel);
		this.byModel = medians(byModel);
		this.byType = medians(byType);
	}

	/** `usualDuration(call, workflow, timing)`. */
	usualOf(call: ForecastCall): UsualDuration | undefined {
		const key = `${kindKey(call.label, call.phase)}\u0000${kindKey(call.agentType, call.model)}`;
		if (this.usual.has(key)) return this.usual.get(key);
		const ms =
			this.ownByPhase.get(kindKey(call.label, call.phase)) ??
			this.ownByLabel.get(call.label) ??
			this.byModel.get(kindKey(call.agentType, call.model)) ??
			this.byType.get(call.agentType);
		const basis =
			this.ownByPhase.has(kindKey(call.label, call.phase)) || this.ownByLabel.has(call.label)
				? "workflow"
				: "project";
		const found: UsualDuration | undefined = ms === undefined ? undefined : { ms, basis };
		this.usual.set(key, found);
		return found;
	}

	/** `usualConcurrency(phase, workflow, timing)`. */
	concurrencyOf(phase: string | undefined): number {
		let found = this.concurrency.get(phase);
		if (found === undefined) {
			found = usualConcurrency(phase, this.workflow, this.timing);
			this.concurrency.set(phase, found);
		}
		return found;
	}
}

function medians(groups: Map<string, number[]>): Map<string, number> {
	const out = new Map<string, number>();
	for (const [key, samples] of groups) out.set(key, median(samples) ?? 0);
	return out;
}

/** A name and a qualifier that may be absent (absent is not the empty string), as one map key. */
function kindKey(name: string, qualifier: string | undefined): string {
	return qualifier === undefined ? `${name}\u0001` : `${name}\u0002${qualifier}`;
}

/** How many calls of `phase` ran at once in earlier runs: this workflow's median, else the project's, else 1. */
export function usualConcurrency(
	phase: string | undefined,
	workflow: string | undefined,
	timing: ProgressTiming,
): number {
	const own = timing.phases.filter((p) => workflow !== undefined && p.workflow === workflow && p.phase === phase);
	const found = median(own.map((p) => p.concurrency)) ?? median(timing.phases.map((p) => p.concurrency));
	return found !== undefined && found >= 1 ? found : 1;
}

/** A call of the run being forecast: what it is and how far it got. */
export interface RunCall extends ForecastCall {
	status: "queued" | "running" | "completed" | "failed" | "stopped";
	/** Running time so far (running calls). */
	elapsedMs?: number;
}

/** Expected and done calls of one phase, and its time left. */
export interface PhaseForecast {
	phase?: string;
	done: number;
	expected: number;
	remainingMs: number | null;
	basis: TimingBasis;
}

/** Expected and done calls of a run, per phase and in all, and its time left. */
export interface RunForecast {
	done: number;
	expected: number;
	/** True once the run made more calls than its plan: `expected` grew with them. */
	grown: boolean;
	remainingMs: number | null;
	basis: TimingBasis;
	phases: PhaseForecast[];
}

interface PhaseGroup {
	phase?: string;
	planned: ProgressPlannedCalls[];
	seen: RunCall[];
}

/**
 * Forecasts one run from scratch: its plan, its workflow's name and the history, over the run's calls as they are
 * now. The tracker keeps the same forecast's inputs up to date as events arrive instead (forecast-tally.ts, with a
 * `TimingIndex`); this is the definition its tests hold it to.
 */
export class Forecaster {
	readonly plan: ProgressPlan | undefined;
	readonly timing: ProgressTiming | undefined;
	readonly workflow: string | undefined;
	private readonly usual = new Map<string, { ms: number; basis: Exclude<TimingBasis, "none"> } | undefined>();
	private readonly concurrency = new Map<string, number>();

	constructor(plan: ProgressPlan | undefined, timing: ProgressTiming | undefined, workflow: string | undefined) {
		this.plan = plan;
		this.timing = timing;
		this.workflow = workflow;
	}

	/** `usualDuration` of `call`, remembered for its kind (phase, label, agent type and model). */
	private usualOf(call: ForecastCall): { ms: number; basis: Exclude<TimingBasis, "none"> } | undefined {
		if (!this.timing) return undefined;
		const key = `${call.phase ?? ""}\u0000${call.label}\u0000${call.agentType}\u0000${call.model ?? ""}`;
		if (!this.usual.has(key)) this.usual.set(key, usualDuration(call, this.workflow, this.timing));
		return this.usual.get(key);
	}

	/**
	 * The run's calls against its plan: per phase, the calls expected are the plan's for each label, or as many as
	 * the run made when it made more; time left is each phase's remaining work (unstarted calls' usual durations,
	 * running calls' usual durations less their time so far, never below zero) over its usual concurrency, the phases
	 * one after another. Null when some remaining call has no usual duration or there is no plan ("not known yet").
	 */
	forecast(calls: readonly RunCall[]): RunForecast {
		const groups = new Map<string, PhaseGroup>();
		const group = (phase: string | undefined) => {
			const key = phase ?? "";
			let found = groups.get(key);
			if (!found) {
				found = { ...(phase !== undefined ? { phase } : {}), planned: [], seen: [] };
				groups.set(key, found);
			}
			return found;
		};
		for (const planned of this.plan?.calls ?? []) group(planned.phase).planned.push(planned);
		for (const call of calls) group(call.phase).seen.push(call);
		const phases = [...groups.values()].map((g) => this.forecastPhase(g));
		const done = phases.reduce((sum, p) => sum + p.done, 0);
		const expected = phases.reduce((sum, p) => sum + p.expected, 0);
		const planned = (this.plan?.calls ?? []).reduce((sum, c) => sum + c.count, 0);
		const unknown = phases.some((p) => p.remainingMs === null);
		const bases = phases.filter((p) => p.expected > p.done).map((p) => p.basis);
		return {
			done,
			expected,
			grown: this.plan !== undefined && expected > planned,
			remainingMs: unknown ? null : phases.reduce((sum, p) => sum + (p.remainingMs ?? 0), 0),
			basis: unknown ? "none" : bases.includes("project") ? "project" : "workflow",
			phases,
		};
	}

	private forecastPhase(group: PhaseGroup): PhaseForecast {
		let done = 0;
		const made = new Map<string, number>();
		for (const call of group.seen) {
			if (call.status !== "queued" && call.status !== "running") done++;
			made.set(call.label, (made.get(call.label) ?? 0) + 1);
		}
		// Per label: the plan's count, or the run's when it made more of that label.
		const left: { call: ForecastCall; count: number }[] = [];
		let expected = group.seen.length;
		for (const planned of group.planned) {
			// Calls of a label the run made are taken off its planned groups in plan order.
			const taken = Math.min(planned.count, made.get(planned.label) ?? 0);
			made.set(planned.label, (made.get(planned.label) ?? 0) - taken);
			expected += planned.count - taken;
			if (planned.count > taken) left.push({ call: planned, count: planned.count - taken });
		}
		const base = { ...(group.phase !== undefined ? { phase: group.phase } : {}), done, expected };
		if (!this.plan || !this.timing) return { ...base, remainingMs: null, basis: "none" };
		let work = 0;
		let longest = 0;
		let basis: TimingBasis = "workflow";
		// False when a call still to run has no usual duration: then time left is not known.
		const add = (call: ForecastCall, count: number, elapsedMs: number): boolean => {
			const usual = this.usualOf(call);
			if (!usual) return false;
			if (usual.basis === "project") basis = "project";
			const rest = Math.max(0, usual.ms - elapsedMs);
			work += rest * count;
			longest = Math.max(longest, rest);
			return true;
		};
		for (const { call, count } of left)
			if (!add(call, count, 0)) return { ...base, remainingMs: null, basis: "none" };
		for (const call of group.seen) {
			if (call.status !== "queued" && call.status !== "running") continue;
			if (!add(call, 1, call.elapsedMs ?? 0)) return { ...base, remainingMs: null, basis: "none" };
		}
		// Calls at once cannot finish sooner than the longest of them.
		const remainingMs = Math.round(Math.max(work / this.concurrencyOf(group.phase), longest));
		return { ...base, remainingMs, basis };
	}

	private concurrencyOf(phase: string | undefined): number {
		const key = phase ?? "";
		let found = this.concurrency.get(key);
		if (found === undefined && this.timing) {
			found = usualConcurrency(phase, this.workflow, this.timing);
			this.concurrency.set(key, found);
		}
		return found ?? 1;
	}
}

/**
 * The fraction shown, which never goes backwards: `done / expected`, or the last one shown while the expected total
 * grew faster than the work (it holds until the work catches up).
 */
export function heldFraction(done: number, expected: number, shown: number): number {
	const now = expected > 0 ? Math.min(1, done / expected) : 0;
	return Math.max(now, shown);
}

/** A call or run past `multiple` × its usual duration: how long it has taken and how long it usually takes. */
export interface SlowMark {
	elapsedMs: number;
	usualMs: number;
}

/** The slow mark of something running `elapsedMs` that usually takes `usualMs`; undefined when it is not slow. */
export function slowMark(elapsedMs: number, usualMs: number | undefined, multiple: number): SlowMark | undefined {
	if (usualMs === undefined || usualMs <= 0) return undefined;
	return elapsedMs > multiple * usualMs ? { elapsedMs, usualMs } : undefined;
}

/** The median wall time of this workflow's earlier completed runs. */
export function usualRunDuration(workflow: string | undefined, timing: ProgressTiming): number | undefined {
	if (workflow === undefined) return undefined;
	return median(timing.runs.filter((r) => r.workflow === workflow).map((r) => r.durationMs));
}
