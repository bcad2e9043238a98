/**
 * The host half of the queue: a `WorkflowAgentRunner` that turns each agent attempt into a BullMQ job, so
 * `runWorkflowScript`, the tool and the CLI run unchanged on top of it. The job id is the run id, the call key and
 * the attempt, so a resumed host finds its jobs (and takes a completed one's result as it is); the host's journal
 * stays the record of truth. The run's own queue (`concurrency`) caps the jobs in flight: the runtime calls the runner
 * only for a call that holds a slot. Pi-free: what the child gets is planned by the caller's `prepare`.
 */
import { hostname } from "node:os";
import { Queue, QueueEvents } from "bullmq";
import { Redis } from "ioredis";
import { WorkflowError } from "../errors.ts";
import type { WorkflowAgentRequest, WorkflowAgentResult, WorkflowAgentRunner } from "../runtime/core/types.ts";
import { hostCommitWarnings, hostRunHead, type RunCommit, takeRemoteBranch } from "../worktree/index.ts";
import { CallWait, type QueueRunOptions } from "./call-wait.ts";

export type { QueueControls, QueueJobEvent, QueueRunOptions } from "./call-wait.ts";

import { DEFAULT_PLACEMENT_WAIT_MS, LABEL_SET_TTL_MS } from "./placement.ts";
import { DEFAULT_QUEUE_NAME } from "./protocol.ts";
import { redisOptions, safeUrl, settledWithin } from "./redis-url.ts";

/** Options of `createQueueHost`. */
export interface QueueHostOptions {
	/** `redis://[user:password@]host:port[/db]`, or `rediss://` for TLS. Required. */
	redis: string;
	/** The BullMQ queue's name; workers must use the same. Default: "pi-workflows". */
	queueName?: string;
	/** How long a running child has, once asked to stop, to send its result before the host lets it go. Default: 10000. */
	stopGraceMs?: number;
	/** How often a waiting call asks Redis for its job's state, in case a queue event was missed. Default: 2000. */
	pollMs?: number;
	/** How long Redis may stay unreachable before the calls waiting on it fail. Default: 60000. */
	unreachableMs?: number;
	/** How long finished jobs stay in Redis, for a resumed host to take, in seconds. Default: 604800 (7 days). */
	keepJobsS?: number;
	/**
	 * How long a child waits while no live worker has every label its placement requires, before it fails with
	 * `placement_unsatisfiable`; a call's `placement.waitMs` wins. Default: 60000.
	 */
	placementWaitMs?: number;
	/**
	 * How long a label set's entry in Redis outlives the host's last refresh of it (every second while a child waits in
	 * its queue); the workers taking from it refresh it too. Default: 5000.
	 */
	labelSetTtlMs?: number;
}

/** The host's connection to a queue: runners for its runs, and `close`. */
export interface QueueHost {
	/** A runner for one run. */
	runner(options: QueueRunOptions): WorkflowAgentRunner;
	/** The plain queue, of children without required labels (for tests and tools that look at it). */
	readonly queue: Queue;
	/** Ends the connections; calls still waiting fail. */
	close(): Promise<void>;
}

