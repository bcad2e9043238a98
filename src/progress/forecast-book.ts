/**
 * The tracker's side of the forecast: adds calls done of expected, time left and slow marks to each envelope, and
 * keeps the fraction shown so far so that it never goes backwards while the run goes.
 */
import type {
	WorkflowPhaseForecast,
	WorkflowProgressAgentCall,
	WorkflowProgressEnvelope,
	WorkflowProgressPhase,
} from "./envelope.ts";
import {
	Forecaster,
	heldFraction,
	type ProgressPlan,
	type ProgressTiming,
	type RunCall,
	slowMark,
	usualRunDuration,
} from "./forecast.ts";

/** The forecast of one run, as its envelopes carry it. */
export class ForecastBook {
	readonly plan: ProgressPlan | undefined;
	readonly timing: ProgressTiming | undefined;
	/** The fraction shown last. */
	shown: number;
	private readonly slowMultiple: number;
	private forecaster: Forecaster;
	/** Each call's usual duration by call key, looked up once (an envelope is made per event, of every call). */
	private readonly usualByKey = new Map<string, { ms: number } | undefined>();
	/** The tracker hands back the same call snapshot while a call does not change: its marked copy is kept for it. */
	private marks = new WeakMap<WorkflowProgressAgentCall, { marked: WorkflowProgressAgentCall; run: RunCall }>();

	constructor(
		plan: ProgressPlan | undefined,
		timing: ProgressTiming | undefined,
		slowMultiple: number,
		shown: number,
	) {
		this.plan = plan;
		this.timing = timing;
		this.slowMultiple = slowMultiple;
		this.shown = shown;
		this.forecaster = new Forecaster(plan, timing, undefined);
	}

	/** `envelope` with its forecast; `running`: the run goes on (the fraction is held), else it is final. */
	apply(envelope: WorkflowProgressEnvelope, running: boolean): WorkflowProgressEnvelope {
		const workflow = envelope.meta?.name;
		// The name comes with `run_start`, which may be after the plan.
		if (workflow !== this.forecaster.workflow) {
			this.forecaster = new Forecaster(this.plan, this.timing, workflow);
			this.usualByKey.clear();
			this.marks = new WeakMap();
		}
		const agentCalls: WorkflowProgressAgentCall[] = [];
		const runCalls: RunCall[] = [];
		for (const call of envelope.agentCalls) {
			let kept = this.marks.get(call);
			if (!kept) {
				const marked = this.marked(call);
				kept = { marked, run: runCall(marked) };
				this.marks.set(call, kept);
			}
			agentCalls.push(kept.marked);
			runCalls.push(kept.run);
		}
		const forecast = this.forecaster.forecast(runCalls);
		const completed = envelope.status === "completed";
		const fraction = completed ? 1 : heldFraction(forecast.done, forecast.expected, this.shown);
		if (running) this.shown = fraction;
		const usualRun = this.timing && usualRunDuration(workflow, this.timing);
		const slow = running ? slowMark(envelope.duration, usualRun, this.slowMultiple) : undefined;
		// Calls outside any phase have no phase row: they count in the run's forecast only.
		const byPhase = new Map(forecast.phases.flatMap((p) => (p.phase !== undefined ? [[p.phase, p] as const] : [])));
		return {
			...envelope,
			phases: envelope.phases.map((phase) => withPhaseForecast(phase, byPhase.get(phase.title))),
			agentCalls,
			forecast: {
				done: forecast.done,
				expected: forecast.expected,
				fraction,
				expectedBasis: this.plan ? "plan" : "seen",
				grown: forecast.grown,
				remainingMs: completed ? 0 : running ? forecast.remainingMs : null,
				basis: forecast.basis,
				...(slow ? { slow } : {}),
				slowMultiple: this.slowMultiple,
			},
		};
	}

	/** The call with its usual duration and, past the slow multiple of it, its slow mark. */
	private marked(call: WorkflowProgressAgentCall): WorkflowProgressAgentCall {
		if (call.cached || call.skipped) return call;
		if (!this.usualByKey.has(call.key)) this.usualByKey.set(call.key, this.forecaster.usualOf(call));
		const usual = this.usualByKey.get(call.key);
		if (!usual) return call;
		const slow = slowMark(call.elapsedMs ?? 0, usual.ms, this.slowMultiple);
		return { ...call, usualMs: usual.ms, ...(slow ? { slow } : {}) };
	}
}

function runCall(call: WorkflowProgressAgentCall): RunCall {
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
