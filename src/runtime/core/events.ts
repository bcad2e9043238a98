/**
 * Progress events of a run. Plain JSON data only, emitted in order; a tracker can rebuild the whole run from them.
 */
import type { SerializedWorkflowError } from "../../errors.ts";
import type {
	JsonValue,
	WorkflowAgentChild,
	WorkflowAgentCounts,
	WorkflowCost,
	WorkflowFailure,
	WorkflowMeta,
	WorkflowProviderLimitKind,
	WorkflowTokenUsage,
	WorkflowToolCounts,
	WorkflowWorktree,
} from "./types.ts";

/** Identity of one `agent()` call, repeated on each of its events. */
export interface WorkflowAgentCallRef {
	/** Stable call key (see `WorkflowAgentRequest.key`). */
	key: string;
	/** 0-based call index in the run. */
	index: number;
	label: string;
	agentType: string;
	phase?: string;
	/** Name of the nested workflow that made the call, when not the top-level script. */
	workflow?: string;
	/** The earlier call whose conversation this one continues (`agent()` option `resume`). */
	continues?: { index: number; label: string };
}

interface EventBase {
	/** Epoch ms when the event happened. */
	time: number;
}

export interface RunStartEvent extends EventBase {
	type: "run_start";
	meta: WorkflowMeta;
	args?: JsonValue;
	cwd: string;
	/** The run's cap in US dollars (`budget.costUsd`), when it has one. */
	costLimitUsd?: number;
	/** What earlier sessions of the run spent (`budget.priorCostUsd`), when they spent anything. */
	priorCostUsd?: number;
}

/**
 * The run's dollar cap: reached (the run is parked while a person is asked), raised (it goes on), or stopped (no
 * raise: the run ends with `cost_cap` once its running children end).
 */
export interface CostCapEvent extends EventBase {
	type: "cost_cap";
	state: "parked" | "raised" | "stopped";
	/** What the run spent in all (earlier sessions included). */
	spentUsd: number;
	/** The cap: the one reached, or the new one. */
	capUsd: number;
}

export interface PhaseStartEvent extends EventBase {
	type: "phase_start";
	phase: string;
	/** The phase that was current before this one, if any. */
	parent?: string;
	/** Its budget, when `phase(name, { budget })` gave one. */
	budget?: { agentCalls?: number; tokens?: number; costUsd?: number };
}

export interface PhaseEndEvent extends EventBase {
	type: "phase_end";
	phase: string;
}

export interface LogEvent extends EventBase {
	type: "log";
	level: "info" | "warn" | "error";
	message: string;
	data?: JsonValue;
	phase?: string;
}

export interface AgentQueuedEvent extends EventBase, WorkflowAgentCallRef {
	type: "agent_queued";
	/** First characters of the prompt. */
	promptPreview: string;
	/** Where the script called it, in its file (1-based), when the stack says. */
	line?: number;
	column?: number;
	model?: string;
	hasSchema: boolean;
}

export interface AgentStartedEvent extends EventBase, WorkflowAgentCallRef {
	type: "agent_started";
	attempt: number;
}

export interface AgentChildEvent extends EventBase, WorkflowAgentCallRef {
	type: "agent_child";
	child: WorkflowAgentChild;
}

export interface AgentRetryEvent extends EventBase, WorkflowAgentCallRef {
	type: "agent_retry";
	/** The attempt about to start (2…5). */
	attempt: number;
	reason: string;
}

