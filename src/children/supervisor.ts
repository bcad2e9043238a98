/**
 * One `agent()` call's child across its attempts: the user's steer, pause, skip and restart, and the stall
 * watchdog. Each attempt is a fresh session with its own abort controller; a restart or a first stall starts
 * another, so the runtime (and the script) see one runner call with one answer. Usage of every attempt counts, and
 * so does every attempt that did not stop when asked (see `settlesAfterStop`).
 */
import { randomUUID } from "node:crypto";
import { addCost } from "../runtime/core/cost.ts";
import type {
	WorkflowAgentRequest,
	WorkflowAgentResult,
	WorkflowAgentRunnerContext,
	WorkflowCost,
	WorkflowTokenUsage,
} from "../runtime/core/types.ts";
import { type ChildRecordEvent, steeredFields } from "./child-record.ts";
import type { ChildControl, ChildControls } from "./controls.ts";

/** The cause a skipped call's null carries. */
export const SKIPPED_CAUSE = "skipped by the user";

/**
 * Default time a child asked to stop (stall, skip, restart, timeout, cancel, `max_turns`) has to end its turn before
 * it is abandoned. pi's providers and tools end within milliseconds of an abort; one that ignores its signal would
 * otherwise hold the call, its queue slot and the run for ever.
 */
export const DEFAULT_STOP_GRACE_MS = 2000;

/** What can be done to an attempt's session once it exists. */
export interface AttemptSession {
	/** Queues a message for its next turn; a paused session goes on with it. */
	steer(text: string): Promise<void>;
	/** Stops its current turn and holds the session until a message (`steer`) resumes it. */
	pause(): void;
}

/** What one attempt gets beyond the runner context. */
export interface AttemptContext extends WorkflowAgentRunnerContext {
	/** The attempt's session exists. */
	onSession(session: AttemptSession): void;
	/** The attempt's stall watchdog fired after `silentMs` without progress. */
	onStall(silentMs: number): void;
	/**
	 * Why the attempt before this one was ended (a stall's note), already at the end of the request's prompt: a child
	 * that goes on from the earlier attempt's conversation (issue 47) is told it after the "interrupted" message.
	 */
	retryNote?: string;
	/** A person restarted the call: this attempt starts from its prompt, not from the earlier attempt's turns. */
	afresh?: boolean;
}

/** Runs one attempt: a fresh child session for `request`. */
export type RunAttempt = (request: WorkflowAgentRequest, context: AttemptContext) => Promise<WorkflowAgentResult>;

/** Why the supervisor ended an attempt. */
type Ending = { why: "skip" } | { why: "restart" } | { why: "stall"; silentMs: number };

/** A call's note of what the supervisor did (see `callRecorder`). */
type Note = (type: ChildRecordEvent["type"], fields?: Record<string, unknown>) => void;

/**
 * Runs attempts of `request` until one ends on its own, is skipped, or stalls a second time.
 *
 * Contract: like a runner, resolves for every child; rethrows what an attempt throws (author errors).
 */
export async function superviseChild(
	request: WorkflowAgentRequest,
	context: WorkflowAgentRunnerContext,
	options: {
		controls?: ChildControls;
		attempt: RunAttempt;
		/** Adds a line about this call to the run's event log. Default: none. */
		note?: Note;
	},
): Promise<WorkflowAgentResult> {
	const { controls } = options;
	const note = options.note ?? (() => {});
	if (controls?.takeSkip(request.key)) {
		note("child_skipped", { queued: true });
		return { id: randomUUID(), type: request.agentType, status: "stopped", error: SKIPPED_CAUSE, noRetry: true };
	}
	const call: Call = { request, note, startedAt: Date.now(), stalls: 0, notes: [] };
	const spent: Spent = { toolUses: 0, abandoned: 0, transcripts: [] };
	const live = new LiveAttempt();
	const unregister = controls?.add(request.key, live.controls(note));
	const onAbort = () => live.controller.abort(context.signal.reason);
	context.signal.addEventListener("abort", onAbort, { once: true });
	let attemptRequest = request;
	let retryNote: string | undefined;
	let afresh = false;
	try {
		for (;;) {
			const attempt = live.next();
			if (context.signal.aborted) attempt.controller.abort(context.signal.reason);
			const result = await options.attempt(attemptRequest, live.context(context, { retryNote, afresh }));
			spend(spent, result);
			if (!attempt.ending || context.signal.aborted) return total(result, spent, call);
			const step = afterEnding(attempt.ending, result, spent, call);
			if ("done" in step) return step.done;
			attemptRequest = step.next;
			retryNote = step.note;
			afresh = step.afresh === true;
		}
	} finally {
		unregister?.();
		context.signal.removeEventListener("abort", onAbort);
	}
}

