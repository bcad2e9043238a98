/**
 * Children placed by what a worker has (issue 48 §2), the part host and workers agree on. A worker advertises its
 * labels in a heartbeat key that expires unless renewed, so the live workers are the keys present. A child whose
 * call requires labels goes to the BullMQ queue of that label set (`<queue>@gpu+region=eu`), and only a worker whose
 * labels cover the set takes jobs from it: placement is BullMQ's own competing consumers, not a check after the
 * take. Hosts record each set they queue to, so workers know which queues to watch; an entry lasts while a child
 * waits in that queue or a live worker takes from it (each refreshes it every heartbeat), then expires. Pi-free.
 */
import type { Redis } from "ioredis";
import { canonicalLabels, type WorkflowPlacement } from "../runtime/core/placement.ts";

/** How often a worker renews its heartbeat (and re-reads its labels file), in ms. */
export const HEARTBEAT_MS = 1000;
/** A worker whose heartbeat is older than this is not live: its key expires. */
export const HEARTBEAT_TTL_MS = 5000;
/**
 * How long a label set stays listed after its last refresh (a waiting child's host, a worker taking from it): a set
 * only a dead worker took from, or only a finished child needed, goes, and the live workers stop watching its queue.
 */
export const LABEL_SET_TTL_MS = HEARTBEAT_TTL_MS;
/** How long a child waits while no live worker has its required labels, unless its call or the host says. */
export const DEFAULT_PLACEMENT_WAIT_MS = 60_000;

/** What a worker says of itself in its heartbeat. */
export interface WorkerBeat {
	name: string;
	/** Host name and pid. */
	host: string;
	labels: string[];
	concurrency: number;
	/** Children it runs now. */
	running: number;
	/** When it started and when it last beat, ms since the epoch. */
	startedAt: number;
	at: number;
}

/** A child's placement with the agent type's, as the host queues it: the call's lists win where it gives them. */
export interface ChildPlacement {
	labels: string[];
	prefer: string[];
	waitMs?: number;
}

/** The placement of a child: its call's, over its agent file's. */
export function childPlacement(
	call: WorkflowPlacement | undefined,
	type: WorkflowPlacement | undefined,
): ChildPlacement {
	const waitMs = call?.waitMs ?? type?.waitMs;
	return {
		labels: canonicalLabels(call?.labels ?? type?.labels ?? []),
		prefer: canonicalLabels(call?.prefer ?? type?.prefer ?? []),
		...(waitMs !== undefined ? { waitMs } : {}),
	};
}

/** The BullMQ queue of a required label set: the plain queue for none. */
export function placementQueueName(queueName: string, labels: readonly string[]): string {
	return labels.length === 0 ? queueName : `${queueName}@${canonicalLabels(labels).join("+")}`;
}

/** The label set a queue name stands for (inverse of `placementQueueName`). */
export function labelsOfQueue(queueName: string, placed: string): string[] {
	return placed === queueName ? [] : placed.slice(queueName.length + 1).split("+");
}

/** Whether `have` includes every label of `need`. */
export function covers(have: readonly string[], need: readonly string[]): boolean {
	return need.every((label) => have.includes(label));
}

/** The key of one worker's heartbeat. */
export function beatKey(queueName: string, worker: string): string {
	return `pwf:${queueName}:worker:${worker}`;
}

/** The set of worker names that beat at some time (their keys say which still live). */
export function workersKey(queueName: string): string {
	return `pwf:${queueName}:workers`;
}

/** The label sets' queue names hosts queue children to, a sorted set scored by when each entry expires (ms). */
export function labelSetsKey(queueName: string): string {
	return `pwf:${queueName}:label-sets`;
}

/** Where a host says it queued to a new label set, so workers that cover it start taking from it at once. */
export function placementChannel(queueName: string): string {
	return `pwf:${queueName}:placement`;
}

