/**
 * The queue's Redis URL: checked before anything loads (`--redis` of `run`, `resume` and `worker`), the connections
 * made from it and ended, and the URL as it may be shown (no password). ioredis is imported for its types only, so
 * the CLI can check a URL without loading it.
 */
import type { Redis, RedisOptions } from "ioredis";

/** What is wrong with `url` as a Redis URL, or undefined when it is one (`redis://` or `rediss://`). */
export function checkRedisUrl(url: string): string | undefined {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return `"${url}" is not a URL: give redis://host:6379 (or rediss:// for TLS, with user:password@ for AUTH)`;
	}
	if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
		return `"${parsed.protocol}//${parsed.host}" is not a Redis URL: it must start with redis:// (or rediss:// for TLS)`;
	}
	return undefined;
}

/**
 * How long a close waits for Redis. Commands wait for a reconnect (see below), so a close that needs Redis (BullMQ's,
 * ioredis' `quit`) would wait forever once it died: past this, the connection is dropped instead.
 */
export const CLOSE_WAIT_MS = 3000;

/** Resolves when `closing` settles or `ms` passed, whichever is first; never rejects. */
export async function settledWithin(closing: Promise<unknown>, ms = CLOSE_WAIT_MS): Promise<void> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	await Promise.race([
		closing.catch(() => {}),
		new Promise<void>((resolve) => {
			timer = setTimeout(resolve, ms);
		}),
	]);
	clearTimeout(timer);
}

/** Ends a connection: `quit` (what was sent goes out first) while Redis answers, else a disconnect. */
export async function endConnection(connection: Redis): Promise<void> {
	await settledWithin(connection.quit());
	connection.disconnect();
}

/**
 * Connection options for `new Redis(url, …)`: `rediss://` turns TLS on (ioredis reads the scheme); commands wait
 * for a reconnect instead of failing after a few retries (BullMQ's workers need that), and reconnects back off to 2 s.
 */
export function redisOptions(_url: string): RedisOptions {
	return {
		maxRetriesPerRequest: null,
		retryStrategy: (times) => Math.min(100 * times, 2000),
	};
}

/** `url` without its password, for messages and logs. */
export function safeUrl(url: string): string {
	try {
		const parsed = new URL(url);
		if (parsed.password) parsed.password = "***";
		return parsed.toString().replace(/\/$/, "");
	} catch {
		return "(a Redis URL that does not parse)";
	}
}
