/**
 * The worker half of the queue: takes agent jobs from BullMQ and runs each child as a pi session exactly as the local
 * runner does (the pi runner, with the agent type the host resolved and sent), on this machine's own pi: its auth,
 * models and tools. Progress goes back through `job.updateProgress`; stop and the per-child controls come on a pub/sub
 * channel. Without a workspace (`--repo`) a child works in an empty scratch folder without `edit`/`write`: it can
 * read what the prompt gives it, run commands, and answer. Its conversation travels to the job's next worker when
 * this one dies (job-conversation.ts).
 */
import { hostname } from "node:os";
import type { Api, Model } from "@earendil-works/pi-ai";
import type { ModelRuntime } from "@earendil-works/pi-coding-agent";
import type { Job, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { AgentTypeConfig, ThinkingLevel } from "../agents/agent-types.ts";
import { createPiAgentRunner } from "../children/agent-runner.ts";
import { ChildControls } from "../children/controls.ts";
import { type ResolvedReference, resolveModel } from "../children/model.ts";
import { errorMessage, errorStage, isWorkflowError } from "../errors.ts";
import type {
	WorkflowAgentChild,
	WorkflowAgentRequest,
	WorkflowAgentResult,
	WorkflowTraceContext,
} from "../runtime/core/types.ts";
import { startJobSpan } from "../telemetry/child-spans.ts";
import { type JobConversation, openJobConversation } from "./job-conversation.ts";
import { type JobPlace, openJobPlace, sweepDeadScratch, type WorkerRepo, WRITE_TOOLS } from "./job-place.ts";
import { beat, HEARTBEAT_MS, LABEL_SET_TTL_MS, liveLabelSets, placementChannel, unbeat } from "./placement.ts";
import {
	controlChannel,
	DEFAULT_QUEUE_NAME,
	JOB_VERSION,
	type QueueJobData,
	type QueueJobReturn,
	readControlMessage,
	stopKey,
} from "./protocol.ts";
import { endConnection, redisOptions, settledWithin } from "./redis-url.ts";
import { WorkerLabels } from "./worker-labels.ts";
import { WorkerQueues } from "./worker-queues.ts";

/** Options of `startQueueWorker`. */
export interface QueueWorkerOptions {
	/** `redis://…` or `rediss://…`. Required. */
	redis: string;
	/** Default: "pi-workflows". */
	queueName?: string;
	/** Children this worker runs at once. Default: 2. */
	concurrency?: number;
	/** Shown to the host as who ran a job. Default: `<hostname>:<pid>`. */
	name?: string;
	/** This machine's providers and credentials. Required. */
	modelRuntime: ModelRuntime;
	/** This machine's pi config directory. Required. */
	agentDir: string;
	/** `--repo`: children work in worktrees of the run's commit from a clone of it. Default: none (scratch folders). */
	repo?: WorkerRepo;
	/**
	 * How soon a dead worker's jobs go to other workers, in ms: a job's lock lasts this long and is renewed every
	 * quarter of it while its child runs (a child that runs long but quietly keeps its job), and the live workers
	 * look for jobs whose lock ran out every 0.4 of it. A job moves between 0.75 and 1.4 times this after its worker
	 * died; a worker whose event loop stalls for three quarters of it loses its job. Default: 5000.
	 */
	stalledMs?: number;
	/** The job lock alone (renewed every quarter of it). Default: `stalledMs`. */
	lockDurationMs?: number;
	/** How often the stalled check runs, alone. Default: 0.4 × `stalledMs`. */
	stalledIntervalMs?: number;
	/** Times a job may lose its worker before it fails. Default: 2. */
	maxStalledCount?: number;
	/** Least time between two progress messages of one child, in ms. Default: 250. */
	progressEveryMs?: number;
	/** Lines for the worker's log (a job taken, finished, failed). Default: none. */
	log?: (line: string) => void;
	/** What this worker has (`gpu`, `region=eu`): children that require labels go only to workers with them all. Default: none. */
	labels?: readonly string[];
	/** A file of more labels, read again at every heartbeat, so the worker's labels change while it runs. Default: none. */
	labelsFile?: string;
	/** How long a label set it takes from stays listed after its last heartbeat, in ms. Default: 5000. */
	labelSetTtlMs?: number;
}

/** A running worker. */
export interface QueueWorker {
	readonly name: string;
	/** Takes no new jobs and waits for the running ones (`force`: lets them go; their jobs stall to other workers). */
	close(force?: boolean): Promise<void>;
}

interface ActiveJob {
	controller: AbortController;
	controls: ChildControls;
	key: string;
}

/** Starts taking jobs. */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorker> {
	const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
	const name = options.name ?? `${hostname()}:${process.pid}`;
	const log = options.log ?? (() => {});
	const active = new Map<string, ActiveJob>();
	const commands = new Redis(options.redis, redisOptions(options.redis));
	const subscriber = new Redis(options.redis, redisOptions(options.redis));
	for (const connection of [commands, subscriber]) connection.on("error", () => {});
	const ignored = ignoredControls(log, controlChannel(queueName));
	const concurrency = options.concurrency ?? 2;
	const defaultModelOf = modelCache(options.modelRuntime);
	const labels = new WorkerLabels(options.labels ?? [], options.labelsFile, log);
	const queues = new WorkerQueues({
		redis: options.redis,
		queueName,
		concurrency,
		workerOptions: { name, ...stallSettings(options), maxStalledCount: options.maxStalledCount ?? 2 },
		run: async (job) => {
			const data = job.data;
			if (data?.version !== JOB_VERSION) {
				throw new Error(
					`the job is of version ${String(data?.version)} and this worker runs version ${JOB_VERSION}: run the same pi-workflows version on the host and the workers`,
				);
			}
			const stopped = await commands.get(stopKey(queueName, job.id ?? ""));
			if (stopped !== null) {
				return { worker: name, result: stoppedResult(data, stopped) };
			}
			log(`took ${job.id} (${data.request.label})`);
			const started = Date.now();
			const answer = await runJob(job, data, { ...options, name, active, queueName, commands, defaultModelOf });
			log(`finished ${job.id}: ${answer.result?.status ?? "author error"} in ${Date.now() - started} ms`);
			return answer;
		},
		wire: (worker) => wireWorker(worker, active, log),
		log,
	});
	const startedAt = Date.now();
	// Labels, the hosts' label sets and the heartbeat, in one step: what hosts read is what the worker takes.
	const heartbeat = async () => {
		const now = await labels.refresh();
		await queues.sync(now, await liveLabelSets(commands, queueName));
		const takes = queues.queues.filter((placed) => placed !== queueName);
		const worker = {
			name,
			host: `${hostname()}:${process.pid}`,
			labels: now,
			concurrency,
			running: queues.running,
			startedAt,
			at: Date.now(),
		};
		await beat(commands, queueName, worker, takes, options.labelSetTtlMs ?? LABEL_SET_TTL_MS);
	};
	const beating = serialized(heartbeat, (error) => log(`heartbeat failed: ${errorMessage(error)}`));
	subscriber.on("message", (channel, text) => {
		if (channel === placementChannel(queueName)) beating();
		else onControl(text, active, ignored);
	});
	await subscriber.subscribe(controlChannel(queueName), placementChannel(queueName));
	await heartbeat();
	const timer = setInterval(beating, HEARTBEAT_MS);
	await sweepDeadScratch();
	return {
		name,
		async close(force = false) {
			clearInterval(timer);
			// Bounded: with Redis gone the command would wait for it, and the worker would not stop.
			await settledWithin(unbeat(commands, queueName, name));
			await queues.close(force);
			await Promise.all([endConnection(subscriber), endConnection(commands)]);
			await sweepDeadScratch();
		},
	};
}

/** Runs `step` now unless it still runs from before (then once more after it). */
function serialized(step: () => Promise<void>, failed: (error: unknown) => void): () => void {
	let running: Promise<void> | undefined;
	let again = false;
	const go = (): void => {
		if (running) {
			again = true;
			return;
		}
		running = step()
			.catch(failed)
			.finally(() => {
				running = undefined;
				if (again) {
					again = false;
					go();
				}
			});
	};
	return go;
}

/** A BullMQ worker's events, logged; a lost lock stops the child that held it. */
function wireWorker(
	worker: Worker<QueueJobData, QueueJobReturn>,
	active: Map<string, ActiveJob>,
	log: (line: string) => void,
): void {
	worker.on("error", (error) => log(`queue error: ${errorMessage(error)}`));
	// The lock is gone (this process stalled past it): the job is queued again or runs elsewhere, and this worker's
	// result would be refused, so its child stops rather than work twice.
	worker.on("lockRenewalFailed", (jobIds) => {
		for (const jobId of jobIds) {
			log(`lost the lock of ${jobId}: the job goes to another worker, and its child here stops`);
			active.get(jobId)?.controller.abort(LOST_LOCK);
		}
	});
	worker.on("failed", (job, error) => log(`job ${job?.id ?? "?"} failed: ${errorMessage(error)}`));
}

/** Why a child stops when its worker lost its job's lock. */
const LOST_LOCK = "its job went to another worker";

/** `stalledMs` unless given: a dead worker's jobs move within about 7 s, well inside a child's usual length. */
export const DEFAULT_STALLED_MS = 5000;

/**
 * BullMQ's lock and stalled check for `stalledMs`. BullMQ renews a running job's lock on a timer of its own (every
 * `lockRenewTime / 2` it renews the locks older than that), so a live child keeps its job whatever it does, as long
 * as the worker's event loop turns; a job is moved at the first check that finds its lock gone, and the check key
 * lets one worker of all check per interval.
 */
function stallSettings(options: Pick<QueueWorkerOptions, "stalledMs" | "lockDurationMs" | "stalledIntervalMs">): {
	lockDuration: number;
	lockRenewTime: number;
	stalledInterval: number;
} {
	const stalledMs = options.stalledMs ?? DEFAULT_STALLED_MS;
	const lockDuration = options.lockDurationMs ?? stalledMs;
	return {
		lockDuration,
		lockRenewTime: Math.max(100, Math.round(lockDuration / 4)),
		stalledInterval: options.stalledIntervalMs ?? Math.max(200, Math.round(stalledMs * 0.4)),
	};
}

type RunSettings = QueueWorkerOptions & {
	name: string;
	active: Map<string, ActiveJob>;
	queueName: string;
	commands: Redis;
	defaultModelOf: (reference: string) => ResolvedReference;
};

/** How long a worker keeps a model name it resolved: a change of pi's catalogs reaches its children within this. */
const MODEL_CACHE_MS = 30_000;

/**
 * The run's default model by name, resolved once in a while rather than for every child: pi's lookup merges and
 * scans every catalog, 1.5 ms of CPU a child, the largest share of what a queued child costs its worker before it
 * starts (docs/performance.md, row 12). A name that does not resolve is not kept: it throws each time.
 */
function modelCache(modelRuntime: ModelRuntime): (reference: string) => ResolvedReference {
	const cache = new Map<string, { at: number; resolved: ResolvedReference }>();
	return (reference) => {
		const kept = cache.get(reference);
		if (kept && Date.now() - kept.at < MODEL_CACHE_MS) return kept.resolved;
		const resolved = resolveModel(reference, modelRuntime, "The run's default model");
		cache.set(reference, { at: Date.now(), resolved });
		return resolved;
	};
}

async function runJob(
	job: Job<QueueJobData, QueueJobReturn>,
	data: QueueJobData,
	settings: RunSettings,
): Promise<QueueJobReturn> {
	const { request, plan } = data;
	const jobId = job.id ?? "";
	const controller = new AbortController();
	const controls = new ChildControls();
	settings.active.set(jobId, { controller, controls, key: request.key });
	let place: JobPlace | undefined;
	let conversation: JobConversation | undefined;
	const send = throttledProgress(job, settings.progressEveryMs ?? 250);
	try {
		const type = { ...(plan.agentType as unknown as AgentTypeConfig) };
		try {
			place = await openJobPlace(data, settings.repo);
		} catch (error) {
			const code = isWorkflowError(error) ? error.code : "worktree_failed";
			return failed(
				data,
				settings.name,
				`worker ${settings.name} could not make the child's workspace: ${errorMessage(error)}`,
				code,
			);
		}
		if (!place.writable && request.isolation === "worktree") {
			return failed(
				data,
				settings.name,
				`isolation: "worktree" needs a worker started with --repo <git url> and a run in a git repository with a commit; worker ${settings.name} has no workspace for it (${place.notes.join("; ")})`,
				"queue_no_repo",
			);
		}
		// No checkout of the host's project in a scratch folder: nothing to edit, so the child does not get the tools for it.
		if (!place.writable) type.tools = type.tools.filter((tool) => !WRITE_TOOLS.includes(tool));
		const defaults = runDefaults(plan, settings.defaultModelOf);
		if ("error" in defaults) {
			return failed(
				data,
				settings.name,
				`worker ${settings.name} cannot run the child: ${defaults.error}`,
				"queue_worker_model",
			);
		}
		const { defaultModel, defaultThinking } = defaults;
		// A worktree of the run's commit is new on this worker: an earlier worker's edits are not in it.
		conversation = await openJobConversation(settings.commands, settings.queueName, jobId, request, {
			goOn: !place.writable,
			log: settings.log ?? (() => {}),
		});
		const runner = createPiAgentRunner({
			...conversation.runner,
			cwd: place.cwd,
			agentDir: settings.agentDir,
			modelRuntime: settings.modelRuntime,
			agentTypes: new Map([[type.name, type]]),
			// The host read this project's agent files under its trust; its worktree here is the same project.
			projectTrusted: plan.projectTrusted === true,
			controls,
			...(defaultModel ? { defaultModel } : {}),
			...(defaultThinking ? { defaultThinking } : {}),
			...(plan.stallMs !== undefined ? { stallMs: plan.stallMs } : {}),
			noParentConversation: `it runs on queue worker ${settings.name}, which has no copy of the session's conversation`,
			// The host knows who started the run; this machine has no person of its own to relay.
			...(plan.provenance ? { provenance: plan.provenance } : {}),
		});
		const writable = place.writable;
		const tools = request.tools?.filter((tool) => writable || !WRITE_TOOLS.includes(tool));
		// Every child here has its own worktree already: the local runner must not make another.
		const { isolation: _isolation, ...rest } = request;
		let result: WorkflowAgentResult;
		const child: WorkflowAgentRequest = {
			...rest,
			agentType: type.name,
			cwd: place.cwd,
			prompt: place.prompt(request.prompt),
			...(tools ? { tools } : {}),
		};
		try {
			result = await runTraced(data, settings, jobId, (trace) =>
				runner(child, { signal: controller.signal, reportChild: send, ...(trace ? { trace } : {}) }),
			);
		} catch (error) {
			if (isAuthorError(error)) {
				await conversation.finish();
				return { worker: settings.name, thrown: error.toJSON() };
			}
			return failed(
				data,
				settings.name,
				`worker ${settings.name} could not run the child: ${errorMessage(error)}`,
				"queue_job_failed",
			);
		}
		// Unless the job went to another worker, which may go on from its conversation, the job is done with it.
		if (controller.signal.reason !== LOST_LOCK) await conversation.finish();
		// The conversation's files were this worker's, in a folder that goes with the job.
		delete result.transcripts;
		const outcome = await place.finish();
		const warnings = [outcome.warning, conversation.warning].filter((warning) => warning !== undefined);
		if (warnings.length > 0) result = { ...result, warnings: [...warnings, ...(result.warnings ?? [])] };
		return {
			worker: settings.name,
			result,
			...(settings.repo ? { repo: true } : {}),
			...(place.notes.length > 0 ? { notes: place.notes } : {}),
			...(outcome.workspace ? { workspace: outcome.workspace } : {}),
		};
	} finally {
		send.flush();
		settings.active.delete(jobId);
		await conversation?.dispose().catch(() => {});
		await place?.dispose().catch(() => {});
	}
}

/** The run's default model and thinking level, resolved against this worker's pi; why not, when it has no such model. */
function runDefaults(
	plan: QueueJobData["plan"],
	defaultModelOf: (reference: string) => ResolvedReference,
): { defaultModel?: Model<Api>; defaultThinking?: ThinkingLevel } | { error: string } {
	const thinking = plan.defaultThinking as ThinkingLevel | undefined;
	if (!plan.defaultModel) return thinking ? { defaultThinking: thinking } : {};
	try {
		const resolved = defaultModelOf(plan.defaultModel);
		const defaultThinking = thinking ?? resolved.thinking;
		return { defaultModel: resolved.model, ...(defaultThinking ? { defaultThinking } : {}) };
	} catch (error) {
		return { error: errorMessage(error) };
	}
}

/**
 * Runs the child under the host's attempt span, which came with the job: through the job's own span when this worker
 * traces (the child's spans go under it), else as it is.
 */
async function runTraced(
	data: QueueJobData,
	settings: RunSettings,
	jobId: string,
	run: (trace: WorkflowTraceContext | undefined) => Promise<WorkflowAgentResult>,
): Promise<WorkflowAgentResult> {
	const span = await startJobSpan({
		trace: data.trace,
		queueName: settings.queueName,
		jobId,
		worker: settings.name,
		agentName: data.plan.agentType.name,
	}).catch(() => undefined);
	if (!span) return run(undefined);
	try {
		const result = await span.within(() => run(span.trace));
		span.end(result);
		return result;
	} catch (error) {
		span.end({ status: "failed", code: "queue_job_failed", error: errorMessage(error) });
		throw error;
	}
}

/** Author errors cross to the host, which rethrows them in the script; a model this worker lacks is not one. */
function isAuthorError(error: unknown): error is import("../errors.ts").WorkflowError {
	if (!isWorkflowError(error)) return false;
	if (error.code === "agent_options_invalid" && error.details && "model" in error.details) return false;
	return errorStage(error.code) === "author";
}

function onControl(text: string, active: Map<string, ActiveJob>, ignored: (problem: string) => void): void {
	const message = readControlMessage(text);
	if ("problem" in message) {
		ignored(message.problem);
		return;
	}
	const job = active.get(message.jobId);
	if (!job) return;
	if (message.action === "stop") {
		job.controller.abort(message.text || "stopped by the host");
		return;
	}
	const control = job.controls.get(job.key);
	if (!control) return;
	if (message.action === "steer") control.steer(message.text ?? "").catch(() => {});
	else control[message.action]();
}

/** Bad control messages logged one line each: the first few, then a count at 10, 100, 1000… so a flood cannot fill the log. */
const LOGGED_BAD_CONTROLS = 5;

function ignoredControls(log: (line: string) => void, channel: string): (problem: string) => void {
	let count = 0;
	let nextCount = 10;
	return (problem) => {
		count++;
		if (count <= LOGGED_BAD_CONTROLS) {
			log(
				`ignored a message on ${channel}: ${problem} (a host of a newer pi-workflows, or something else publishing there; run the same version on the host and the workers)`,
			);
			if (count === LOGGED_BAD_CONTROLS) log(`further bad messages on ${channel} are counted, not logged`);
		} else if (count === nextCount) {
			log(`ignored ${count} bad messages on ${channel} so far`);
			nextCount *= 10;
		}
	};
}

/** Sends a child's reports as job progress: the first at once, then at most one per `everyMs`, the last always. */
function throttledProgress(job: Job, everyMs: number): ((child: WorkflowAgentChild) => void) & { flush(): void } {
	let pending: WorkflowAgentChild | undefined;
	let timer: ReturnType<typeof setTimeout> | undefined;
	const post = (child: WorkflowAgentChild) => {
		job.updateProgress(child as unknown as object).catch(() => {});
	};
	const send = (child: WorkflowAgentChild) => {
		if (timer) {
			pending = child;
			return;
		}
		post(child);
		timer = setTimeout(() => {
			timer = undefined;
			const last = pending;
			pending = undefined;
			if (last) send(last);
		}, everyMs);
	};
	send.flush = () => {
		clearTimeout(timer);
		timer = undefined;
		if (pending) post(pending);
		pending = undefined;
	};
	return send;
}

function failed(data: QueueJobData, worker: string, error: string, code: string): QueueJobReturn {
	return {
		worker,
		result: { id: `${worker}:${data.request.key}`, type: data.request.agentType, status: "failed", error, code },
	};
}

function stoppedResult(data: QueueJobData, reason: string): WorkflowAgentResult {
	return { id: data.request.key, type: data.request.agentType, status: "stopped", error: reason || "stopped" };
}
