/**
 * One agent attempt on the queue, from the host's side: find its job (a resumed host) or queue it, forward the
 * worker's progress as the child's reports, take exactly one result (a queue event or a poll, whichever comes first),
 * and on stop remove the job if it still waits or tell its worker to stop if it runs. A job that vanished (Redis
 * restarted without persistence) is queued again; Redis unreachable for `unreachableMs` fails the call with that cause.
 */
import { Job, type Queue } from "bullmq";
import type { Redis } from "ioredis";
import { callNumber, errorMessage, WorkflowError, type WorkflowErrorCode } from "../errors.ts";
import type {
	WorkflowAgentChild,
	WorkflowAgentRequest,
	WorkflowAgentResult,
	WorkflowAgentRunnerContext,
	WorkflowWorktree,
} from "../runtime/core/types.ts";
import {
	announceLabelSet,
	type ChildPlacement,
	childPlacement,
	chooseQueue,
	covers,
	describeWorkers,
	HEARTBEAT_MS,
	labelsOfQueue,
	liveWorkers,
	placementQueueName,
	type WorkerBeat,
} from "./placement.ts";
import {
	controlChannel,
	JOB_VERSION,
	jobIdOf,
	type QueueChildPlan,
	type QueueControlMessage,
	type QueueJobData,
	type QueueJobReturn,
	STOP_KEY_TTL_S,
	stopKey,
} from "./protocol.ts";

/** What the run's child controls registry must offer (`ChildControls` of src/pi/children is one). */
export interface QueueControls {
	add(
		key: string,
		control: { steer(text: string): Promise<void>; pause(): void; skip(): void; restart(): void },
	): () => void;
	takeSkip(key: string): boolean;
}

/** What one run's runner needs. */
export interface QueueRunOptions {
	/** The run's id (it names the jobs), or where to get it at the first call. Required. */
	runId: string | (() => Promise<string | undefined>);
	/** What the child gets: its agent type and the session's defaults. Throws author errors before a job is queued. */
	prepare(request: WorkflowAgentRequest): QueueChildPlan | Promise<QueueChildPlan>;
	/**
	 * The run's directory: its commit (for workers with `--repo`) is looked up as the runner is made, while the script
	 * starts, rather than holding the first jobs back. Default: the first call's directory, looked up at that call.
	 */
	cwd?: string;
	/** Where the run's children are registered for steer, pause, skip and restart. Default: none. */
	controls?: QueueControls;
	/** Worker notes already warned of in this run (each is said once). Default: a set per runner. */
	noted?: Set<string>;
	/** Told of each job: queued anew, found running (a resumed host), or found completed (its result taken). */
	onJob?(event: QueueJobEvent): void;
}

/** What `onJob` is told. */
export interface QueueJobEvent {
	jobId: string;
	key: string;
	attempt: number;
	how: "queued" | "found" | "completed";
	/** The worker that ran it, once it finished. */
	worker?: string;
}

/** One call's wait. */
export interface CallOptions {
	runId: string;
	request: WorkflowAgentRequest;
	plan: QueueChildPlan;
	context: WorkflowAgentRunnerContext;
	run: QueueRunOptions;
	/** The run's commit, for workers with `--repo`. */
	workspace?: { commit: string; subdir: string };
	/** What the run's commit warns of (uncommitted changes, not pushed, no repository): said when a `--repo` worker answers. */
	placeWarnings?: () => Promise<string[]>;
	/** Brings a remote child's pushed branch into the host's repository. */
	takeBranch?: (
		workspace: NonNullable<QueueJobReturn["workspace"]>,
	) => Promise<{ worktree?: WorkflowWorktree; warning?: string }>;
}

