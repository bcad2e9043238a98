/**
 * The tracker's side of the forecast: marks each call's snapshot as the call book takes it (usual duration, slow
 * mark) and counts it in the forecast's tally, adds calls done of expected and time left to each envelope, and keeps
 * the fraction shown so far so that it never goes backwards while the run goes.
 */
import type { CallSnapshotWatcher } from "./call-book.ts";
import type {
	WorkflowPhaseForecast,
	WorkflowProgressAgentCall,
	WorkflowProgressEnvelope,
	WorkflowProgressForecast,
	WorkflowProgressPhase,
} from "./envelope.ts";
import {
	heldFraction,
	type ProgressPlan,
	type ProgressTiming,
	type RunCall,
	type RunForecast,
	slowMark,
	TimingIndex,
	usualRunDuration,
} from "./forecast.ts";
import { ForecastTally } from "./forecast-tally.ts";

/** The forecast of one run, as its envelopes carry it. */
export class ForecastBook implements CallSnapshotWatcher {
	readonly plan: ProgressPlan | undefined;
	readonly timing: ProgressTiming | undefined;
	readonly workflow: string | undefined;
	/** The fraction shown last. */
	shown: number;
	private readonly slowMultiple: number;
	private readonly index: TimingIndex | undefined;
	private readonly tally: ForecastTally;
	private readonly usualRun: number | undefined;
	/** Each call's usual duration by call key, looked up when the call is first seen. */
	private readonly usualByKey = new Map<string, { ms: number } | undefined>();

	constructor(
		plan: ProgressPlan | undefined,
		timing: ProgressTiming | undefined,
		slowMultiple: number,
		shown: number,
		workflow: string | undefined,
	) {
		this.plan = plan;
		this.timing = timing;
		this.slowMultiple = slowMultiple;
		this.shown = shown;
		this.workflow = workflow;
		this.index = timing && new TimingIndex(timing, workflow);
		this.tally = new ForecastTally(plan, this.index);
		this.usualRun = timing && usualRunDuration(workflow, timing);
	}

	/** The same plan, history and fraction shown, for a run whose workflow's name came later (with `run_start`). */
	forWorkflow(workflow: string | undefined): ForecastBook {
		return new ForecastBook(this.plan, this.timing, this.slowMultiple, this.shown, workflow);
	}

	/** A call's new snapshot, with its usual duration and slow mark; the forecast counts it from now on. */
	snapped(call: WorkflowProgressAgentCall): WorkflowProgressAgentCall {
		const marked = this.marked(call);
		this.tally.set(call.key, runCall(marked));
		return marked;
	}

	/** `envelope` (its calls already marked) with its forecast; `running`: the run goes on, else it is final. */
	apply(envelope: WorkflowProgressEnvelope, running: boolean): WorkflowProgressEnvelope {
		const forecast = this.tally.forecast();
		const completed = envelope.status === "completed";
		const fraction = completed ? 1 : heldFraction(forecast.done, forecast.expected, this.shown);
		if (running) this.shown = fraction;
		const slow = running ? slowMark(envelope.duration, this.usualRun, this.slowMultiple) : undefined;
		// Calls outside any phase have no phase row: they count in the run's forecast only.
		const byPhase = new Map(forecast.phases.flatMap((p) => (p.phase !== undefined ? [[p.phase, p] as const] : [])));
		return {
			...envelope,
			phases: envelope.phases.map((phase) => withPhaseForecast(phase, byPhase.get(phase.title))),
			forecast: runForecast(forecast, {
				fraction,
				planned: this.plan !== undefined,
				completed,
				running,
				slow,
				slowMultiple: this.slowMultiple,
			}),
		};
	}

	/** The call with its usual duration and, past the slow multiple of it, its slow mark. */
	private marked(call: WorkflowProgressAgentCall): WorkflowProgressAgentCall {
		if (call.cached || call.skipped) return call;
		if (!this.usualByKey.has(call.key)) this.usualByKey.set(call.key, this.index?.usualOf(call));
		const usual = this.usualByKey.get(call.key);
		if (!usual) return call;
		const slow = slowMark(call.elapsedMs ?? 0, usual.ms, this.slowMultiple);
		return { ...call, usualMs: usual.ms, ...(slow ? { slow } : {}) };
	}
}

/** How the run stands beside its calls' forecast, for the envelope's. */
export interface RunStanding {
	/** Of the run's work, shown: never less than shown before while the run goes. */
	fraction: number;
	/** Whether the expected count comes from a plan (else from the calls seen). */
	planned: boolean;
	completed: boolean;
	running: boolean;
	slow: WorkflowProgressForecast["slow"];
	slowMultiple: number;
}

/** The run's forecast as its envelope carries it: time left only while it runs, none once it ended otherwise. */
export function runForecast(forecast: RunForecast, standing: RunStanding): WorkflowProgressForecast {
	const { completed, running, slow } = standing;
	return {
		done: forecast.done,
		expected: forecast.expected,
		fraction: standing.fraction,
		expectedBasis: standing.planned ? "plan" : "seen",
		grown: forecast.grown,
		remainingMs: completed ? 0 : running ? forecast.remainingMs : null,
		basis: forecast.basis,
		...(slow ? { slow } : {}),
		slowMultiple: standing.slowMultiple,
	};
}

/** What the forecast reads of a call in the envelope. */
export function runCall(call: WorkflowProgressAgentCall): RunCall {
	return {
		...(call.phase !== undefined ? { phase: call.phase } : {}),
		label: call.label,
		agentType: call.agentType,
		...(call.model !== undefined ? { model: call.model } : {}),
		status: call.status,
		...(call.elapsedMs !== undefined ? { elapsedMs: call.elapsedMs } : {}),
	};
}

function withPhaseForecast(
	phase: WorkflowProgressPhase,
	forecast: WorkflowPhaseForecast | undefined,
): WorkflowProgressPhase {
	if (!forecast) return phase;
	const { done, expected, remainingMs, basis } = forecast;
	return { ...phase, forecast: { done, expected, remainingMs, basis } };
}
