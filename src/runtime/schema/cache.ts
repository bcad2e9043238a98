/**
 * A cache bounded by the bytes its entries are estimated to take, not by how many there are: past its budget it
 * evicts the entry used longest ago, those out of use before those in use, and never a pinned one. The schema
 * worker keeps its validators and RE2 programs in one, so a run of many distinct schemas stays within its heap.
 */

/** How an entry may be evicted: `idle` first, `used` when no idle one is left, `pinned` never. */
export type SizedState = "idle" | "used" | "pinned";

interface Entry<V> {
	value: V;
	bytes: number;
	state: SizedState;
}

/** Entries by key in the order of last use, with their estimated bytes; `evict` is called for each one that goes. */
export class SizedCache<V> {
	readonly maxBytes: number;
	readonly #entries = new Map<string, Entry<V>>();
	readonly #evict: (key: string, value: V) => void;
	#bytes = 0;

	constructor(maxBytes: number, evict: (key: string, value: V) => void) {
		this.maxBytes = maxBytes;
		this.#evict = evict;
	}

	/** Entries held. */
	get size(): number {
		return this.#entries.size;
	}

	/** Estimated bytes of all entries. */
	get bytes(): number {
		return this.#bytes;
	}

	/** The value of `key`, which becomes the one used last. */
	use(key: string): V | undefined {
		const entry = this.#entries.get(key);
		if (!entry) return undefined;
		this.#entries.delete(key);
		this.#entries.set(key, entry);
		return entry.value;
	}

	/** The value of `key`, leaving the order as it is. */
	peek(key: string): V | undefined {
		return this.#entries.get(key)?.value;
	}

	/** Adds (or replaces) `key` as the one used last; does not evict: call `trim`. */
	set(key: string, value: V, bytes: number, state: SizedState): void {
		this.delete(key, false);
		this.#entries.set(key, { value, bytes, state });
		this.#bytes += bytes;
	}

	/** Changes the estimate of `key`. */
	resize(key: string, bytes: number): void {
		const entry = this.#entries.get(key);
		if (!entry) return;
		this.#bytes += bytes - entry.bytes;
		entry.bytes = bytes;
	}

	/** Changes how `key` may be evicted. */
	setState(key: string, state: SizedState): void {
		const entry = this.#entries.get(key);
		if (entry) entry.state = state;
	}

	/** Removes `key`, calling `evict` for it unless told not to; false when it was not held. */
	delete(key: string, evict = true): boolean {
		const entry = this.#entries.get(key);
		if (!entry) return false;
		this.#entries.delete(key);
		this.#bytes -= entry.bytes;
		if (evict) this.#evict(key, entry.value);
		return true;
	}

	/** Removes every entry, calling `evict` for each. */
	clear(): void {
		for (const key of [...this.#entries.keys()]) this.delete(key);
	}

	/**
	 * Evicts until the entries fit the budget: idle ones first, then used ones, oldest first, never `keep` or a pinned
	 * one (an eviction may unpin others). Returns the keys evicted, in order.
	 */
	trim(keep?: string): string[] {
		const evicted: string[] = [];
		while (this.#bytes > this.maxBytes) {
			const victim = this.#oldest("idle", keep) ?? this.#oldest("used", keep);
			if (victim === undefined) break;
			this.delete(victim);
			evicted.push(victim);
		}
		return evicted;
	}

	#oldest(state: SizedState, keep: string | undefined): string | undefined {
		for (const [key, entry] of this.#entries) if (entry.state === state && key !== keep) return key;
		return undefined;
	}
}
