/**
 * The progress envelope: one snapshot of a run, as the tracker folds it from events. Plain data; the tool-result
 * shape built from it is tool-result.ts.
 */
import type {
	WorkflowAgentChild,
	WorkflowChildState,
	WorkflowCost,
	WorkflowFailure,
	WorkflowMeta,
	WorkflowProviderLimitKind,
	WorkflowQuestion,
	WorkflowWorktree,
} from "../runtime/core/types.ts";
import type { SlowMark, TimingBasis } from "./forecast.ts";

/** Status of a whole run. `error` means the host failed around the run (it threw), not the script. */
export type WorkflowProgressStatus = "running" | "completed" | "failed" | "stopped" | "error";

/** Status of one declared or seen phase. */
export type WorkflowPhaseStatus = "pending" | "running" | "done" | "failed";

/** Status of one `agent()` call. */
export type WorkflowAgentCallStatus = "queued" | "running" | "completed" | "failed" | "stopped";

/** Agent calls by status. */
export interface WorkflowAgentStateCounts {
	queued: number;
	running: number;
	completed: number;
	failed: number;
	stopped: number;
	/** All calls seen. */
	total: number;
}

/** One phase: declared in `meta.phases`, or first seen in a `phase_start` event or an agent call. */
export interface WorkflowProgressPhase {
	title: string;
	/** From `meta.phases[i].detail`. */
	detail?: string;
	/** True when `meta.phases` names it. */
	declared: boolean;
	status: WorkflowPhaseStatus;
	/** Agent calls made in this phase, by status. */
	agents: WorkflowAgentStateCounts;
	/** What its calls cost in this run (live while they run); absent while nothing has. */
	cost?: WorkflowCost;
	/** Its budget, from `phase(name, { budget })`. */
	budget?: { agentCalls?: number; tokens?: number; costUsd?: number };
	/** Epoch ms of its first start (or first agent call). */
	startedAt?: number;
	/** Epoch ms when it last ended; absent while running. */
	endedAt?: number;
	/** Time spent so far, as of `envelope.updatedAt`; frozen once the phase ends. */
	elapsedMs?: number;
	/** Its calls done of expected and its time left, when the run has a plan or a history to go by. */
	forecast?: WorkflowPhaseForecast;
}

/** A phase's calls done of expected, and its time left. */
export interface WorkflowPhaseForecast {
	/** Calls ended (completed, failed or stopped). */
	done: number;
	/** The plan's calls of this phase, or as many as it made when it made more. */
	expected: number;
	/** Null: not known yet (no plan, or no earlier call like one still to run). */
	remainingMs: number | null;
	/** Where `remainingMs` came from: this workflow's earlier runs, the project's, or nowhere (null). */
	basis: TimingBasis;
}

/** The run's calls done of expected, the fraction shown, its time left, and whether it runs slower than usual. */
export interface WorkflowProgressForecast extends WorkflowPhaseForecast {
	/** What the progress shown is: never goes backwards while the run goes (it holds while `expected` grows). */
	fraction: number;
	/** `plan`: `expected` is the run's plan (grown when the run made more); `seen`: no plan, the calls made so far. */
	expectedBasis: "plan" | "seen";
	/** True once the run made more calls than its plan. */
	grown: boolean;
	/** Set while the run takes over the slow multiple of its workflow's usual run time. */
	slow?: SlowMark;
	/** The multiple of the usual duration past which a call or the run is marked slow (the tracker's option). */
	slowMultiple: number;
}

/** One log entry. */
export interface WorkflowProgressLog {
	time: number;
	level: "info" | "warn" | "error";
	message: string;
	data?: unknown;
	phase?: string;
}