/** Renews a worker's heartbeat, and the entries of the label sets it takes from (`takes`) for `ttlMs` more. */
export async function beat(
	redis: Redis,
	queueName: string,
	worker: WorkerBeat,
	takes: readonly string[],
	ttlMs: number,
): Promise<void> {
	const until = (takes.length > 0 ? await redisNow(redis) : 0) + ttlMs;
	const step = redis
		.multi()
		.set(beatKey(queueName, worker.name), JSON.stringify(worker), "PX", HEARTBEAT_TTL_MS)
		.sadd(workersKey(queueName), worker.name);
	for (const placed of takes) step.zadd(labelSetsKey(queueName), until, placed);
	await step.exec();
}

/** Takes a worker's heartbeat away (it stops): hosts stop counting it at once rather than when the key expires. */
export async function unbeat(redis: Redis, queueName: string, name: string): Promise<void> {
	await redis.multi().del(beatKey(queueName, name)).srem(workersKey(queueName), name).exec();
}

/** The live workers, by name. Names whose heartbeat expired are dropped from the set on the way. */
export async function liveWorkers(redis: Redis, queueName: string): Promise<WorkerBeat[]> {
	const names = (await redis.smembers(workersKey(queueName))).sort();
	if (names.length === 0) return [];
	const beats = await redis.mget(names.map((name) => beatKey(queueName, name)));
	const gone = names.filter((_, i) => beats[i] === null);
	if (gone.length > 0) await redis.srem(workersKey(queueName), ...gone);
	return beats.flatMap((text) => {
		if (text === null) return [];
		try {
			return [JSON.parse(text) as WorkerBeat];
		} catch {
			return [];
		}
	});
}

/**
 * Redis's clock, in ms. The label sets' expiries are written and read on this one clock: hosts and workers on other
 * machines have clocks of their own, and one a few seconds off would drop every set another machine listed.
 */
async function redisNow(redis: Redis): Promise<number> {
	const [seconds, micros] = await redis.time();
	return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** The label sets' queues listed now. Expired entries are dropped from the set on the way. */
export async function liveLabelSets(redis: Redis, queueName: string): Promise<string[]> {
	const key = labelSetsKey(queueName);
	const now = await redisNow(redis);
	const replies = await redis.multi().zremrangebyscore(key, "-inf", now).zrange(key, "0", "-1").exec();
	const [failed, listed] = replies?.[1] ?? [];
	if (failed) throw failed;
	return (listed as string[]).sort();
}

/**
 * Lists `placed` (a label set's queue) for `ttlMs` more, while a host's child waits in it; tells the workers when it
 * was not listed, so those that cover it start taking from it at once.
 */
export async function announceLabelSet(redis: Redis, queueName: string, placed: string, ttlMs: number): Promise<void> {
	const key = labelSetsKey(queueName);
	const now = await redisNow(redis);
	const replies = await redis
		.multi()
		.zscore(key, placed)
		.zadd(key, now + ttlMs, placed)
		.exec();
	const failed = replies?.find(([error]) => error)?.[0];
	if (failed) throw failed;
	const until = replies?.[0]?.[1];
	if (until === null || Number(until) <= now) await redis.publish(placementChannel(queueName), placed);
}

/** The live workers' labels as a person reads them: `w1: gpu, region=eu; w2: no labels`, or that there are none. */
export function describeWorkers(workers: readonly WorkerBeat[]): string {
	if (workers.length === 0) return "no worker is live";
	return workers
		.map((worker) => `${worker.name}: ${worker.labels.length > 0 ? worker.labels.join(", ") : "no labels"}`)
		.join("; ");
}

/**
 * The queue a child goes to: its required labels, plus the preferred labels of the best live worker that has them
 * all and a free slot by its last heartbeat (more preferred labels first). Without such a worker, the required
 * set's queue, which every able worker takes from.
 */
export function chooseQueue(queueName: string, placement: ChildPlacement, live: readonly WorkerBeat[]): string {
	const able = live.filter((worker) => covers(worker.labels, placement.labels) && worker.running < worker.concurrency);
	let best: string[] = [];
	for (const worker of able) {
		const has = placement.prefer.filter((label) => worker.labels.includes(label));
		if (has.length > best.length) best = has;
	}
	return placementQueueName(queueName, [...placement.labels, ...best]);
}
