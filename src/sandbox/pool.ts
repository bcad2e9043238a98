/**
 * Warm worker threads, each serving up to `RUNS_PER_WORKER` runs at once (every run in its own QuickJS instance),
 * so a run pays neither a worker start nor a whole worker's memory. Bounded: at most `size` workers with no run are
 * kept. A lease is one run's slot on a worker: it is released (the worker serves others, or retires once its
 * runs end) or destroyed (the worker ends now, and every other run on it fails with the reason).
 * Idle workers do not keep the process alive.
 */
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import { CONTROL, type HostMessage, RUNS_PER_WORKER, type WorkerBoot, type WorkerMessage } from "./protocol.ts";

/** What kind of worker a run needs: its entry module and its thread stack. */
export interface WorkerKind {
	entry: URL;
	stackMb: number;
}

/** What a run hears from its worker: its own messages (by `runId`), and the worker's end. */
export interface RunListener {
	message(message: WorkerMessage): void;
	/** The worker ended; `reason` says why when another run's lease ended it. */
	exit(code: number, error: string, reason: string | undefined): void;
}

/** One run's slot on a worker. Exactly one of `release` or `destroy` takes effect. */
export interface WorkerLease {
	readonly worker: Worker;
	/** Shared control slots (see `CONTROL` and `runSlot`). */
	readonly control: Int32Array;
	/** Host end of the sync-answer channel. */
	readonly syncPort: MessagePort;
	/** This run's slot in the control buffer. */
	readonly slot: number;
	/** Routes the worker's messages for `runId`, and its exit, to `listener`. */
	attach(runId: number, listener: RunListener): void;
	/** Posts to the worker; settles are sent together at the end of the host's turn (one message, one wake-up). */
	post(message: HostMessage): void;
	/** Other runs on this worker right now. */
	neighbours(): number;
	/**
	 * Gives the slot back. `retire`: the worker takes no new run and ends when its last run ends (after a limit or
	 * an engine fault). `untilDone`: the worker has not finished this run yet (a cancel it has not reached, because
	 * another run's slice holds it); the slot stays taken until it reports the run done.
	 */
	release(options?: { retire?: boolean; untilDone?: boolean }): Promise<void>;
	/** Ends the worker now. Every other run on it fails with `reason` (what happened, for their error message). */
	destroy(reason: string): Promise<void>;
}

/** Counts for leak checks. */
export interface PoolStats {
	/** Workers started and not yet exited (idle, leased, or still booting). */
	liveWorkers: number;
	/** Workers ready, serving no run and kept for the next (not those being ended). */
	idleWorkers: number;
	/** Workers serving at least one run. */
	leasedWorkers: number;
	/** Runs on the worker serving the most (0 when none serves any). */
	runsOnBusiestWorker: number;
}

/** The worker entry for this module: `worker.ts` from source, `worker.js` from dist. */
export const DEFAULT_WORKER_ENTRY = defaultWorkerEntry(import.meta.url);

/**
 * Picks the worker entry from where this module runs. Node strips types itself, but not under node_modules:
 * an installed package whose `src` is loaded (pi loads extensions' TypeScript with its own loader, which a
 * worker thread does not inherit) spawns the built worker from `dist` instead.
 */
export function defaultWorkerEntry(moduleUrl: string): URL {
	if (!moduleUrl.endsWith(".ts")) return new URL("./worker.js", moduleUrl);
	if (moduleUrl.includes("/node_modules/")) return new URL("../../dist/sandbox/worker.js", moduleUrl);
	return new URL("./worker.ts", moduleUrl);
}

/** Workers with no run kept warm. Default: 2. */
export const DEFAULT_POOL_SIZE = 2;

/** Workers alive before runs start sharing them (see `WorkerPool.lease`). */
export const SOLO_WORKERS = 4;

interface Entry {
	readonly worker: Worker;
	readonly control: Int32Array;
	readonly syncPort: MessagePort;
	readonly key: string;
	/** Settles when the worker has compiled QuickJS and can take a run; rejects if it failed to start. */
	readonly ready: Promise<void>;
	readonly exited: Promise<void>;
	isReady: boolean;
	/** Takes no new run (retired, ending, or failed to start). */
	closed: boolean;
	/** Per slot: free, held by a lease, or waiting for the worker to finish a run whose lease let go. */
	readonly slots: ("free" | "held" | number)[];
	readonly listeners: Map<number, RunListener>;
	/** Why the worker was ended, for the runs it takes with it. */
	endReason?: string;
	lastError: string;
	/** Host messages waiting for the end of this turn. */
	outbox: HostMessage[];
}

class WorkerPool {
	private readonly entries = new Set<Entry>();
	private readonly size: number;

	constructor(size: number) {
		this.size = size;
	}

