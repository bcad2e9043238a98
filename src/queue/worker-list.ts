/**
 * `pi-workflows workers --redis <url>`: the live workers, read from their heartbeats (placement.ts): each one's
 * labels, concurrency, running children and last heartbeat, as a table or JSON.
 */
import { Redis } from "ioredis";
import { liveWorkers, type WorkerBeat } from "./placement.ts";
import { DEFAULT_QUEUE_NAME } from "./protocol.ts";
import { endConnection, redisOptions, safeUrl, settledWithin } from "./redis-url.ts";

/** How long the listing waits for Redis before it says it cannot reach it. */
const LIST_WAIT_MS = 5000;

/** The live workers at `url`, and their table. */
export async function listWorkers(
	url: string,
	queueName = DEFAULT_QUEUE_NAME,
	now = Date.now,
): Promise<{ workers: WorkerBeat[]; text: string }> {
	const redis = new Redis(url, { ...redisOptions(url), maxRetriesPerRequest: 1, connectTimeout: LIST_WAIT_MS });
	redis.on("error", () => {});
	try {
		let workers: WorkerBeat[] | undefined;
		await settledWithin(
			liveWorkers(redis, queueName).then((found) => {
				workers = found;
			}),
			LIST_WAIT_MS,
		);
		if (!workers) {
			throw new Error(
				`Redis at ${safeUrl(url)} did not answer within ${LIST_WAIT_MS / 1000} s: check the URL and that Redis runs`,
			);
		}
		return { workers, text: workersTable(workers, url, now()) };
	} finally {
		await endConnection(redis);
	}
}

/** One line per worker, aligned, after a line saying where. */
export function workersTable(workers: readonly WorkerBeat[], url: string, now: number): string {
	if (workers.length === 0) {
		return `No live worker takes jobs from ${safeUrl(url)} (start one with: pi-workflows worker --redis <url>)`;
	}
	const rows = [
		["WORKER", "LABELS", "RUNNING", "LAST HEARTBEAT", "HOST"],
		...workers.map((worker) => [
			worker.name,
			worker.labels.length > 0 ? worker.labels.join(",") : "-",
			`${worker.running}/${worker.concurrency}`,
			`${((now - worker.at) / 1000).toFixed(1)} s ago`,
			worker.host,
		]),
	];
	const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
	const lines = rows.map((row) =>
		row
			.map((cell, column) => cell.padEnd(widths[column] ?? 0))
			.join("  ")
			.trimEnd(),
	);
	const live = `${workers.length} live worker${workers.length === 1 ? "" : "s"} at ${safeUrl(url)}`;
	return [live, ...lines].join("\n");
}
