/**
 * Progress against the plan in words, for the widget, the CLI's progress and `/workflows`: "12 of ~30 calls (40%)",
 * "~4 min left" or "time left: not known yet" (never a made-up figure), "slower than usual: 6 min, usually ~1 min".
 */
import type {
	WorkflowPhaseForecast,
	WorkflowProgressAgentCall,
	WorkflowProgressEnvelope,
	WorkflowProgressForecast,
} from "./envelope.ts";
import type { SlowMark } from "./forecast.ts";

/** "40 s", "4 min", "1 h 20 min": a duration as a person estimates one. */
export function roughDuration(ms: number): string {
	if (ms < 60_000) return `${Math.max(1, Math.round(ms / 1000))} s`;
	const minutes = Math.round(ms / 60_000);
	if (minutes < 60) return `${minutes} min`;
	return `${Math.floor(minutes / 60)} h${minutes % 60 > 0 ? ` ${minutes % 60} min` : ""}`;
}

/** "12 of ~30" with a plan (the `~`: a plan is an expectation), "12 done" without one. */
export function doneOfExpected(forecast: WorkflowPhaseForecast, planned: boolean): string {
	return planned ? `${forecast.done} of ~${forecast.expected}` : `${forecast.done} done`;
}

/**
 * "~4 min left" (as of `now`: the time since the envelope was made is taken off), "almost done" once that is used
 * up, or "time left: not known yet" when nothing says (no plan, or no earlier call like one still to run).
 */
export function timeLeftText(forecast: WorkflowPhaseForecast, updatedAt: number, now: number): string {
	if (forecast.remainingMs === null) return "time left: not known yet";
	const left = forecast.remainingMs - Math.max(0, now - updatedAt);
	return left > 0 ? `~${roughDuration(left)} left` : "almost done";
}

/** Where time left comes from, in words. */
function basisText(forecast: WorkflowPhaseForecast): string {
	if (forecast.basis === "workflow") return " (from this workflow's earlier runs)";
	if (forecast.basis === "project") return " (from this project's earlier calls of the same agents)";
	return "";
}

/** "slower than usual: 6 min, usually ~1 min". */
export function slowText(mark: SlowMark): string {
	return `slower than usual: ${roughDuration(mark.elapsedMs)}, usually ~${roughDuration(mark.usualMs)}`;
}

/**
 * A running call's slow mark as of `now`: the envelope's, or one its clock has earned since (a call stuck without
 * events gets its mark on the next redraw); undefined when it is not slow.
 */
export function liveSlowMark(
	call: WorkflowProgressAgentCall,
	forecast: WorkflowProgressForecast | undefined,
	now: number,
): SlowMark | undefined {
	if (call.status !== "running" || call.startedAt === undefined || call.usualMs === undefined || !forecast)
		return call.slow;
	const elapsedMs = Math.max(0, now - call.startedAt);
	return elapsedMs > forecast.slowMultiple * call.usualMs ? { elapsedMs, usualMs: call.usualMs } : undefined;
}

/** The run's slow mark as of `now` (see `liveSlowMark`). */
export function liveRunSlowMark(envelope: WorkflowProgressEnvelope, now: number): SlowMark | undefined {
	const { forecast } = envelope;
	if (!forecast?.slow || envelope.status !== "running") return forecast?.slow;
	return { ...forecast.slow, elapsedMs: Math.max(forecast.slow.elapsedMs, now - envelope.startedAt) };
}

/**
 * "Progress: 12 of ~30 calls (40%) · ~4 min left (from this workflow's earlier runs)", with the run's slow mark after
 * it; undefined when the envelope has no forecast.
 */
export function forecastLine(envelope: WorkflowProgressEnvelope, now: number): string | undefined {
	const { forecast } = envelope;
	if (!forecast) return undefined;
	const planned = forecast.expectedBasis === "plan";
	const share = planned ? ` (${Math.floor(forecast.fraction * 100)}%)` : "";
	const grown = forecast.grown ? ", more than planned" : "";
	const calls = `${doneOfExpected(forecast, planned)} calls${share}${grown}`;
	if (envelope.status !== "running") return `Progress: ${calls}`;
	const left = timeLeftText(forecast, envelope.updatedAt, now);
	const slow = liveRunSlowMark(envelope, now);
	return `Progress: ${calls} · ${left}${forecast.remainingMs !== null ? basisText(forecast) : ""}${slow ? ` · ${slowText(slow)}` : ""}`;
}

/** "12 of ~30 calls, ~4 min left" (or "time left: not known yet"), for a running run's one-line summary. */
export function forecastSummary(envelope: WorkflowProgressEnvelope): string {
	const { forecast } = envelope;
	if (!forecast) return "";
	const planned = forecast.expectedBasis === "plan";
	return `${doneOfExpected(forecast, planned)} calls, ${timeLeftText(forecast, envelope.updatedAt, envelope.updatedAt)}`;
}
