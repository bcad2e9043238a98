/**
 * The schema worker, host half: one worker thread per process, started on first use and unref'd while idle, that
 * compiles and validates script-supplied schemas so a slow one cannot freeze the host. Each job has a deadline;
 * a job past it terminates the worker (a fresh one takes the next job) and fails with a coded error. A compile
 * the worker died in (out of heap) is tried once more on a fresh worker, whose cache is empty, before it fails.
 * A check whose work is bounded before it starts runs on the host's copy of a small validator the worker compiled,
 * without a round trip (host-check.ts says why that is safe).
 */
import { Worker } from "node:worker_threads";
import { WorkflowError, type WorkflowErrorCode } from "../../errors.ts";
import type { CompileJob } from "./ajv.ts";
import { HostChecks } from "./host-check.ts";
import type { SchemaValidation } from "./issues.ts";
import type { SchemaReady, SchemaReply, SchemaRequest, SchemaWorkerHeap } from "./protocol.ts";

export type { SchemaWorkerHeap } from "./protocol.ts";

/** Longest one compile or validation may take in the worker before it is stopped. */
const SCHEMA_JOB_DEADLINE_MS = 5_000;
/** Longest a new worker may take to load; its start is not counted against the first job's deadline. */
const BOOT_DEADLINE_MS = 30_000;
/** The worker's heap; past it the worker dies and the job fails, the host is unaffected. */
const WORKER_HEAP_MB = 256;

/** Options of `SchemaWorker`. */
export interface SchemaWorkerOptions {
	/** Default: `SCHEMA_JOB_DEADLINE_MS`. */
	deadlineMs?: number;
	/** The worker's heap in MiB. Default: `WORKER_HEAP_MB`. */
	heapMb?: number;
	/** Estimated bytes the worker's cache keeps. Default: `SCHEMA_CACHE_BYTES`. */
	cacheBytes?: number;
}

/** What the worker holds, for tests and hosts. */
export interface SchemaWorkerStats {
	/** Whether a worker thread is running. */
	running: boolean;
	/** Validators the worker keeps, as of its last reply. */
	held: number;
	/** Schemas some caller still holds on the host. */
	holds: number;
	/** Compiles the worker died in and that were tried again on a fresh worker. */
	retried: number;
	/** Checks that ran on the host's copy of a validator, without a round trip to the worker. */
	hostChecks: number;
}

type Request = SchemaRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;

interface Job {
	request: Request;
	/** The job's schema, for the deadline's message and to send along to a worker that does not hold it. */
	job?: CompileJob;
	resolve: (reply: SchemaReply & { ok: true }) => void;
	reject: (error: WorkflowError) => void;
	/** A compile already tried once on a worker that died in it. */
	retried?: boolean;
}

/** One worker thread and its job queue; jobs run one at a time, in order. */
export class SchemaWorker {
	readonly #deadlineMs: number;
	readonly #heapMb: number;
	readonly #cacheBytes: number | undefined;
	readonly #queue: Job[] = [];
	/** Contents the current worker holds; emptied when it is replaced. */
	readonly #known = new Set<string>();
	/** How many callers hold each schema; at zero the worker is told to drop it. */
	readonly #holds = new Map<string, number>();
	/** How many of those holds are in use (not idle); at zero the worker may evict the schema when it needs room. */
	readonly #uses = new Map<string, number>();
	/** Keys the worker was last told are in use (a compile went); an `idle` tells it otherwise. */
	readonly #markedUsed = new Set<string>();
	/** Copies of the current worker's small validators, for checks bounded before they start. */
	readonly #host = new HostChecks();
	#worker: Worker | undefined;
	/** Set while the current worker loads; jobs wait for it. */
	#booting: NodeJS.Timeout | undefined;
	#current: { job: Job; timer: NodeJS.Timeout } | undefined;
	#held = 0;
	#retried = 0;
	#nextId = 1;

	constructor(options: SchemaWorkerOptions = {}) {
		this.#deadlineMs = options.deadlineMs ?? SCHEMA_JOB_DEADLINE_MS;
		this.#heapMb = options.heapMb ?? WORKER_HEAP_MB;
		this.#cacheBytes = options.cacheBytes;
	}

