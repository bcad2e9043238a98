/**
 * Messages between the host half (sandbox.ts) and a worker (worker.ts): one discriminated union per direction.
 * Everything here is structured-clone data; a run's values travel as JSON data already checked by marshal.ts.
 */
import type { MessagePort } from "node:worker_threads";
import type { GuestError, HostFunctionKind, SandboxLimits, SandboxValue } from "./types.ts";

/**
 * Runs one worker serves at once, each in its own QuickJS instance (its own WASM memory). Runs mostly wait on
 * agents, and a Node worker thread costs about 10 MiB by itself: sharing it is what keeps a run under 10 MiB. The
 * price is that a run's synchronous slice (up to `syncSliceMs`) holds up the other runs on its worker, never the
 * host or runs on other workers.
 */
export const RUNS_PER_WORKER = 4;

/** Worker-wide slots of the control buffer (an `Int32Array` over a `SharedArrayBuffer`). */
export const CONTROL = {
	/** Set by the host when the answer to a sync call is on the sync port (or a run is cancelled). */
	syncReady: 0,
	/**
	 * 1 while the worker is in a slice (running a run's guest code, or waiting inside it on a sync call or
	 * backpressure), 0 while it waits for the host between slices.
	 */
	busy: 1,
	/** When the current slice started, on `sliceClock()`; the host's watchdog measures slices from it. */
	sliceStart: 2,
	/** The run slot (see `runSlot`) whose slice it is. */
	sliceSlot: 3,
	/**
	 * Bumped (wrapping) and notified by the host after each message it posts to the worker, so a worker serving one
	 * run can wait for its answer here rather than in its event loop (see `WorkerRuns`).
	 */
	hostPosted: 4,
	/** Number of slots: the worker-wide ones, then `RUN_SLOT.length` per run slot. */
	length: 5 + 3 * RUNS_PER_WORKER,
} as const;

/** Slots of the control buffer for each run a worker serves, at `runSlot(slot, …)`. */
export const RUN_SLOT = {
	/** Non-zero once the host asks this run to stop; the interrupt handler reads it. */
	cancel: 0,
	/** Weight of this run's call messages the host has read (wrapping); see `callWeight`. */
	consumed: 1,
	/** Bumped by the host whenever an answer of one of this run's cached sync functions may have changed (wrapping). */
	changes: 2,
	length: 3,
} as const;

/** Index in the control buffer of `field` for the run in `slot` (0 to `RUNS_PER_WORKER` - 1). */
export function runSlot(slot: number, field: number): number {
	return 5 + slot * RUN_SLOT.length + field;
}

/**
 * The clock of `CONTROL.sliceStart`: milliseconds on the monotonic clock all threads of the process share, wrapped
 * to 32 bits. Compare two readings as `(later - earlier) | 0`, exact for spans under 24 days.
 */
export function sliceClock(): number {
	const [seconds, nanoseconds] = process.hrtime();
	return (seconds * 1000 + Math.floor(nanoseconds / 1e6)) | 0;
}

/**
 * Weight of the call messages a worker may have posted that the host has not read yet; past it the guest waits.
 * Node hands a port's whole queue to the host in one turn of its event loop, so an unbounded queue (a guest that
 * posts calls faster than the host reads them) grows the host's memory and stalls its event loop for seconds.
 */
export const MAX_UNREAD_CALL_WEIGHT = 8 * 1024 * 1024;

/**
 * Deepest nesting of a value crossing from the guest (the guest's encoder refuses deeper ones by path; the host
 * refuses deeper wire text as corrupt). Node's own JSON.stringify and structuredClone fail a few thousand levels
 * down, and every event the host emits is stringified somewhere.
 */
export const MAX_WIRE_DEPTH = 1000;

/** What one call message costs the host to read, in characters of JSON: its arguments plus a fixed share. */
export function callWeight(argsJson: string): number {
	return argsJson.length + 1024;
}

/** What the worker is told at spawn time (as `workerData`). */
export interface WorkerBoot {
	control: SharedArrayBuffer;
	/** Port on which the host posts answers to sync calls; read with `receiveMessageOnPort`. */
	syncPort: MessagePort;
}

/** How one host function is declared to the guest. */
export interface HostFunctionSpec {
	name: string;
	kind: HostFunctionKind;
	params: string[];
	/** Whether the guest sends its stack with each call (see `HostFunction.callSite`). */
	callSite: boolean;
	/** Whether the worker may answer a repeated sync call itself (see `HostFunction.watchChanges`). */
	cached: boolean;
}

/** A host error, reduced to data so the worker can rebuild it as a guest `Error`. */
export interface HostErrorData {
	name: string;
	message: string;
	/** JSON-safe own properties (`code`, `details`, `location`…). */
	props: Record<string, SandboxValue>;
}

/** Host → worker. */
export type HostMessage =
	| {
			type: "run";
			runId: number;
			/** The run's slots in the control buffer (see `runSlot`). */
			slot: number;
			prelude: string;
			body: string;
			filename: string;
			/** `data` as JSON text, already checked by the host. */
			dataJson: string;
			functions: HostFunctionSpec[];
			limits: SandboxLimits;
	  }
	| { type: "settle"; runId: number; callId: number; result: HostCallResult }
	| { type: "cancel"; runId: number; reason: string };

/** What the host posts to a worker: one message, or the settles and cancels of one turn together (one wake-up). */
export type HostPost = HostMessage | { type: "batch"; messages: HostMessage[] };

/** The answer to one host call: JSON text of the value (absent when the host returned `undefined`) or an error. */
export type HostCallResult = { ok: true; json?: string } | { ok: false; error: HostErrorData };

/** What the host posts on the sync port to answer a sync call. */
export type SyncAnswer = { type: "answer"; runId: number; callId: number; result: HostCallResult };

/** Worker → host. */
export type WorkerMessage =
	| { type: "ready" }
	| { type: "call"; runId: number; callId: number; name: string; kind: HostFunctionKind; argsJson: string }
	| { type: "done"; runId: number; outcome: WireOutcome; engine: EngineReport }
	| { type: "fatal"; runId: number; message: string }
	/** The calls one run made in one slice, in order, as one message. */
	| { type: "batch"; runId: number; messages: WorkerMessage[] };

/** A run's outcome on the wire: the value stays JSON text until the host parses it. */
export type WireOutcome = { ok: true; json: string } | { ok: false; error: GuestError };

/** How the run's engine ended: the host retires the worker unless it ended cleanly. */
export interface EngineReport {
	/** True when every QuickJS handle, the context and the runtime were freed without complaint. */
	disposedCleanly: boolean;
	/** Why disposal failed, for leak checks. */
	disposeError?: string;
	/** True when the worker is fit for another run (no limit hit, no engine fault). */
	reusable: boolean;
	/** Milliseconds spent instantiating the WASM module for this run. */
	instantiateMs: number;
}
