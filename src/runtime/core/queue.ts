/**
 * The concurrency queue children wait in: a thin, signal-aware wrapper over p-queue that several runs may share. It
 * owns the one provider wait: when a child meets a rate limit, an overload or a usage limit, no job starts until
 * the wait is over (the provider's retry-after, else a doubling backoff), and the jobs that met it wait for its end.
 */
import PQueue from "p-queue";
import { watchAbort } from "./abort-watch.ts";

/** What kind of provider limit a child met: all three are waits, not failures. */
export type WorkflowProviderLimitKind = "rate_limit" | "overloaded" | "usage_limit";

/**
 * A runner's word that a child failed only because its provider asked it to wait (HTTP 429/529, "overloaded",
 * "usage limit reached"). The run's queue then pauses and the attempt is tried again when the wait is over.
 */
export interface WorkflowProviderLimit {
	kind: WorkflowProviderLimitKind;
	/** How long the provider asked to wait, in ms, when it said (a retry-after or a reset time). */
	retryAfterMs?: number;
	/** The provider's message. */
	message: string;
}

/** The waits of the queue a run creates, when a provider names no time of its own. */
export interface WorkflowProviderBackoff {
	/** The first wait; each further wait in a row doubles it. Default: 15000 (15 s). */
	baseMs?: number;
	/** The longest wait. Default: 300000 (5 min). */
	maxMs?: number;
}

/** The queue's provider wait while it is in force. */
export interface ProviderPause {
	kind: WorkflowProviderLimitKind;
	/** The provider's message that started or last lengthened the wait. */
	message: string;
	/** What the provider asked for, in ms, when it said. */
	retryAfterMs?: number;
	/** Epoch ms when the wait began, and when the next try is due. */
	since: number;
	until: number;
	/** Which wait in a row this is, counting from 1 after a job got through: the backoff doubles with it. */
	streak: number;
	/** Who met the limit that started or last lengthened it, as given to `providerLimit` (the queue does not read it). */
	origin?: unknown;
}

/** A queue of child-agent jobs. One per run by default; a host may share one across runs (e.g. per pi session). */
export interface WorkflowQueue {
	/**
	 * Runs `task` when a slot is free. Contract: if `signal` fires while the job waits, the job never starts and
	 * the promise rejects with the signal's reason; once started, stopping is the task's job (it gets the signal).
	 */
	run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
	/** Jobs running now. */
	readonly running: number;
	/** Jobs waiting for a slot. */
	readonly waiting: number;
	/** Jobs running at once; may be changed while jobs run. */
	concurrency: number;
	/**
	 * A running job met a provider limit: from now until the wait ends no job starts. Starts the wait (the
	 * provider's retry-after, else the backoff), or lengthens the one in force when the provider asks for longer.
	 * Listeners hear of it before this returns.
	 */
	providerLimit(limit: WorkflowProviderLimit, origin?: unknown): ProviderPause;
	/** A job got through without meeting a limit: the next wait's backoff starts from its base again. */
	providerOk(): void;
	/** The provider wait in force, if any. */
	readonly providerPause: ProviderPause | undefined;
	/**
	 * Resolves once no provider wait is in force; rejects with the signal's reason if it fires first. A wait that
	 * no job waits for any more (neither here nor for a slot) ends early.
	 */
	whenProviderReady(signal?: AbortSignal): Promise<void>;
	/** Calls `listener` when a wait starts or lengthens (the wait) and when it ends (undefined); returns the unsubscribe. */
	onProviderPause(listener: (pause: ProviderPause | undefined) => void): () => void;
}

export interface WorkflowQueueOptions {
	/** Jobs running at once. Default: 4. */
	concurrency?: number;
	/** Waits when a provider names no time. Default: 15 s, doubling up to 5 min. */
	providerBackoff?: WorkflowProviderBackoff;
}

