/**
 * The types a host implements or receives: the agent runner seam, its requests and results, the children it
 * reports, and the options and result of one run. No pi words here; src/pi/children implements the runner over pi.
 */
import type { SerializedWorkflowError } from "../../errors.ts";
import type { WorkflowCost, WorkflowFanOutInfo } from "./cost.ts";
import type { WorkflowProgressEvent } from "./events.ts";
import type { WorkflowCallIdentity } from "./identity.ts";
import type { JsonSchema, JsonValue } from "./json.ts";
import type { WorkflowFallback, WorkflowNameMatch } from "./name-match.ts";
import type { WorkflowParentConversation } from "./parent-conversation.ts";
import type { WorkflowPlacement } from "./placement.ts";
import type { WorkflowProviderBackoff, WorkflowProviderLimit, WorkflowQueue } from "./queue.ts";
import type { WorkflowTool, WorkflowToolCounts } from "./step-types.ts";

export type { WorkflowCost, WorkflowFanOutInfo } from "./cost.ts";
export type { WorkflowCallIdentity } from "./identity.ts";
export type { JsonSchema, JsonValue } from "./json.ts";
export type { WorkflowFallback, WorkflowNameMatch } from "./name-match.ts";
export type { WorkflowParentConversation } from "./parent-conversation.ts";
export type { WorkflowProviderBackoff, WorkflowProviderLimit, WorkflowProviderLimitKind } from "./queue.ts";

/** One declared phase of a workflow. */
export interface WorkflowPhaseMeta {
	title: string;
	detail?: string;
}

/** The literal `export const meta = {…}` header of a script. */
export interface WorkflowMeta {
	name: string;
	description: string;
	whenToUse?: string;
	phases?: WorkflowPhaseMeta[];
	/** JSON Schema that `args` must satisfy. */
	args?: JsonSchema;
	/** The script's default model for its children (`provider/id[:thinking]`): after the agent file's and the call's. */
	model?: string;
}

/** What the runtime asks a runner to do for one `agent()` call attempt. */
export interface WorkflowAgentRequest {
	/** Stable identity of the call: a hash of prompt and identity options plus its occurrence, scoped by nested workflow (no call site, so moving lines keeps it). Same script + same args → same keys. */
	key: string;
	/** 0-based order in which the script made its `agent()` calls in this run. */
	index: number;
	/** 1-based attempt: above 1 for schema retries, `retries`, and the try after a provider wait. */
	attempt: number;
	prompt: string;
	/** Agent type. Default: "general-purpose". */
	agentType: string;
	/** Display name: `opts.label`, else a short form of the prompt. */
	label: string;
	/** Short description for lists and widgets (same as label unless the script says otherwise). */
	description: string;
	model?: string;
	/** The script's default model (`meta.model`), for when neither the agent type nor the call names one. */
	defaultModel?: string;
	thinking?: string;
	/** JSON Schema (object root) the answer must satisfy; the runner should ask the child for structured output. */
	schema?: JsonSchema;
	/** Validation errors of the previous attempt, to show the child what to fix. */
	schemaFeedback?: string;
	/** Tool allowlist override. */
	tools?: string[];
	/**
	 * `fork`: the child starts from the host's parent conversation (the runtime checked there is one); `fresh`: it
	 * does not, whatever its agent file says. Absent: its agent file's `context:` decides. Default: absent.
	 */
	context?: "fresh" | "fork";
	/** The phase this call belongs to. */
	phase?: string;
	/** Per-call deadline; the runtime also enforces it. */
	timeoutMs?: number;
	isolation?: "worktree";
	/** No progress for this long stops the child and retries it once (0: never). Default: the runner's. */
	stallMs?: number;
	/** Models to move to, in order, when the model meets a provider limit before the child did any tool work. */
	fallbackModels?: string[];
	/** A model tier (`agent()` option `tier`) the runner maps to a model through the user's tiers; `model` wins. */
	tier?: string;
	/** No `edit`, `write` or `bash` for the child. Default: false. */
	readOnly?: boolean;
	/** The earlier call whose conversation this child goes on with (`agent()` option `resume`); absent: a fresh child. */
	continues?: WorkflowContinuation;
	/**
	 * False: an attempt starts afresh even when an earlier attempt of this call (before a resume, a stall retry, a
	 * provider wait) left a conversation with finished turns. Default: it goes on from them (`agent()` option
	 * `continueInterrupted`).
	 */
	continueInterrupted?: false;
	/** What the child needs of the machine it runs on (`agent()` option `placement`); only the queue reads it. */
	placement?: WorkflowPlacement;
	/** Working directory of the run. */
	cwd: string;
}