/** One `agent()` call. */
export interface WorkflowProgressAgentCall {
	/** Stable call key. */
	key: string;
	/** 0-based call index; -1 until the call's own events arrive. */
	index: number;
	label: string;
	agentType: string;
	phase?: string;
	/** Nested workflow that made the call. */
	workflow?: string;
	status: WorkflowAgentCallStatus;
	/**
	 * What the child appears to be doing (starting, active, quiet, stalled…), as its runner reports it; `waiting`
	 * while its attempt waits out a provider limit with the run's queue.
	 */
	activity?: WorkflowChildState | "waiting";
	/** A short phrase for the current activity ("reading 3 files…"). */
	activityText?: string;
	/** The child's id, once the runner reports one. */
	agentId?: string;
	/** 1-based attempt (schema retries); 0 for a call replayed from the journal. */
	attempt: number;
	promptPreview?: string;
	/** The model: as the call asked, then (once a child runs on a fallback, or answers) the one that ran. */
	model?: string;
	/** Models that met a provider limit before `model` took over (`fallbackModels`). */
	fallbackFrom?: string[];
	/** The earlier call whose conversation this one continues (`resume`). */
	continues?: { index: number; label: string };
	/** First characters of the answer (capped). */
	resultPreview?: string;
	/** Why it failed or stopped (capped). */
	error?: string;
	code?: string;
	/** True when it never reached the runner. */
	skipped?: boolean;
	/** True when `agent()` threw into the script instead of giving null. */
	thrown?: boolean;
	/** True when the answer was replayed from the journal of the run this one resumes (no child ran). */
	cached?: boolean;
	/** Total tokens. */
	tokens?: number;
	/** What its child's replies cost in this run (live while it runs); absent for a replayed call. */
	cost?: WorkflowCost;
	/** A replayed call's cost when it ran, which this run saved. */
	savedCost?: WorkflowCost;
	toolUses?: number;
	turns?: number;
	queuedAt?: number;
	startedAt?: number;
	endedAt?: number;
	/** Epoch ms of the child's last sign of life. */
	lastActivityAt?: number;
	/** Running time so far, as of `envelope.updatedAt`; frozen once the call ends. */
	elapsedMs?: number;
	/** An isolated child's worktree (`isolation: "worktree"`): where it works, then the branch its changes are kept on. */
	worktree?: WorkflowWorktree;
	/** The median duration of earlier calls like it (see `forecast.basis`), when the run has a history. */
	usualMs?: number;
	/** Set when it took (or, running, has taken) over the slow multiple of `usualMs`. */
	slow?: SlowMark;
}

/** A branch an isolated child's changes were committed on, kept for the caller to merge. */
export interface WorkflowKeptBranch {
	branch: string;
	/** The `agent()` call whose child made it (index -1 when the runner did not say). */
	label: string;
	index: number;
	/** Files changed on it, relative to the repository root (the first 20; the call's `worktree` lists up to 100). */
	files: string[];
	/** How many files changed. */
	fileCount: number;
	commit?: string;
}

/** The provider wait the run's queue is in: no child starts before `until`. */
export interface WorkflowProviderWait {
	kind: WorkflowProviderLimitKind;
	/** The provider's message (capped). */
	message: string;
	/** Epoch ms the wait began (for this run) and when the next try is due. */
	since: number;
	until: number;
	/** What the provider asked for, when it said. */
	retryAfterMs?: number;
	/** The label of this run's call whose attempt met the limit, when it was one of this run's. */
	label?: string;
}

/** The run's provider waits so far, against the bound that stops it. */
export interface WorkflowProviderWaits {
	count: number;
	totalMs: number;
	/** `maxProviderWaitMs`, when the events said. */
	maxMs?: number;
}