	/**
	 * Starts a worker of this kind in the background unless one is starting or one the next run would take is ready
	 * (an idle one while runs get their own, else one with a free slot), so the next run does not wait for one. One worker starts at a time: on a machine with few cores, a spare starting next to the
	 * worker a run waits for only slows that run down; the next call (every run makes one) goes on.
	 */
	warm(kind: WorkerKind): void {
		const key = keyOf(kind);
		const solo = this.entries.size < SOLO_WORKERS;
		for (const entry of this.entries) {
			if (!entry.isReady && !entry.closed) return;
			if (entry.key !== key || entry.closed) continue;
			if (solo ? taken(entry) === 0 : entry.slots.includes("free")) return;
		}
		this.spawn(kind);
	}

	/**
	 * A slot on a worker of this kind. While fewer than `SOLO_WORKERS` workers are alive a run gets one of its own
	 * (an idle one, else one starting, else a new one): a run ended in native code takes the runs on its worker with
	 * it, and with few runs there is no memory to save. Past that, runs are packed into the fullest worker with room,
	 * so many runs at once cost few workers; a new worker starts only when every one is full.
	 */
	async lease(kind: WorkerKind): Promise<WorkerLease> {
		const key = keyOf(kind);
		const withRoom = [...this.entries].filter(
			(entry) => entry.key === key && !entry.closed && entry.slots.includes("free"),
		);
		const empty = withRoom.filter((entry) => taken(entry) === 0);
		const solo = empty.find((entry) => entry.isReady) ?? empty[0];
		let entry: Entry | undefined;
		if (solo) entry = solo;
		else if (this.entries.size < SOLO_WORKERS) entry = this.spawn(kind);
		else {
			for (const candidate of withRoom) {
				if (
					!entry ||
					(candidate.isReady && !entry.isReady) ||
					(candidate.isReady && taken(candidate) > taken(entry))
				) {
					entry = candidate;
				}
			}
			entry ??= this.spawn(kind);
		}
		const slot = entry.slots.indexOf("free");
		entry.slots[slot] = "held";
		entry.worker.ref();
		try {
			await entry.ready;
		} catch (error) {
			entry.slots[slot] = "free";
			await entry.worker.terminate();
			throw error;
		}
		let runId: number | undefined;
		let open = true;
		const close = () => {
			const was = open;
			open = false;
			if (runId !== undefined) entry.listeners.delete(runId);
			return was;
		};
		return {
			worker: entry.worker,
			control: entry.control,
			syncPort: entry.syncPort,
			slot,
			attach: (id, listener) => {
				runId = id;
				entry.listeners.set(id, listener);
			},
			post: (message) => post(entry, message),
			neighbours: () => taken(entry) - 1,
			release: async (options = {}) => {
				if (!close()) return;
				entry.slots[slot] = options.untilDone && runId !== undefined ? runId : "free";
				if (options.retire) entry.closed = true;
				await this.settle(entry);
			},
			destroy: async (reason) => {
				close();
				entry.slots[slot] = "free";
				await this.end(entry, reason);
			},
		};
	}

	stats(): PoolStats {
		let idle = 0;
		let leased = 0;
		let busiest = 0;
		for (const entry of this.entries) {
			busiest = Math.max(busiest, taken(entry));
			if (taken(entry) > 0) leased++;
			// A worker being ended is on its way out, not kept: it leaves `entries` when its thread has exited.
			else if (entry.isReady && !entry.closed) idle++;
		}
		return { liveWorkers: this.entries.size, idleWorkers: idle, leasedWorkers: leased, runsOnBusiestWorker: busiest };
	}

	/** Ends every worker with no run, and those still starting (workers serving runs end with their last run). */
	async shutdown(): Promise<void> {
		const idle = [...this.entries].filter((entry) => taken(entry) === 0);
		// Workers still starting go too: otherwise they would come up after the shutdown and stay idle.
		await Promise.all(idle.map((entry) => this.end(entry, "The sandbox pool was shut down")));
	}

	/** After a slot is given back: a retired worker with no run left ends; one idle worker too many ends. */
	private async settle(entry: Entry): Promise<void> {
		if (taken(entry) > 0) return;
		const idle = [...this.entries].filter((other) => other.isReady && !other.closed && taken(other) === 0);
		if (entry.closed || idle.length > this.size) {
			await this.end(entry, "The sandbox worker was retired");
			return;
		}
		entry.worker.unref();
		// Last in line for the next run: the other idle worker has had longer to make its next instance.
		this.entries.delete(entry);
		this.entries.add(entry);
	}

	private async end(entry: Entry, reason: string): Promise<void> {
		entry.closed = true;
		entry.endReason ??= reason;
		await entry.worker.terminate();
		await entry.exited;
	}