/**
 * The earlier call a continued child goes on from: the runner opens a session holding that call's conversation
 * (its last kept file, else what the runner kept in memory under `key`), and the new prompt is the next user turn.
 */
export interface WorkflowContinuation {
	/** The earlier call's key. */
	key: string;
	index: number;
	label: string;
	/** The earlier call's conversation files (pi: relative to the run's folder); the last one answered. */
	transcripts?: string[];
}

/** Token usage as the runner counts it. */
export interface WorkflowTokenUsage {
	/** Input tokens, those read from or written to the provider's cache included. */
	input: number;
	output: number;
	total: number;
	/** Of `input`, tokens read from the provider's cache, when the runner says and there were any. */
	cacheRead?: number;
	/** Of `input`, tokens written to the provider's cache, when the runner says and there were any. */
	cacheWrite?: number;
}

/**
 * Where an isolated child (`isolation: "worktree"`) works and what became of its changes, as its runner reports it.
 * The script never sees this: `agent()` still gives the child's answer.
 */
export interface WorkflowWorktree {
	/** The worktree's folder while the child runs (removed once it ends). */
	path: string;
	/** The child's own branch, e.g. `workflows/<runId>/<label-slug>`. */
	branch: string;
	/** Once the child ended: true when its changes are committed on `branch`, false when it changed nothing (worktree and branch removed). Absent while it runs. */
	kept?: boolean;
	/** Files added, changed or deleted on the branch, relative to the repository root (the first 100). */
	files?: string[];
	/** How many files changed (can be more than `files` lists). */
	fileCount?: number;
	/** The branch's tip commit. */
	commit?: string;
}

/** Terminal status of one child. */
export type WorkflowAgentStatus = "completed" | "failed" | "stopped";

/** What a runner reports when a child ends. Failures are data (`status: "failed"`), not rejections. */
export interface WorkflowAgentResult {
	/** The child's id (e.g. the pi session id). */
	id: string;
	/** The agent type that ran. */
	type: string;
	status: WorkflowAgentStatus;
	/** The child's final text. */
	result?: string;
	/** What the child submitted through its structured-output tool, when the request had a schema. */
	structuredOutput?: unknown;
	/** Why it failed or stopped. */
	error?: string;
	/** A stable code for why it failed (e.g. `worktree_not_a_repo`), kept in the census beside `error`. */
	code?: string;
	warnings?: string[];
	toolUses?: number;
	usage?: WorkflowTokenUsage;
	/** What the child's replies cost, every attempt of it included. */
	cost?: WorkflowCost;
	/** `provider/id` of the model that answered (or last ran). */
	model?: string;
	durationMs?: number;
	/** An isolated child's worktree and what became of it. */
	worktree?: WorkflowWorktree;
	/** The child was ended on purpose (a user skipped it): `agent()` gives null with `error` as the cause, no retries. */
	noRetry?: boolean;
	/**
	 * The child went on from an interrupted earlier attempt's finished turns (issue 47): how many, and the tokens those
	 * turns took, which it did not pay again. Absent: it started from its prompt.
	 */
	continued?: { turns: number; savedTokens: number };
	/**
	 * Attempts of this child that did not stop when asked and that the runner let go (they may still be running); the
	 * run counts them in `error.details.abandoned`, even when the call's result came after the run stopped waiting.
	 */
	abandoned?: number;
	/**
	 * The child failed only because its provider asked it to wait: the run waits (one wait for its whole queue) and
	 * tries the call again, without using up its `retries`. Ignored on a completed result.
	 */
	providerLimit?: WorkflowProviderLimit;
	/**
	 * The child failed because its provider refused the account (quota, credit or plan spent; key refused), which no
	 * wait lifts: the run starts no other child and stops, resumable, once its running children end. Ignored on a
	 * completed result.
	 */
	providerStop?: WorkflowProviderStop;
	/** Models that met a provider limit before `model` took over (`fallbackModels`), in order; absent when none. */
	fallbackFrom?: string[];
	/** Where the host kept the child's conversation, a file per session (pi: relative to the run's folder). */
	transcripts?: string[];
	/** Names the runner read as others for this child (a Claude Code model name, a tier); absent when none. */
	matches?: WorkflowNameMatch[];
}

