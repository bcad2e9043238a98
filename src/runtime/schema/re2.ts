/**
 * The schema worker's RE2 programs: each `pattern` (and `patternProperties` key) compiled once and shared by every
 * validator that uses it, held in the worker's SizedCache with an estimate of its heap. A program of a pattern of
 * 900 characters with bounded repeats takes hundreds of KiB, so these are most of what the worker keeps. A
 * program's lazy DFA, which re2js lets grow to 8 MiB while it matches, is dropped after a check that left it
 * larger than `DFA_KEPT_BYTES`.
 */
import type { RE2JS } from "re2js";
import type { SizedCache } from "./cache.ts";
import { loadRe2 } from "./lazy-deps.ts";

/** What ajv's `code.regExp` returns for a pattern. */
export interface RegExpLike {
	test(text: string): boolean;
	toString(): string;
}

/** ajv's `code.regExp` option: a pattern and its flags to something with `test`. */
export type RegExpEngine = ((pattern: string, flags: string) => RegExpLike) & { code: string };

/**
 * Estimated heap of a program: re2js keeps about 125–200 bytes per instruction (measured on patterns of 900
 * characters: alternations, bounded repeats, Unicode classes), plus the RE2 object's own.
 */
const BYTES_PER_INSTRUCTION = 200;
const BYTES_PER_PROGRAM = 4 * 1024;
/** What a program's lazy DFA may keep from one check to the next; the next check past it rebuilds what it needs. */
export const DFA_KEPT_BYTES = 256 * 1024;
/** The DFA's own count of its bytes is about 80 % of the heap it takes. */
const DFA_HEAP_FACTOR = 1.25;

/** The key of a pattern's program in the worker's cache. */
export function programKey(pattern: string): string {
	return `re2:${pattern}`;
}

/** One pattern's compiled program, and how many held validators use it (while any does, it cannot be evicted). */
export class Re2Program {
	readonly regExp: RegExpLike;
	readonly #compiled: RE2JS;
	/** Estimated bytes of the program itself. */
	readonly baseBytes: number;
	/** RE2's count of the program's instructions: a check's time per character is at most proportional to it. */
	readonly size: number;
	users = 0;
	#ran = false;

	constructor(pattern: string) {
		const RE2JS = loadRe2();
		const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
		this.#compiled = compiled;
		this.size = compiled.programSize();
		this.baseBytes = BYTES_PER_PROGRAM + BYTES_PER_INSTRUCTION * this.size;
		this.regExp = {
			test: (text: string) => {
				const matched = compiled.test(text);
				this.#ran = true;
				if (this.#dfaBytes() > DFA_KEPT_BYTES) this.#dropDfa();
				return matched;
			},
			toString: () => `/${pattern}/`,
		};
	}

	/** Estimated bytes now: the program and what its DFA keeps. */
	get bytes(): number {
		return this.baseBytes + Math.round(this.#dfaBytes() * DFA_HEAP_FACTOR);
	}

	/** Whether it matched anything since the last call (its DFA may have grown). */
	takeRan(): boolean {
		const ran = this.#ran;
		this.#ran = false;
		return ran;
	}

	/** re2js's own count of the bytes its DFA holds: the budget it started with less what is left. */
	#dfaBytes(): number {
		const dfa = this.#compiled.re2Input.lazyDFA as RE2JS["re2Input"]["lazyDFA"] | null;
		return dfa ? dfa.stateBudget - dfa.memBudget : 0;
	}

	#dropDfa(): void {
		(this.#compiled.re2Input as { lazyDFA: unknown }).lazyDFA = null;
	}
}

/**
 * The programs of one worker, in the cache it shares with the validators (keyed by `programKey`). `engine` is
 * ajv's `code.regExp`: while `collect` runs, every pattern compiled or found is noted, so the validator being
 * compiled can `retain` exactly the programs its ajv refers to.
 */
export class Re2Programs {
	readonly engine: RegExpEngine;
	readonly #cache: SizedCache<unknown>;
	#collecting: Set<string> | undefined;

	constructor(cache: SizedCache<unknown>) {
		this.#cache = cache;
		// Only read when ajv writes standalone code, which we never do.
		this.engine = Object.assign((pattern: string) => this.compile(pattern), { code: "re2" });
	}

	/** The program of `pattern`, compiled unless held; throws RE2's error for a pattern it refuses. */
	compile(pattern: string): RegExpLike {
		const key = programKey(pattern);
		let program = this.#cache.use(key);
		if (!(program instanceof Re2Program)) {
			program = new Re2Program(pattern);
			// Idle until a validator retains it; nothing is evicted before the job that compiled it ends.
			this.#cache.set(key, program, (program as Re2Program).baseBytes, "idle");
		}
		this.#collecting?.add(pattern);
		return (program as Re2Program).regExp;
	}

	/** The instructions of the held program of `pattern`; 0 when none is held. */
	size(pattern: string): number {
		const program = this.#cache.peek(programKey(pattern));
		return program instanceof Re2Program ? program.size : 0;
	}

	/** Runs `compile`, returning what it did and the patterns it compiled or found, even when it throws. */
	collect(compile: () => void): { patterns: string[]; error?: unknown } {
		const patterns = new Set<string>();
		this.#collecting = patterns;
		try {
			compile();
			return { patterns: [...patterns] };
		} catch (error) {
			return { patterns: [...patterns], error };
		} finally {
			this.#collecting = undefined;
		}
	}

	/** One more validator uses each of `patterns`: they cannot be evicted while it is held. */
	retain(patterns: readonly string[]): void {
		for (const pattern of patterns) {
			const key = programKey(pattern);
			const program = this.#cache.peek(key);
			if (!(program instanceof Re2Program)) continue;
			program.users++;
			this.#cache.setState(key, "pinned");
		}
	}

	/** One validator fewer uses each of `patterns`; one no validator uses is dropped, or kept idle when `keep`. */
	release(patterns: readonly string[], keep: boolean): void {
		for (const pattern of patterns) {
			const key = programKey(pattern);
			const program = this.#cache.peek(key);
			if (!(program instanceof Re2Program)) continue;
			program.users = Math.max(0, program.users - 1);
			if (program.users > 0) continue;
			if (keep) this.#cache.setState(key, "idle");
			else this.#cache.delete(key);
		}
	}

	/** Brings the estimates of the programs that matched since the last call up to date (their DFAs grew). */
	settle(patterns: readonly string[]): void {
		for (const pattern of patterns) {
			const key = programKey(pattern);
			const program = this.#cache.peek(key);
			if (program instanceof Re2Program && program.takeRan()) this.#cache.resize(key, program.bytes);
		}
	}
}
