/**
 * Stable keys for `agent()` calls, the journal's index. A key is a hash of the call's identity (prompt, agent type,
 * schema, model, thinking, tools, isolation) plus its occurrence among calls with the same identity, scoped by
 * nested workflow. The call site is not part of it, so an edit that moves lines keeps every replay. Children
 * finishing in another order can reorder calls made after an await, but such calls differ in identity (or are
 * interchangeable), so two runs of the same script with the same args give the same keys.
 */
import { hash } from "node:crypto";
import { stableJson } from "./json.ts";
/** Assigns keys in call order; one per script (a nested workflow gets its own through `nested`). */
export class CallKeys {
	readonly #seen = new Map<string, number>();
	readonly #prefix: string;

	constructor(prefix = "") {
		this.#prefix = prefix;
	}

	/** The key of the next call whose identity is `identity` (prompt, agent type, schema, model…). */
	next(identity: unknown): string {
		return this.#occurrence(digest(identity));
	}

	/**
	 * The keys of a nested `workflow(name, args)` call: its own scope, named by the workflow and a hash of its args,
	 * and counted like calls, so two runs of one child with the same args keep apart.
	 */
	nested(name: string, args: unknown): CallKeys {
		return new CallKeys(`${this.#occurrence(`${name}~${digest(args ?? null)}`)}/`);
	}

	#occurrence(base: string): string {
		const scoped = `${this.#prefix}${base}`;
		const occurrence = this.#seen.get(scoped) ?? 0;
		this.#seen.set(scoped, occurrence + 1);
		return `${scoped}#${occurrence}`;
	}
}

function digest(value: unknown): string {
	return hash("sha256", stableJson(value)).slice(0, 16);
}