/**
 * A runner's word that a provider refused the account: `quota` (its quota, credit balance or plan is spent) or `auth`
 * (its API key is wrong, revoked or not allowed). Every child on that provider would meet it too.
 */
export interface WorkflowProviderStop {
	kind: "quota" | "auth";
	/** The provider that refused, as the runner names it (pi: `anthropic`, `openai`), when it knows. */
	provider?: string;
	/** The provider's message. */
	message: string;
}

/** Live activity states of a child, in the order a healthy child passes through them. */
export type WorkflowChildState =
	| "queued"
	| "starting"
	| "active"
	| "quiet"
	| "stalled"
	/** Its turn was stopped on request; it waits for a message to go on. */
	| "paused"
	| "finished"
	| "failed"
	| "stopped";

/** What a runner reports about a child while it runs. */
export interface WorkflowAgentChild {
	id: string;
	type: string;
	status: WorkflowChildState;
	description: string;
	/** The `agent()` call this child serves, when known. */
	callKey?: string;
	callIndex?: number;
	/** A short human phrase for what it is doing now ("reading 3 files…"). */
	activity?: string;
	/** Epoch ms of the last sign of life. */
	lastActivityAt?: number;
	startedAt?: number;
	endedAt?: number;
	turns?: number;
	maxTurns?: number;
	toolUses?: number;
	tokens?: number;
	/** What its replies cost so far. */
	cost?: WorkflowCost;
	model?: string;
	/** Models that met a provider limit before `model` took over (`fallbackModels`), in order. */
	fallbackFrom?: string[];
	error?: string;
	/** An isolated child's worktree: where it works, then (once it ended) whether its branch was kept. */
	worktree?: WorkflowWorktree;
}

/** What the runtime hands the runner alongside a request. */
export interface WorkflowAgentRunnerContext {
	/** Fires when the run is cancelled, times out, or the call's own deadline passes. The runner must stop the child. */
	signal: AbortSignal;
	/** Report live child state; the runtime forwards it as an `agent_child` progress event. */
	reportChild: (child: WorkflowAgentChild) => void;
	/**
	 * The attempt's span as W3C trace context, when the run is traced (an OpenTelemetry SDK registered and the run
	 * sampled): a runner parents what its child does on it, and one that sends the child elsewhere carries it along.
	 */
	trace?: WorkflowTraceContext;
}

/** A span's identity as the W3C Trace Context headers spell it. */
export interface WorkflowTraceContext {
	/** `00-<trace id>-<span id>-<flags>`. */
	traceparent: string;
	tracestate?: string;
}

/**
 * The bridge to the host's subagent machinery.
 *
 * Contract: resolve with a result for every child, including failed and stopped ones. Reject (or throw) a
 * `WorkflowError` with code `agent_type_unknown`, `agent_options_invalid` or `schema_invalid` for author errors,
 * which `agent()` rethrows in the script; any other rejection is treated as a failed child (`agent()` → null).
 */
export type WorkflowAgentRunner = ((
	request: WorkflowAgentRequest,
	context: WorkflowAgentRunnerContext,
) => Promise<WorkflowAgentResult>) & {
	/** True for a runner that sends each child to another machine (the queue): its calls' spans are CLIENT spans. */
	readonly remote?: boolean;
};

