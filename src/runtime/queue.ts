/**
 * The concurrency queue children wait in: a thin, signal-aware wrapper over p-queue that several runs may share.
 */
import PQueue from "p-queue";

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
	return {
		run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
			if (signal?.aborted) return Promise.reject(signal.reason);
			return queue.add(task, signal ? { signal } : {}) as Promise<T>;
		},
		get running() {
			return queue.pending;
		},
		get waiting() {
			return queue.size;
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
