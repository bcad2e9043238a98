/**
 * Plain-text views of an envelope: the multi-line progress text (for people and the model), the one-line summary,
 * and the small helpers the widget shares (durations, token counts, live clocks, which calls to show). A call is
 * numbered from #1 (`#${index + 1}`, as `callNumber` in errors.ts, which this room may not import, writes it).
 */
import { addCosts, costSource, formatCost, formatUsd, hasCost, hasSaving } from "./cost-text.ts";
import type {
	WorkflowAgentCallStatus,
	WorkflowKeptBranch,
	WorkflowProgressAgentCall,
	WorkflowProgressEnvelope,
	WorkflowProgressForecast,
	WorkflowProgressPhase,
	WorkflowProgressQuestion,
	WorkflowProviderWait,
} from "./envelope.ts";
import { doneOfExpected, forecastLine, forecastSummary, liveSlowMark, slowText } from "./forecast-text.ts";
import { dataFence, neutralizeModelText } from "./model-text.ts";
import { visibleText } from "./visible-text.ts";

/** Options of `formatWorkflowProgress`. */
export interface FormatWorkflowProgressOptions {
	/** Clock for running items' elapsed times. Default: `envelope.updatedAt` (so the text is a pure function). */
	now?: number;
	/** Every call gets its own line when there are at most this many; above, only running ones do. Default: 8. */
	maxListedCalls?: number;
	/** Running calls listed before the rest are collapsed into a count. Default: 8. */
	maxRunning?: number;
	/** Failures listed before the rest are collapsed into a count. Default: 5. */
	maxFailures?: number;
	/** Most recent log entries shown. Default: 3. */
	maxLogs?: number;
	/** Kept branches listed before the rest are collapsed into a count. Default: 20. */
	maxBranches?: number;
	/**
	 * For a model: each failure's cause, the run's error and the log between a data fence naming where they came
	 * from, and frame-like markup anywhere else escaped (model-text.ts). Default: false (the text people read).
	 */
	fenceData?: boolean;
}

/** Status marks shared by the text and the widget. */
export const CALL_MARKS: Record<WorkflowAgentCallStatus, string> = {
	queued: "·",
	running: "▸",
	completed: "✓",
	failed: "✗",
	stopped: "■",
};

/** Star spinner frames (one cell wide each), shared by the pi widget and the CLI's live view. */
export const STAR_FRAMES = ["✢", "✳", "✶", "✻", "✽", "✻", "✶", "✳"];
/** Spinner frame length and clock refresh, in ms. */
export const TICK_MS = 100;