/** Limits of one run (contract §3). Every field has a default. */
export interface WorkflowLimits {
	/** Agent calls per run. Default: 1000. */
	maxAgentCalls: number;
	/** Items per `parallel`/`pipeline` call. Default: 4096. */
	maxItems: number;
	/** Script source size in bytes. Default: 512 KiB. */
	maxScriptBytes: number;
	/** Log entries kept (older ones are dropped and counted). Default: 1000. */
	maxLogEntries: number;
	/** Sandbox memory in bytes. Default: 256 MiB. */
	memoryBytes: number;
	/** QuickJS stack in bytes. Default: 1 MiB. */
	stackBytes: number;
	/** One synchronous stretch of script code, in ms. Default: 5000. */
	syncSliceMs: number;
	/** Size of one value crossing the boundary, in bytes of JSON. Default: 8 MiB. */
	maxValueBytes: number;
	/** `workflow()` calls per run; the next one throws `limit_workflows`. Default: 200. */
	maxWorkflowCalls: number;
	/** Nested workflows running at once (each holds a sandbox worker); more wait their turn. Default: 4. */
	maxWorkflowsRunning: number;
	/** `tool()` calls per run (replayed ones included); the next one throws `limit_tool_calls`. Default: 1000. */
	maxToolCalls: number;
	/** `tool()` calls running at once; more wait their turn (their own queue, not the children's). Default: 4. */
	maxToolsRunning: number;
	/** `ask()` calls per run (replayed ones included); the next one throws `limit_ask_calls`. Default: 1000. */
	maxAskCalls: number;
}

/** Budget settings of one run. */
export interface WorkflowBudgetOptions {
	/** Agent calls per run. Default: 1000 (same as `limits.maxAgentCalls`). */
	maxAgentCalls?: number;
	/** Size of the returned value, in bytes of JSON. Default: 4 MiB. */
	maxResultBytes?: number;
	/** Total tokens the run may spend; `agent()` throws `budget_exhausted` once spent. Default: no total. */
	tokens?: number;
	/**
	 * US dollars the run may spend in all (`priorCostUsd` included; replayed calls cost nothing). Once spent, no new
	 * child starts and children already running finish and count; then `onCostCap` is asked for a higher cap, and
	 * without one (or when it says stop) the run ends `stopped` (code `cost_cap`), resumable. The script never sees
	 * this cap as an error: a phase's `costUsd` and `tokens` throw `budget_exhausted` into it. Default: no cap.
	 */
	costUsd?: number;
	/**
	 * Dollars earlier sessions of this run spent (a resumed run): counted against `costUsd` and in what the script's
	 * `budget.cost.spent()` says, not in this session's result `cost`. Default: 0.
	 */
	priorCostUsd?: number;
}

/** What `onCostCap` is told when a run reaches its dollar cap. */
export interface WorkflowCostCapInfo {
	/** The workflow's `meta.name`. */
	workflow: string;
	/** Dollars the run spent in all (earlier sessions of a resumed run included). */
	spentUsd: number;
	/** The cap it reached. */
	capUsd: number;
	/** Replies whose model has no known price: their cost is not in `spentUsd`. */
	unpriced?: number;
	/** Agents that ran in this session (replays not counted). */
	agentsRun: number;
	/**
	 * Dollars the rest of the run may cost, when the host can estimate it (the runtime itself does not): a host's
	 * `onCostCap` may fill it before it asks. Default: none.
	 */
	estimateMoreUsd?: number;
	/** Fires when the answer is no longer wanted (the run was stopped): close the dialog then. */
	signal: AbortSignal;
}

/** Resolves the target of a nested `workflow(nameOrPath, args)` call. */
export type WorkflowResolver = (
	nameOrPath: string,
	context: { cwd: string },
) => Promise<{ source: string; filename: string }>;