/** What every wait of one host shares. */
export interface WaitSettings {
	/** The BullMQ queue of that name (the plain one, or a label set's). */
	queueFor(name: string): Queue;
	queueName: string;
	commands: Redis;
	host: string;
	/** The Redis URL without its password, for messages. */
	where: string;
	stopGraceMs: number;
	pollMs: number;
	unreachableMs: number;
	keepJobsS: number;
	placementWaitMs: number;
	/** How long a label set stays listed after the host's last refresh, while its child waits (placement.ts). */
	labelSetTtlMs: number;
	waits: Map<string, CallWait>;
}

/** Jobs re-queued because they vanished from Redis, before the call fails instead. */
const MAX_REQUEUES = 3;
const WAITING_STATES = new Set(["waiting", "delayed", "prioritized", "paused", "waiting-children"]);

/** One attempt's job, from queueing to its one result. */
export class CallWait {
	readonly jobId: string;
	readonly #settings: WaitSettings;
	readonly #request: WorkflowAgentRequest;
	readonly #plan: QueueChildPlan;
	readonly #context: WorkflowAgentRunnerContext;
	readonly #run: QueueRunOptions;
	readonly #data: QueueJobData;
	#resolve: (result: WorkflowAgentResult) => void = () => {};
	#reject: (error: unknown) => void = () => {};
	#settled = false;
	#stopping: string | undefined;
	#timers: ReturnType<typeof setTimeout>[] = [];
	#checking = false;
	#lastHeard = Date.now();
	#requeues = 0;
	#skipped = false;
	#taking = false;
	/** A worker reported the child running: controls can reach it. */
	#started = false;
	readonly #call: CallOptions;
	/** The queue its job is in: the plain one, or its placement's (placement.ts). */
	#queue: Queue;
	readonly #placement: ChildPlacement;
	/** Since when no live worker has every required label (undefined: one has, or none is required). */
	#unplacedSince: number | undefined;
	#watchingPlacement = false;

