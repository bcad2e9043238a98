/**
 * A run's report model (pure): its record (run.json, journal, snapshot) and its event log, made into sessions,
 * calls, phase totals, the census and the log. A run without an event log (recorded before there was one) still
 * gets its calls from the journal and the census, and `missing` says what cannot be shown.
 */

import type { RunPlanFile } from "../runs/plan-file.ts";
import { scriptSha256 } from "../runs/script-versions.ts";
import type { RunInfo, RunSnapshot, RunStatus } from "../runs/types.ts";
import type { WorkflowAgentCounts, WorkflowJournalEntry } from "../runtime/core/types.ts";
import type { RunEventLog } from "./event-log.ts";
import { foldEvents, PREVIEW_CHARS } from "./fold.ts";
import { plannedAgainstActual } from "./planned.ts";
import { spendOf } from "./spend.ts";
import type { ReportCall, ReportModel, ReportOutcome, ReportPhaseTotal, ReportSession } from "./types.ts";
import { explainReruns } from "./why.ts";

/** What the report is made from. */
export interface ReportInput {
	info: RunInfo;
	status: RunStatus;
	snapshot?: RunSnapshot;
	/** The journal's entries (one per key). */
	journal: readonly WorkflowJournalEntry[];
	/** The event log; undefined when the run has none. */
	log?: RunEventLog;
	/** What could not be read. Default: none. */
	problems?: string[];
	/** The run's plan (`plan.json`); undefined when it has none. */
	plan?: RunPlanFile;
}

/** The phase name of calls made outside any phase. */
export const NO_PHASE = "(no phase)";

/** Builds the model. Never throws for what a record holds. */
export function buildReportModel(input: ReportInput): ReportModel {
	const { info, snapshot, log } = input;
	const missing: string[] = [];
	const problems = shownProblems([...(input.problems ?? []), ...(log?.problems ?? [])]);
	const folded = log ? foldEvents(log) : { sessions: [], calls: [], logs: [] };
	if (!log) {
		missing.push(
			"This run has no event log (events.jsonl): it was recorded before runs kept one. The calls below come from its journal and its failure census; there is no timeline, no waits, no log and no attempts.",
		);
		folded.calls.push(...callsFromRecord(input));
	} else if (log.dropped > 0) {
		missing.push(`The event log dropped ${log.dropped} events (its size bound): some bars or marks may be missing.`);
	}
	if (!snapshot && input.status !== "running") {
		missing.push(
			"No snapshot: the run did not end cleanly (the process ended while it ran), so totals are the journal's.",
		);
	}
	const extraDropped = snapshot?.droppedLogs ?? 0;
	if (extraDropped > 0) missing.push(`The run dropped ${extraDropped} log entries (limits.maxLogEntries).`);
	explainReruns(folded.sessions, folded.calls, input.journal, folded.logs);
	settleSessions(folded.sessions, snapshot, input.status);
	const totals = totalsOf(folded.calls);
	const durationMs =
		folded.sessions.length > 0
			? folded.sessions.reduce((sum, session) => sum + (session.end - session.start), 0)
			: snapshot?.durationMs;
	const model: ReportModel = {
		runId: info.id,
		name: info.meta?.name ?? snapshot?.meta?.name ?? "workflow",
		script: { sha256: scriptSha256(info.script), ...(info.tier !== undefined ? { tier: info.tier } : {}) },
		status: input.status,
		createdAt: info.createdAt,
		...(snapshot?.endedAt ? { endedAt: snapshot.endedAt } : {}),
		...(durationMs !== undefined ? { durationMs } : {}),
		counts: countsOf(folded.calls),
		tokens: totals.tokens,
		cost: totals.cost,
		unknownCostCalls: totals.unknownCalls,
		replayedCost: totals.replayedCost,
		replayedUnknownCostCalls: totals.replayedUnknownCalls,
		attempts: folded.calls.reduce((sum, call) => sum + call.attempts, 0),
		sessions: folded.sessions,
		calls: folded.calls,
		phases: phaseTotals(folded.calls),
		census: snapshot?.failures ?? [],
		logs: folded.logs,
		missing,
		problems,
		dropped: log?.dropped ?? 0,
	};
	if (snapshot?.error) model.error = `${snapshot.error.code}: ${snapshot.error.message}`;
	if (input.plan) {
		// A call replayed in a later session is the same call: counted once, by its key.
		const once = [...new Map(folded.calls.map((call) => [call.key, call])).values()];
		model.planned = plannedAgainstActual(input.plan, once, totals.cost, NO_PHASE);
	}
	return model;
}