/** Options of `runWorkflowScript`. */
export interface WorkflowRunOptions {
	/** Runs each child agent. Required. */
	agentRunner: WorkflowAgentRunner;
	/** The script's `args`. Default: undefined. */
	args?: unknown;
	/** The run's working directory. Default: process.cwd(). */
	cwd?: string;
	/** File name used in positions and stacks. Default: "workflow.js". */
	filename?: string;
	/** Aborts queued and running children and stops the script at its next call into the runtime. */
	signal?: AbortSignal;
	/** Run deadline in ms. Default: none. */
	timeoutMs?: number;
	/** Receives every progress event, in order. Exceptions it throws are ignored (telemetry never changes outcomes). */
	onProgress?: (event: WorkflowProgressEvent) => void;
	/**
	 * The run's id in the host's run store, for OpenTelemetry (the run span's `workflow.run.id`); a function is asked
	 * again when the run ends, for a record made once the script starts. Default: none.
	 */
	runId?: string | (() => string | undefined);
	/**
	 * Where the script came from, by trust, as the host tells it (the run span's `workflow.script.tier`, beside its
	 * `workflow.script.sha256`). Default: none.
	 */
	scriptTier?: "inline" | "project" | "user" | "installed" | "bundled";
	/** Spans for this run when a host registered an OpenTelemetry SDK; a dry run says false (it calls no model). Default: true. */
	traced?: boolean;
	budget?: WorkflowBudgetOptions;
	/** Children running at once (ignored when `queue` is given). Default: 4. */
	concurrency?: number;
	/** A queue shared with other runs (e.g. one per pi session). Default: a new queue per run. */
	queue?: WorkflowQueue;
	/**
	 * Asked once per run, before a single `parallel()`/`pipeline()` call starts more than `fanOutThreshold` agents:
	 * resolve true to go on; false makes that call throw `fanout_declined` and stops the run (status `stopped`), and
	 * later such calls throw without asking. Default: none (never asked).
	 */
	confirmFanOut?: (info: WorkflowFanOutInfo) => Promise<boolean>;
	/** Agents one `parallel()`/`pipeline()` call may start before `confirmFanOut` is asked; 0: never ask. Default: 25. */
	fanOutThreshold?: number;
	/**
	 * Asked when the run reaches `budget.costUsd`, with a person present: resolve a higher cap (US dollars, the run's
	 * total) to go on where it was, or undefined to stop. While it is pending no new child starts (the run is parked);
	 * children already running finish and count. A stop, a cap not above what was spent, or a throw ends the run
	 * `stopped` (code `cost_cap`) with its finished calls kept, resumable. Default: none (no person: the run stops at
	 * its cap, `stopped`).
	 */
	onCostCap?: (info: WorkflowCostCapInfo) => Promise<number | undefined>;
	/** Known agent types; when given, `agent()` rejects others at once with the list. */
	agentTypes?: readonly string[];
	/**
	 * Said after an unknown agent type's error: what the host did not read and how to change that (a project's
	 * agent files it skipped for want of trust). Default: nothing.
	 */
	agentTypesNote?: string;
	/**
	 * The session's conversation up to the `workflow` call, which `agent()` option `context: "fork"` starts a child
	 * from. Default: none (`fork` throws `fork_unavailable`, `fork-or-fresh` starts fresh).
	 */
	parentConversation?: WorkflowParentConversation;
	/** Resolves `workflow(nameOrPath)`. Default: paths relative to `cwd` only. */
	resolveWorkflow?: WorkflowResolver;
	limits?: Partial<WorkflowLimits>;
	/**
	 * The run's total wait for providers (rate limits, overloads, usage limits). A wait that would take it past this
	 * stops the run as `stopped` (code `provider_limit`) with its finished calls kept; 0 stops at the first limit.
	 * Default: 1800000 (30 min).
	 */
	maxProviderWaitMs?: number;
	/**
	 * false: every attempt after an interruption (a resume's, a stall retry's, one after a provider wait) starts its
	 * child afresh, as if each call said `continueInterrupted: false`, rather than going on from the interrupted
	 * attempt's finished turns. Not part of any call's key. Default: true.
	 */
	continueInterrupted?: boolean;
	/** Waits when a provider names no time (ignored when `queue` is given: the queue's own apply). Default: 15 s to 5 min. */
	providerBackoff?: WorkflowProviderBackoff;
	/**
	 * Finished `agent()` calls to replay and to record: pass the journal of an earlier run to resume it (unchanged
	 * calls give their recorded value without a child, in any order), or a fresh one to make this run resumable.
	 * Default: none (nothing is recorded).
	 */
	journal?: WorkflowJournal;
	/**
	 * Puts an `ask()` question to a person and gives the answer (sync or async). Return undefined, or throw
	 * `askUnavailableError(reason)`, when nobody can answer here: `ask()` then gives the question's `default` or
	 * throws `ask_unavailable` with that reason. `signal` fires when the answer is no longer wanted (the question's
	 * `timeoutMs`, the script's end, a cancelled run): close the dialog then. The run's deadline stops while a question
	 * is open and no `agent()` or `tool()` call is under way (docs/writing-scripts.md, "The run's deadline"). Default: none (every
	 * `ask()` gives its default or throws `ask_unavailable`).
	 */
	ask?: WorkflowAskHandler;
	/**
	 * The tools `tool(name, params)` may run, by name (see `WorkflowTool`); never `workflow`, `workflow_runs` or
	 * `codemode`. Default: none (`tool()` throws `tool_unavailable`).
	 */
	tools?: Readonly<Record<string, WorkflowTool>>;
}

