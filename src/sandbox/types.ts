/**
 * The sandbox's public types: what a host hands in (code, data, host functions) and what comes back.
 * The sandbox knows no workflow words: it runs guest code in QuickJS and routes named host calls.
 */

/** Plain JSON data, the only kind of value that crosses the boundary (copied, never shared). */
export type SandboxValue = null | boolean | number | string | SandboxValue[] | { [key: string]: SandboxValue };

/** Limits of one sandbox run. Every field has a default. */
export interface SandboxLimits {
	/** Maximum size of the run's WebAssembly memory, in bytes. Default: 256 MiB. */
	memoryBytes: number;
	/** QuickJS stack size, in bytes (the worker thread gets 32× this). Default: 1 MiB. */
	stackBytes: number;
	/** Longest synchronous stretch of guest code between two host round trips, in ms. Default: 5000. */
	syncSliceMs: number;
	/** Largest value (as JSON bytes) allowed to cross the boundary in either direction. Default: 8 MiB. */
	maxValueBytes: number;
}

/**
 * How a host function appears to the guest:
 * - "async": returns a guest Promise, settled when the host's promise settles.
 * - "sync": blocks the guest until the host answers, returns the value (or throws the host's error).
 * - "event": fire-and-forget, returns undefined at once; its host errors are reported to `onEventError`.
 */
export type HostFunctionKind = "async" | "sync" | "event";

/** A function the guest may call. `args` are copies of the guest's arguments, already checked to be JSON data. */
export interface HostFunction {
	kind: HostFunctionKind;
	/**
	 * Called with copies of the guest's arguments (an `undefined` argument arrives as `null`; trailing
	 * `undefined` arguments are dropped). Returns (or resolves to) JSON data or `undefined`, copied into the guest.
	 * A thrown Error reaches the guest as a guest `Error` with the same `name`, `message` and JSON-safe own
	 * properties (`code`, `details`, `location`…).
	 */
	fn: (args: SandboxValue[]) => unknown;
	/** Names of the parameters, used as the root of a bad value's path (`opts.schema.x`). Default: `name[i]`. */
	params?: string[];
	/**
	 * Record the guest's stack at each call, so that a host error surfaces at the guest line that made the call.
	 * False when the guest code that calls the function records the call site itself (a stack is built eagerly, at a
	 * cost on every call). Default: true.
	 */
	callSite?: boolean;
	/**
	 * Sync only: makes repeated calls cheap (no round trip to the host). The worker answers a call itself with its
	 * last answer to the same arguments while the guest has posted no other call since and the host has reported no
	 * change. When a run starts, the sandbox calls `watchChanges` with a function to call whenever the answer may
	 * have changed for any other reason; it calls what `watchChanges` returns when the run ends. Default: every call
	 * goes to the host.
	 */
	watchChanges?: (changed: () => void) => () => void;
}

/** One run of guest code. */
export interface SandboxRunRequest {
	/**
	 * Guest code evaluated first, as a strict script named "<prelude>". Its completion value must be a function;
	 * the sandbox calls it with `(host, data)`: `host` has one guest function per entry of `hostFunctions`,
	 * `data` is a copy of `data`. The prelude installs globals; the body cannot reach `host` unless it is given.
	 */
	prelude: string;
	/**
	 * The author's code, evaluated as a strict script under `filename`. Its completion value must be a promise
	 * (e.g. an async arrow called at once); the run's value is what that promise resolves to (`undefined` → `null`).
	 */
	body: string;
	/** Name used in stacks and positions. */
	filename: string;
	data: SandboxValue;
	hostFunctions: Record<string, HostFunction>;
	/** Aborting ends the run with `kind: "cancelled"` and the signal's reason. */
	signal?: AbortSignal;
	/** Receives what an "event" host function threw or rejected with. Default: such errors are dropped. */
	onEventError?: (name: string, error: unknown) => void;
}

/** Why a run did not produce a value. */
export type GuestErrorKind =
	/** The body's promise rejected, or evaluation threw. */
	| "thrown"
	/** QuickJS syntax error in prelude or body. */
	| "syntax"
	| "limit_memory"
	| "limit_stack"
	/** One synchronous stretch ran past `syncSliceMs`. */
	| "limit_cpu"
	| "limit_value_size"
	/** A value crossing the boundary was not JSON data. */
	| "value_not_json"
	/** A value crossing the boundary was a Promise: the code that made it was not awaited. */
	| "not_awaited"
	/** The body's promise is pending with no host call in flight and no job queued: nothing can settle it. */
	| "unsettled"
	| "cancelled"
	/** The worker sent the host a message that breaks the protocol: its engine can no longer be trusted. */
	| "corrupt"
	/** Our own bug, or the engine died. */
	| "internal";

/** A failure of the guest, as data (never a host exception). */
export interface GuestError {
	kind: GuestErrorKind;
	/** The thrown value's `name` ("TypeError", "WorkflowError"…) when it was an Error. */
	name?: string;
	message: string;
	/** Guest stack text, frames as `    at fn (file:line:column)`. */
	stack?: string;
	/** Position in `filename` (1-based), from the first frame in `filename` or the syntax error. */
	line?: number;
	column?: number;
	/** JSON-safe own properties of the thrown error other than name/message/stack (e.g. `code`, `details`). */
	props?: Record<string, SandboxValue>;
	/** For value errors: the path of the bad value (`args.items[3].fn`). */
	path?: string;
	/** For value errors: what the bad value is ("a function", "a Map"). */
	found?: string;
}

export type SandboxOutcome = { ok: true; value: SandboxValue } | { ok: false; error: GuestError };

/** One sandbox: at most one run at a time. */
export interface Sandbox {
	/** Contract: resolves, never rejects, for anything the guest does. Throws `TypeError` for a malformed request. */
	run(request: SandboxRunRequest): Promise<SandboxOutcome>;
	readonly alive: boolean;
	/** Ends the worker (or returns it to the pool). Safe to call twice. */
	dispose(): Promise<void>;
}