	/** Compiles `job` and holds it, in use, until `idle` or `release`. Rejects with `schema_invalid`. */
	async compile(job: CompileJob): Promise<void> {
		this.#holds.set(job.key, (this.#holds.get(job.key) ?? 0) + 1);
		this.#uses.set(job.key, (this.#uses.get(job.key) ?? 0) + 1);
		// Held by the worker and checked on the host: no message. The worker may then evict it sooner (it was not told
		// of this use); a check that goes to the worker after that sends the schema along, as after any eviction.
		if (this.#known.has(job.key) && this.#host.admitted(job.key)) return;
		try {
			await this.#run({ type: "compile", job }, job);
		} catch (error) {
			this.idle(job.key);
			this.release(job.key);
			throw error;
		}
	}

	/** Ends one use of `key`, its hold kept: with none left in use, the worker may evict it when it needs room. */
	idle(key: string): void {
		const uses = (this.#uses.get(key) ?? 0) - 1;
		if (uses > 0) {
			this.#uses.set(key, uses);
			return;
		}
		this.#uses.delete(key);
		if (!this.#holds.has(key) || !this.#known.has(key)) return;
		// Idle in the worker already (no compile told it of a use since): nothing to say.
		if (!this.#markedUsed.delete(key)) return;
		this.#enqueue({ request: { type: "release", key, idle: true }, resolve: () => {}, reject: () => {} });
	}

	/**
	 * Validates `value` against the held schema `job`: on the host when the worker holds it and the host may check
	 * it (host-check.ts), else in the worker. Rejects with `limit_cpu` or `limit_memory` when stopped.
	 */
	async validate(job: CompileJob, value: unknown, root: string): Promise<SchemaValidation> {
		if (this.#known.has(job.key)) {
			const outcome = this.#host.check(job.key, value, root);
			if (outcome.path === "host") return outcome.result;
		}
		const reply = await this.#run({ type: "validate", key: job.key, value, root }, job);
		return reply.result as SchemaValidation;
	}

	/** Lets go of one hold on `key`; the last one makes the worker drop the schema. */
	release(key: string): void {
		const holds = (this.#holds.get(key) ?? 0) - 1;
		if (holds > 0) {
			this.#holds.set(key, holds);
			return;
		}
		this.#holds.delete(key);
		this.#uses.delete(key);
		this.#markedUsed.delete(key);
		if (!this.#known.has(key)) return;
		this.#known.delete(key);
		this.#host.forget(key);
		this.#enqueue({ request: { type: "release", key }, resolve: () => {}, reject: () => {} });
	}

	/** The worker's heap (starting a worker if none runs): for the bench and tests, not for deciding anything. */
	async heap(): Promise<SchemaWorkerHeap> {
		const reply = await new Promise<SchemaReply & { ok: true }>((resolve, reject) =>
			this.#enqueue({ request: { type: "heap" }, resolve, reject }),
		);
		if (!reply.heap) throw new WorkflowError("internal", "The schema worker did not report its heap");
		return reply.heap;
	}

	get stats(): SchemaWorkerStats {
		return {
			running: this.#worker !== undefined,
			held: this.#held,
			holds: this.#holds.size,
			retried: this.#retried,
			hostChecks: this.#host.checks,
		};
	}

	/** Ends the worker thread; a later job starts a new one. */
	async shutdown(): Promise<void> {
		const worker = this.#worker;
		const current = this.#current;
		this.#replace();
		current?.job.reject(new WorkflowError("cancelled", "The schema worker was shut down while this job ran"));
		if (worker) await worker.terminate();
		this.#pump();
	}

	#run(request: Request, job: CompileJob): Promise<SchemaReply & { ok: true }> {
		return new Promise((resolve, reject) => this.#enqueue({ request, job, resolve, reject }));
	}

	#enqueue(job: Job): void {
		this.#queue.push(job);
		this.#pump();
	}

	#pump(): void {
		if (this.#current) return;
		const job = this.#queue.shift();
		if (!job) {
			this.#worker?.unref();
			return;
		}
		const worker = this.#ensureWorker();
		worker.ref();
		if (this.#booting) {
			this.#queue.unshift(job);
			return;
		}
		const { request } = job;
		// A worker that does not hold the schema (new, or replaced after a deadline) gets it with the job.
		const withJob =
			request.type === "validate" && job.job && !this.#known.has(request.key)
				? { ...request, job: job.job }
				: request;
		if (withJob.type === "compile" || (withJob.type === "validate" && withJob.job))
			this.#markedUsed.add(withJob.type === "compile" ? withJob.job.key : withJob.key);
		// Unref'd: while a job runs the worker itself keeps the process alive.
		const timer = setTimeout(() => this.#expire(), this.#deadlineMs).unref();
		this.#current = { job, timer };
		worker.postMessage({ ...withJob, id: this.#nextId++ } as SchemaRequest);
	}

	#ensureWorker(): Worker {
		if (this.#worker) return this.#worker;
		const worker = new Worker(SCHEMA_WORKER_ENTRY, {
			resourceLimits: { maxOldGenerationSizeMb: this.#heapMb },
			workerData: { cacheBytes: this.#cacheBytes },
			// The host's own flags (a test runner's loaders…) are not the worker's business.
			execArgv: [],
		});
		worker.on("message", (message: SchemaReply | SchemaReady) => {
			if ("type" in message) this.#ready(worker);
			else this.#settle(worker, message);
		});
		worker.on("error", (error: Error & { code?: string }) =>
			this.#fail(worker, error.message, error.code === "ERR_WORKER_OUT_OF_MEMORY" ? "limit_memory" : "internal"),
		);
		worker.on("exit", (code) => this.#fail(worker, `it exited with code ${code}`, "internal"));
		this.#worker = worker;
		this.#booting = setTimeout(
			() => this.#fail(worker, `it did not start within ${BOOT_DEADLINE_MS} ms`, "internal"),
			BOOT_DEADLINE_MS,
		).unref();
		return worker;
	}

	#ready(worker: Worker): void {
		if (worker !== this.#worker) return;
		clearTimeout(this.#booting);
		this.#booting = undefined;
		this.#pump();
	}

	#settle(worker: Worker, reply: SchemaReply): void {
		const current = this.#current;
		if (worker !== this.#worker || !current) return;
		clearTimeout(current.timer);
		this.#current = undefined;
		this.#held = reply.held;
		for (const key of reply.evicted ?? []) {
			this.#known.delete(key);
			this.#host.forget(key);
		}
		const { request } = current.job;
		if (reply.ok) {
			if (request.type === "compile" || request.type === "validate") {
				const key = request.type === "compile" ? request.job.key : request.key;
				const wasKnown = this.#known.has(key);
				this.#known.add(key);
				if (reply.compiled && current.job.job) this.#host.admit(current.job.job, reply.compiled);
				// Held by nobody any more (released while this job ran): the worker need not keep it. Held but out of
				// use: the worker, which takes a compile as a use, may evict it.
				if (!this.#holds.has(key)) this.release(key);
				else if (!this.#uses.has(key) && (request.type === "compile" || !wasKnown)) this.idle(key);
			}
			current.job.resolve(reply);
		} else {
			current.job.reject(
				new WorkflowError(reply.error.code as WorkflowErrorCode, reply.error.message, {
					...(reply.error.details ? { details: reply.error.details } : {}),
				}),
			);
		}
		this.#pump();
	}

	#expire(): void {
		const current = this.#current;
		if (!current) return;
		this.#replace();
		current.job.reject(
			stoppedError(current.job, `took longer than ${this.#deadlineMs} ms`, "limit_cpu", this.#deadlineMs),
		);
		this.#pump();
	}

	#fail(worker: Worker, reason: string, code: WorkflowErrorCode): void {
		if (worker !== this.#worker) return;
		if (this.#booting) {
			// A worker that cannot start would fail again at once: the waiting jobs fail instead of a retry loop.
			this.#replace();
			const error = new WorkflowError("internal", `The schema worker did not start: ${reason}`);
			for (const job of this.#queue.splice(0)) job.reject(error);
			return;
		}
		const current = this.#current;
		this.#replace();
		if (current?.job.request.type === "compile" && !current.job.retried) {
			// What the worker had compiled before may have filled its heap: a fresh one starts empty.
			current.job.retried = true;
			this.#retried++;
			this.#queue.unshift(current.job);
		} else if (current) {
			const what = current.job.retried
				? `stopped the schema worker twice, the second time on a fresh worker (${reason})`
				: `stopped the schema worker (${reason})`;
			current.job.reject(stoppedError(current.job, what, code));
		}
		this.#pump();
	}

	/** Drops the current worker (terminating it) and the job it was running; the next job starts a new one. */
	#replace(): void {
		const worker = this.#worker;
		if (this.#current) clearTimeout(this.#current.timer);
		clearTimeout(this.#booting);
		this.#booting = undefined;
		this.#current = undefined;
		this.#worker = undefined;
		this.#known.clear();
		this.#markedUsed.clear();
		this.#host.clear();
		this.#held = 0;
		worker?.terminate().catch(() => {});
	}
}

/** The error of a job the worker did not finish: the schema is refused when compiling, the value when checking. */
function stoppedError(job: Job, what: string, code: WorkflowErrorCode, limit?: number): WorkflowError {
	const { request } = job;
	const options = limit === undefined ? {} : { details: { limit } };
	const bound = limit === undefined ? "" : ` (limit: ${limit})`;
	const name = job.job?.name ?? "schema";
	if (request.type === "validate") {
		return new WorkflowError(
			code,
			`Checking \`${request.root}\` against \`${name}\` ${what}${bound}. Ask for a smaller answer, or simplify the schema`,
			options,
		);
	}
	const fix =
		code === "limit_memory"
			? ": fewer or shorter `pattern`s (a bounded repeat like `{1,64}` compiles to 64 copies of what it repeats), fewer properties, or one call per part"
			: "";
	return new WorkflowError(
		"schema_invalid",
		`Compiling \`${name}\` ${what}${bound}. Make the schema smaller or simpler${fix}`,
		options,
	);
}

/** The worker entry: `worker-entry.ts` from source, `.js` from dist (Node strips no types under node_modules). */
function workerEntry(moduleUrl: string): URL {
	if (!moduleUrl.endsWith(".ts")) return new URL("./worker-entry.js", moduleUrl);
	if (moduleUrl.includes("/node_modules/")) return new URL("../../../dist/runtime/schema/worker-entry.js", moduleUrl);
	return new URL("./worker-entry.ts", moduleUrl);
}

const SCHEMA_WORKER_ENTRY = workerEntry(import.meta.url);

/** The process-wide schema worker. */
export const schemaWorker = new SchemaWorker();

/** What the process-wide schema worker holds. */
export function schemaWorkerStats(): SchemaWorkerStats {
	return schemaWorker.stats;
}

/** Ends the process-wide schema worker's thread (a later schema starts it again). */
export function shutdownSchemaWorker(): Promise<void> {
	return schemaWorker.shutdown();
}