	constructor(settings: WaitSettings, call: CallOptions) {
		this.#call = call;
		this.#settings = settings;
		this.#request = call.request;
		this.#plan = call.plan;
		this.#context = call.context;
		this.#run = call.run;
		this.jobId = jobIdOf(call.runId, call.request.key, call.request.attempt);
		this.#placement = childPlacement(call.request.placement, call.plan.placement);
		this.#queue = settings.queueFor(settings.queueName);
		const placed = this.#placement.labels.length + this.#placement.prefer.length > 0;
		this.#data = {
			version: JOB_VERSION,
			runId: call.runId,
			request: call.request,
			plan: call.plan,
			host: settings.host,
			...(call.workspace ? { workspace: call.workspace } : {}),
			...(call.context.trace ? { trace: call.context.trace } : {}),
			...(placed ? { placement: { labels: this.#placement.labels, prefer: this.#placement.prefer } } : {}),
		};
	}

	/** Whether the child has a placement to keep to: required labels, or preferred ones. */
	get #placed(): boolean {
		return this.#data.placement !== undefined;
	}

	/** Queues (or finds) the job and resolves with its one result; rejects with an author error the worker threw. */
	result(): Promise<WorkflowAgentResult> {
		const done = new Promise<WorkflowAgentResult>((resolve, reject) => {
			this.#resolve = resolve;
			this.#reject = reject;
		});
		this.#settings.waits.set(this.jobId, this);
		const signal = this.#context.signal;
		const onAbort = () => void this.#stop(reasonOf(signal.reason));
		signal.addEventListener("abort", onAbort, { once: true });
		const unregister = this.#run.controls?.add(this.#request.key, {
			steer: (text) => this.#control("steer", text),
			pause: () => this.#controlNow("pause"),
			skip: () => {
				this.#skipped = true;
				void this.#stop("skipped by the user");
			},
			restart: () => this.#controlNow("restart"),
		});
		const poll = setInterval(() => void this.check(), this.#settings.pollMs);
		const watch = setInterval(() => {
			this.#watchReachable();
			if (this.#placed) void this.#watchPlacement();
		}, HEARTBEAT_MS);
		void this.#start().catch((error: unknown) => this.fail(`could not queue the child: ${errorMessage(error)}`));
		return done.finally(() => {
			clearInterval(poll);
			clearInterval(watch);
			for (const timer of this.#timers) clearTimeout(timer);
			signal.removeEventListener("abort", onAbort);
			unregister?.();
			if (this.#settings.waits.get(this.jobId) === this) this.#settings.waits.delete(this.jobId);
		});
	}

	/** Forwards a worker's report of the child; its id is the job's, so the view shows one child per attempt. */
	progress(data: unknown): void {
		if (this.#settled || typeof data !== "object" || data === null) return;
		if ((data as WorkflowAgentChild).status !== "queued") this.#started = true;
		this.#context.reportChild({ ...(data as WorkflowAgentChild), id: this.jobId });
	}

	/** A queue event said the job completed, with what its worker returned: taken without reading the job back. */
	completed(value: unknown): void {
		if (typeof value === "object" && value !== null && "worker" in value)
			this.#take(value as QueueJobReturn, "found");
		else void this.check();
	}

	/** Asks Redis for the job's state; settles when it finished (a queue event may have been missed). */
	async check(): Promise<void> {
		if (this.#settled || this.#checking) return;
		this.#checking = true;
		try {
			const { job, state } = await this.#read(this.#queue);
			this.#lastHeard = Date.now();
			if (!job) return await this.#vanished();
			if (state === "completed") this.#take(job.returnvalue, "found");
			else if (state === "failed") this.#failedJob(job);
		} catch {
			// Redis is away: `#watchReachable` decides when that fails the call.
		} finally {
			this.#checking = false;
		}
	}

	/** Ends the wait with a failed child (the host closed, Redis unreachable). */
	fail(error: string, code: WorkflowErrorCode | "queue_job_failed" = "queue_unreachable"): void {
		this.#settle({ id: this.jobId, type: this.#request.agentType, status: "failed", error, code });
	}

	async #start(): Promise<void> {
		const live = this.#placed ? await liveWorkers(this.#settings.commands, this.#settings.queueName) : [];
		const { job: existing, state } = await this.#findJob(live);
		this.#lastHeard = Date.now();
		if (existing) {
			// A finished child is taken as it is; one that was stopped (the host's run was) runs again.
			const finished = state === "completed" && existing.returnvalue?.result?.status !== "stopped";
			if (finished) return this.#take(existing.returnvalue, "completed");
			if (state !== "failed" && state !== "completed") {
				this.#run.onJob?.(this.#event("found"));
				return;
			}
			// A job BullMQ failed (a worker could not run it, or it stalled too often), or a stopped one, runs afresh.
			await existing.remove().catch(() => {});
		}
		if (this.#placed) {
			this.#queue = this.#settings.queueFor(chooseQueue(this.#settings.queueName, this.#placement, live));
			// A preference alone asks nothing of a worker: only required labels can be missing.
			const missing =
				this.#placement.labels.length > 0 && !live.some((worker) => covers(worker.labels, this.#placement.labels));
			this.#unplacedSince = missing ? Date.now() : undefined;
		}
		await this.#add();
		this.#run.onJob?.(this.#event("queued"));
	}

	/**
	 * The job as an earlier host (a resumed run) queued it: in the queue its placement would choose now, or in the
	 * queue of its required labels alone.
	 */
	async #findJob(live: WorkerBeat[]): Promise<{ job?: Job<QueueJobData, QueueJobReturn>; state: string }> {
		const { queueName } = this.#settings;
		const places = new Set([
			placementQueueName(queueName, this.#placement.labels),
			...(this.#placed ? [chooseQueue(queueName, this.#placement, live)] : []),
		]);
		for (const place of places) {
			const queue = this.#settings.queueFor(place);
			const found = await this.#read(queue);
			if (found.job) {
				this.#queue = queue;
				return found;
			}
		}
		return { state: "unknown" };
	}

	/**
	 * The job and its state, read in that order: a job read before it finished and a state read after would say
	 * "completed" without the result (the state first, then a finished job's data, which no longer changes).
	 */
	async #read(queue: Queue): Promise<{ job?: Job<QueueJobData, QueueJobReturn>; state: string }> {
		const state = await queue.getJobState(this.jobId);
		if (state === "unknown") return { state };
		const job = await Job.fromId<QueueJobData, QueueJobReturn>(queue, this.jobId);
		return job ? { job, state } : { state: "unknown" };
	}

	/** What the view says of a queued child: that it waits, and for a worker with which labels when none is live. */
	#reportQueued(): void {
		const missing = this.#unplacedSince !== undefined;
		this.#context.reportChild({
			id: this.jobId,
			type: this.#request.agentType,
			status: "queued",
			description: this.#request.description,
			callKey: this.#request.key,
			callIndex: this.#request.index,
			activity: missing
				? `waiting: no live worker has ${this.#placement.labels.join(" and ")}`
				: "waiting for a worker",
		});
	}

	async #add(): Promise<void> {
		const keep = { age: this.#settings.keepJobsS };
		this.#reportQueued();
		// A stop asked of an earlier run of the same job (a stopped run, resumed) is not this one's.
		await this.#settings.commands.del(stopKey(this.#settings.queueName, this.jobId));
		await this.#announce();
		await this.#queue.add("agent", this.#data, {
			jobId: this.jobId,
			attempts: 1,
			removeOnComplete: keep,
			removeOnFail: keep,
		});
	}

	/** Keeps the job's label set listed (while it waits), so the workers that cover it take from its queue. */
	async #announce(): Promise<void> {
		const { commands, queueName, labelSetTtlMs } = this.#settings;
		if (this.#queue.name !== queueName) await announceLabelSet(commands, queueName, this.#queue.name, labelSetTtlMs);
	}

	async #vanished(): Promise<void> {
		if (this.#stopping) return this.#settle(this.#stoppedResult(this.#stopping));
		if (this.#requeues >= MAX_REQUEUES) {
			return this.fail(
				`the child's job vanished from Redis at ${this.#settings.where} ${MAX_REQUEUES} times (was Redis restarted without persistence, or flushed?); start the workers and Redis again, then resume the run`,
			);
		}
		this.#requeues++;
		await this.#add();
	}

	#take(value: QueueJobReturn | undefined, how: "found" | "completed"): void {
		if (this.#settled || this.#taking) return;
		this.#taking = true;
		if (how === "completed")
			this.#run.onJob?.({ ...this.#event("completed"), ...(value?.worker ? { worker: value.worker } : {}) });
		else if (value?.worker) this.#run.onJob?.({ ...this.#event("found"), worker: value.worker });
		if (value?.thrown) {
			const { code, message, details } = value.thrown;
			this.#settled = true;
			this.#reject(new WorkflowError(code, message, details ? { details } : {}));
			return;
		}
		if (!value?.result) {
			this.fail("the worker returned no result", "queue_job_failed");
			return;
		}
		void this.#finish(value, value.result).catch((error: unknown) =>
			this.fail(`could not take the child's result: ${errorMessage(error)}`, "queue_job_failed"),
		);
	}

	/** The result with what the run has not said yet, and a remote child's branch brought here. */
	async #finish(value: QueueJobReturn, given: WorkflowAgentResult): Promise<void> {
		const result = { ...given };
		// What holds for every child of the run (the host's plan, the worker's set-up) is said once per run.
		const place = value.repo ? ((await this.#call.placeWarnings?.()) ?? []) : [];
		const once = [...(this.#plan.warnings ?? []), ...place, ...(value.notes ?? [])].filter(
			(note) => !this.#run.noted?.has(note),
		);
		for (const note of once) this.#run.noted?.add(note);
		const warnings = [...once, ...(result.warnings ?? [])];
		if (warnings.length > 0) result.warnings = warnings;
		if (value.workspace && this.#call.takeBranch) {
			// A child that worked in a worktree on its worker: its pushed branch becomes a kept branch here.
			try {
				const taken = await this.#call.takeBranch(value.workspace);
				if (taken.worktree) result.worktree = taken.worktree;
				if (taken.warning) result.warnings = [...(result.warnings ?? []), taken.warning];
			} catch (error) {
				result.warnings = [...(result.warnings ?? []), errorMessage(error)];
			}
		}
		this.#settle(
			this.#skipped ? { ...result, status: "stopped", error: "skipped by the user", noRetry: true } : result,
		);
	}

	#failedJob(job: Job<QueueJobData, QueueJobReturn>): void {
		if (this.#stopping) this.#settle(this.#stoppedResult(this.#stopping));
		else
			this.fail(`the worker could not run the child: ${job.failedReason || "no reason given"}`, "queue_job_failed");
	}

	async #stop(reason: string): Promise<void> {
		if (this.#settled || this.#stopping) return;
		this.#stopping = reason;
		const { commands, queueName } = this.#settings;
		const queue = this.#queue;
		// Set first: with Redis gone the commands below wait for it to come back, and the grace still ends the call.
		this.#timers.push(
			setTimeout(() => {
				this.#settle({
					...this.#stoppedResult(reason),
					error: `${reason}; its worker did not send the child's result within ${Math.round(this.#settings.stopGraceMs / 1000)} s of being asked to stop, so it was let go`,
					abandoned: 1,
				});
			}, this.#settings.stopGraceMs),
		);
		try {
			// First the key: a worker that takes the job from here on sees it before it starts the child.
			await commands.set(stopKey(queueName, this.jobId), reason, "EX", STOP_KEY_TTL_S);
			const job = await Job.fromId(queue, this.jobId);
			const state = job ? await job.getState() : "unknown";
			if (state === "unknown" || (WAITING_STATES.has(state) && (await removed(job)))) {
				return this.#settle(this.#stoppedResult(reason));
			}
			await this.#publish({ jobId: this.jobId, action: "stop", text: reason });
		} catch {
			// Redis is away: the grace above still ends the call.
		}
	}

	async #control(action: "steer", text: string): Promise<void> {
		this.#assertStarted();
		await this.#publish({ jobId: this.jobId, action, text });
	}

	/** `pause` and `restart` answer at once: a child still queued throws; a sent one goes on in the background. */
	#controlNow(action: "pause" | "restart"): void {
		this.#assertStarted();
		this.#publish({ jobId: this.jobId, action }).catch(() => {});
	}

	#assertStarted(): void {
		if (this.#started) return;
		// Nobody would hear it: a message on the channel reaches only the worker running the child.
		throw new WorkflowError(
			"child_not_running",
			`\`${this.#request.label}\` (${callNumber(this.#request.index)}) is still waiting for a worker; only skip works before it starts`,
			{ details: { key: this.#request.key, index: this.#request.index, status: "queued" } },
		);
	}

	async #publish(message: QueueControlMessage): Promise<void> {
		await this.#settings.commands.publish(controlChannel(this.#settings.queueName), JSON.stringify(message));
	}

	/**
	 * While the job waits: its label set kept listed, and whether a live worker has its required labels. None for the
	 * child's wait fails it with `placement_unsatisfiable` (its job removed); one again puts the view back to a plain
	 * wait. A job that waits in a preferred worker's queue while another able worker has a free slot moves to the queue
	 * of its required labels.
	 */
	async #watchPlacement(): Promise<void> {
		if (this.#settled || this.#stopping || this.#started || this.#watchingPlacement) return;
		this.#watchingPlacement = true;
		try {
			const { commands, queueName } = this.#settings;
			await this.#announce();
			const live = await liveWorkers(commands, queueName);
			const able = live.filter((worker) => covers(worker.labels, this.#placement.labels));
			const required = placementQueueName(queueName, this.#placement.labels);
			if (able.length > 0) {
				const was = this.#unplacedSince;
				this.#unplacedSince = undefined;
				if (was !== undefined) this.#reportQueued();
				const preferred = labelsOfQueue(queueName, this.#queue.name);
				const idle = able.some(
					(worker) => worker.running < worker.concurrency && !covers(worker.labels, preferred),
				);
				if (this.#queue.name !== required && idle) await this.#move(required);
				return;
			}
			// No worker is live at all, and a preference alone asks nothing of one: a plain wait, without a deadline.
			if (this.#placement.labels.length === 0) return;
			this.#unplacedSince ??= Date.now();
			const waitMs = this.#placement.waitMs ?? this.#settings.placementWaitMs;
			if (Date.now() - this.#unplacedSince < waitMs) return;
			const job = await Job.fromId(this.#queue, this.jobId);
			const state = job ? await job.getState() : "unknown";
			// Taken meanwhile (a worker came and went): its result is on its way.
			if (!WAITING_STATES.has(state) || !(await removed(job))) return;
			this.fail(this.#unplaceable(live, waitMs), "placement_unsatisfiable");
		} catch {
			// Redis is away: `#watchReachable` decides when that fails the call.
		} finally {
			this.#watchingPlacement = false;
		}
	}

	/** The waiting job to another queue: removed first, so no worker can take it twice. */
	async #move(place: string): Promise<void> {
		const job = await Job.fromId(this.#queue, this.jobId);
		if (!job || !(WAITING_STATES.has(await job.getState()) && (await removed(job)))) return;
		this.#queue = this.#settings.queueFor(place);
		await this.#add();
	}

	#unplaceable(live: readonly WorkerBeat[], waitMs: number): string {
		const labels = this.#placement.labels;
		const seconds = Number((waitMs / 1000).toFixed(1));
		return `\`${this.#request.label}\` (${callNumber(this.#request.index)}) needs a worker with ${labels.length > 1 ? "every one of the labels" : "the label"} ${labels.join(", ")}, and no live worker at ${this.#settings.where} had ${labels.length > 1 ? "them" : "it"} for its whole wait of ${seconds} s (live workers: ${describeWorkers(live)}). Start a worker with --labels ${labels.join(",")}, add the labels to a running worker's --labels-file, or change the call's \`placement\` (\`placement.waitMs\` says how long a child waits)`;
	}

	#watchReachable(): void {
		const silentMs = Date.now() - this.#lastHeard;
		if (silentMs < this.#settings.unreachableMs) return;
		this.fail(
			`Redis at ${this.#settings.where} did not answer for ${Math.round(silentMs / 1000)} s; the child's job may still run there. Check Redis, then resume the run (finished children are kept)`,
		);
	}

	#stoppedResult(reason: string): WorkflowAgentResult {
		return {
			id: this.jobId,
			type: this.#request.agentType,
			status: "stopped",
			error: reason,
			...(this.#skipped ? { noRetry: true } : {}),
		};
	}

	#event(how: "queued" | "found" | "completed") {
		return { jobId: this.jobId, key: this.#request.key, attempt: this.#request.attempt, how };
	}

	#settle(result: WorkflowAgentResult): void {
		if (this.#settled) return;
		this.#settled = true;
		this.#resolve(result);
	}
}

async function removed(job: Job | undefined): Promise<boolean> {
	if (!job) return true;
	try {
		await job.remove();
		return true;
	} catch {
		// A worker took it in between: it is told to stop instead.
		return false;
	}
}

function reasonOf(reason: unknown): string {
	if (reason instanceof Error && reason.message) return reason.message;
	if (typeof reason === "string" && reason) return reason;
	return "stopped";
}