/** First wait when the provider names no time. */
export const DEFAULT_PROVIDER_BACKOFF_MS = 15_000;
/** Longest wait when the provider names no time. */
export const DEFAULT_PROVIDER_BACKOFF_MAX_MS = 5 * 60_000;
/**
 * Waits in a row that follow the provider's own time exactly; from the next one on, the backoff is a floor, so a
 * provider that keeps saying "try again in 0 s" cannot make the queue spin.
 */
const TRUSTED_RETRY_AFTERS = 2;

/** Creates a queue; throws a `TypeError` for a concurrency that is not a positive integer, or a backoff not above 0. */
export function createWorkflowQueue(options: WorkflowQueueOptions = {}): WorkflowQueue {
	return new ChildQueue(options);
}

/** The queue behind `createWorkflowQueue`: p-queue for the slots, plus the one provider wait it may be in. */
class ChildQueue implements WorkflowQueue {
	readonly #queue: PQueue;
	readonly #baseMs: number;
	readonly #maxMs: number;
	// Jobs whose signal fired while they waited: p-queue still holds them until their turn, when they give the slot
	// straight back. (p-queue's own `signal` option removes them at once, but costs four listener changes per job.)
	#cancelledWaiting = 0;
	#pause: ProviderPause | undefined;
	#timer: ReturnType<typeof setTimeout> | undefined;
	/** Waits in a row since a job last got through. */
	#streak = 0;
	/** Who waits in `whenProviderReady` for the wait to end. */
	readonly #ready = new Set<() => void>();
	readonly #listeners = new Set<(pause: ProviderPause | undefined) => void>();

	constructor(options: WorkflowQueueOptions) {
		const concurrency = options.concurrency ?? 4;
		checkConcurrency(concurrency);
		const backoff = options.providerBackoff;
		this.#baseMs = checkBackoff("providerBackoff.baseMs", backoff?.baseMs, DEFAULT_PROVIDER_BACKOFF_MS);
		this.#maxMs = checkBackoff("providerBackoff.maxMs", backoff?.maxMs, DEFAULT_PROVIDER_BACKOFF_MAX_MS);
		this.#queue = new PQueue({ concurrency });
	}

