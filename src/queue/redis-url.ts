/** How the queue's Redis connections are made from a URL, and the URL as it may be shown (no password). */
import type { RedisOptions } from "ioredis";

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
