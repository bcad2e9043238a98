/**
 * Puts envelopes on pi's surfaces: the widget (a live component in the TUI, plain lines elsewhere), the status line,
 * and the tool's partial updates. Updates are throttled (at most one flush per `throttleMs`, with a trailing flush
 * so the last state always lands) and de-duplicated (nothing is sent when nothing visible changed).
 */
import type { ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import { formatCost, hasCost } from "./cost-text.ts";
import type { WorkflowProgressEnvelope } from "./envelope.ts";
import { roughDuration } from "./forecast-text.ts";
import { providerWaitText, runningCalls, summarizeWorkflowProgress, workflowName } from "./format.ts";
import { type WorkflowProgressToolResult, workflowProgressResult } from "./tool-result.ts";
import { visibleText } from "./visible-text.ts";
import { WIDGET_LIMITS, WorkflowProgressWidget, widgetLines } from "./widget.ts";

/** The part of pi's extension context the controller uses. */
export interface WorkflowProgressUiContext {
	/** False in print and JSON modes: no widget or status then, only `onUpdate`. */
	hasUI: boolean;
	/** Component widgets need "tui"; other modes get plain lines. */
	mode: string;
	ui: Pick<ExtensionUIContext, "setWidget" | "setStatus">;
}

/** Options of `createWorkflowProgressUi`. */
export interface WorkflowProgressUiOptions {
	/** The tool's partial-update callback; receives `workflowProgressResult`-shaped results. Default: none. */
	onUpdate?: (partial: WorkflowProgressToolResult) => void;
	/** Widget key. Default: "workflow-progress". */
	widgetKey?: string;
	/** Status-line key. Default: "workflow". */
	statusKey?: string;
	/** Minimum ms between two flushes. Default: 100. */
	throttleMs?: number;
	/** Receives errors thrown by `onUpdate` during a trailing flush (there is no caller to throw to). Default: ignored. */
	onError?: (error: unknown) => void;
	/** Clock for throttling and the widget's live times. Default: Date.now. */
	now?: () => number;
}

/** Drives pi's widget, status line and partial updates for one run. */
export interface WorkflowProgressUi {
	/** Shows a new envelope (throttled, de-duplicated). A `completed`, `failed`, `stopped` or `error` one clears the UI. */
	update(envelope: WorkflowProgressEnvelope): void;
	/** Removes the widget and status and stops every timer; a later `update` shows them again. */
	clear(): void;
	/** `clear()`, and ignore every later call. */
	dispose(): void;
}

/** Lines of a plain-string widget; pi shows at most 10. */
const MAX_FALLBACK_LINES = 10;

/** Creates the controller. Contract: never throws from `update` except what `onUpdate` itself throws. */
export function createWorkflowProgressUi(
	ctx: WorkflowProgressUiContext,
	options: WorkflowProgressUiOptions = {},
): WorkflowProgressUi {
	const widgetKey = options.widgetKey ?? "workflow-progress";
	const statusKey = options.statusKey ?? "workflow";
	const throttleMs = options.throttleMs ?? 100;
	const now = options.now ?? Date.now;
	const useComponent = ctx.mode === "tui";

	let latest: WorkflowProgressEnvelope | undefined;
	let lastSignature: string | undefined;
	let lastFlushAt = Number.NEGATIVE_INFINITY;
	let timer: ReturnType<typeof setTimeout> | undefined;
	let widget: WorkflowProgressWidget | undefined;
	let shown = false;
	let lastStatus: string | undefined;
	let disposed = false;

	const showWidget = (envelope: WorkflowProgressEnvelope) => {
		if (!useComponent) {
			const lines = widgetLines(envelope, envelope.updatedAt, (_style, text) => text);
			ctx.ui.setWidget(widgetKey, capLines(lines));
			shown = true;
			return;
		}
		// pi disposes a component widget when it is replaced or the extension UI resets; then make a new one.
		if (widget && !widget.disposed) {
			widget.setEnvelope(envelope);
			return;
		}
		ctx.ui.setWidget(widgetKey, (tui, theme) => {
			widget = new WorkflowProgressWidget(tui, theme, envelope, { now });
			return widget;
		});
		shown = true;
	};

	const flush = () => {
		lastFlushAt = now();
		const envelope = latest;
		if (!envelope) return;
		const signature = visibleSignature(envelope);
		if (signature === lastSignature) return;
		lastSignature = signature;
		if (ctx.hasUI && envelope.status === "running") {
			showWidget(envelope);
			const status = statusText(envelope);
			if (status !== lastStatus) {
				ctx.ui.setStatus(statusKey, status);
				lastStatus = status;
			}
		}
		options.onUpdate?.(workflowProgressResult(envelope, summarizeWorkflowProgress(envelope)));
	};

	const cancelTimer = () => {
		if (timer) clearTimeout(timer);
		timer = undefined;
	};

	const clearSurfaces = () => {
		cancelTimer();
		widget?.dispose();
		widget = undefined;
		if (ctx.hasUI && (shown || lastStatus !== undefined)) {
			ctx.ui.setWidget(widgetKey, undefined);
			ctx.ui.setStatus(statusKey, undefined);
		}
		shown = false;
		lastStatus = undefined;
	};

	const clear = () => {
		clearSurfaces();
		latest = undefined;
		lastSignature = undefined;
	};

	return {
		update(envelope) {
			if (disposed) return;
			latest = envelope;
			if (envelope.status !== "running") {
				// The last state goes out at once, then the surfaces go away.
				cancelTimer();
				try {
					flush();
				} finally {
					clearSurfaces();
				}
				return;
			}
			if (timer) return;
			const wait = lastFlushAt + throttleMs - now();
			if (wait <= 0) {
				flush();
				return;
			}
			timer = setTimeout(() => {
				timer = undefined;
				try {
					flush();
				} catch (error) {
					options.onError?.(error);
				}
			}, wait);
			timer.unref?.();
		},
		clear,
		dispose() {
			clear();
			disposed = true;
		},
	};
}

/** The status line: name, phase and agents, with no clock (a status that changes every second only adds noise). */
function statusText(envelope: WorkflowProgressEnvelope): string {
	const { agents } = envelope.totals;
	const parts = [`workflow ${workflowName(envelope)}`];
	const waiting = envelope.questions?.[0];
	if (waiting) parts.push(`waiting for you: ${waiting.question.replace(/\s+/g, " ").slice(0, 60)}`);
	if (envelope.currentPhase) parts.push(envelope.currentPhase);
	if (agents.total > 0) parts.push(`${agents.completed}/${agents.total} agents`);
	if (agents.running > 0) parts.push(`${agents.running} running`);
	if (agents.failed > 0) parts.push(`${agents.failed} failed`);
	if (hasCost(envelope.totals.cost)) parts.push(formatCost(envelope.totals.cost));
	// Said once when the wait starts (or lengthens); the widget keeps the countdown moving.
	if (envelope.providerWait) parts.push(providerWaitText(envelope.providerWait, envelope.updatedAt));
	return visibleText(parts.join(" · "));
}

function capLines(lines: string[]): string[] {
	if (lines.length <= MAX_FALLBACK_LINES) return lines;
	const kept = lines.slice(0, MAX_FALLBACK_LINES - 1);
	kept.push(`  … ${lines.length - kept.length} more lines`);
	return kept;
}

function forecastSignature(envelope: WorkflowProgressEnvelope): unknown {
	const { forecast } = envelope;
	if (!forecast) return undefined;
	return [
		forecast.done,
		forecast.expected,
		forecast.expectedBasis,
		forecast.remainingMs === null ? null : roughDuration(forecast.remainingMs),
		forecast.slow !== undefined,
		envelope.phases.map((phase) => phase.forecast?.expected),
	];
}

/**
 * What a person can see of an envelope, minus the clocks: two envelopes with the same signature draw the same widget
 * (the widget moves its own clocks) and the same status. Bounded work: only the calls the widget lists are read.
 */
export function visibleSignature(envelope: WorkflowProgressEnvelope): string {
	return JSON.stringify([
		envelope.status,
		envelope.meta?.name,
		envelope.currentPhase,
		envelope.currentTask,
		envelope.phases.map((phase) => [phase.title, phase.status, phase.agents, phase.cost, phase.budget]),
		envelope.totals,
		runningCalls(envelope, WIDGET_LIMITS.running).map((call) => [
			call.key,
			call.activity,
			call.activityText,
			call.tokens,
			call.toolUses,
			call.cost,
			call.model,
		]),
		envelope.providerWait?.until,
		envelope.failures.length,
		envelope.failures.slice(0, WIDGET_LIMITS.failures).map((failure) => failure.cause),
		envelope.error?.message,
		envelope.logs.length + envelope.droppedLogs,
		envelope.questions?.map((question) => question.key),
		// Against the plan: what the header and phases show of it (time left as the words it is drawn with).
		forecastSignature(envelope),
	]);
}