/** Totals over the whole run. */
export interface WorkflowProgressTotals {
	agents: WorkflowAgentStateCounts;
	tokens: number;
	toolUses: number;
	/** What this run's children cost (replayed calls cost nothing). */
	cost: WorkflowCost;
	/** What the replayed calls cost when they ran: saved by this run; with `cost`, what the run's record spent. */
	replayedCost?: WorkflowCost;
	/** The run's cap in dollars (as raised), when it has one: for all the run's sessions together. */
	costLimitUsd?: number;
	/** What earlier sessions of the run spent, when they spent anything: with `cost`, what the run spent in all. */
	priorCostUsd?: number;
	/** True while the run is parked at its cap, waiting for a person to raise it. */
	atCostCap?: boolean;
	/** True once the run reached its cap and no raise came: it stops there when its running agents end. */
	stoppedAtCostCap?: boolean;
	/** Completed calls replayed from the journal (a resume; no child ran), counted in `agents.completed` too; absent when none. */
	replayed?: number;
	/** Calls whose child went on from an interrupted attempt's finished turns, and the tokens those took; absent when none. */
	continued?: { calls: number; tokens: number };
}

/** An error as the envelope carries it. */
export interface WorkflowProgressError {
	message: string;
	code?: string;
	line?: number;
	column?: number;
}

/** An `ask()` question the run waits on a person to answer: the question as the host's handler gets it, and when. */
export interface WorkflowProgressQuestion extends WorkflowQuestion {
	/** Epoch ms when it was asked. */
	askedAt: number;
}

/** A `tool()` step running now. */
export interface WorkflowProgressToolRun {
	key: string;
	/** The tool (`bash`, `read`, …). */
	name: string;
	/** The step's label: its `label` option, else the command or path. */
	label: string;
	/** Epoch ms when it started. */
	startedAt: number;
	phase?: string;
}

/** The run's `tool()` steps: the ones running, and how the others went. */
export interface WorkflowProgressToolSteps {
	running: WorkflowProgressToolRun[];
	/** Steps that gave a result (replayed ones included). */
	done: number;
	/** Of those, steps whose tool reported an error (a non-zero exit). */
	errors: number;
	/** Steps that threw (unknown, refused, failed, timed out). */
	failed: number;
}

/** One snapshot of a run. Plain data; treat it as immutable. */
export interface WorkflowProgressEnvelope {
	meta?: WorkflowMeta;
	status: WorkflowProgressStatus;
	/** Declared phases first, in `meta.phases` order, then the others as they appeared. */
	phases: WorkflowProgressPhase[];
	/** The most recent log entries, oldest first. */
	logs: WorkflowProgressLog[];
	/** Log entries seen but not kept in `logs`. */
	droppedLogs: number;
	/** Children as their runners reported them, in order of first report. */
	agents: WorkflowAgentChild[];
	/** One entry per `agent()` call, in order of first sight. */
	agentCalls: WorkflowProgressAgentCall[];
	currentPhase?: string;
	/** Label of the agent call that started most recently and is still running. */
	currentTask?: string;
	/** Epoch ms when the run started. */
	startedAt: number;
	/** Epoch ms when it ended; absent while running. */
	endedAt?: number;
	/** Epoch ms of the latest event folded in; every `elapsedMs` is "as of" this moment. */
	updatedAt: number;
	/** Run time in ms, as of `updatedAt`; final once ended. */
	duration: number;
	/** What the script returned (completed runs). */
	result?: unknown;
	error?: WorkflowProgressError;
	totals: WorkflowProgressTotals;
	/** Failed calls and null slots: live while running, the runtime's census once it ends. */
	failures: WorkflowFailure[];
	/** Branches isolated children's changes were kept on, in call order; absent when there are none. */
	branches?: WorkflowKeptBranch[];
	/** `ask()` questions waiting for a person, oldest first; absent when none is open. */
	questions?: WorkflowProgressQuestion[];
	/** The provider wait in force (rate limit, overload, usage limit); absent when none. */
	providerWait?: WorkflowProviderWait;
	/** How long the run has waited for providers in all; absent when it never did. */
	providerWaits?: WorkflowProviderWaits;
	/** The run's `tool()` steps; absent when it made none. */
	toolSteps?: WorkflowProgressToolSteps;
	/** Calls done of expected and time left; absent until the host gives the tracker a plan or a history. */
	forecast?: WorkflowProgressForecast;
}
