/** The report's model: what a run's record and event log say, shaped for drawing (pure data, times in epoch ms). */

import type { RunStatus, ScriptTier } from "../runs/types.ts";
import type { WorkflowAgentCounts, WorkflowCost, WorkflowFailure } from "../runtime/core/types.ts";
import type { RunChanges } from "./changes.ts";
import type { ReportPlanned } from "./planned.ts";

/** How an attempt (or a call) ended, which is its colour. `running`: the record ends before it did. */
export type ReportOutcome =
	| "completed"
	| "failed"
	| "stalled"
	| "skipped"
	| "restarted"
	| "stopped"
	| "replayed"
	| "running";

/** Every outcome, in the legend's order. */
export const OUTCOMES: readonly ReportOutcome[] = [
	"completed",
	"failed",
	"stalled",
	"restarted",
	"skipped",
	"stopped",
	"replayed",
	"running",
];

/** One bar: an attempt's running time (a child), or a call's time in the queue. */
export interface ReportBar {
	start: number;
	end: number;
	outcome: ReportOutcome | "queued";
	/** Why this attempt ended, when it was not the last (the retry's reason, the child's error). */
	note?: string;
}

/** Why a call of a resume ran instead of replaying. */
export interface ReportWhy {
	/**
	 * `edited`: a recorded call is near it and differs; `new`: none is; `unfinished`: the same call ran before and
	 * ended without an answer (failed, stopped), so nothing was recorded; `unknown`: the record cannot say.
	 */
	kind: "edited" | "new" | "unfinished" | "unknown";
	/** The nearest recorded call, for `edited`. */
	nearest?: { label: string; index?: number };
	/** What differs, in words (the runtime's own, src/runtime/agent/replay-miss.ts). */
	differences: string[];
	/** The prompts' heads around their first difference, for `edited` calls whose prompt changed. */
	diff?: { same: string; recorded: string; now: string };
}

/** One `agent()` call of one session. */
export interface ReportCall {
	/** Its position in `ReportModel.calls`. */
	id: number;
	session: number;
	key: string;
	index: number;
	label: string;
	agentType: string;
	phase?: string;
	workflow?: string;
	/** The earlier call whose conversation this one continues (`resume`). */
	continues?: { index: number; label: string };
	/** Its attempt went on from an interrupted one's finished turns (issue 47): how many, and the tokens not paid again. */
	interrupted?: { turns: number; from: string; savedTokens: number };
	model?: string;
	prompt?: string;
	answer?: string;
	error?: string;
	code?: string;
	tokens?: number;
	cost?: WorkflowCost;
	toolUses?: number;
	attempts: number;
	outcome: ReportOutcome;
	queuedAt?: number;
	startedAt?: number;
	endedAt?: number;
	bars: ReportBar[];
	branch?: string;
	/** The child's conversation files (pi session files, relative to the run's folder), every attempt's in order. */
	transcripts?: string[];
	why?: ReportWhy;
}

/** A band across the timeline: a provider wait or an open question. */
export interface ReportBand {
	kind: "wait" | "question";
	start: number;
	end: number;
	label: string;
}

/** One `log()` entry (or a warning the runtime logged). */
export interface ReportLog {
	session: number;
	time?: number;
	level: "info" | "warn" | "error";
	message: string;
	phase?: string;
}

/** One phase of a session, as it ran. */
export interface ReportPhase {
	name: string;
	start: number;
	end: number;
}

/**
 * How a session ended, from its `run_end`: `interrupted` when its log ends without one (the process ended while it
 * ran), `running` for the last session of a run still running.
 */
export type ReportSessionStatus = "completed" | "failed" | "stopped" | "interrupted" | "running";

/** The first run or one of its resumes. */
export interface ReportSession {
	session: number;
	resumed: boolean;
	status: ReportSessionStatus;
	/** The error this session ended with, as text. */
	error?: string;
	start: number;
	end: number;
	/** Ids of its calls, in call order. */
	calls: number[];
	phases: ReportPhase[];
	bands: ReportBand[];
	/** Children running (and calls queued) after each change: `[time, running, queued]`. */
	running: [number, number, number][];
}

/** What a phase spent, over every session. */
export interface ReportPhaseTotal {
	phase: string;
	/** Its calls in every session, replayed ones too: the lanes the timeline draws for it. */
	calls: number;
	/** Tokens of the calls that ran (not replayed). */
	tokens: number;
	cost: WorkflowCost;
	/** What its replayed calls had cost when they ran. */
	replayedCost: WorkflowCost;
	/** Calls in `cost` answered by a model of unknown price. */
	unknownCalls: number;
	/** Replayed calls in `replayedCost` answered by a model of unknown price. */
	replayedUnknownCalls: number;
}

/** Everything the report shows. */
/**
 * What decided a failed run, from a blame (`pi-workflows blame`, an eval's failing trial): its sentence, and the
 * calls (by label) whose answer, swapped for a passing run's, turns it into a pass. The record itself is never
 * written to: a report that shows it is written by the one who blamed.
 */
export interface ReportDecided {
	text: string;
	labels: string[];
}

export interface ReportModel {
	runId: string;
	/** What decided this failed run, when the report was written with a blame. */
	decided?: ReportDecided;
	/** The run's ledger of changes (by file, by call, the scripts its sessions ran); absent when it could not be read. */
	changes?: RunChanges;
	name: string;
	/** The script the run starts from: its sha256 (hex) and tier (none in records made before tiers). */
	script: { sha256: string; tier?: ScriptTier };
	status: RunStatus;
	createdAt: string;
	endedAt?: string;
	durationMs?: number;
	/**
	 * Outcomes of the calls of every session (a lane each, replayed ones too): the one count the header, `--text`
	 * and the phase table share, so a first session's failed call still counts after the resume that fixed it.
	 */
	counts: WorkflowAgentCounts;
	/** Tokens of the calls that ran (replayed calls' tokens were spent in an earlier session and are counted there). */
	tokens: number;
	/** What the calls that ran cost, over every session (the phase rows add up to it). */
	cost: WorkflowCost;
	/** Calls in `cost` answered by a model of unknown price. */
	unknownCostCalls: number;
	/** What the replayed calls had cost when they ran. */
	replayedCost: WorkflowCost;
	/** Replayed calls in `replayedCost` answered by a model of unknown price. */
	replayedUnknownCostCalls: number;
	/** Agent attempts over every call (runtime retries and the children of stall retries and restarts). */
	attempts: number;
	sessions: ReportSession[];
	calls: ReportCall[];
	phases: ReportPhaseTotal[];
	census: WorkflowFailure[];
	logs: ReportLog[];
	/** The error the run ended with, as text. */
	error?: string;
	/** What the record lacks, for the report to say (no event log, no snapshot…). */
	missing: string[];
	/** Parts of the record that could not be read. */
	problems: string[];
	/** Events the log's writer dropped. */
	dropped: number;
	/** The run's plan against what it did; absent when the run has no plan. */
	planned?: ReportPlanned;
}
