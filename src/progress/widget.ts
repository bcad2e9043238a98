/**
 * The live progress widget: a pi-tui component that draws one envelope with pi's theme colours and a star spinner.
 * It owns a 100 ms timer that only asks the TUI to redraw, so clocks move between envelopes; finished phases and
 * calls show their frozen times. The same line builder, without colours, gives the plain fallback lines.
 */
import type { Theme } from "@earendil-works/pi-coding-agent";
import { type Component, type TUI, truncateToWidth, visibleWidth } from "@earendil-works/pi-tui";
import { formatCost, formatUsd, hasCost } from "./cost-text.ts";
import type {
	WorkflowProgressAgentCall,
	WorkflowProgressEnvelope,
	WorkflowProgressForecast,
	WorkflowProgressPhase,
} from "./envelope.ts";
import { doneOfExpected, liveRunSlowMark, liveSlowMark, slowText, timeLeftText } from "./forecast-text.ts";
import {
	activityText,
	formatDuration,
	formatTokens,
	idleText,
	liveElapsed,
	oneLine,
	providerWaitText,
	questionLine,
	runningCalls,
	STAR_FRAMES,
	TICK_MS,
	workflowElapsed,
	workflowName,
} from "./format.ts";
import { visibleText } from "./visible-text.ts";

export { STAR_FRAMES, TICK_MS };

/** Theme tokens the widget uses, plus "bold" and "plain". */
export type WidgetStyle = "accent" | "muted" | "dim" | "success" | "error" | "warning" | "bold" | "plain";

/** Colours a piece of text; the plain fallback passes text through. */
export type Paint = (style: WidgetStyle, text: string) => string;

/** How many of each kind of line the widget shows before it collapses the rest into a count. */
export interface WidgetLimits {
	phases: number;
	running: number;
	failures: number;
}

/** Default line limits. */
export const WIDGET_LIMITS: WidgetLimits = { phases: 6, running: 5, failures: 2 };

/**
 * The lines of the widget for `envelope` at time `now`, coloured by `paint`, each fitted to `width` by leaving out
 * its least useful parts first (the clock stays). Cost is bounded by the limits, not by the size of the run.
 */
export function widgetLines(
	envelope: WorkflowProgressEnvelope,
	now: number,
	themePaint: Paint,
	width = Number.POSITIVE_INFINITY,
	limits: WidgetLimits = WIDGET_LIMITS,
): string[] {
	// Every text a line shows is painted, so every text is made visible here, before the theme adds its own escapes.
	const paint: Paint = (style, text) => themePaint(style, visibleText(text));
	const spinner = STAR_FRAMES[Math.floor(now / TICK_MS) % STAR_FRAMES.length] ?? "*";
	const fitLine = (indent: string, parts: Part[]) => fitParts(indent, parts, paint("dim", " · "), width);
	const lines = [fitLine("", headerParts(envelope, now, spinner, paint))];
	// The wait holds every child: it goes first, with its countdown.
	if (envelope.providerWait && envelope.status === "running") {
		lines.push(
			fitLine("  ", [
				{ text: paint("warning", `⏸ ${providerWaitText(envelope.providerWait, now)}`) },
				{ text: paint("muted", oneLine(envelope.providerWait.message)), drop: 1 },
			]),
		);
	}
	// A question waits on the person looking at this: it comes before everything the run is doing.
	for (const question of envelope.questions ?? [])
		lines.push(`  ${paint("warning", "?")} ${paint("warning", questionLine(question))}`);

	const phases = pickPhases(envelope.phases, limits.phases);
	const planned = envelope.forecast?.expectedBasis === "plan";
	for (const phase of phases.shown) lines.push(fitLine("  ", phaseParts(phase, now, spinner, paint, planned)));
	if (phases.hidden > 0) lines.push(`  ${paint("dim", `… ${phases.hidden} more phases`)}`);

	const { agents } = envelope.totals;
	const running = runningCalls(envelope, limits.running);
	for (const call of running) lines.push(fitLine("  ", callParts(call, now, spinner, paint, envelope.forecast)));
	const rest = [
		agents.running > running.length ? `${agents.running - running.length} more running` : "",
		agents.queued > 0 ? `${agents.queued} queued` : "",
		agents.completed > 0 ? `${agents.completed} done` : "",
		agents.failed > 0 ? `${agents.failed} failed` : "",
		agents.stopped > 0 ? `${agents.stopped} stopped` : "",
	].filter(Boolean);
	if (rest.length > 0) lines.push(`  ${paint("dim", `${running.length > 0 ? "… " : ""}${rest.join(" · ")}`)}`);
	// Running tool steps, as a shell shows a command: `$ npm test · 3.2s` (finished ones are log lines).
	for (const step of envelope.toolSteps?.running.slice(0, limits.running) ?? []) {
		const mark = step.name === "bash" ? "$" : "⚙";
		const elapsed = formatDuration(Math.max(0, now - step.startedAt));
		lines.push(
			fitLine("  ", [
				{ text: `${paint("accent", mark)} ${paint("plain", oneLine(step.label))}` },
				{ text: paint("dim", elapsed) },
			]),
		);
	}

	for (const failure of envelope.failures.slice(0, limits.failures)) {
		const name =
			failure.kind === "agent"
				? (failure.label ?? `agent #${failure.index + 1}`)
				: `${failure.kind}[${failure.index}]`;
		lines.push(
			`  ${paint("error", "✗")} ${paint("plain", oneLine(name))}${paint("muted", `: ${oneLine(failure.cause)}`)}`,
		);
	}
	if (envelope.failures.length > limits.failures) {
		lines.push(`  ${paint("dim", `… ${envelope.failures.length - limits.failures} more failures`)}`);
	}
	if (envelope.error) lines.push(`  ${paint("error", `Error: ${oneLine(envelope.error.message)}`)}`);
	const lastLog = envelope.logs.at(-1);
	if (lastLog) {
		const style = lastLog.level === "info" ? "dim" : lastLog.level === "warn" ? "warning" : "error";
		lines.push(`  ${paint(style, `› ${oneLine(lastLog.message)}`)}`);
	}
	return lines;
}

