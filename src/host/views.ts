/**
 * Runs of this project as text, for `/workflows` and the `workflow_runs` tool: the list (live runs of this session
 * first, then the store's, newest first) and one run (the live envelope, or what its snapshot says).
 */
import { formatBytes } from "../progress/bytes-text.ts";
import { addCosts, formatCost, formatUsd, hasCost } from "../progress/cost-text.ts";
import { formatDuration, formatTokens, limitKindText, oneLine } from "../progress/format.ts";
import {
	doneOfExpected,
	formatWorkflowProgress,
	liveRunSlowMark,
	slowText,
	timeLeftText,
	type WorkflowProgressEnvelope,
} from "../progress/index.ts";
import { DATA_FENCE_NOTE, dataFence, neutralizeModelText } from "../progress/model-text.ts";
import { visibleText } from "../progress/visible-text.ts";
import { listConversations, type RunInfo, type RunStore, type RunSummary, scriptSha256 } from "../runs/index.ts";
import type { WorkflowCost } from "../runtime/core/types.ts";
import { resumeCall } from "./cost-cap.ts";
import type { RunRegistry } from "./registry.ts";

/** What to do with an ended run that saved no agent result nor a child's conversation (a resume would be refused). */
const RUN_AGAIN = "No agent result was saved: run the workflow again to retry.";

/** Runs a list shows. */
const LIST_LIMIT = 20;

/** One row of the list. */
export interface RunRow {
	id: string;
	/** True when this session can stop it. */
	live: boolean;
	text: string;
}

/** The list, and what every run of the project takes on disk (not only the rows shown). */
export interface RunList {
	rows: RunRow[];
	/** Runs in the store. */
	runs: number;
	/** Their folders' space, in bytes. */
	bytes: number;
}

/** This project's runs: this session's live ones first, then the rest of the store's, newest first. */
export async function listRuns(store: RunStore, registry: RunRegistry, now = Date.now()): Promise<RunRow[]> {
	return (await listRunsWithUsage(store, registry, now)).rows;
}

/**
 * "12 of ~30 agents · ~4 min left" against the run's plan (with its slow mark, "slower than usual: 6 min, usually
 * ~1 min"), or "5/7 agents" and what is known of time left without one.
 */
function liveProgressText(envelope: WorkflowProgressEnvelope, now: number): string {
	const { forecast, totals } = envelope;
	if (!forecast) return `${totals.agents.completed}/${totals.agents.total} agents`;
	const planned = forecast.expectedBasis === "plan";
	const calls = planned
		? `${doneOfExpected(forecast, true)} agents`
		: `${totals.agents.completed}/${totals.agents.total} agents`;
	const slow = liveRunSlowMark(envelope, now);
	return `${calls} · ${timeLeftText(forecast, envelope.updatedAt, now)}${slow ? ` · ${slowText(slow)}` : ""}`;
}

/** `listRuns`, with the store's run count and the space its runs take. */
export async function listRunsWithUsage(store: RunStore, registry: RunRegistry, now = Date.now()): Promise<RunList> {
	// The session's live runs as they are now, before the store is read: one may end meanwhile.
	const live = registry.list().reverse();
	const summaries = await store.list();
	const sizes = new Map(summaries.map((summary) => [summary.id, summary.bytes]));
	const liveIds = new Set(live.map((run) => run.id));
	const rows: RunRow[] = live.map((run) => {
		const envelope = run.envelope();
		const totals = envelope.totals;
		const where = run.background ? "background" : "this call";
		const waiting = envelope.questions?.[0] ? ` · waiting for you: ${oneLine(envelope.questions[0].question)}` : "";
		// A run held by a provider limit is not stuck: say what it waits for and when it tries again.
		const wait = envelope.providerWait;
		const state = wait
			? `waiting for the provider (${where}; ${limitKindText(wait.kind)}, next try in ${formatDuration(Math.max(0, wait.until - now))})`
			: `running (${where})`;
		return {
			id: run.id,
			live: true,
			text: visibleText(
				`${run.id} · ${run.name} · ${state} · ${formatDuration(now - run.startedAt)} · ${liveProgressText(envelope, now)}${replayedNote(totals.replayed)} · ${formatTokens(totals.tokens)} tokens${costText(totals.cost, totals.replayedCost)}${liveCapText(totals)}${sizeText(sizes.get(run.id))}${waiting}`,
			),
		};
	});
	const stored = summaries.filter((summary) => !liveIds.has(summary.id));
	// Runs held by another process come before finished ones, as running ones should.
	stored.sort((a, b) => Number(b.status === "running") - Number(a.status === "running"));
	for (const summary of stored.slice(0, Math.max(0, LIST_LIMIT - rows.length))) {
		rows.push({ id: summary.id, live: false, text: visibleText(storedRow(summary, now)) });
	}
	return { rows, runs: summaries.length, bytes: summaries.reduce((sum, summary) => sum + summary.bytes, 0) };
}