	run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
		if (!signal) {
			const job = this.#queue.add(task);
			this.#holdProcess();
			return job;
		}
		if (signal.aborted) return Promise.reject(signal.reason);
		const job = new Promise<T>((resolve, reject) => {
			let cancelled = false;
			const unwatch = watchAbort(signal, () => {
				cancelled = true;
				this.#cancelledWaiting++;
				this.#holdProcess();
				reject(signal.reason);
				this.#releaseIfUnwanted();
			});
			this.#queue.add(async () => {
				unwatch();
				if (cancelled) {
					this.#cancelledWaiting--;
					return;
				}
				try {
					resolve(await task());
				} catch (error) {
					reject(error);
				}
			});
		});
		this.#holdProcess();
		return job;
	}

	get running(): number {
		return this.#queue.pending;
	}

	get waiting(): number {
		return this.#queue.size - this.#cancelledWaiting;
	}

	get concurrency(): number {
		return this.#queue.concurrency;
	}

	set concurrency(value: number) {
		checkConcurrency(value);
		this.#queue.concurrency = value;
	}

	providerLimit(limit: WorkflowProviderLimit, origin?: unknown): ProviderPause {
		const now = Date.now();
		const asked = readRetryAfter(limit.retryAfterMs);
		if (this.#pause) {
			// A job that started before the wait met the limit too: it joins the wait, lengthening it only when
			// its provider asks for a later time than the wait already gives.
			if (asked === undefined || now + asked <= this.#pause.until) return this.#pause;
			const pause = {
				...this.#pause,
				kind: limit.kind,
				message: limit.message,
				retryAfterMs: asked,
				until: now + asked,
			};
			if (origin !== undefined) pause.origin = origin;
			else delete pause.origin;
			return this.#setPause(pause);
		}
		this.#streak++;
		this.#queue.pause();
		return this.#setPause({
			kind: limit.kind,
			message: limit.message,
			...(asked !== undefined ? { retryAfterMs: asked } : {}),
			since: now,
			until: now + this.#waitFor(asked, this.#streak),
			streak: this.#streak,
			...(origin !== undefined ? { origin } : {}),
		});
	}

	providerOk(): void {
		this.#streak = 0;
	}

	get providerPause(): ProviderPause | undefined {
		return this.#pause;
	}

	whenProviderReady(signal?: AbortSignal): Promise<void> {
		if (!this.#pause) return Promise.resolve();
		if (signal?.aborted) {
			this.#releaseIfUnwanted();
			return Promise.reject(signal.reason);
		}
		return new Promise<void>((resolve, reject) => {
			const done = () => {
				unwatch?.();
				resolve();
			};
			const unwatch = signal
				? watchAbort(signal, () => {
						this.#ready.delete(done);
						this.#holdProcess();
						reject(signal.reason);
						this.#releaseIfUnwanted();
					})
				: undefined;
			this.#ready.add(done);
			this.#holdProcess();
		});
	}

	onProviderPause(listener: (pause: ProviderPause | undefined) => void): () => void {
		const entry = (state: ProviderPause | undefined) => listener(state);
		this.#listeners.add(entry);
		return () => this.#listeners.delete(entry);
	}

	/** The wait `nth` in a row lasts: the provider's time, trusted for the first few, else the doubling backoff. */
	#waitFor(asked: number | undefined, nth: number): number {
		const backoff = Math.min(this.#maxMs, this.#baseMs * 2 ** (nth - 1));
		if (asked === undefined) return backoff;
		return nth <= TRUSTED_RETRY_AFTERS ? asked : Math.max(asked, backoff);
	}

	/** Puts `pause` in force until its `until`, and tells the listeners. */
	#setPause(pause: ProviderPause): ProviderPause {
		this.#pause = pause;
		if (this.#timer) clearTimeout(this.#timer);
		this.#timer = setTimeout(() => this.#endPause(), Math.max(0, pause.until - Date.now()));
		this.#holdProcess();
		this.#tell(pause);
		return pause;
	}

	// Listeners hear that the wait is over before any job starts again, so a run's events keep that order.
	#endPause(): void {
		this.#timer = undefined;
		this.#pause = undefined;
		this.#tell(undefined);
		const resolvers = [...this.#ready];
		this.#ready.clear();
		for (const resolve of resolvers) resolve();
		this.#queue.start();
	}

	// A wait nobody is held by any more (every run that met it or queued behind it has ended) is over: the next
	// run asks the provider again rather than inherit a wait it cannot clear, such as a long usage limit.
	#releaseIfUnwanted(): void {
		if (this.#pause && this.#ready.size === 0 && this.waiting === 0) {
			if (this.#timer) clearTimeout(this.#timer);
			this.#endPause();
		}
	}

	// The timer keeps the process alive only while someone waits for it: a wait nobody needs (every run that
	// met it has ended) must not hold a command line open for the rest of a usage limit.
	#holdProcess(): void {
		if (!this.#timer) return;
		if (this.#ready.size > 0 || this.waiting > 0) this.#timer.ref?.();
		else this.#timer.unref?.();
	}

	#tell(state: ProviderPause | undefined): void {
		for (const listener of [...this.#listeners]) {
			try {
				listener(state);
			} catch {
				// One run's bookkeeping must not stop another's from hearing of the wait.
			}
		}
	}
}

/** A retry-after a runner gave, as a wait: finite and not negative, else none. */
function readRetryAfter(value: unknown): number | undefined {
	return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function checkConcurrency(value: unknown): asserts value is number {
	if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
		throw new TypeError(
			`Expected \`concurrency\` to be a positive integer, got \`${String(value)}\` (${typeof value})`,
		);
	}
}

/** A backoff of 0 would let a provider that keeps limiting make the queue ask it again at once, forever. */
function checkBackoff(name: string, value: unknown, fallback: number): number {
	if (value === undefined) return fallback;
	if (typeof value !== "number" || !Number.isFinite(value) || !(value > 0)) {
		throw new TypeError(
			`Expected \`${name}\` to be a number of milliseconds above 0, got \`${String(value)}\` (${typeof value})`,
		);
	}
	return value;
}