/** One piece of a line; parts with a higher `drop` are left out first when the line is too wide. */
interface Part {
	text: string;
	drop?: number;
}

/** Joins parts, leaving out droppable ones (highest `drop` first) until the line fits `width`. */
function fitParts(indent: string, parts: Part[], sep: string, width: number): string {
	const kept = [...parts];
	const join = () => indent + kept.map((part) => part.text).join(sep);
	while (visibleWidth(join()) > width) {
		let worst = -1;
		for (let i = 0; i < kept.length; i++) {
			const drop = kept[i]?.drop;
			if (drop !== undefined && (worst < 0 || drop > (kept[worst]?.drop ?? 0))) worst = i;
		}
		if (worst < 0) break;
		kept.splice(worst, 1);
	}
	return join();
}

function headerParts(envelope: WorkflowProgressEnvelope, now: number, spinner: string, paint: Paint): Part[] {
	const mark = {
		running: paint("accent", spinner),
		completed: paint("success", "✓"),
		failed: paint("error", "✗"),
		error: paint("error", "✗"),
		stopped: paint("warning", "■"),
	}[envelope.status];
	const parts: Part[] = [{ text: `${mark} ${paint("bold", workflowName(envelope))}` }];
	if (envelope.status !== "running") {
		parts.push({ text: paint(envelope.status === "completed" ? "success" : "error", envelope.status) });
	} else if (envelope.currentPhase) {
		parts.push({ text: paint("accent", oneLine(envelope.currentPhase)), drop: 1 });
	}
	const { agents, tokens } = envelope.totals;
	const { forecast } = envelope;
	if (forecast?.expectedBasis === "plan") {
		// Against the plan: calls done of expected, and time left (never a made-up figure) while it runs.
		parts.push({ text: paint("muted", `${doneOfExpected(forecast, true)} agents`), drop: 2 });
	} else if (agents.total > 0) {
		parts.push({ text: paint("muted", `${agents.completed}/${agents.total} agents`), drop: 2 });
	}
	if (forecast && envelope.status === "running") {
		parts.push({ text: paint("muted", timeLeftText(forecast, envelope.updatedAt, now)), drop: 1.2 });
		const slow = liveRunSlowMark(envelope, now);
		if (slow) parts.push({ text: paint("warning", slowText(slow)), drop: 1.1 });
	}
	if (tokens > 0) parts.push({ text: paint("muted", `${formatTokens(tokens)} tok`), drop: 3 });
	// What the run spent matters more than its tokens or agent count: it stays when those are dropped for width.
	const { cost, costLimitUsd, priorCostUsd, atCostCap } = envelope.totals;
	if (hasCost(cost) || costLimitUsd !== undefined) {
		const cap = costLimitUsd !== undefined ? ` of ${formatUsd(costLimitUsd)}` : "";
		// Against a resumed run's cap, what all its sessions spent.
		const spent = priorCostUsd ? formatUsd(cost.usd + priorCostUsd) : hasCost(cost) ? formatCost(cost) : formatUsd(0);
		const text = `${atCostCap ? "cap reached: " : ""}${spent}${cap}`;
		const near = costLimitUsd !== undefined && cost.usd + (priorCostUsd ?? 0) >= costLimitUsd * 0.8;
		parts.push({ text: paint(near ? "warning" : "muted", text), drop: 1.5 });
	}
	parts.push({ text: paint("dim", formatDuration(workflowElapsed(envelope, now))) });
	return parts;
}