/** The progress text: name, status and time; totals; one line per phase; agents; failures; error; recent log. */
export function formatWorkflowProgress(
	envelope: WorkflowProgressEnvelope,
	options: FormatWorkflowProgressOptions = {},
): string {
	const now = options.now ?? envelope.updatedAt;
	const maxListed = options.maxListedCalls ?? 8;
	const maxRunning = options.maxRunning ?? 8;
	const maxFailures = options.maxFailures ?? 5;
	const maxLogs = options.maxLogs ?? 3;
	const maxBranches = options.maxBranches ?? 20;
	const { agents } = envelope.totals;
	const lines = [
		`Workflow ${workflowName(envelope)}: ${envelope.status}${envelope.currentPhase && envelope.status === "running" ? ` (phase: ${envelope.currentPhase})` : ""} · ${formatDuration(workflowElapsed(envelope, now))}`,
	];
	const fence = options.fenceData === true;
	/** Lines that are data fences already (neutralised inside): the last pass leaves them as they are. */
	const safe = new Set<number>();
	const fenced = (from: string, text: string) => {
		safe.add(lines.length);
		lines.push(dataFence(from, text));
	};
	for (const question of envelope.questions ?? []) lines.push(questionLine(question));
	if (envelope.providerWait && envelope.status === "running") {
		lines.push(
			`${capitalized(providerWaitText(envelope.providerWait, now))} (${oneLine(envelope.providerWait.message)})`,
		);
	}
	if (agents.total > 0) {
		const replayed = replayedText(envelope);
		lines.push(
			`Agents: ${agents.total} (${replayed ?? (countsText(agents) || "none")})${usageText(envelope.totals.tokens, envelope.totals.toolUses)}`,
		);
	}
	const progress = forecastLine(envelope, now);
	if (progress) lines.push(progress);
	const cost = costLine(envelope);
	if (cost) lines.push(cost);
	if (envelope.providerWaits) {
		const { count, totalMs, maxMs } = envelope.providerWaits;
		const bound = maxMs !== undefined ? ` of at most ${formatDuration(maxMs)}` : "";
		lines.push(`Provider waits: ${count}, ${formatDuration(totalMs)} in all${bound}`);
	}
	const steps = envelope.toolSteps;
	if (steps) {
		const errors = [
			steps.errors > 0 ? `${steps.errors} with errors` : "",
			steps.failed > 0 ? `${steps.failed} failed` : "",
		]
			.filter(Boolean)
			.join(", ");
		lines.push(
			`Tool steps: ${steps.done} done${errors ? ` (${errors})` : ""}${steps.running.length > 0 ? `, ${steps.running.length} running` : ""}`,
		);
		for (const step of steps.running)
			lines.push(
				`  ${step.name === "bash" ? "$" : "⚙"} ${step.label} · ${formatDuration(Math.max(0, now - step.startedAt))}`,
			);
	}
	lines.push(...phaseLines(envelope, now));
	if (agents.total > 0 && agents.total <= maxListed) {
		lines.push("Agents:");
		for (const call of envelope.agentCalls) lines.push(`  ${callLine(call, now, fence, envelope.forecast)}`);
	} else if (agents.total > 0) {
		const running = runningCalls(envelope, maxRunning);
		if (running.length > 0) lines.push("Running:");
		for (const call of running) lines.push(`  ${callLine(call, now, fence, envelope.forecast)}`);
		if (agents.running > running.length) lines.push(`  … ${agents.running - running.length} more running`);
		const rest = countsText({ ...agents, running: 0 });
		if (rest) lines.push(`Others: ${rest}`);
	}
	if (envelope.failures.length > 0) {
		lines.push(`Failures (${envelope.failures.length}):`);
		for (const failure of envelope.failures.slice(0, maxFailures)) {
			const where = [failure.agentType, failure.phase].filter(Boolean).join(", ");
			const name = failureName(failure);
			const kept = failure.worktree?.kept ? `; its changes are kept on branch ${failure.worktree.branch}` : "";
			if (!fence) lines.push(`  ✗ ${name.trim()}${where ? ` (${where})` : ""}: ${oneLine(failure.cause)}${kept}`);
			else {
				lines.push(`  ✗ ${name.trim()}${where ? ` (${where})` : ""}${kept}:`);
				fenced(
					`${failure.kind === "agent" ? "agent() " : ""}${oneLine(name)}, why it failed`,
					oneLine(failure.cause),
				);
			}
		}
		if (envelope.failures.length > maxFailures) lines.push(`  … ${envelope.failures.length - maxFailures} more`);
	}
	const branches = envelope.branches ?? [];
	if (branches.length > 0) {
		lines.push(`Kept branches (${branches.length}), to merge or delete:`);
		for (const kept of branches.slice(0, maxBranches)) lines.push(`  ${branchLine(kept)}`);
		if (branches.length > maxBranches) lines.push(`  … ${branches.length - maxBranches} more`);
	}
	const error = envelope.error;
	if (error && !fence) lines.push(`Error${error.code ? ` [${error.code}]` : ""}: ${error.message}`);
	else if (error) {
		lines.push(`Error${error.code ? ` [${error.code}]` : ""}:`);
		fenced("the run's error: the script's, or what it threw", error.message);
	}
	if (maxLogs > 0 && envelope.logs.length > 0) {
		const shown = envelope.logs.slice(-maxLogs);
		const seen = envelope.logs.length + envelope.droppedLogs;
		lines.push(`Log (last ${shown.length} of ${seen}):`);
		const logLines = shown.map((log) => `  ${log.level}: ${oneLine(log.message)}`);
		if (fence) fenced("the script's log() lines", logLines.join("\n"));
		else lines.push(...logLines);
	}
	// For a model, what is not fenced is ours, with what children, tools or the script wrote squeezed into it.
	const text = fence ? lines.map((line, i) => (safe.has(i) ? line : neutralizeModelText(line))) : lines;
	// People read this text on terminals (the CLI, /workflows, pi's tool view): nothing in it may drive them.
	return visibleText(text.join("\n"));
}

