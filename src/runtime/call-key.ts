/**
 * Stable keys for `agent()` calls. A key is the call site, a hash of the prompt and identity options, and an
 * occurrence counter among calls with the same site and hash. Children finishing in a different order can
 * reorder calls made after an await, but such calls differ in prompt (or are interchangeable), so two runs of the
 * same script with the same args give the same keys. A later journal and resume key on it.
 */
import { hash } from "node:crypto";
import type { SourceLocation } from "../errors.ts";

/** The first frame of `stack` that is in `filename`, as a 1-based position. */
export function firstFrameIn(stack: string, filename: string): SourceLocation | undefined {
	for (const line of stack.split("\n")) {
		const at = line.lastIndexOf(`${filename}:`);
		if (at < 0) continue;
		const match = /^(\d+):(\d+)/.exec(line.slice(at + filename.length + 1));
		if (match) return { line: Number(match[1]), column: Number(match[2]) };
	}
	return undefined;
}

/** Assigns keys in call order; one per run (nested workflows get their own, prefixed by name). */
export class CallKeys {
	readonly #seen = new Map<string, number>();
	readonly #prefix: string;

	constructor(prefix = "") {
		this.#prefix = prefix;
	}

	/** The key for a call at `site` whose identity is `identity` (prompt, agent type, schema, model…). */
	next(site: SourceLocation | undefined, identity: unknown): string {
		const where = site ? `${site.line}:${site.column}` : "?";
		const digest = hash("sha256", stableJson(identity)).slice(0, 12);
		const base = `${this.#prefix}${where}#${digest}`;
		const occurrence = this.#seen.get(base) ?? 0;
		this.#seen.set(base, occurrence + 1);
		return `${base}#${occurrence}`;
	}
}

/** JSON with object keys sorted, so equal values hash equally whatever their key order. */
export function stableJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
	if (value !== null && typeof value === "object") {
		const entries = Object.entries(value)
			.filter(([, v]) => v !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
	}
	return JSON.stringify(value) ?? "null";
}