function phaseParts(phase: WorkflowProgressPhase, now: number, spinner: string, paint: Paint, planned = false): Part[] {
	const marks = {
		pending: paint("dim", "○"),
		running: paint("accent", spinner),
		done: paint("success", "✓"),
		failed: paint("error", "✗"),
	};
	const title = { pending: "dim", running: "accent", done: "muted", failed: "plain" } as const;
	const parts: Part[] = [{ text: `${marks[phase.status]} ${paint(title[phase.status], oneLine(phase.title))}` }];
	const { agents } = phase;
	if (planned && phase.forecast) parts.push({ text: paint("muted", doneOfExpected(phase.forecast, true)), drop: 1 });
	else if (agents.total > 0) parts.push({ text: paint("muted", `${agents.completed}/${agents.total}`), drop: 1 });
	if (agents.running > 0) parts.push({ text: paint("accent", `${agents.running} running`), drop: 3 });
	if (agents.failed > 0) parts.push({ text: paint("error", `${agents.failed} failed`), drop: 2 });
	const cap = phase.budget?.costUsd;
	if (hasCost(phase.cost) || cap !== undefined) {
		const spent = phase.cost ? formatCost(phase.cost) : formatUsd(0);
		parts.push({ text: paint("muted", `${spent}${cap !== undefined ? ` of ${formatUsd(cap)}` : ""}`), drop: 1.8 });
	}
	const elapsed = liveElapsed(phase, now);
	if (elapsed !== undefined) parts.push({ text: paint("dim", formatDuration(elapsed)) });
	return parts;
}

function callParts(
	call: WorkflowProgressAgentCall,
	now: number,
	spinner: string,
	paint: Paint,
	forecast?: WorkflowProgressForecast,
): Part[] {
	// Stalled, paused and waiting for the provider are the states worth a person's attention.
	const attention = call.activity === "stalled" || call.activity === "paused" || call.activity === "waiting";
	const activityStyle = attention ? "warning" : call.activity === "active" ? "success" : "muted";
	// The call's number is how `/workflows steer|skip|restart` names the child.
	const name = `${paint("dim", `#${call.index + 1}`)} ${paint("plain", oneLine(call.label))}`;
	const parts: Part[] = [{ text: `${paint("accent", spinner)} ${name}` }];
	parts.push({ text: paint("dim", call.agentType), drop: 4 });
	if (call.continues) parts.push({ text: paint("dim", `continues #${call.continues.index + 1}`), drop: 3.5 });
	const activity = activityText(call);
	if (activity) parts.push({ text: paint(activityStyle, activity), drop: 1 });
	const idle = idleText(call, now);
	if (idle) parts.push({ text: paint(attention ? "warning" : "dim", idle), drop: 1.5 });
	// A fallback model took over from a limited one: say which model is answering.
	if (call.fallbackFrom?.length && call.model) parts.push({ text: paint("warning", `on ${call.model}`), drop: 2.5 });
	if (call.toolUses) parts.push({ text: paint("muted", `${call.toolUses} tools`), drop: 3 });
	if (call.tokens) parts.push({ text: paint("muted", `${formatTokens(call.tokens)} tok`), drop: 2 });
	if (hasCost(call.cost)) parts.push({ text: paint("muted", formatCost(call.cost)), drop: 1.8 });
	const slow = liveSlowMark(call, forecast, now);
	if (slow) parts.push({ text: paint("warning", slowText(slow)), drop: 0.5 });
	const elapsed = liveElapsed(call, now);
	if (elapsed !== undefined) parts.push({ text: paint("dim", formatDuration(elapsed)) });
	return parts;
}

