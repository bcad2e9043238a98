/**
 * Warm worker threads, so a run does not pay the worker start. Bounded: at most `size` idle workers are kept.
 * A lease either returns its worker (after a clean run) or destroys it. Idle workers do not keep the process alive.
 */
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import { CONTROL, type WorkerBoot, type WorkerMessage } from "./protocol.ts";

/** What kind of worker a run needs: its entry module and its thread stack. */
export interface WorkerKind {
	entry: URL;
	stackMb: number;
}

/** A worker ready for one run at a time. */
export interface PooledWorker {
	readonly worker: Worker;
	/** Shared control slots (see `CONTROL`). */
	readonly control: Int32Array;
	/** Host end of the sync-answer channel. */
	readonly syncPort: MessagePort;
}

/** A worker held by one run. Exactly one of `release` or `destroy` takes effect. */
export interface WorkerLease extends PooledWorker {
	/** Gives the worker back to the pool (or ends it if the pool is full). */
	release(): void;
	/** Ends the worker: after a limit, a crash, or a cancel it did not answer. */
	destroy(): Promise<void>;
}

/** Counts for leak checks. */
export interface PoolStats {
	/** Workers started and not yet exited (idle, leased, or still booting). */
	liveWorkers: number;
	idleWorkers: number;
	leasedWorkers: number;
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

/** Idle workers kept warm. Default: 2. */
export const DEFAULT_POOL_SIZE = 2;

interface Entry extends PooledWorker {
	key: string;
	/** Settles when the worker has compiled QuickJS and can take a run; rejects if it failed to start. */
	ready: Promise<void>;
	exited: Promise<void>;
}

class WorkerPool {
	private readonly idle: Entry[] = [];
	private readonly live = new Set<Entry>();
	/** Workers started by `warm` and not ready yet; a lease takes one rather than starting another. */
	private readonly booting: Entry[] = [];
	private leased = 0;
	/** Workers spawned and not ready yet, whether for `warm` or for a lease. */
	private starting = 0;

	private readonly size: number;

	constructor(size: number) {
		this.size = size;
	}

	/**
	 * Starts a worker of this kind in the background, so that `size` workers are ready or busy, and at least
	 * one is ready for the next run. Counting busy ones keeps a steady stream of runs from spawning and
	 * discarding a worker each time. One worker starts at a time: on a machine with few cores, a spare starting
	 * next to the worker a run waits for only slows that run down; the next call (every run makes one) goes on.
	 */
	warm(kind: WorkerKind): void {
		const target = Math.max(1, this.size - this.leased);
		if (this.starting > 0 || this.idle.length + this.booting.length >= target) return;
		const entry = this.start(kind);
		entry.worker.unref();
		this.booting.push(entry);
		entry.ready.then(
			() => {
				if (remove(this.booting, entry)) this.park(entry);
			},
			() => remove(this.booting, entry),
		);
	}

	/**
	 * A worker of this kind: an idle one if there is one, else one already starting, else a new one. Waiting for
	 * a starting worker beats starting another: on a machine with few cores the two would compete for the CPU.
	 */
	async lease(kind: WorkerKind): Promise<WorkerLease> {
		const key = keyOf(kind);
		const entry = take(this.idle, key) ?? take(this.booting, key) ?? this.start(kind);
		entry.worker.ref();
		try {
			await entry.ready;
		} catch (error) {
			await entry.worker.terminate();
			throw error;
		}
		this.leased++;
		let open = true;
		const close = () => {
			if (!open) return false;
			open = false;
			this.leased--;
			return true;
		};
		return {
			worker: entry.worker,
			control: entry.control,
			syncPort: entry.syncPort,
			release: () => {
				if (close()) this.park(entry);
			},
			destroy: async () => {
				close();
				await entry.worker.terminate();
				await entry.exited;
			},
		};
	}

	stats(): PoolStats {
		return { liveWorkers: this.live.size, idleWorkers: this.idle.length, leasedWorkers: this.leased };
	}

	/** Ends every idle or starting worker (leased ones end with their lease). */
	async shutdown(): Promise<void> {
		// Workers still starting for `warm` go too: otherwise they would come up after the shutdown and stay idle.
		const idle = [...this.idle.splice(0), ...this.booting.splice(0)];
		await Promise.all(
			idle.map(async (entry) => {
				await entry.worker.terminate();
				await entry.exited;
			}),
		);
	}

	private start(kind: WorkerKind): Entry {
		const entry = spawn(kind, this.live);
		this.starting++;
		const started = () => {
			this.starting--;
		};
		entry.ready.then(started, started);
		return entry;
	}

	private park(entry: Entry): void {
		if (!this.live.has(entry)) return;
		if (this.idle.length >= this.size) {
			entry.worker.terminate();
			return;
		}
		entry.worker.unref();
		this.idle.push(entry);
	}

	/** Forgets a worker that exited on its own. */
	forget(entry: Entry): void {
		const index = this.idle.indexOf(entry);
		if (index >= 0) this.idle.splice(index, 1);
	}
}

function keyOf(kind: WorkerKind): string {
	return `${kind.entry.href}#${kind.stackMb}`;
}

/** Removes and returns the oldest entry of `entries` with this key. */
function take(entries: Entry[], key: string): Entry | undefined {
	const index = entries.findIndex((entry) => entry.key === key);
	return index >= 0 ? entries.splice(index, 1)[0] : undefined;
}

/** Removes `entry` from `entries`; false when a lease took it first. */
function remove(entries: Entry[], entry: Entry): boolean {
	const index = entries.indexOf(entry);
	if (index >= 0) entries.splice(index, 1);
	return index >= 0;
}

/** Starts a worker; its `ready` settles on the worker's "ready" message (QuickJS is compiled by then). */
function spawn(kind: WorkerKind, live: Set<Entry>): Entry {
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
	channel.port1.unref();
	// Errors of a leased worker are handled by its run; an idle worker's error is followed by "exit".
	worker.on("error", () => {});
	const ready = new Promise<void>((resolve, reject) => {
		const stop = () => {
			worker.off("message", onMessage);
			worker.off("error", onError);
			worker.off("exit", onExit);
		};
		// Read defensively: a listener that throws on a malformed message would be an uncaught exception in the host.
		const onMessage = (message: WorkerMessage | null) => {
			if (typeof message !== "object" || message?.type !== "ready") return;
			stop();
			resolve();
		};
		const onError = (error: Error) => {
			stop();
			reject(error);
		};
		const onExit = (code: number) => {
			stop();
			reject(new Error(`The sandbox worker exited (code ${code}) before it was ready`));
		};
		worker.on("message", onMessage);
		worker.on("error", onError);
		worker.on("exit", onExit);
	});
	const exited = new Promise<void>((resolve) => {
		worker.once("exit", () => {
			live.delete(entry);
			channel.port1.close();
			pool.forget(entry);
			resolve();
		});
	});
	const entry: Entry = {
		worker,
		control: new Int32Array(control),
		syncPort: channel.port1,
		key: keyOf(kind),
		ready,
		exited,
	};
	live.add(entry);
	return entry;
}

/** The process-wide pool. */
const pool = new WorkerPool(DEFAULT_POOL_SIZE);

/** The process-wide worker pool (internal to the sandbox folder). */
export function workerPool(): WorkerPool {
	return pool;
}