	private spawn(kind: WorkerKind): Entry {
		const control = new SharedArrayBuffer(CONTROL.length * Int32Array.BYTES_PER_ELEMENT);
		const channel = new MessageChannel();
		const boot: WorkerBoot = { control, syncPort: channel.port2 };
		const worker = new Worker(kind.entry, {
			workerData: boot,
			transferList: [channel.port2],
			resourceLimits: { stackSizeMb: kind.stackMb },
			// The host's own flags (`--input-type`, `--eval`, a test runner's loaders…) are not the worker's business,
			// and some of them stop a worker from starting at all.
			execArgv: [],
		});
		worker.unref();
		channel.port1.unref();
		let markReady = () => {};
		let failed = (_error: Error) => {};
		const ready = new Promise<void>((resolve, reject) => {
			markReady = resolve;
			failed = reject;
		});
		// A lease that awaits `ready` handles its rejection; a worker started only to be warm may have none.
		ready.catch(() => {});
		const entry: Entry = {
			worker,
			control: new Int32Array(control),
			syncPort: channel.port1,
			key: keyOf(kind),
			ready,
			exited: new Promise<void>((resolve) => worker.once("exit", () => resolve())),
			isReady: false,
			closed: false,
			slots: new Array(RUNS_PER_WORKER).fill("free"),
			listeners: new Map(),
			lastError: "",
			outbox: [],
		};
		// Read defensively: a listener that throws on a malformed message would be an uncaught exception in the host.
		worker.on("message", (message: WorkerMessage | null) => {
			if (!entry.isReady) {
				if (typeof message !== "object" || message?.type !== "ready") return;
				entry.isReady = true;
				markReady();
				if (taken(entry) === 0) void this.settle(entry);
				return;
			}
			const runId = typeof message === "object" && message !== null ? (message as { runId?: unknown }).runId : null;
			if (typeof runId !== "number") {
				// A message that names no run (only a worker whose engine's memory is corrupt posts one) goes to every run
				// on it, whose checks end the worker as corrupt.
				for (const listener of [...entry.listeners.values()]) listener.message(message as WorkerMessage);
				return;
			}
			const listener = entry.listeners.get(runId);
			if (listener) listener.message(message as WorkerMessage);
			else if (message?.type === "done" || message?.type === "fatal") {
				// A run whose lease let go before the worker finished it: its slot is free now.
				const slot = entry.slots.indexOf(runId);
				if (slot >= 0) {
					entry.slots[slot] = "free";
					void this.settle(entry);
				}
			}
		});
		worker.on("error", (error: Error) => {
			entry.lastError = `: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
			if (!entry.isReady) failed(error);
		});
		worker.once("exit", (code: number) => {
			this.entries.delete(entry);
			entry.closed = true;
			channel.port1.close();
			if (!entry.isReady) failed(new Error(`The sandbox worker exited (code ${code}) before it was ready`));
			for (const listener of [...entry.listeners.values()]) listener.exit(code, entry.lastError, entry.endReason);
			entry.listeners.clear();
		});
		this.entries.add(entry);
		return entry;
	}
}

/**
 * Sends `message` to the worker: at once when the worker is waiting for the host and nothing is queued (a run's
 * start, the answer a sequential script waits for), else queued, the queue going out as one message at the end of
 * this turn (the answers to a fan-out, which the worker is still busy issuing).
 */
function post(entry: Entry, message: HostMessage): void {
	if (message.type === "run" || (entry.outbox.length === 0 && Atomics.load(entry.control, CONTROL.busy) === 0)) {
		entry.worker.postMessage(message);
		posted(entry);
		return;
	}
	if (entry.outbox.push(message) > 1) return;
	setImmediate(() => {
		const messages = entry.outbox;
		entry.outbox = [];
		if (entry.closed && entry.endReason !== undefined) return;
		entry.worker.postMessage(messages.length === 1 ? messages[0] : { type: "batch", messages });
		posted(entry);
	});
}

/** Wakes a worker waiting for the host on the control buffer (the message is on its port already). */
function posted(entry: Entry): void {
	Atomics.add(entry.control, CONTROL.hostPosted, 1);
	Atomics.notify(entry.control, CONTROL.hostPosted);
}

/** Slots held or waiting for their run to finish. */
function taken(entry: Entry): number {
	let count = 0;
	for (const slot of entry.slots) if (slot !== "free") count++;
	return count;
}

function keyOf(kind: WorkerKind): string {
	return `${kind.entry.href}#${kind.stackMb}`;
}

/** The process-wide pool. */
const pool = new WorkerPool(DEFAULT_POOL_SIZE);

/** The process-wide worker pool (internal to the sandbox folder). */
export function workerPool(): WorkerPool {
	return pool;
}