/** Running and failed phases first, then pending, then done; shown in their own order. */
function pickPhases(
	phases: WorkflowProgressPhase[],
	limit: number,
): { shown: WorkflowProgressPhase[]; hidden: number } {
	if (phases.length <= limit) return { shown: phases, hidden: 0 };
	const rank = { running: 0, failed: 1, pending: 2, done: 3 };
	const chosen = new Set(
		phases
			.map((phase, order) => ({ phase, order }))
			.sort((a, b) => rank[a.phase.status] - rank[b.phase.status] || a.order - b.order)
			.slice(0, limit - 1)
			.map((entry) => entry.phase),
	);
	// limit - 1 phases plus the collapse line keeps the widget at `limit` phase lines.
	return { shown: phases.filter((phase) => chosen.has(phase)), hidden: phases.length - chosen.size };
}

/** Options of `WorkflowProgressWidget`. */
export interface WorkflowProgressWidgetOptions {
	/** Clock for live elapsed times and the spinner. Default: Date.now. */
	now?: () => number;
	limits?: WidgetLimits;
}

/** A pi-tui component showing one envelope. Call `setEnvelope` for each new one and `dispose` when done. */
export class WorkflowProgressWidget implements Component {
	private envelope: WorkflowProgressEnvelope;
	private readonly tui: Pick<TUI, "requestRender">;
	private readonly theme: Pick<Theme, "fg" | "bold">;
	private readonly now: () => number;
	private readonly limits: WidgetLimits;
	private timer: ReturnType<typeof setInterval> | undefined;
	private cache: { key: string; lines: string[] } | undefined;
	private disposedFlag = false;

	constructor(
		tui: Pick<TUI, "requestRender">,
		theme: Pick<Theme, "fg" | "bold">,
		envelope: WorkflowProgressEnvelope,
		options: WorkflowProgressWidgetOptions = {},
	) {
		this.tui = tui;
		this.theme = theme;
		this.envelope = envelope;
		this.now = options.now ?? Date.now;
		this.limits = options.limits ?? WIDGET_LIMITS;
		this.syncTimer();
	}

	/** True once disposed (by its owner, or by pi when the widget is replaced or cleared). */
	get disposed(): boolean {
		return this.disposedFlag;
	}

	/** Shows a new envelope; the clock keeps running while it is `running` and freezes otherwise. */
	setEnvelope(envelope: WorkflowProgressEnvelope): void {
		if (this.disposedFlag) return;
		this.envelope = envelope;
		this.cache = undefined;
		this.syncTimer();
		this.tui.requestRender();
	}

	render(width: number): string[] {
		const now = this.now();
		// Output only changes with the envelope, the width and the 100 ms spinner/clock step.
		const key = `${width}:${Math.floor(now / TICK_MS)}`;
		if (this.cache?.key === key) return this.cache.lines;
		const paint: Paint = (style, text) =>
			style === "plain" ? text : style === "bold" ? this.theme.bold(text) : this.theme.fg(style, text);
		// One column of left padding, as pi gives plain-string widgets.
		const inner = Math.max(0, width - 1);
		const lines = widgetLines(this.envelope, now, paint, inner, this.limits).map((line) =>
			truncateToWidth(` ${line}`, Math.max(0, width), "…"),
		);
		this.cache = { key, lines };
		return lines;
	}

	invalidate(): void {
		this.cache = undefined;
	}

	dispose(): void {
		this.disposedFlag = true;
		this.stopTimer();
	}

	private syncTimer(): void {
		if (this.envelope.status !== "running" || this.disposedFlag) {
			this.stopTimer();
			return;
		}
		if (this.timer) return;
		this.timer = setInterval(() => this.tui.requestRender(), TICK_MS);
		// A forgotten widget must not keep the process alive.
		this.timer.unref?.();
	}

	private stopTimer(): void {
		if (this.timer) clearInterval(this.timer);
		this.timer = undefined;
	}
}