/** The list's last line: how many runs the project keeps and their space, and how to prune them. */
export function usageText(list: Pick<RunList, "rows" | "runs" | "bytes">, prune: string): string {
	const shown = list.runs > list.rows.length ? ` (the newest ${list.rows.length} shown)` : "";
	return `${list.runs} ${list.runs === 1 ? "run" : "runs"} recorded · ${formatBytes(list.bytes)} on disk${shown} · prune old ones: ${prune}`;
}

/**
 * One run in full: phases, agents and failures while it is live; its snapshot once it has ended. `fenceData` (for a
 * model, `workflow_runs`): what children, tools and the script wrote is fenced as data (progress/model-text.ts).
 */
export async function describeRun(
	store: RunStore,
	registry: RunRegistry,
	id: string,
	options: { fenceData?: boolean } = {},
): Promise<string> {
	const fence = options.fenceData === true;
	// Names, failures and the stored progress text are the script's: shown, never acted on by a terminal.
	const text = visibleText(await runDescription(store, registry, id, fence));
	return fence ? `${DATA_FENCE_NOTE}\n${text}` : text;
}

async function runDescription(store: RunStore, registry: RunRegistry, id: string, fence: boolean): Promise<string> {
	const live = registry.get(id);
	// Times run to now: the envelope's own clock stops at its last event, which can be long ago for a waiting run.
	if (live)
		return `${formatWorkflowProgress(live.envelope(), { now: Date.now(), fenceData: fence })}\nStop it: workflow_runs({ action: "stop", runId: "${id}" })`;
	// For a model, the record's own words (name, error, causes, progress) are data: neutralised, or fenced.
	const data = (from: string, text: string) => (fence ? `\n${dataFence(from, text)}` : ` ${text}`);
	const record = await store.open(id);
	const recorded = record.info.meta?.name ?? "workflow";
	const name = fence ? neutralizeModelText(recorded) : recorded;
	// A live lock wins over any snapshot: another process may be resuming the run right now.
	const summary = (await store.list()).find((candidate) => candidate.id === id);
	if (summary?.status === "running") {
		return `Run ${id} (${name}) is running in process ${summary.lock?.pid ?? "?"} on ${summary.lock?.hostname ?? "?"}, not in this session: stop it there.`;
	}
	// Records made before the script file existed get it now: the model reads and edits that file for a fix.
	const script = await record.ensureScript().catch(() => undefined);
	const snapshot = await record.readSnapshot();
	const resume = `Resume: ${resumeCall(id, snapshot?.error)}\n${fixText(id, script)}`;
	// A run with no result but a child's kept conversation resumes too: the child goes on from its finished turns.
	const kept = async () => (await listConversations(record.dir).catch(() => [])).length > 0;
	if (!snapshot) {
		const saved = summary?.agents ?? 0;
		return `Run ${id} (${name}) was interrupted (no snapshot: the process ended while it ran); ${savedResults(saved)} saved.\n${saved > 0 || (await kept()) ? resume : RUN_AGAIN}\n${scriptLine(record.info)}`;
	}
	const { counts, usage, failures, cost, replayedCost } = snapshot;
	// A resume replays finished agents and refuses a run that has none: then the only way on is to run it again.
	const next =
		snapshot.status === "completed"
			? script
				? [`Script: ${script}`]
				: []
			: [counts.completed > 0 || (await kept()) ? resume : RUN_AGAIN];
	if (snapshot.progress !== undefined) {
		const spend = spendLine(summary?.spend);
		return [
			`Run ${id} (${name}): ${snapshot.status}, ended ${snapshot.endedAt}`,
			scriptLine(record.info),
			fence ? dataFence(`run ${id}'s progress as recorded`, snapshot.progress) : snapshot.progress,
			...(spend ? [spend] : []),
			...next,
		].join("\n");
	}
	const lines = [
		`Run ${id} (${name}): ${snapshot.status}, ended ${snapshot.endedAt}, ${formatDuration(snapshot.durationMs)}`,
		`Agents: ${counts.completed} completed${replayedNote(counts.replayed)}, ${counts.failed} failed, ${counts.skipped} skipped of ${counts.calls} · ${formatTokens(usage.total)} tokens${costText(cost, replayedCost)}`,
		scriptLine(record.info),
	];
	const spend = spendLine(summary?.spend);
	if (spend) lines.push(spend);
	if (snapshot.error) {
		lines.push(`Error (${snapshot.error.code}):${data("the run's error", snapshot.error.message)}`);
	}
	for (const failure of failures.slice(0, 10)) {
		const label = failure.label ?? `${failure.kind}[${failure.index}]`;
		lines.push(`  ✗ ${fence ? neutralizeModelText(label) : label}:${data(`${label}, why it failed`, failure.cause)}`);
	}
	if (failures.length > 10) lines.push(`  … and ${failures.length - 10} more failures`);
	return [...lines, ...next].join("\n");
}