export interface AgentFinishedEvent extends EventBase, WorkflowAgentCallRef {
	type: "agent_finished";
	agentId?: string;
	/** First characters of the answer (text, or JSON of the structured value). */
	resultPreview: string;
	usage?: WorkflowTokenUsage;
	/** What its child's replies cost; for a replayed call (`cached`), what it cost when it ran (this run spent nothing). */
	cost?: WorkflowCost;
	/** `provider/id` of the model its child ran on, when the runner said. */
	model?: string;
	toolUses?: number;
	durationMs: number;
	/** Runner attempts made; 0 for a call replayed from the journal. */
	attempts: number;
	/** True when the value came from the journal (a resumed run) and no child ran. */
	cached?: boolean;
	/** An isolated child's worktree: the branch its changes are kept on, and the files. */
	worktree?: WorkflowWorktree;
	/** Models that met a provider limit before `model` answered (`fallbackModels`). */
	fallbackFrom?: string[];
	/** The child's conversation files, every attempt's, as the runner kept them; a replayed call's from its run. */
	transcripts?: string[];
}

export interface AgentFailedEvent extends EventBase, WorkflowAgentCallRef {
	type: "agent_failed";
	agentId?: string;
	/** Why the call gave null (or threw, when `thrown` is true). */
	error: string;
	code?: string;
	/** True when `agent()` threw into the script instead of resolving to null. */
	thrown: boolean;
	/** True when it never reached the runner (cancelled while queued, refused by a limit). */
	skipped: boolean;
	usage?: WorkflowTokenUsage;
	/** What its child's replies cost, every attempt included. */
	cost?: WorkflowCost;
	/** `provider/id` of the model its child ran on, when the runner said. */
	model?: string;
	toolUses?: number;
	durationMs: number;
	/** An isolated child's worktree: a failed child's changes may still be kept on its branch. */
	worktree?: WorkflowWorktree;
	/** The child's conversation files, every attempt's, as the runner kept them. */
	transcripts?: string[];
}

/**
 * A `parallel()` or `pipeline()` started: its width from the script's structure (the functions given to
 * `parallel()`, the items given to `pipeline()`), not from how many of its calls happen to be queued at once.
 */
export interface FanOutEvent extends EventBase {
	type: "fan_out";
	kind: "parallel" | "pipeline";
	width: number;
	phase?: string;
	workflow?: string;
}

/** A `parallel` or `pipeline` slot became null. */
export interface SlotFailedEvent extends EventBase {
	type: "slot_failed";
	kind: "parallel" | "pipeline";
	index: number;
	error: string;
	phase?: string;
}

/** Identity of one `ask()` question, repeated on each of its events. */
export interface AskRef {
	/** Its journal key (see `WorkflowQuestion.key`). */
	key: string;
	/** 0-based order of the run's `ask()` calls. */
	index: number;
	question: string;
	phase?: string;
	workflow?: string;
}

/** The script waits for a person's answer; the run's deadline stops until it is answered, unless other work runs. */
export interface AskStartedEvent extends EventBase, AskRef {
	type: "ask_started";
	choices?: string[];
	default?: string;
	timeoutMs?: number;
}

/** The question has its answer: the person's, its default (no answer in time, or nobody to ask) or the journal's. */
export interface AskAnsweredEvent extends EventBase, AskRef {
	type: "ask_answered";
	answer: string;
	source: "person" | "default" | "journal";
	durationMs: number;
}

/** `ask()` threw: `ask_timeout`, `ask_unavailable`, `ask_answer_invalid`, or the run was stopped. */
export interface AskFailedEvent extends EventBase, AskRef {
	type: "ask_failed";
	error: string;
	code: string;
}

/** Identity of one `tool()` step, repeated on each of its events. */
export interface ToolRef {
	/** Its journal key: a hash of the name and params plus its occurrence. */
	key: string;
	/** 0-based order of the run's `tool()` calls. */
	index: number;
	/** The tool's name (`bash`, `read`, …). */
	name: string;
	/** The step's label: its `label` option, else the command or path. */
	label: string;
	/** Its `path` parameter, when it has one (the run's ledger of changes reads it). */
	path?: string;
	/** Its `command` parameter, cut to 500 characters, when it has one. */
	command?: string;
	/** Where the script called it, in the author's file (1-based), when the stack says. */
	line?: number;
	column?: number;
	phase?: string;
	workflow?: string;
}

