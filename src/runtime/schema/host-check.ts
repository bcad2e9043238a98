/**
 * The fast path of a schema check: a copy of a validator the schema worker compiled, kept on the host so checking
 * an answer against a schema already compiled takes no round trip to the worker thread (most of what a schema'd
 * `agent()` call cost). The worker stays what protects the host; the host's copy only ever runs a check whose work
 * is bounded before it starts:
 *
 * - the worker compiled the schema first, within its deadline and heap (a hostile compile never reaches the host),
 *   and the host keeps a copy only of a validator the worker measured as small (`HOST_MAX_INSTRUCTIONS` of RE2
 *   program, `HOST_MAX_CODE_CHARS` of generated code), so compiling the copy is a short, bounded stall;
 * - patterns run on RE2 there as in the worker (no backtracking), `uniqueItems` is the same linear one, and the
 *   schema passed the same size and depth limits (`limits.ts`) before anything compiled;
 * - instead of the worker's deadline, a check runs on the host only when `costWithin` (check-cost.ts) proves it
 *   takes at most `HOST_CHECK_BUDGET` steps: a schema without references whose keywords it can count, and an answer
 *   small enough. Anything else (a large answer, `format`, `$ref`) goes to the worker as before, deadline and all.
 *
 * The copy is compiled with the same ajv options, formats and RE2 engine as the worker's, so both give the same
 * result, issues included. It holds only what the current worker holds: a replaced worker starts the host empty.
 */
import { type CompiledSize, type CompileJob, SchemaCompiler } from "./ajv.ts";
import { costWithin, hostCheckable } from "./check-cost.ts";
import type { SchemaValidation } from "./issues.ts";

/**
 * Most RE2 instructions a validator's patterns may have for the host to keep a copy: compiling a program costs
 * re2js about 1.5 µs per instruction, so the copy's patterns cost the host a few ms at most, once.
 */
export const HOST_MAX_INSTRUCTIONS = 2048;
/** Most characters of generated code a validator may have for the host to keep a copy (V8 compiles it in < 1 ms). */
export const HOST_MAX_CODE_CHARS = 32 * 1024;
/**
 * Steps (`costWithin`) a check may take to run on the host. An ordinary step (a keyword, a value, a character) takes
 * tens of ns; a pattern's character costs ten steps per instruction, which a cold DFA on a 2,000-instruction
 * program took up to about 1 µs to run under heavy load: a check stalls the host for about 10 ms at the very worst,
 * well under a millisecond for the answers it is meant for (a few fields, short strings, short patterns).
 */
export const HOST_CHECK_BUDGET = 100_000;
/** Estimated bytes the host's copies may keep, validators and programs (the worker's estimates, `cache.ts`). */
const HOST_CACHE_BYTES = 8 * 1024 * 1024;

/** What `HostChecks` did with one check, for tests: `host` ran it, `worker` means the caller must send it. */
export type HostCheckOutcome = { path: "host"; result: SchemaValidation } | { path: "worker" };

/** The host's copies of small validators of the worker's, and the checks they may run. */
export class HostChecks {
	readonly #compiler = new SchemaCompiler(HOST_CACHE_BYTES, { compiledBefore: true });
	/** Schemas the worker compiled small enough and whose check cost can be counted, by key. */
	readonly #admitted = new Map<string, CompileJob>();
	#hostChecks = 0;

	/** Checks run on the host so far. */
	get checks(): number {
		return this.#hostChecks;
	}

	/** Notes what the worker compiled: `job`'s validator, of `size`. Copies are compiled on the first check. */
	admit(job: CompileJob, size: CompiledSize): void {
		if (this.#admitted.has(job.key)) return;
		if (size.instructions > HOST_MAX_INSTRUCTIONS || size.codeChars > HOST_MAX_CODE_CHARS) return;
		if (!hostCheckable(job.schema)) return;
		this.#admitted.set(job.key, job);
	}

	/** Whether the host may check `key` (when the answer is small enough). */
	admitted(key: string): boolean {
		return this.#admitted.has(key);
	}

	/** The worker no longer holds `key`: neither does the host. */
	forget(key: string): void {
		if (!this.#admitted.delete(key)) return;
		this.#compiler.release(key);
	}

	/** Forgets everything (the worker was replaced). */
	clear(): void {
		for (const key of [...this.#admitted.keys()]) this.forget(key);
	}

	/** Checks `value` on the host when `key` was admitted and the check's cost is within the budget. */
	check(key: string, value: unknown, root: string): HostCheckOutcome {
		const job = this.#admitted.get(key);
		if (!job) return { path: "worker" };
		try {
			if (!this.#compiler.holds(key)) {
				this.#compiler.compile(job);
				// Out of use at once: the host's cache may evict it when it needs room, and compile it again later.
				this.#compiler.release(key, true);
			}
			// A program the copy does not hold (not expected) counts as the largest a copy may have.
			const size = (pattern: string) => this.#compiler.programSize(pattern) || HOST_MAX_INSTRUCTIONS;
			if (!costWithin(job.schema, value, HOST_CHECK_BUDGET, size)) return { path: "worker" };
			const result = this.#compiler.validate(key, value, root);
			this.#hostChecks++;
			return { path: "host", result };
		} catch {
			// Not expected (the worker compiled the same schema): the worker, which has its deadline, answers instead.
			this.forget(key);
			return { path: "worker" };
		} finally {
			// The host's cache evicts copies on its own; nobody needs their keys (the next check compiles them again).
			this.#compiler.takeEvicted();
		}
	}
}
