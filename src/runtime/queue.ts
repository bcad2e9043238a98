/**
 * The concurrency queue children wait in: a thin, signal-aware wrapper over p-queue that several runs may share.
 */
import PQueue from "p-queue";
import { watchAbort } from "./abort-watch.ts";

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
}

export interface WorkflowQueueOptions {
	/** Jobs running at once. Default: 4. */
	concurrency?: number;
}

/** Creates a queue; throws a `TypeError` for a concurrency that is not a positive integer. */
export function createWorkflowQueue(options: WorkflowQueueOptions = {}): WorkflowQueue {
	const concurrency = options.concurrency ?? 4;
	checkConcurrency(concurrency);
	const queue = new PQueue({ concurrency });
	// Jobs whose signal fired while they waited: p-queue still holds them until their turn, when they give the slot
	// straight back. (p-queue's own `signal` option removes them at once, but costs four listener changes per job.)
	let cancelledWaiting = 0;
	return {
		run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
			if (!signal) return queue.add(task);
			if (signal.aborted) return Promise.reject(signal.reason);
			return new Promise<T>((resolve, reject) => {
				let cancelled = false;
				const unwatch = watchAbort(signal, () => {
					cancelled = true;
					cancelledWaiting++;
					reject(signal.reason);
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
		},
		get running() {
			return queue.pending;
		},
		get waiting() {
			return queue.size - cancelledWaiting;
		},
		get concurrency() {
			return queue.concurrency;
		},
		set concurrency(value: number) {
			checkConcurrency(value);
			queue.concurrency = value;
		},
	};
}

function checkConcurrency(value: unknown): asserts value is number {
	if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
		throw new TypeError(
			`Expected \`concurrency\` to be a positive integer, got \`${String(value)}\` (${typeof value})`,
		);
	}
}
