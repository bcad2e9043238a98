/**
 * A run's side of its queue's provider waits (the queue owns the wait itself): which waits held the run's calls,
 * their total against `maxProviderWaitMs`, the `provider_wait_*` events people see, and stopping the run, calls
 * kept, when a wait would take it past that bound. Also a provider's refusal that no wait lifts (quota, a key): the
 * run starts no other child, lets the running ones finish, then stops.
 */
import { WorkflowError } from "../../errors.ts";
import { watchAbort } from "./abort-watch.ts";
import type { ProviderWaitEndedEvent, ProviderWaitStartedEvent, WorkflowAgentCallRef } from "./events.ts";
import type { ProviderPause, WorkflowProviderLimit, WorkflowProviderLimitKind, WorkflowQueue } from "./queue.ts";
import type { WorkflowProviderStop } from "./types.ts";

/** The events a run's provider waits emit, before the emitter stamps their time. */
type WaitEvent = Omit<ProviderWaitStartedEvent, "time"> | Omit<ProviderWaitEndedEvent, "time">;

/** Default bound on a run's total provider wait. */
export const DEFAULT_MAX_PROVIDER_WAIT_MS = 30 * 60_000;
/** Characters of a provider's message kept in events and errors. */
const MESSAGE_CHARS = 300;

/** What a run gives its provider waits. */
export interface RunProviderWaitsOptions {
	queue: WorkflowQueue;
	emit: (event: WaitEvent) => void;
	/** Stops the run (as its cancel does) with this reason. */
	stop: (reason: WorkflowError) => void;
	/** The run's signal: a wait that ends once the run is stopping ended with it. */
	signal: AbortSignal;
	/** Default: 30 min. */
	maxWaitMs?: number;
}

/** Who met a limit, as the queue keeps it: this run's waits and the call. */
interface Origin {
	waits: RunProviderWaits;
	ref: WorkflowAgentCallRef;
}

/** One run's provider waits. Made by run.ts; `dispose()` when the run ends. */
export class RunProviderWaits {
	readonly #queue: WorkflowQueue;
	readonly #emit: (event: WaitEvent) => void;
	readonly #stop: (reason: WorkflowError) => void;
	readonly #signal: AbortSignal;
	readonly #maxWaitMs: number;
	readonly #unsubscribe: () => void;
	/** The run's calls in the queue now (waiting for a slot, or running): a wait holds the run only while it has some. */
	#active = 0;
	#count = 0;
	#totalMs = 0;
	/** The wait this run is in: when it began for this run and when it is due to end. */
	#current: { since: number; until: number } | undefined;
	#done = false;
	/** Attempts of the run's calls at their runner now: a refusal stops the run once none is. */
	#attempts = 0;
	/** What the run stops with once its running attempts end, after a provider refused it. */
	#refusal: WorkflowError | undefined;

	constructor(options: RunProviderWaitsOptions) {
		this.#queue = options.queue;
		this.#emit = options.emit;
		this.#stop = options.stop;
		this.#signal = options.signal;
		this.#maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_PROVIDER_WAIT_MS;
		this.#unsubscribe = this.#queue.onProviderPause((pause) => this.#changed(pause));
	}