/**
 * Sessions whose log has no `run_end`: the last one ends as the snapshot says (or is still running); an earlier
 * one was cut short, since a resume starts only after the session before it ended.
 */
function settleSessions(sessions: ReportSession[], snapshot: RunSnapshot | undefined, status: RunStatus): void {
	const last = sessions.at(-1);
	if (last?.status !== "interrupted") return;
	if (status === "running") last.status = "running";
	else if (snapshot) {
		last.status = snapshot.status;
		if (snapshot.error) last.error = `${snapshot.error.code}: ${snapshot.error.message}`;
	}
}

/** Unreadable lines the report names one by one; a record torn in many places gets the rest counted. */
export const PROBLEMS_SHOWN = 20;

function shownProblems(problems: string[]): string[] {
	if (problems.length <= PROBLEMS_SHOWN) return problems;
	return [...problems.slice(0, PROBLEMS_SHOWN), `… and ${problems.length - PROBLEMS_SHOWN} more unreadable lines`];
}

/** Calls as the journal and the census know them, for a run without an event log. */
function callsFromRecord(input: ReportInput): ReportCall[] {
	const calls: ReportCall[] = [];
	for (const entry of input.journal) {
		if (entry.kind !== undefined) continue;
		const value = typeof entry.value === "string" ? entry.value : JSON.stringify(entry.value);
		calls.push({
			id: calls.length,
			session: 0,
			key: entry.key,
			index: entry.identity?.index ?? calls.length,
			label: entry.label ?? "?",
			agentType: entry.agentType ?? entry.identity?.agentType ?? "?",
			...(entry.model ? { model: entry.model } : {}),
			...(entry.identity?.promptHead ? { prompt: entry.identity.promptHead } : {}),
			answer: String(value ?? "").slice(0, PREVIEW_CHARS),
			...(entry.usage ? { tokens: entry.usage.total } : {}),
			...(entry.cost ? { cost: entry.cost } : {}),
			attempts: 0,
			outcome: "completed",
			bars: [],
		});
	}
	for (const failure of input.snapshot?.failures ?? []) {
		if (failure.kind !== "agent") continue;
		calls.push({
			id: calls.length,
			session: 0,
			key: failure.key ?? `#${failure.index}`,
			index: failure.index,
			label: failure.label ?? "?",
			agentType: failure.agentType ?? "?",
			...(failure.phase ? { phase: failure.phase } : {}),
			error: failure.cause,
			...(failure.code ? { code: failure.code } : {}),
			...(failure.worktree?.branch ? { branch: failure.worktree.branch } : {}),
			attempts: 0,
			outcome: "failed",
			bars: [],
		});
	}
	return calls.sort((a, b) => a.index - b.index).map((call, id) => ({ ...call, id }));
}

/** Tokens and cost per phase, in the order phases first appear; replayed calls' cost apart. */
function phaseTotals(calls: readonly ReportCall[]): ReportPhaseTotal[] {
	const byPhase = new Map<string, ReportCall[]>();
	for (const call of calls) {
		const phase = call.phase ?? NO_PHASE;
		const own = byPhase.get(phase);
		if (own) own.push(call);
		else byPhase.set(phase, [call]);
	}
	return [...byPhase].map(([phase, own]) => ({ phase, calls: own.length, ...totalsOf(own) }));
}

/**
 * What calls spent: tokens and cost of those that ran, in whichever session; what the replayed ones had cost when
 * they ran, apart (their tokens were spent, and are counted, in the session that ran them).
 */
function totalsOf(calls: readonly ReportCall[]) {
	const ran = calls.filter((call) => call.outcome !== "replayed");
	const live = spendOf(ran);
	const old = spendOf(calls.filter((call) => call.outcome === "replayed"));
	return {
		tokens: ran.reduce((sum, call) => sum + (call.tokens ?? 0), 0),
		cost: live.cost,
		replayedCost: old.cost,
		unknownCalls: live.unknownCalls,
		replayedUnknownCalls: old.unknownCalls,
	};
}

/** The calls' outcomes counted, one lane each (replayed calls are `completed` and `replayed`, as the runtime counts). */
function countsOf(calls: readonly ReportCall[]): WorkflowAgentCounts {
	const count = (...outcomes: ReportOutcome[]) => calls.filter((call) => outcomes.includes(call.outcome)).length;
	const replayed = count("replayed");
	return {
		calls: calls.length,
		started: calls.filter((call) => call.startedAt !== undefined || call.outcome === "replayed").length,
		completed: count("completed", "replayed"),
		failed: count("failed", "stalled", "stopped", "restarted"),
		skipped: count("skipped"),
		...(replayed > 0 ? { replayed } : {}),
	};
}