/** Options of `summarizeWorkflowProgress`. */
export interface SummarizeWorkflowProgressOptions {
	/**
	 * For a model: the run's error is not repeated in the line (what a script throws is often a child's words); the
	 * progress text fences it (`formatWorkflowProgress` with `fenceData`). Default: false (the line people read).
	 */
	fenceData?: boolean;
}

/** One line saying where the run stands, e.g. "Workflow review completed in 12.3s: 4 agents (4 completed)". */
export function summarizeWorkflowProgress(
	envelope: WorkflowProgressEnvelope,
	options: SummarizeWorkflowProgressOptions = {},
): string {
	const line = summaryOf(envelope, options.fenceData === true);
	return visibleText(options.fenceData === true ? neutralizeModelText(line) : line);
}

function summaryOf(envelope: WorkflowProgressEnvelope, fence: boolean): string {
	const name = `Workflow ${workflowName(envelope)}`;
	const time = formatDuration(envelope.duration);
	const counts = `${agentsText(envelope)}${continuedText(envelope)}`;
	const tokens = `${envelope.totals.tokens > 0 ? `, ${formatTokens(envelope.totals.tokens)} tokens` : ""}${summaryCost(envelope)}`;
	const error = !envelope.error
		? ""
		: fence
			? " (its error is below, fenced)"
			: `: ${oneLine(envelope.error.message)}`;
	switch (envelope.status) {
		case "running": {
			const waiting = envelope.questions?.[0];
			const asks = waiting ? `; waiting for you: ${oneLine(waiting.question)}` : "";
			const wait = envelope.providerWait ? `; ${providerWaitText(envelope.providerWait, envelope.updatedAt)}` : "";
			const left = envelope.forecast ? `; ${forecastSummary(envelope)}` : "";
			return `${name} running${envelope.currentPhase ? ` (${envelope.currentPhase})` : ""} for ${time}: ${counts}${tokens}${left}${wait}${asks}`;
		}
		case "completed":
			return `${name} completed in ${time}: ${counts}${tokens}`;
		case "failed":
			return `${name} failed after ${time}${error || `: ${counts}`}${error ? `; ${counts}` : ""}`;
		case "stopped":
			return `${name} was stopped after ${time}: ${counts}${tokens}`;
		case "error":
			return `${name} errored after ${time}${error}; ${counts}`;
	}
}

/** "4 agents (4 completed)", "6 agents: 4 replayed from the journal, 2 ran (2 completed)", "no agents". */
export function agentsText(envelope: WorkflowProgressEnvelope): string {
	const { agents } = envelope.totals;
	if (agents.total === 0) return "no agents";
	const replayed = replayedText(envelope);
	const many = `${agents.total} agent${agents.total === 1 ? "" : "s"}`;
	return replayed ? `${many}: ${replayed}` : `${many} (${countsText(agents)})`;
}

/** ", 1 continued after an interruption (6.0k tokens not paid again)", or "" when no child went on from its turns. */
function continuedText(envelope: WorkflowProgressEnvelope): string {
	const continued = envelope.totals.continued;
	if (!continued) return "";
	return `, ${continued.calls} continued after an interruption (${formatTokens(continued.tokens)} tokens not paid again)`;
}

/**
 * What a resume replayed and what ran, e.g. "4 replayed from the journal, 2 ran (1 completed, 1 failed)"
 * ("2 live (2 running)" while it runs); undefined when nothing was replayed.
 */
export function replayedText(envelope: WorkflowProgressEnvelope): string | undefined {
	const replayed = envelope.totals.replayed ?? 0;
	if (replayed === 0) return undefined;
	const { agents } = envelope.totals;
	const rest = agents.total - replayed;
	const head = `${replayed} replayed from the journal`;
	if (rest === 0) return head;
	const live = countsText({ ...agents, completed: agents.completed - replayed });
	return `${head}, ${rest} ${envelope.status === "running" ? "live" : "ran"} (${live})`;
}

const PHASE_MARKS = { pending: "○", running: "▸", done: "✓", failed: "✗" } as const;

