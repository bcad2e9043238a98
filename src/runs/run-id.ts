/** Run ids: `wf-20261201-101530-k3f9x2`, sortable by creation time (UTC, to the second), random after that, path-safe. */
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
const SUFFIX_LENGTH = 6;

/** Exactly what `newRunId` makes; anything else (`../x`, a path, an empty string) never reaches the disk. */
const RUN_ID_PATTERN = /^wf-\d{8}-\d{6}-[0-9a-z]{4,16}$/;

/** A fresh run id for a run created at `now`. */
export function newRunId(now: Date = new Date()): string {
	const iso = now.toISOString();
	const date = iso.slice(0, 10).replaceAll("-", "");
	const time = iso.slice(11, 19).replaceAll(":", "");
	const bytes = randomBytes(SUFFIX_LENGTH);
	let suffix = "";
	for (const byte of bytes) suffix += ALPHABET[byte % ALPHABET.length];
	return `wf-${date}-${time}-${suffix}`;
}

/** True when `value` is shaped like a run id. */
export function isRunId(value: unknown): value is string {
	return typeof value === "string" && RUN_ID_PATTERN.test(value);
}
