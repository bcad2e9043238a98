/**
 * The state one run shares with its nested workflows (budget, census, queue, cancellation, events), and the
 * per-script scope each script body gets (its file, keys and phases): the floor every part of a run reads. Rooms
 * above add what only they need (`runtime/agent/scope.ts`: schemas and phase budgets; `runtime/run/scope.ts`: the
 * fan-out question and nested runs), so this file names none of them. Plain objects with names (the call indexes a
 * small class), built by run/run.ts.
 */
import type { Sandbox } from "../../sandbox/index.ts";
import type { Budget } from "./budget.ts";
import type { Census } from "./census.ts";
import type { LogEvent, WorkflowProgressEvent } from "./events.ts";
import type { CallKeys } from "./keys.ts";
import type { WorkflowParentConversation } from "./parent-conversation.ts";
import type { PhaseState } from "./phases.ts";
import type { RunProviderWaits } from "./provider-wait.ts";
import type { WorkflowQueue } from "./queue.ts";
import type { ScriptLifetime } from "./script-lifetime.ts";
import type {
	WorkflowAgentRunner,
	WorkflowAskHandler,
	WorkflowCutOff,
	WorkflowJournal,
	WorkflowLimits,
	WorkflowResolver,
	WorkflowTool,
} from "./types.ts";

/** A progress event before the emitter stamps its time. */
export type UnstampedEvent = WorkflowProgressEvent extends infer E
	? E extends { time: number }
		? Omit<E, "time">
		: never
	: never;

/** What the host lent the run: read, never changed, by every script of it. */
export interface RunHost {
	runner: WorkflowAgentRunner;
	cwd: string;
	agentTypes?: readonly string[];
	/** Said after an unknown agent type's error (`WorkflowRunOptions.agentTypesNote`). */
	agentTypesNote?: string;
	resolveWorkflow: WorkflowResolver;
	/** Finished calls of this run and of the run it resumes; absent when the host keeps none. */
	journal?: WorkflowJournal;
	/** Puts `ask()` questions to a person; absent when the host has nobody to ask. */
	ask?: WorkflowAskHandler;
	/** The tools `tool()` may run; absent when the host lends none. */
	tools?: Readonly<Record<string, WorkflowTool>>;
	/** The conversation `context: "fork"` starts a child from; absent when there is none. */
	parentConversation?: WorkflowParentConversation;
	/** false when the host's run starts every interrupted child afresh (`WorkflowRunOptions.continueInterrupted`). */
	continueInterrupted?: false;
}

/**
 * The next index of each kind of call, shared across nested workflows so that a call's index (and the journal key
 * built from it) is unique in the whole run. Each `next…()` hands out the current index and moves on.
 */
export class CallIndexes {
	#agent = 0;
	#ask = 0;
	#tool = 0;

	nextAgent(): number {
		return this.#agent++;
	}

	nextAsk(): number {
		return this.#ask++;
	}

	nextTool(): number {
		return this.#tool++;
	}
}

/** Calls of one kind that wait for slots of their own: where they wait, and how many were charged to their limit. */
export interface ChargedCalls {
	queue: WorkflowQueue;
	calls: number;
}

/** Shared by the top-level script and its nested workflows. */
export interface RunContext {
	/** What the host lent the run (runner, ask handler, tools, journal, cwd and agent types, workflow resolver). */
	host: RunHost;
	/** The next `agent()`, `ask()` and `tool()` index, across nested workflows. */
	indexes: CallIndexes;
	/** `tool()` steps: `limits.maxToolsRunning` slots (not the children's queue), calls against `maxToolCalls`. */
	steps: ChargedCalls;
	/** Nested workflows: `limits.maxWorkflowsRunning` slots, `workflow()` calls against `maxWorkflowCalls`. */
	nested: ChargedCalls;
	/** `ask()` calls charged so far (replayed ones included), against `limits.maxAskCalls`. */
	askCalls: number;
	/** Where the run's children wait for a slot. */
	queue: WorkflowQueue;
	budget: Budget;
	census: Census;
	/** Fires on cancel or deadline. */
	signal: AbortSignal;
	emit: (event: UnstampedEvent) => void;
	/** Whether anyone hears `emit` (a progress listener or spans): per-call events are built only then. */
	heard: boolean;
	limits: WorkflowLimits;
	/** Runner calls and nested workflows not yet settled; the run waits for them (bounded) before it reports. */
	inFlight: Set<Promise<unknown>>;
	/** What scripts of this run left running when they returned (and the run stopped), for the result. */
	cutOff: WorkflowCutOff[];
	/**
	 * The run's deadline (ask.ts `RunDeadline`): `hold()` while a question is open stops it, unless a `work()` (an
	 * `agent()` or `tool()` call) is under way; each returns its release.
	 */
	deadline: { hold(): () => void; work(): () => void };
	newSandbox: () => Sandbox;
	/** The run's side of its queue's provider waits: totals, events, and the bound that stops the run. */
	providerWaits: RunProviderWaits;
}

/** One script body: the top-level one, or a nested workflow. */
export interface ScriptScope {
	run: RunContext;
	filename: string;
	keys: CallKeys;
	phases: PhaseState;
	/** 0 for the top-level script, 1 inside `workflow()`. */
	depth: number;
	/** The nested workflow's name, shown on its calls. */
	workflowName?: string;
	/** The script's `meta.name` (what a host's questions call it). */
	name: string;
	/** The script's default model for its children (`meta.model`, else its caller's). */
	model?: string;
	/**
	 * Fires when this script is done: what every call's wait in the queue, its runner, `sleep()` and a nested
	 * sandbox get. One per script, because combining signals per call cost two `AbortSignal.any` (about 35 µs).
	 */
	life: ScriptLifetime;
}

/** Keeps `promise` in `run.inFlight` until it settles, so the run can wait for every call before it reports. */
export function trackInFlight<T>(run: RunContext, promise: Promise<T>): Promise<T> {
	run.inFlight.add(promise);
	const forget = () => run.inFlight.delete(promise);
	promise.then(forget, forget);
	return promise;
}

/** Adds a progress log entry, counted against `maxLogEntries` like the script's own `log()`. */
export function emitLog(run: RunContext, entry: Omit<LogEvent, "type" | "time">): void {
	run.budget.countLog();
	run.emit({ type: "log", ...entry });
}