/** A `tool()` step got its turn in the tool queue and its tool runs now. */
export interface ToolStartedEvent extends EventBase, ToolRef {
	type: "tool_started";
	timeoutMs: number;
}

/** A `tool()` step gave the script its result; `isError` is the tool's own (a command's non-zero exit). */
export interface ToolFinishedEvent extends EventBase, ToolRef {
	type: "tool_finished";
	isError: boolean;
	durationMs: number;
	/** Characters of output the script got. */
	outputChars: number;
	/** A command's exit code, when the tool gives one in its details. */
	exitCode?: number;
	/** The result came from the run record (a resume), not from running the tool. */
	cached?: boolean;
}

/** `tool()` threw: `tool_unknown`, `tool_refused`, `tool_failed`, `tool_timeout`, a limit, or the run was stopped. */
export interface ToolFailedEvent extends EventBase, ToolRef {
	type: "tool_failed";
	error: string;
	code: string;
}

export interface RunEndEvent extends EventBase {
	type: "run_end";
	status: "completed" | "failed" | "stopped";
	result?: JsonValue;
	error?: SerializedWorkflowError;
	failures: WorkflowFailure[];
	counts: WorkflowAgentCounts;
	/** The run's `tool()` steps; absent when it made none. */
	tools?: WorkflowToolCounts;
	usage: WorkflowTokenUsage;
	/** What this run's children cost; replayed calls cost nothing (see `replayedCost`). */
	cost: WorkflowCost;
	/** What the replayed calls cost when they ran; absent when nothing was replayed. */
	replayedCost?: WorkflowCost;
	/** Tokens of the finished turns continued children went on from (`counts.continued`); absent when none. */
	continuedTokens?: number;
	durationMs: number;
}

/**
 * The run's queue waits for a provider (a rate limit, an overload, a usage limit): no child starts until the wait
 * ends, and the attempts that met it are tried again then. A wait lengthened by a later limit is announced again
 * (`lengthened`); one `provider_wait_ended` closes it.
 */
export interface ProviderWaitStartedEvent extends EventBase {
	type: "provider_wait_started";
	kind: WorkflowProviderLimitKind;
	/** The provider's message (capped). */
	message: string;
	/** How long the wait lasts from now, in ms. */
	waitMs: number;
	/** Epoch ms when the next try is due. */
	until: number;
	/** What the provider asked for, when it said. */
	retryAfterMs?: number;
	/** True when this lengthens the wait in force. */
	lengthened?: boolean;
	/** The run's provider waits so far, this one included, and the bound that stops the run. */
	totalWaitMs: number;
	maxWaitMs: number;
	/** The call of this run whose attempt met the limit (absent when another run sharing the queue met it). */
	call?: WorkflowAgentCallRef;
}

/** The provider wait is over: children start again (`over`), or the run ended while it waited (`stopped`). */
export interface ProviderWaitEndedEvent extends EventBase {
	type: "provider_wait_ended";
	outcome: "over" | "stopped";
	/** How long the wait lasted, in ms. */
	waitedMs: number;
	/** The run's provider waits so far. */
	totalWaitMs: number;
}

/** Every event `onProgress` receives. */
export type WorkflowProgressEvent =
	| RunStartEvent
	| PhaseStartEvent
	| PhaseEndEvent
	| LogEvent
	| AgentQueuedEvent
	| AgentStartedEvent
	| AgentChildEvent
	| AgentRetryEvent
	| AgentFinishedEvent
	| AgentFailedEvent
	| FanOutEvent
	| SlotFailedEvent
	| AskStartedEvent
	| AskAnsweredEvent
	| AskFailedEvent
	| ProviderWaitStartedEvent
	| ProviderWaitEndedEvent
	| CostCapEvent
	| ToolStartedEvent
	| ToolFinishedEvent
	| ToolFailedEvent
	| RunEndEvent;