/** ", $0.42" or ", $0.10 (replayed calls saved $0.32)" for the one-line summary; "" while nothing cost anything. */
function summaryCost(envelope: WorkflowProgressEnvelope): string {
	const { cost, replayedCost } = envelope.totals;
	const saved = hasSaving(replayedCost) ? ` (replayed calls saved ${formatCost(replayedCost)})` : "";
	if (!hasCost(cost) && !saved) return "";
	const spent = formatCost(cost);
	// "2 agents, 3.9k tokens, cost unknown" rather than a bare "unknown".
	return `, ${spent === "unknown" ? "cost unknown" : spent}${saved}`;
}

/**
 * "Cost: $0.42 of a $1.00 cap (estimated from catalog prices); replayed calls saved $0.30 (what they cost when they
 * ran); with them, the record's calls cost $0.72": what the run spent, its cap, how the figure was reached, and what
 * its replays had cost (each figure says what it is: $0.72 is no saving).
 */
function costLine(envelope: WorkflowProgressEnvelope): string | undefined {
	const { cost, replayedCost, costLimitUsd, priorCostUsd } = envelope.totals;
	if (!hasCost(cost) && !hasSaving(replayedCost) && costLimitUsd === undefined) return undefined;
	// A resumed run's cap holds for all its sessions: what they spent together is what the cap is measured against.
	const inAll = priorCostUsd ? ` this session, ${formatUsd(cost.usd + priorCostUsd)} in all` : "";
	const parked = envelope.totals.atCostCap
		? ", reached: waiting for it to be raised"
		: envelope.totals.stoppedAtCostCap
			? envelope.status === "running"
				? ", reached: stopping once running agents end"
				: ", reached: the run stopped there"
			: "";
	const cap = costLimitUsd !== undefined ? `${inAll} of a ${formatUsd(costLimitUsd)} cap${parked}` : inAll;
	const source = costSource(cost);
	const unknown = cost.unpriced
		? `; ${cost.unpriced} ${cost.unpriced === 1 ? "reply" : "replies"} of models with no known price`
		: "";
	const saved = hasSaving(replayedCost)
		? `; replayed calls saved ${formatCost(replayedCost)} (what they cost when they ran); with them, the record's calls cost ${formatCost(addCosts(cost, replayedCost))}`
		: "";
	return `Cost: ${formatCost(cost)}${cap}${source ? ` (${source})` : ""}${unknown}${saved}`;
}

/** " · $0.12" or " · $0.12 of $0.50" on a phase's line. */
function phaseCostText(phase: WorkflowProgressPhase): string {
	const cap = phase.budget?.costUsd;
	if (!hasCost(phase.cost) && cap === undefined) return "";
	const spent = phase.cost ? formatCost(phase.cost) : formatUsd(0);
	return ` · ${spent === "unknown" ? "cost unknown" : spent}${cap !== undefined ? ` of ${formatUsd(cap)}` : ""}`;
}

/** " · $0.0015", " · cost unknown", or for a replayed call " · saved $0.03". */
function callCostText(call: WorkflowProgressAgentCall): string {
	if (call.cached) return hasSaving(call.savedCost) ? `, saved ${formatCost(call.savedCost)}` : "";
	if (!hasCost(call.cost)) return "";
	const text = formatCost(call.cost);
	return ` · ${text === "unknown" ? "cost unknown" : text}`;
}

/** "Waiting for you: Ship it? (yes / no; default: no)": an open `ask()` question, shown first while it waits. */
export function questionLine(question: WorkflowProgressQuestion): string {
	const choices = question.choices ? question.choices.join(" / ") : "";
	const fallback = question.default !== undefined ? `default: ${question.default}` : "";
	const extra = [choices, fallback].filter(Boolean).join("; ");
	return `Waiting for you: ${oneLine(question.question)}${extra ? ` (${extra})` : ""}`;
}

/** `meta.name`, or "workflow" before the meta is known. */
export function workflowName(envelope: WorkflowProgressEnvelope): string {
	return envelope.meta?.name ?? "workflow";
}

/** "350ms", "12.3s", "4m 05s", "2h 03m". */
export function formatDuration(ms: number): string {
	if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
	if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)}s`;
	const seconds = Math.floor(ms / 1000);
	if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`;
	return `${Math.floor(seconds / 3600)}h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, "0")}m`;
}