/** One `ask()` question as the host's handler gets it. */
export interface WorkflowQuestion {
	/** Stable identity: a hash of the question and its choices plus its occurrence (like an agent call's key). */
	key: string;
	/** 0-based order of the run's `ask()` calls. */
	index: number;
	question: string;
	/** The answers allowed, when the script gave some: the answer must be one of them. */
	choices?: string[];
	/** What `ask()` gives when nobody answers in time or nobody can answer. */
	default?: string;
	/** Material shown with the question (a plan, a diff): the script's `details` option, up to 64 KiB of text. */
	details?: string;
	/** How long the script waits for an answer, in ms. Default: no limit. */
	timeoutMs?: number;
	phase?: string;
	/** The nested workflow that asks, when not the top-level script. */
	workflow?: string;
}

/** Puts a question to a person: the `ask` option of `runWorkflowScript`. */
export type WorkflowAskHandler = (
	question: WorkflowQuestion,
	context: { signal: AbortSignal },
) => string | undefined | Promise<string | undefined>;

/** A finished `agent()` call as a journal keeps it: enough to give the script the same value without a child. */
export interface WorkflowJournalEntry {
	/** The call's key: a hash of its identity plus its occurrence, scoped by nested workflow (see `WorkflowAgentRequest.key`). */
	key: string;
	/** `"answer"` (an `ask()` answer) or `"tool"` (a `tool()` result): an agent call never replays either. Default: an agent's value. */
	kind?: "answer" | "tool";
	/** What `agent()` resolved to: the text answer, or the validated object of a schema call. */
	value: JsonValue;
	/** Tokens the call cost; a replay counts them as spent again, so budgets move as in the original run. */
	usage?: WorkflowTokenUsage;
	/** What the call cost when it ran; a replay costs nothing and reports this as saved. */
	cost?: WorkflowCost;
	/** `provider/id` of the model its child ran on. */
	model?: string;
	/** The child's id in the run that recorded the entry. */
	agentId?: string;
	/** The call's label and agent type, for people reading a journal. */
	label?: string;
	agentType?: string;
	/** The phase the call was made in, when it was made in one: cost estimates group earlier calls by it. */
	phase?: string;
	/** What the call's key was made of, so a resume can say what differs in a call that no longer matches. */
	identity?: WorkflowCallIdentity;
	/** The child's conversation files (`WorkflowAgentResult.transcripts`), so a replayed call still links them. */
	transcripts?: string[];
	/**
	 * `false` on a `tool()` step made with `replay: false`: a resume runs it again, and only a replay test answers
	 * from it (a test runs nothing). Default: replayed.
	 */
	replay?: false;
}

/**
 * Where a run keeps its finished `agent()` calls, so a later run of the same (or an edited) script replays them.
 * Contract: `lookup` is called once per `agent()` call, before it is queued; a hit gives the script the entry's
 * value with no runner call. `record` is called for every call that finished with a value, and the value reaches
 * the script only once the returned promise has resolved (so a crash cannot lose a value the script already saw).
 */
export interface WorkflowJournal {
	lookup(key: string): WorkflowJournalEntry | undefined;
	record(entry: WorkflowJournalEntry): Promise<void>;
	/** Every entry it holds: with it, a resume names the recorded call a changed call missed, and what differs. */
	list?(): readonly WorkflowJournalEntry[];
	/** Lines it could not read (their calls run again): a resume warns of them once and names them in its misses. */
	skipped?(): readonly WorkflowJournalSkippedLine[];
}

/** A line of a journal its host could not read. */
export interface WorkflowJournalSkippedLine {
	/** The file and line, `path:line`. */
	where: string;
	/** Why: not JSON, not an object, a field missing or wrong, a torn last line. */
	reason: string;
	/** The key the line was for, when it can still be read. */
	key?: string;
}