/** One call across its attempts: what the supervisor did so far. */
interface Call {
	request: WorkflowAgentRequest;
	note: Note;
	startedAt: number;
	stalls: number;
	/** A warning per attempt the supervisor ended. */
	notes: string[];
}

/** What follows an attempt the supervisor ended: the call's result, or the request of its next attempt. */
function afterEnding(
	ending: Ending,
	result: WorkflowAgentResult,
	spent: Spent,
	call: Call,
): { done: WorkflowAgentResult } | { next: WorkflowAgentRequest; note?: string; afresh?: boolean } {
	const { request } = call;
	const deaf = (result.abandoned ?? 0) > 0;
	if (ending.why === "skip") {
		const error = `${SKIPPED_CAUSE}${abandonedNote(spent.abandoned)}`;
		return { done: { ...total(result, spent, call), status: "stopped", error, noRetry: true } };
	}
	if (ending.why === "restart") {
		call.notes.push(`restarted by the user${deaf ? "; the attempt did not stop when asked and was abandoned" : ""}`);
		return { next: request, afresh: true };
	}
	call.stalls++;
	call.note("child_stalled", { silentMs: ending.silentMs, retried: call.stalls === 1 });
	const stalled = `stalled after ${seconds(ending.silentMs)}`;
	if (call.stalls > 1) {
		const error = `${stalled}, again on its retry${abandonedNote(spent.abandoned)}`;
		return { done: { ...total(result, spent, call), status: "failed", error } };
	}
	call.notes.push(
		`${stalled} without progress${deaf ? " and did not stop when asked (abandoned)" : ""}; retried once`,
	);
	const note = stallNote(ending.silentMs);
	return { next: { ...request, prompt: `${request.prompt}\n\n${note}` }, note };
}

/**
 * The call's current attempt, as the user's controls reach it: what was asked before the attempt's session existed
 * (a message, a pause) waits for it.
 */