/** Connects to the queue at `options.redis`. Connections are lazy: nothing fails until the first call. */
export function createQueueHost(options: QueueHostOptions): QueueHost {
	const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
	const url = options.redis;
	// BullMQ leaves connections it was given open when it closes: `close` ends each of these.
	const connections: Redis[] = [];
	const connection = () => {
		const made = new Redis(url, redisOptions(url));
		made.on("error", () => {});
		connections.push(made);
		return made;
	};
	const commands = connection();
	const waits = new Map<string, CallWait>();
	// The plain queue and, made at their first child, each label set's (placement.ts), with the events of each.
	const queues = new Map<string, { queue: Queue; events: QueueEvents }>();
	const queueFor = (name: string): Queue => {
		const known = queues.get(name);
		if (known) return known.queue;
		const made = {
			queue: new Queue(name, { connection: connection() }),
			events: new QueueEvents(name, { connection: connection() }),
		};
		// Errors are the waits' business (they poll and time out); without listeners Node would throw them.
		made.queue.on("error", () => {});
		made.events.on("error", () => {});
		made.events.on("progress", ({ jobId, data }) => waits.get(jobId)?.progress(data));
		made.events.on("completed", ({ jobId, returnvalue }) => waits.get(jobId)?.completed(returnvalue));
		made.events.on("failed", ({ jobId }) => waits.get(jobId)?.check());
		queues.set(name, made);
		return made.queue;
	};
	const queue = queueFor(queueName);
	const host = `${hostname()}:${process.pid}`;
	const settings = {
		queueFor,
		queueName,
		commands,
		host,
		where: safeUrl(url),
		stopGraceMs: options.stopGraceMs ?? 10_000,
		pollMs: options.pollMs ?? 2000,
		unreachableMs: options.unreachableMs ?? 60_000,
		keepJobsS: options.keepJobsS ?? 7 * 24 * 3600,
		placementWaitMs: options.placementWaitMs ?? DEFAULT_PLACEMENT_WAIT_MS,
		labelSetTtlMs: options.labelSetTtlMs ?? LABEL_SET_TTL_MS,
		waits,
	};
	let closed = false;
	return {
		queue,
		runner(given) {
			const run = { noted: new Set<string>(), ...given };
			let runId: Promise<string> | undefined;
			// The run's commit, for workers with --repo: HEAD of the repository its directory is in, found once. What
			// it warns of costs three more git commands, so it waits until a --repo worker answers: not on the way
			// of the first jobs.
			let commit: Promise<RunCommit> | undefined;
			const findCommit = (cwd: string) => {
				commit ??= hostRunHead({ cwd }).catch((): RunCommit => ({ warnings: [] }));
				return commit;
			};
			if (run.cwd !== undefined) void findCommit(run.cwd);
			let warnings: Promise<string[]> | undefined;
			const placeWarnings = (cwd: string) => {
				warnings ??= findCommit(cwd)
					.then((head) =>
						head.commit && head.repo
							? hostCommitWarnings({ cwd, commit: head.commit, repo: head.repo })
							: head.warnings,
					)
					.catch(() => []);
				return warnings;
			};
			const idOf = () => {
				runId ??= resolveRunId(run.runId);
				return runId;
			};
			const runner: WorkflowAgentRunner = async (request, context) => {
				if (closed) throw new Error("the queue host is closed");
				if (run.controls?.takeSkip(request.key)) return skipped(request);
				if (request.continues) throw continuedOnQueue(request);
				const id = await idOf();
				const plan = await run.prepare(request);
				const place = await findCommit(request.cwd);
				return new CallWait(settings, {
					runId: id,
					request,
					plan,
					placeWarnings: () => placeWarnings(request.cwd),
					context,
					run,
					...(place.commit ? { workspace: { commit: place.commit, subdir: place.subdir ?? "" } } : {}),
					takeBranch: (workspace) =>
						takeRemoteBranch({
							cwd: request.cwd,
							result: workspace.result,
							base: workspace.base,
							path: workspace.path,
						}),
				}).result();
			};
			// Its children run on other machines: their calls' spans are CLIENT spans.
			return Object.assign(runner, { remote: true });
		},
		async close() {
			closed = true;
			for (const wait of waits.values()) wait.fail("the queue host closed", "queue_unreachable");
			// Each bounded: with Redis gone BullMQ's closes never end, and a CLI would not exit.
			await Promise.all(
				[...queues.values()].flatMap((made) => [
					settledWithin(made.queue.close()),
					settledWithin(made.events.close()),
				]),
			);
			for (const made of connections) made.disconnect();
		},
	};
}

/**
 * A continued child starts from the conversation of the call it continues, which a worker keeps on its own machine
 * (another worker may take the next job): a queued run cannot continue a child, so the call throws, before any job.
 */
function continuedOnQueue(request: WorkflowAgentRequest): WorkflowError {
	const label = request.continues?.label ?? request.label;
	return new WorkflowError(
		"resume_unavailable",
		`\`agent()\` option \`resume: ${JSON.stringify(label)}\`: this run's children run on queue workers, and each worker keeps its child's conversation on its own machine, so a child cannot continue another's. Run this workflow without the queue, or give the new call what the earlier one said in its prompt`,
		{ details: { resume: label, queue: true } },
	);
}

async function resolveRunId(source: QueueRunOptions["runId"]): Promise<string> {
	const id = typeof source === "string" ? source : await source();
	if (!id) {
		throw new WorkflowError(
			"internal",
			"The run has no id, so its children cannot be queued (job ids are made of it): the run store could not record the run",
		);
	}
	return id;
}

function skipped(request: WorkflowAgentRequest): WorkflowAgentResult {
	return {
		id: `skipped-${request.key}`,
		type: request.agentType,
		status: "stopped",
		error: "skipped by the user",
		noRetry: true,
	};
}
