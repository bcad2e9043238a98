/** `--redis <url>` of `run`, `resume` and `worker`, checked before anything loads. */

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
