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
	const concurrency = options.concurrency ?? 4;
	checkConcurrency(concurrency);
	const baseMs = checkBackoff("providerBackoff.baseMs", options.providerBackoff?.baseMs, DEFAULT_PROVIDER_BACKOFF_MS);
	const maxMs = checkBackoff("providerBackoff.maxMs", options.providerBackoff?.maxMs, DEFAULT_PROVIDER_BACKOFF_MAX_MS);
	const queue = new PQueue({ concurrency });
	// Jobs whose signal fired while they waited: p-queue still holds them until their turn, when they give the slot
	// straight back. (p-queue's own `signal` option removes them at once, but costs four listener changes per job.)
	let cancelledWaiting = 0;
	let pause: ProviderPause | undefined;
	let timer: ReturnType<typeof setTimeout> | undefined;
	/** Waits in a row since a job last got through. */
	let streak = 0;
	const ready = new Set<() => void>();
	const listeners = new Set<(pause: ProviderPause | undefined) => void>();
	const waiting = () => queue.size - cancelledWaiting;
	const tell = (state: ProviderPause | undefined) => {
		for (const listener of [...listeners]) {
			try {
				listener(state);
			} catch {
				// One run's bookkeeping must not stop another's from hearing of the wait.
			}
		}
	};
	// The timer keeps the process alive only while someone waits for it: a wait nobody needs (every run that
	// met it has ended) must not hold a command line open for the rest of a usage limit.
	const holdProcess = () => {
		if (!timer) return;
		if (ready.size > 0 || waiting() > 0) timer.ref?.();
		else timer.unref?.();
	};
	// Listeners hear that the wait is over before any job starts again, so a run's events keep that order.
	const endPause = () => {
		timer = undefined;
		pause = undefined;
		tell(undefined);
		const resolvers = [...ready];
		ready.clear();
		for (const resolve of resolvers) resolve();
		queue.start();
	};
	// A wait nobody is held by any more (every run that met it or queued behind it has ended) is over: the next
	// run asks the provider again rather than inherit a wait it cannot clear, such as a long usage limit.
	const releaseIfUnwanted = () => {
		if (pause && ready.size === 0 && waiting() === 0) {
			if (timer) clearTimeout(timer);
			endPause();
		}
	};
	const schedule = (until: number) => {
		if (timer) clearTimeout(timer);
		timer = setTimeout(endPause, Math.max(0, until - Date.now()));
		holdProcess();
	};
	const waitFor = (limit: WorkflowProviderLimit, nth: number) => {
		const backoff = Math.min(maxMs, baseMs * 2 ** (nth - 1));
		const asked = readRetryAfter(limit.retryAfterMs);
		if (asked === undefined) return backoff;
		return nth <= TRUSTED_RETRY_AFTERS ? asked : Math.max(asked, backoff);
	};

	return {
		run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
			if (!signal) {
				const job = queue.add(task);
				holdProcess();
				return job;
			}
			if (signal.aborted) return Promise.reject(signal.reason);
			const job = new Promise<T>((resolve, reject) => {
				let cancelled = false;
				const unwatch = watchAbort(signal, () => {
					cancelled = true;
					cancelledWaiting++;
					holdProcess();
					reject(signal.reason);
					releaseIfUnwanted();
				});
				queue.add(async () => {
					unwatch();
					if (cancelled) {
						cancelledWaiting--;
						return;
					}
					try {
						resolve(await task());
					} catch (error) {
						reject(error);
					}
				});
			});
			holdProcess();
			return job;
		},
		get running() {
			return queue.pending;
		},
		get waiting() {
			return waiting();
		},
		get concurrency() {
			return queue.concurrency;
		},
		set concurrency(value: number) {
			checkConcurrency(value);
			queue.concurrency = value;
		},
		providerLimit(limit, origin) {
			const now = Date.now();
			if (pause) {
				// A job that started before the wait met the limit too: it joins the wait, lengthening it only when
				// its provider asks for a later time than the wait already gives.
				const asked = readRetryAfter(limit.retryAfterMs);
				if (asked === undefined || now + asked <= pause.until) return pause;
				pause = { ...pause, kind: limit.kind, message: limit.message, retryAfterMs: asked, until: now + asked };
				if (origin !== undefined) pause.origin = origin;
				else delete pause.origin;
				schedule(pause.until);
				tell(pause);
				return pause;
			}
			streak++;
			const asked = readRetryAfter(limit.retryAfterMs);
			pause = {
				kind: limit.kind,
				message: limit.message,
				...(asked !== undefined ? { retryAfterMs: asked } : {}),
				since: now,
				until: now + waitFor(limit, streak),
				streak,
				...(origin !== undefined ? { origin } : {}),
			};
			queue.pause();
			schedule(pause.until);
			tell(pause);
			return pause;
		},
		providerOk() {
			streak = 0;
		},
		get providerPause() {
			return pause;
		},
		whenProviderReady(signal) {
			if (!pause) return Promise.resolve();
			if (signal?.aborted) {
				releaseIfUnwanted();
				return Promise.reject(signal.reason);
			}
			return new Promise<void>((resolve, reject) => {
				const done = () => {
					unwatch?.();
					resolve();
				};
				const unwatch = signal
					? watchAbort(signal, () => {
							ready.delete(done);
							holdProcess();
							reject(signal.reason);
							releaseIfUnwanted();
						})
					: undefined;
				ready.add(done);
				holdProcess();
			});
		},
		onProviderPause(listener) {
			const entry = (state: ProviderPause | undefined) => listener(state);
			listeners.add(entry);
			return () => listeners.delete(entry);
		},
	};
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
