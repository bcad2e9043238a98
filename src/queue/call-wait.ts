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
	queue: Queue;
	queueName: string;
	commands: Redis;
	host: string;
	/** The Redis URL without its password, for messages. */
	where: string;
	stopGraceMs: number;
	pollMs: number;
	unreachableMs: number;
	keepJobsS: number;
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

	constructor(settings: WaitSettings, call: CallOptions) {
		this.#call = call;
		this.#settings = settings;
		this.#request = call.request;
		this.#plan = call.plan;
		this.#context = call.context;
		this.#run = call.run;
		this.jobId = jobIdOf(call.runId, call.request.key, call.request.attempt);
		this.#data = {
			version: JOB_VERSION,
			runId: call.runId,
			request: call.request,
			plan: call.plan,
			host: settings.host,
			...(call.workspace ? { workspace: call.workspace } : {}),
		};
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
		const watch = setInterval(() => this.#watchReachable(), 1000);
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
			const job = await Job.fromId<QueueJobData, QueueJobReturn>(this.#settings.queue, this.jobId);
			this.#lastHeard = Date.now();
			if (!job) return await this.#vanished();
			const state = await job.getState();
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
		const { queue } = this.#settings;
		const existing = await Job.fromId<QueueJobData, QueueJobReturn>(queue, this.jobId);
		this.#lastHeard = Date.now();
		if (existing) {
			const state = await existing.getState();
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
		await this.#add();
		this.#run.onJob?.(this.#event("queued"));
	}

	async #add(): Promise<void> {
		const keep = { age: this.#settings.keepJobsS };
		this.#context.reportChild({
			id: this.jobId,
			type: this.#request.agentType,
			status: "queued",
			description: this.#request.description,
			callKey: this.#request.key,
			callIndex: this.#request.index,
			activity: "waiting for a worker",
		});
		// A stop asked of an earlier run of the same job (a stopped run, resumed) is not this one's.
		await this.#settings.commands.del(stopKey(this.#settings.queueName, this.jobId));
		await this.#settings.queue.add("agent", this.#data, {
			jobId: this.jobId,
			attempts: 1,
			removeOnComplete: keep,
			removeOnFail: keep,
		});
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
		const { commands, queueName, queue } = this.#settings;
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
