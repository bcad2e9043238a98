/**
 * The BullMQ workers of one `pi-workflows worker`: one on the plain queue, and one on each label set's queue its
 * labels cover (placement.ts), started and closed as its labels and the hosts' label sets change. They share the
 * worker's `concurrency`: while every slot is taken they are paused (none fetches), a job one of them fetched in the
 * moment before waits for the next free slot, and a job whose labels this worker no longer has goes back to its
 * queue unstarted.
 */
import { type Job, type Processor, WaitingError, Worker, type WorkerOptions } from "bullmq";
import { Redis } from "ioredis";
import { covers, labelsOfQueue } from "./placement.ts";
import type { QueueJobData, QueueJobReturn } from "./protocol.ts";
import { redisOptions } from "./redis-url.ts";

type AgentJob = Job<QueueJobData, QueueJobReturn>;

/** What the set needs. */
export interface WorkerQueuesOptions {
	redis: string;
	queueName: string;
	concurrency: number;
	/** BullMQ's worker options but the connection and concurrency (name, locks, stalled checks). */
	workerOptions: Omit<WorkerOptions, "connection" | "concurrency">;
	/** Runs one job's child. */
	run: (job: AgentJob) => Promise<QueueJobReturn>;
	/** BullMQ's events of each worker: errors, lost locks, failures. */
	wire: (worker: Worker<QueueJobData, QueueJobReturn>) => void;
	log: (line: string) => void;
}

interface Open {
	worker: Worker<QueueJobData, QueueJobReturn>;
	blocking: Redis;
}

/** The worker's BullMQ workers, one per queue it takes from. */
export class WorkerQueues {
	readonly #options: WorkerQueuesOptions;
	readonly #open = new Map<string, Open>();
	#labels: string[] = [];
	#running = 0;
	/** Jobs fetched while every slot was taken, each waiting for one. */
	readonly #waiting: Array<() => void> = [];
	#paused = false;
	#closing = false;

	constructor(options: WorkerQueuesOptions) {
		this.#options = options;
	}

	/** Children running now, over all queues. */
	get running(): number {
		return this.#running;
	}

	/** The queues taken from now. */
	get queues(): string[] {
		return [...this.#open.keys()];
	}

	/** Takes from the plain queue and from every set in `labelSets` that `labels` cover; stops taking from the rest. */
	async sync(labels: readonly string[], labelSets: readonly string[]): Promise<void> {
		if (this.#closing) return;
		this.#labels = [...labels];
		const { queueName } = this.#options;
		const wanted = new Set([
			queueName,
			...labelSets.filter((placed) => covers(labels, labelsOfQueue(queueName, placed))),
		]);
		for (const [placed, open] of this.#open) {
			if (wanted.has(placed)) continue;
			this.#open.delete(placed);
			this.#options.log(`stopped taking jobs needing ${labelsOfQueue(queueName, placed).join(", ")}`);
			// Not forced: its running children finish here.
			void this.#end(open, false);
		}
		const starting = [...wanted].filter((placed) => !this.#open.has(placed)).map((placed) => this.#start(placed));
		await Promise.all(starting);
	}

	async #start(placed: string): Promise<void> {
		const blocking = new Redis(this.#options.redis, redisOptions(this.#options.redis));
		blocking.on("error", () => {});
		const processor: Processor<QueueJobData, QueueJobReturn> = (job, token) => this.#process(job, placed, token);
		const worker = new Worker<QueueJobData, QueueJobReturn>(placed, processor, {
			...this.#options.workerOptions,
			connection: blocking,
			concurrency: this.#options.concurrency,
		});
		this.#options.wire(worker);
		this.#open.set(placed, { worker, blocking });
		if (this.#paused) await worker.pause(true);
		await worker.waitUntilReady();
		if (placed !== this.#options.queueName)
			this.#options.log(`takes jobs needing ${labelsOfQueue(this.#options.queueName, placed).join(", ")}`);
	}

	async #process(job: AgentJob, placed: string, token: string | undefined): Promise<QueueJobReturn> {
		const needs = job.data?.placement?.labels ?? labelsOfQueue(this.#options.queueName, placed);
		// A label dropped since it was fetched: back to its queue, unstarted (its BullMQ worker is closing, so it
		// cannot fetch the job again here).
		if (!covers(this.#labels, needs)) {
			await job.moveToWait(token);
			throw new WaitingError();
		}
		// Fetched in the moment before the others paused: it waits here for the next free slot, its lock renewed as
		// any running job's. (Given back instead, this worker's BullMQ worker could fetch it again before BullMQ
		// dropped the first take's lock tracking, and the second take would run without its lock renewed.)
		if (this.#running >= this.#options.concurrency) await new Promise<void>((go) => this.#waiting.push(go));
		else this.#running++;
		this.#gate();
		try {
			return await this.#options.run(job);
		} finally {
			// The slot goes straight to a job waiting for one, else it is free.
			const next = this.#waiting.shift();
			if (next) next();
			else this.#running--;
			this.#gate();
		}
	}

	/** With more than one queue, the slots are shared: every worker pauses while they are all taken. */
	#gate(): void {
		const full = this.#running >= this.#options.concurrency && this.#open.size > 1;
		if (full === this.#paused || this.#closing) return;
		this.#paused = full;
		for (const { worker } of this.#open.values()) void (full ? worker.pause(true) : worker.resume()).catch(() => {});
	}

	async #end(open: Open, force: boolean): Promise<void> {
		try {
			await open.worker.close(force);
		} finally {
			open.blocking.disconnect();
		}
	}

	/** Takes no new jobs and waits for the running ones (`force`: lets them go). */
	async close(force = false): Promise<void> {
		this.#closing = true;
		const all = [...this.#open.values()];
		this.#open.clear();
		await Promise.all(all.map((open) => this.#end(open, force)));
	}
}
