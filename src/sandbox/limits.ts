/**
 * The sandbox's limits: defaults, checking of caller-supplied values, and the numbers derived from them
 * (WASM pages, QuickJS's own memory limit, the worker thread's stack).
 */
import type { SandboxLimits } from "./types.ts";

const MiB = 1024 * 1024;
const WASM_PAGE = 64 * 1024;
/** The QuickJS build starts with 16 MiB of linear memory; the cap cannot be below it. */
const INITIAL_WASM_BYTES = 16 * MiB;

/** Limits used when the caller gives none. */
export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = Object.freeze({
	memoryBytes: 256 * MiB,
	stackBytes: 1 * MiB,
	syncSliceMs: 5000,
	maxValueBytes: 8 * MiB,
});

/** Lowest and highest accepted value per limit. */
const RANGES: Record<keyof SandboxLimits, [min: number, max: number]> = {
	memoryBytes: [32 * MiB, 2048 * MiB],
	stackBytes: [64 * 1024, 64 * MiB],
	syncSliceMs: [1, 24 * 60 * 60 * 1000],
	maxValueBytes: [1, 1024 * MiB],
};

/** Merges partial limits over the defaults; throws a `TypeError` ("Expected …, got …") for a bad value. */
export function resolveLimits(partial: Partial<SandboxLimits> | undefined): SandboxLimits {
	if (partial === undefined) return { ...DEFAULT_SANDBOX_LIMITS };
	if (typeof partial !== "object" || partial === null) {
		throw new TypeError(`Expected \`limits\` to be an object, got ${describe(partial)}`);
	}
	const limits = { ...DEFAULT_SANDBOX_LIMITS };
	for (const key of Object.keys(partial)) {
		if (!(key in RANGES)) {
			throw new TypeError(`Expected \`limits\` keys among ${Object.keys(RANGES).join(", ")}, got \`${key}\``);
		}
		const name = key as keyof SandboxLimits;
		const value = partial[name];
		if (value === undefined) continue;
		const [min, max] = RANGES[name];
		if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
			throw new TypeError(
				`Expected \`limits.${name}\` to be an integer from ${min} to ${max}, got ${describe(value)}`,
			);
		}
		limits[name] = value;
	}
	return limits;
}

/** Initial and maximum size of a run's `WebAssembly.Memory`, in 64 KiB pages. */
export function wasmMemoryPages(limits: SandboxLimits): { initial: number; maximum: number } {
	return { initial: INITIAL_WASM_BYTES / WASM_PAGE, maximum: Math.floor(limits.memoryBytes / WASM_PAGE) };
}

/**
 * QuickJS's own allocation limit: a little below the WASM cap, so an ordinary memory bomb becomes a clean
 * "out of memory" error and the headroom lets us still describe that error afterwards.
 */
export function quickjsMemoryLimit(limits: SandboxLimits): number {
	return limits.memoryBytes - Math.max(4 * MiB, Math.floor(limits.memoryBytes / 8));
}

/**
 * Stack of the worker thread, in MB. QuickJS checks its own stack depth, but deep native recursion (the parser,
 * JSON) can outrun the thread's real stack first; 32× QuickJS's limit makes its own check always fire first.
 */
export function workerStackMb(limits: SandboxLimits): number {
	return Math.max(4, Math.ceil((limits.stackBytes * 32) / MiB));
}

function describe(value: unknown): string {
	if (typeof value === "string") return `\`${value}\` (string)`;
	if (value === null) return "null";
	return `${String(value)} (${typeof value})`;
}