/** "950", "12.4k", "1.2M". */
export function formatTokens(tokens: number): string {
	if (tokens < 1000) return String(tokens);
	if (tokens < 1_000_000) return `${(tokens / 1000).toFixed(1)}k`;
	return `${(tokens / 1_000_000).toFixed(1)}M`;
}

/** Elapsed time of a phase or call at `now`: live while it runs, frozen (its `elapsedMs`) once it has ended. */
export function liveElapsed(
	item: { status: string; startedAt?: number; elapsedMs?: number },
	now: number,
): number | undefined {
	if (item.status === "running" && item.startedAt !== undefined) return Math.max(0, now - item.startedAt);
	return item.elapsedMs;
}

/** Elapsed time of the whole run at `now`: live while running, `duration` once ended. */
export function workflowElapsed(envelope: WorkflowProgressEnvelope, now: number): number {
	return envelope.status === "running" && envelope.endedAt === undefined
		? Math.max(envelope.duration, now - envelope.startedAt)
		: envelope.duration;
}

/**
 * Up to `limit` running calls in call order. Scans from the newest call back, since running calls are recent, and
 * stops as soon as it has them all (the totals say how many there are).
 */
export function runningCalls(envelope: WorkflowProgressEnvelope, limit: number): WorkflowProgressAgentCall[] {
	const wanted = Math.min(limit, envelope.totals.agents.running);
	const found: WorkflowProgressAgentCall[] = [];
	const calls = envelope.agentCalls;
	for (let i = calls.length - 1; i >= 0 && found.length < wanted; i--) {
		const call = calls[i];
		if (call?.status === "running") found.push(call);
	}
	return found.reverse();
}

/** "2 running, 5 queued, 3 completed, 1 failed" (zero counts left out). */
export function countsText(counts: Record<WorkflowAgentCallStatus, number>): string {
	const order: WorkflowAgentCallStatus[] = ["running", "queued", "completed", "failed", "stopped"];
	return order
		.filter((status) => counts[status] > 0)
		.map((status) => `${counts[status]} ${status}`)
		.join(", ");
}

/** Activity of a running call: its state and phrase, e.g. "active, reading 3 files…". */
export function activityText(call: WorkflowProgressAgentCall): string {
	const parts: string[] = [];
	if (call.status === "running" && call.activity) parts.push(call.activity);
	// A phrase that only repeats the state ("starting, starting") is said once.
	if (call.activityText && call.activityText !== parts[0]) parts.push(oneLine(call.activityText));
	return parts.join(", ");
}

/**
 * "idle 20.0s": how long ago a running call's child last showed activity, as of `now`, once that is a second or
 * more (less is just a busy child); undefined otherwise.
 */
export function idleText(call: WorkflowProgressAgentCall, now: number): string | undefined {
	if (call.status !== "running" || call.lastActivityAt === undefined) return undefined;
	const age = now - call.lastActivityAt;
	return age >= 1000 ? `idle ${formatDuration(age)}` : undefined;
}

/** "rate limited", "overloaded", "usage limit reached". */
export function limitKindText(kind: WorkflowProviderWait["kind"]): string {
	return kind === "rate_limit" ? "rate limited" : kind === "overloaded" ? "overloaded" : "usage limit reached";
}

/** "waiting for the provider: rate limited, next try in 40.0s", as of `now`. */
export function providerWaitText(wait: WorkflowProviderWait, now: number): string {
	return `waiting for the provider: ${limitKindText(wait.kind)}, next try in ${formatDuration(Math.max(0, wait.until - now))}`;
}

/** "#3 review auth" for an agent call, "tool[2]" for another kind. */
function failureName(failure: WorkflowProgressEnvelope["failures"][number]): string {
	return failure.kind === "agent"
		? `#${failure.index + 1} ${failure.label ?? ""}`
		: `${failure.kind}[${failure.index}]`;
}

/** " · continues #4 reviewer": the call whose conversation this one goes on with (`resume`), or "". */
export function continuesText(call: Pick<WorkflowProgressAgentCall, "continues">): string {
	return call.continues ? ` · continues #${call.continues.index + 1} ${oneLine(call.continues.label)}` : "";
}

/** " · on faux/b after faux/a met a provider limit": the model a fallback put the call on, or "". */
export function fallbackText(call: WorkflowProgressAgentCall): string {
	if (!call.fallbackFrom?.length || !call.model) return "";
	return ` · on ${call.model} after ${call.fallbackFrom.join(", ")} met a provider limit`;
}