	/** One of the run's calls is in the queue until the returned function is called. */
	enter(): () => void {
		this.#active++;
		const pause = this.#queue.providerPause;
		// A wait already in force (another run sharing the queue met it) holds this call too.
		if (pause && !this.#current) this.#join(pause, undefined, Math.max(Date.now(), pause.since));
		let left = false;
		return () => {
			if (left) return;
			left = true;
			this.#active--;
		};
	}

	/**
	 * An attempt of call `ref` met a provider limit: the queue waits, and this resolves when the next try is due.
	 * Rejects with the run's reason when the run is cancelled, hits its deadline, or would wait past its bound.
	 */
	async wait(limit: WorkflowProviderLimit, ref: WorkflowAgentCallRef, signal: AbortSignal): Promise<void> {
		const origin: Origin = { waits: this, ref };
		this.#queue.providerLimit(limit, origin);
		await this.ready(signal);
	}

	/**
	 * Resolves once no provider wait is in force (at once when none is); rejects when `signal` fires first. After a
	 * refusal it never resolves: no attempt starts, and the run's stop rejects it.
	 */
	ready(signal: AbortSignal): Promise<void> {
		if (this.#refusal) return untilAborted(signal);
		return this.#queue.whenProviderReady(signal);
	}

	/** Whether an attempt about to start must first wait (`ready`): a provider wait, or a refusal. */
	get holding(): boolean {
		return this.refusing || this.#queue.providerPause !== undefined;
	}

	/** Whether a provider refused the run: no call reaches its runner any more. */
	get refusing(): boolean {
		return this.#refusal !== undefined;
	}

	/** An attempt of one of the run's calls goes to the runner until the returned function is called. */
	attempting(): () => void {
		this.#attempts++;
		let ended = false;
		return () => {
			if (ended) return;
			ended = true;
			this.#attempts--;
			if (this.#attempts === 0 && this.#refusal) this.#stopRefused();
		};
	}

	/**
	 * An attempt of call `label` met a provider's refusal (its attempt has ended): no attempt of the run starts
	 * any more, the running ones finish, and then the run stops with `provider_limit` (the call waits for that in
	 * `ready`). Returns whether this was the run's first refusal (later ones, from attempts already running when it
	 * came, join it) and how many attempts are still running.
	 */
	refuse(stop: WorkflowProviderStop, label: string): { first: boolean; running: number } {
		const first = this.#refusal === undefined;
		if (first) this.#refusal = refusalError(stop, label, this.#attempts);
		if (this.#attempts === 0) this.#stopRefused();
		return { first, running: this.#attempts };
	}

	/** How often and how long the run waited; undefined when it never did. */
	get totals(): { count: number; totalMs: number } | undefined {
		return this.#count > 0 ? { count: this.#count, totalMs: this.#totalMs } : undefined;
	}

	/** Stops listening; a wait the run was in is reported as ended with the run. */
	dispose(): void {
		if (this.#done) return;
		this.#unsubscribe();
		this.#end("stopped");
		this.#done = true;
	}

	#stopRefused(): void {
		const reason = this.#refusal;
		if (!reason || this.#signal.aborted) return;
		this.#stop(reason);
	}

	#changed(pause: ProviderPause | undefined): void {
		if (this.#done) return;
		if (!pause) {
			this.#end(this.#signal.aborted ? "stopped" : "over");
			return;
		}
		if (!this.#current && this.#active === 0) return;
		const origin = pause.origin as Partial<Origin> | undefined;
		// Heard as it happens: a wait that starts now holds the run from its start.
		this.#join(pause, origin?.waits === this ? origin.ref : undefined, pause.since);
	}

	/** The run is held by `pause` (started or lengthened): count it, announce it, or stop the run if it is too long. */
	#join(pause: ProviderPause, ref: WorkflowAgentCallRef | undefined, heldFrom: number): void {
		const now = Date.now();
		const lengthened = this.#current !== undefined;
		// A lengthened wait adds what it lengthens; a run that joins a wait late waits only what is left of it.
		const from = this.#current?.until ?? heldFrom;
		const adds = Math.max(0, pause.until - from);
		if (lengthened && adds === 0) return;
		if (this.#totalMs + adds > this.#maxWaitMs) {
			this.#end("stopped");
			this.#done = true;
			this.#unsubscribe();
			this.#stop(tooLongError(pause, adds, this.#totalMs, this.#maxWaitMs));
			return;
		}
		this.#totalMs += adds;
		if (!lengthened) this.#count++;
		this.#current = { since: this.#current?.since ?? from, until: pause.until };
		this.#emit({
			type: "provider_wait_started",
			kind: pause.kind,
			message: cap(pause.message),
			waitMs: Math.max(0, pause.until - (lengthened ? now : from)),
			until: pause.until,
			...(pause.retryAfterMs !== undefined ? { retryAfterMs: pause.retryAfterMs } : {}),
			...(lengthened ? { lengthened: true } : {}),
			totalWaitMs: this.#totalMs,
			maxWaitMs: this.#maxWaitMs,
			...(ref ? { call: ref } : {}),
		});
	}

	#end(outcome: "over" | "stopped"): void {
		const current = this.#current;
		if (!current) return;
		this.#current = undefined;
		this.#emit({
			type: "provider_wait_ended",
			outcome,
			waitedMs: Math.max(0, Math.min(Date.now(), current.until) - current.since),
			totalWaitMs: this.#totalMs,
		});
	}
}

/** "rate limited", "overloaded", "usage limit reached". */
export function limitText(kind: WorkflowProviderLimitKind): string {
	return kind === "rate_limit" ? "rate limited" : kind === "overloaded" ? "overloaded" : "usage limit reached";
}

/** "40 s", "2.5 min", "1 h 10 min": a wait as people read it. */
export function waitText(ms: number): string {
	if (ms < 10_000) return `${Math.round(ms / 100) / 10} s`;
	if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
	if (ms < 3_600_000) return `${Math.round(ms / 6000) / 10} min`;
	const minutes = Math.round(ms / 60_000);
	return `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ""}`;
}

function tooLongError(pause: ProviderPause, adds: number, totalMs: number, maxWaitMs: number): WorkflowError {
	const message = cap(pause.message);
	const total = totalMs > 0 ? `, on top of the ${waitText(totalMs)} it already waited,` : "";
	return new WorkflowError(
		"provider_limit",
		`Stopped for a provider limit (${limitText(pause.kind)}: ${message}): the next try is due in ${waitText(adds)}, which${total} would take the run's provider waits past \`maxProviderWaitMs\` (${waitText(maxWaitMs)}). Every finished agent is kept: resume the run once the limit lifts, or allow a longer wait`,
		{
			details: {
				kind: pause.kind,
				message,
				waitMs: adds,
				totalWaitMs: totalMs,
				maxWaitMs,
				...(pause.retryAfterMs !== undefined ? { retryAfterMs: pause.retryAfterMs } : {}),
			},
		},
	);
}

/** What a provider's refusal stops the run with: who refused, why, and what to do before resuming. */
function refusalError(stop: WorkflowProviderStop, label: string, running: number): WorkflowError {
	const message = cap(stop.message);
	const provider = stop.provider ? `provider \`${stop.provider}\`` : "the provider";
	const what = stop.kind === "quota" ? "for quota or billing" : "for its API key";
	const others =
		running > 0
			? `no other agent started, and the ${running} already running finished first`
			: "no other agent started";
	const fix =
		stop.kind === "quota"
			? `add credit or raise the plan's quota${stop.provider ? ` with ${stop.provider}` : ""}`
			: "fix the API key (set it again, or log in anew)";
	return new WorkflowError(
		"provider_limit",
		`Stopped: ${provider} refused \`${label}\` ${what} (${message}), which no wait lifts: ${others}. Every finished agent is kept: ${fix}, then resume the run`,
		{
			details: {
				kind: stop.kind,
				terminal: true,
				...(stop.provider ? { provider: stop.provider } : {}),
				message,
				call: label,
			},
		},
	);
}

/** A promise that only `signal` settles, rejecting with its reason. */
function untilAborted(signal: AbortSignal): Promise<never> {
	if (signal.aborted) return Promise.reject(signal.reason);
	return new Promise<never>((_, reject) => {
		watchAbort(signal, () => reject(signal.reason));
	});
}

function cap(text: string): string {
	const line = text.replace(/\s+/g, " ").trim();
	return line.length > MESSAGE_CHARS ? `${line.slice(0, MESSAGE_CHARS - 1)}…` : line;
}