class LiveAttempt {
	#current: { controller: AbortController; ending?: Ending; session?: AttemptSession } = {
		controller: new AbortController(),
	};
	#pending: string[] = [];
	#pausePending = false;

	get controller(): AbortController {
		return this.#current.controller;
	}

	/** Starts the next attempt. */
	next(): { readonly controller: AbortController; readonly ending?: Ending } {
		this.#current = { controller: new AbortController() };
		return this.#current;
	}

	/** Ends the current attempt, once. */
	end(ending: Ending, reason: string): void {
		const current = this.#current;
		if (current.ending || current.controller.signal.aborted) return;
		current.ending = ending;
		current.controller.abort(reason);
	}

	/** The current attempt's context: its own signal, and the session and stall it reports back. */
	context(
		context: WorkflowAgentRunnerContext,
		after: { retryNote: string | undefined; afresh: boolean },
	): AttemptContext {
		const attempt = this.#current;
		return {
			signal: attempt.controller.signal,
			reportChild: context.reportChild,
			...(context.trace ? { trace: context.trace } : {}),
			...(after.retryNote ? { retryNote: after.retryNote } : {}),
			...(after.afresh ? { afresh: true } : {}),
			onSession: (session) => {
				attempt.session = session;
				const queued = this.#pending;
				this.#pending = [];
				if (this.#pausePending) session.pause();
				this.#pausePending = false;
				for (const text of queued) session.steer(text).catch(() => {});
			},
			onStall: (silentMs) => {
				this.end({ why: "stall", silentMs }, `stalled after ${seconds(silentMs)}`);
			},
		};
	}

	/** The user's steer, pause, skip and restart of the call, each noted. */
	controls(note: Note): ChildControl {
		return {
			steer: async (text) => {
				note("child_steered", steeredFields(text));
				if (this.#current.session) await this.#current.session.steer(text);
				else this.#pending.push(text);
			},
			pause: () => {
				note("child_paused");
				if (this.#current.session) this.#current.session.pause();
				else this.#pausePending = true;
			},
			skip: () => {
				note("child_skipped", { queued: false });
				this.end({ why: "skip" }, SKIPPED_CAUSE);
			},
			restart: () => {
				note("child_restarted");
				this.end({ why: "restart" }, "restarted by the user");
			},
		};
	}
}

/** The note a retried child finds after its task. */
export function stallNote(silentMs: number): string {
	return (
		`Note: an earlier attempt at this task was stopped after ${seconds(silentMs)} without progress ` +
		"(no output, no tool activity). Start again, and keep long commands bounded (a timeout, or output as they run)."
	);
}

/**
 * Waits for `work`, and once `stop` aborts for at most `graceMs` more: true when `work` settled (a rejection is
 * rethrown), false when it did not and was let go (it may still be running: a provider or tool that ignores abort).
 */
export function settlesAfterStop(work: Promise<unknown>, stop: AbortSignal, graceMs: number): Promise<boolean> {
	return new Promise((resolve, reject) => {
		let timer: ReturnType<typeof setTimeout> | undefined;
		const onStop = () => {
			timer = setTimeout(() => {
				done();
				resolve(false);
			}, graceMs);
		};
		const done = () => {
			clearTimeout(timer);
			stop.removeEventListener("abort", onStop);
		};
		if (stop.aborted) onStop();
		else stop.addEventListener("abort", onStop, { once: true });
		work.then(
			() => {
				done();
				resolve(true);
			},
			(error: unknown) => {
				done();
				reject(error);
			},
		);
	});
}

/** What an abandoned child's result says: why it was asked to stop, and that it did not. */
export function abandonedCause(reason: string, graceMs: number): string {
	return `${reason}; it did not stop within ${seconds(graceMs)} of being asked and was abandoned (a provider or tool ignored the abort)`;
}

/** "; 2 attempts did not stop when asked and were abandoned", or nothing. */
function abandonedNote(count: number): string {
	if (count === 0) return "";
	return `; ${count === 1 ? "1 attempt" : `${count} attempts`} did not stop when asked and ${count === 1 ? "was" : "were"} abandoned`;
}

/** "0.3 s", "2 s", "300 s". */
export function seconds(ms: number): string {
	const value = ms < 10_000 ? Math.round(ms / 100) / 10 : Math.round(ms / 1000);
	return `${value} s`;
}

/** What every attempt of one call spent (tokens, dollars, tool uses), and how many of them were abandoned. */
interface Spent {
	usage?: WorkflowTokenUsage;
	cost?: WorkflowCost;
	toolUses: number;
	abandoned: number;
	/** Every attempt's conversation files, in order. */
	transcripts: string[];
}

function spend(spent: Spent, result: WorkflowAgentResult): void {
	spent.toolUses += result.toolUses ?? 0;
	spent.transcripts.push(...(result.transcripts ?? []));
	spent.abandoned += result.abandoned ?? 0;
	// A restarted or stalled attempt's replies were paid for like the last one's.
	spent.cost = addCost(spent.cost, result.cost);
	if (!result.usage) return;
	const before = spent.usage ?? { input: 0, output: 0, total: 0 };
	spent.usage = {
		input: before.input + result.usage.input,
		output: before.output + result.usage.output,
		total: before.total + result.usage.total,
	};
}

/** The last attempt's result with every attempt's usage, and a warning per attempt the supervisor ended. */
function total(result: WorkflowAgentResult, spent: Spent, call: Call): WorkflowAgentResult {
	const warnings = [...call.notes, ...(result.warnings ?? [])];
	const done: WorkflowAgentResult = { ...result, toolUses: spent.toolUses, durationMs: Date.now() - call.startedAt };
	if (spent.usage) done.usage = spent.usage;
	if (spent.cost) done.cost = spent.cost;
	if (spent.abandoned > 0) done.abandoned = spent.abandoned;
	if (spent.transcripts.length > 0) done.transcripts = [...spent.transcripts];
	if (warnings.length > 0) done.warnings = warnings;
	return done;
}