function capitalized(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Text squeezed onto one line. */
export function oneLine(text: string): string {
	return text.replace(/\s+/g, " ").trim();
}

function usageText(tokens: number, toolUses: number): string {
	const parts = [];
	if (toolUses > 0) parts.push(`${toolUses} tool use${toolUses === 1 ? "" : "s"}`);
	if (tokens > 0) parts.push(`${formatTokens(tokens)} tokens`);
	return parts.length > 0 ? ` · ${parts.join(" · ")}` : "";
}

/** "Phases:" and a line per phase (its counts, against the plan when there is one, time, cost); none without phases. */
function phaseLines(envelope: WorkflowProgressEnvelope, now: number): string[] {
	if (envelope.phases.length === 0) return [];
	const lines = ["Phases:"];
	for (const phase of envelope.phases) {
		const counts = countsText(phase.agents);
		const time = phase.startedAt !== undefined ? ` · ${formatDuration(liveElapsed(phase, now) ?? 0)}` : "";
		const planned = phase.forecast && envelope.forecast?.expectedBasis === "plan";
		const ofPlan = planned && phase.forecast ? ` · ${doneOfExpected(phase.forecast, true)}` : "";
		lines.push(
			`  ${PHASE_MARKS[phase.status]} ${phase.title}: ${counts || phase.status}${ofPlan}${time}${phaseCostText(phase)}`,
		);
	}
	return lines;
}

/** One call's line; for a model (`fence`), without its error, which the failures fence (a child's words, often). */
function callLine(
	call: WorkflowProgressAgentCall,
	now: number,
	fence = false,
	forecast?: WorkflowProgressForecast,
): string {
	const head = `${CALL_MARKS[call.status]} #${call.index + 1} ${oneLine(call.label)} (${call.agentType})${continuesText(call)}`;
	const status = call.cached ? "replayed" : call.status;
	const idle = idleText(call, now);
	const activity = call.status === "running" ? activityText(call) || "running" : status;
	const parts = [idle ? `${activity}, ${idle}` : activity];
	const usage = usageText(call.tokens ?? 0, call.toolUses ?? 0);
	const elapsed = liveElapsed(call, now);
	const time = elapsed !== undefined ? ` · ${formatDuration(elapsed)}` : "";
	const outcome = call.error && !fence ? `: ${oneLine(call.error)}` : "";
	// The model beside what it cost: the person sees which model spent the money (a fallback says it in its own words).
	const fellBack = fallbackText(call);
	const model = !fellBack && call.model && (hasCost(call.cost) || call.status !== "queued") ? ` · ${call.model}` : "";
	const cost = callCostText(call);
	const saved = call.cached ? cost : "";
	const mark = liveSlowMark(call, forecast, now);
	const slow = mark ? ` · ${slowText(mark)}` : "";
	return `${head} · ${parts.join("")}${saved}${outcome}${fellBack}${worktreeText(call)}${model}${usage}${call.cached ? "" : cost}${time}${slow}`;
}

/** Where an isolated call works, or what became of its worktree: " · in worktree …", " · branch … (2 files)". */
function worktreeText(call: WorkflowProgressAgentCall): string {
	const tree = call.worktree;
	if (!tree) return "";
	if (tree.kept === undefined) return ` · in worktree ${tree.path}`;
	if (!tree.kept) return " · no changes";
	return ` · branch ${tree.branch} (${filesText(tree.fileCount ?? tree.files?.length ?? 0)})`;
}

/** "workflows/wf-…/fix-a · #1 fix a · 2 files: src/a.ts, src/b.ts". */
function branchLine(kept: WorkflowKeptBranch): string {
	const call = kept.index >= 0 ? `#${kept.index + 1} ${oneLine(kept.label)}` : oneLine(kept.label);
	const shown = kept.files.slice(0, 5).join(", ");
	const more = kept.fileCount > 5 ? `, … ${kept.fileCount - 5} more` : "";
	return `${kept.branch} · ${call} · ${filesText(kept.fileCount)}${shown ? `: ${shown}${more}` : ""}`;
}

function filesText(count: number): string {
	return `${count} file${count === 1 ? "" : "s"}`;
}