/**
 * "Script: sha256 3f2a9c0b71de · tier project": which text the run ran (the first 12 hex digits of its sha256, as
 * the run's event log and the grants name it in full) and where it came from; records made before tiers have none.
 */
export function scriptLine(info: Pick<RunInfo, "script" | "tier">): string {
	return `Script: sha256 ${shortDigest(scriptSha256(info.script))}${info.tier ? ` · tier ${info.tier}` : ""}`;
}

/** The first 12 hex digits of a sha256: enough to tell versions apart when shown. */
export function shortDigest(sha256: string): string {
	return sha256.slice(0, 12);
}

/** A run of the store: "done" counts finished agents only, so a run stopped early does not read as one that ran none. */
function storedRow(summary: RunSummary, now: number): string {
	const age = formatDuration(Math.max(0, now - Date.parse(summary.endedAt ?? summary.createdAt)));
	const where = summary.status === "running" && summary.lock ? ` (process ${summary.lock.pid})` : "";
	const problem = summary.problem ? ` · unreadable: ${summary.problem}` : "";
	return `${summary.id} · ${summary.name ?? "?"} · ${summary.status}${where} · ${age} ago · ${summary.agents} ${summary.agents === 1 ? "agent" : "agents"} done${replayedNote(summary.replayed)} · ${formatTokens(summary.tokens)} tokens${costText(summary.cost, summary.replayedCost)}${capText(summary.spend)}${sizeText(summary.bytes)}${problem}`;
}

/** " · $1.20 of a $2.00 cap in all (reached: waiting for you)": a live capped run against its cap; "" without one. */
function liveCapText(totals: WorkflowProgressEnvelope["totals"]): string {
	if (totals.costLimitUsd === undefined) return "";
	const reached = totals.atCostCap
		? " (reached: waiting for you to raise it)"
		: totals.stoppedAtCostCap
			? " (reached: stopping once running agents end)"
			: "";
	return ` · ${formatUsd(totals.cost.usd + (totals.priorCostUsd ?? 0))} of a ${formatUsd(totals.costLimitUsd)} cap in all${reached}`;
}

/** " · $1.20 of a $2.00 cap in all": a capped run's spend over all its sessions; "" for a run with no cap. */
function capText(spend: RunSummary["spend"]): string {
	if (spend?.capUsd === undefined) return "";
	return ` · ${formatUsd(spend.usd)}${spend.unpriced ? " + unknown" : ""} of a ${formatUsd(spend.capUsd)} cap in all`;
}

/**
 * "Spent in all: $1.20 of the $2.00 cap, over 2 sessions": a capped run's spend against its cap; undefined for a run
 * with no cap (its cost and the whole record's say what it spent).
 */
function spendLine(spend: RunSummary["spend"]): string | undefined {
	if (spend?.capUsd === undefined) return undefined;
	const unknown = spend.unpriced ? ` (and ${spend.unpriced} replies of models with no known price)` : "";
	const sessions = spend.sessions === 1 ? "1 session" : `${spend.sessions} sessions`;
	return `Spent in all: ${formatUsd(spend.usd)}${unknown} of the ${formatUsd(spend.capUsd)} cap, over ${sessions}`;
}

/** " · 12 KiB": the space a run's folder takes; "" when the store did not say. */
function sizeText(bytes: number | undefined): string {
	return bytes === undefined ? "" : ` · ${formatBytes(bytes)}`;
}

/** " · $0.42", " · $0.10 (with replayed calls $0.42)", or "" when nothing cost anything (or a record predates costs). */
function costText(cost: WorkflowCost | undefined, replayed: WorkflowCost | undefined): string {
	if (!hasCost(cost) && !hasCost(replayed)) return "";
	const now = formatCost(cost ?? { usd: 0 });
	const whole = hasCost(replayed) ? formatCost(addCosts(cost, replayed)) : now;
	// Nothing priced at all: one "cost unknown" rather than "unknown (with replayed calls unknown)".
	if (whole === "unknown") return " · cost unknown";
	return whole === now ? ` · ${now}` : ` · ${now} (with replayed calls ${whole})`;
}

/** " (4 replayed)": how many of a run's finished agents a resume took from the journal; "" when none. */
function replayedNote(replayed: number | undefined): string {
	return replayed ? ` (${replayed} replayed)` : "";
}

/** "1 agent result is", "9 agent results are": how many a run's journal holds, for "… saved". */
export function savedResults(count: number): string {
	return count === 1 ? "1 agent result is" : `${count} agent results are`;
}

/**
 * How to resume with a fix: edit the run's own script file (so unchanged calls stay byte for byte the same and
 * replay) and resume with its path; without the file, any edited `script`, `path` or `name`.
 */
export function fixText(id: string, script: string | undefined): string {
	if (!script) return "To resume with an edited script, add `script`, `path` or `name` to that call.";
	return `To fix the script first: read ${script}, change only what is wrong, and resume with workflow({ resume: "${id}", path: "${script}" }); an agent() call replays only when its prompt and options are byte for byte the recorded ones.`;
}