/** One entry of the failure census: an `agent()` that resolved to null, or a combinator slot that became null. */
export interface WorkflowFailure {
	/** Where the null came from. */
	kind: "agent" | "parallel" | "pipeline";
	/** `agent()` call index, or the slot index for parallel/pipeline. */
	index: number;
	/** The call key, for `kind: "agent"`. */
	key?: string;
	label?: string;
	agentType?: string;
	phase?: string;
	/** Why: the runner's error, "stopped", "timed out after 2 attempts", the thrown message… */
	cause: string;
	/** The file of the script that made the `agent()` call, for `kind: "agent"`. */
	filename?: string;
	/** Where in `filename` the `agent()` call was made, counted from 1. */
	line?: number;
	column?: number;
	code?: string;
	/** The isolated child's worktree: a failed child's changes may still be kept on its branch. */
	worktree?: WorkflowWorktree;
}

/** Counts of agent calls in a run. */
export interface WorkflowAgentCounts {
	/** Calls the script made (including ones refused by a limit). */
	calls: number;
	started: number;
	completed: number;
	failed: number;
	/** Calls that never started (cancelled while queued, or refused). */
	skipped: number;
	/** Calls answered from the journal of the run this one resumes (counted in started and completed too); absent when none. */
	replayed?: number;
	/** Calls whose child went on from an interrupted attempt's finished turns (issue 47); absent when none. */
	continued?: number;
}

/** Work a script started and did not wait for: still running when that script returned, so the run stopped it. */
export interface WorkflowCutOff {
	/** An `agent()` call, a nested `workflow()`, an open `ask()` question or a running `tool()` step. */
	kind: "agent" | "workflow" | "ask" | "tool";
	/** The agent call's label; the nested workflow's `meta.name`, or the name or path it was called with if it had not loaded. */
	name: string;
	/** The file of the script that started it. */
	filename: string;
	/** Where in `filename` it was started, counted from 1. */
	line?: number;
	column?: number;
	/** The `agent()` call index, as in its `failures` entry. */
	index?: number;
	/** The nested workflow that started it, when not the top-level script. */
	workflow?: string;
}

/** The result of `runWorkflowScript`: always resolved, never rejected, for script faults. */
export interface WorkflowRunResult {
	status: "completed" | "failed" | "stopped";
	/** What the script returned (JSON data); kept beside the error when the run failed only because every agent failed. */
	value?: JsonValue;
	/**
	 * Why the run did not complete, with `stage` beside `code`: `before_start` (nothing ran: size, header, syntax,
	 * args, an undeclared name), `author`, `guest`, `child` or `host` (see `WorkflowErrorStage`).
	 */
	error?: SerializedWorkflowError;
	meta?: WorkflowMeta;
	failures: WorkflowFailure[];
	counts: WorkflowAgentCounts;
	/** The run's `tool()` steps; absent when it made none. */
	tools?: WorkflowToolCounts;
	usage: WorkflowTokenUsage;
	/** What this run's children cost (every attempt, failed ones included); replayed calls cost nothing. */
	cost: WorkflowCost;
	/** What the replayed calls cost when they ran (saved by this run); absent when nothing was replayed. */
	replayedCost?: WorkflowCost;
	/** Tokens of the finished turns continued children went on from, not paid again (`counts.continued`); absent when none. */
	continuedTokens?: number;
	/** Log entries dropped because of `limits.maxLogEntries`. */
	droppedLogs: number;
	/** Agent calls and nested workflows still running when their script returned, which the run stopped; absent when none. */
	cutOff?: WorkflowCutOff[];
	/** Calls a fallback model answered (`fallbackModels`); absent when none. */
	fallbacks?: WorkflowFallback[];
	/** Names the run read as others (Claude Code model names, tiers, plugin-scoped agent types); absent when none. */
	matches?: WorkflowNameMatch[];
	/** How long the run waited for providers in all, and how many waits; absent when it never waited. */
	providerWaits?: { count: number; totalMs: number };
	durationMs: number;
}

export type { WorkflowTool, WorkflowToolCounts, WorkflowToolOutput, WorkflowToolResult } from "./step-types.ts";
