/**
 * The host half: `createSandbox()` checks a request, leases a warm worker for the run, and hands the run to
 * `HostRun`. A sandbox holds no worker between runs, so an idle sandbox costs nothing.
 */
import { HostRun, type HostRunSetup, runCounters } from "./host-run.ts";
import { resolveLimits, workerStackMb } from "./limits.ts";
import { encodeHostValue } from "./marshal.ts";
import { DEFAULT_WORKER_ENTRY, type WorkerKind, type WorkerLease, workerPool } from "./pool.ts";
import type { HostFunctionKind, Sandbox, SandboxLimits, SandboxOutcome, SandboxRunRequest } from "./types.ts";

/** Options of `createSandbox`. */
export interface SandboxOptions {
	/** Limits of every run of this sandbox. Default: `DEFAULT_SANDBOX_LIMITS`. */
	limits?: Partial<SandboxLimits>;
	/** How long a cancelled run may take to stop before its worker is terminated, in ms. Default: 1000. */
	cancelGraceMs?: number;
	/**
	 * Worker entry module. Default: this folder's worker (release QuickJS build). Tests pass an entry that
	 * serves the debug build, whose engine fails loudly on leaked handles.
	 */
	workerEntry?: URL;
}

/** Live objects, for leak checks after each test. */
export interface SandboxStats {
	/** Sandboxes created and not disposed. */
	liveSandboxes: number;
	/** Runs started and not resolved. */
	activeRuns: number;
	/** Worker threads started and not exited (idle, leased or booting). */
	liveWorkers: number;
	/** Warm workers waiting in the pool. */
	idleWorkers: number;
	/** Workers serving at least one run. */
	leasedWorkers: number;
	/** Runs on the worker serving the most: runs share workers once several are busy. */
	runsOnBusiestWorker: number;
	/** Runs whose engine did not free every QuickJS handle, context and runtime cleanly. */
	engineDisposeFailures: number;
	/** The last such failure, for the test that finds it. */
	lastEngineDisposeError?: string;
}

const KINDS: readonly HostFunctionKind[] = ["async", "sync", "event"];
const DISPOSED = "The sandbox was disposed";
let liveSandboxes = 0;
let nextRunId = 1;

/** Creates a sandbox that runs guest code in QuickJS in a worker thread. Throws `TypeError` for bad options. */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
	if (typeof options !== "object" || options === null) {
		throw new TypeError(`Expected \`options\` to be an object, got ${String(options)}`);
	}
	const limits = resolveLimits(options.limits);
	const cancelGraceMs = options.cancelGraceMs ?? 1000;
	if (!Number.isFinite(cancelGraceMs) || cancelGraceMs < 0) {
		throw new TypeError(`Expected \`cancelGraceMs\` to be a non-negative number, got ${String(cancelGraceMs)}`);
	}
	const kind: WorkerKind = { entry: options.workerEntry ?? DEFAULT_WORKER_ENTRY, stackMb: workerStackMb(limits) };
	workerPool().warm(kind);
	liveSandboxes++;
	let alive = true;
	let running = false;
	let current: HostRun | null = null;

	async function run(request: SandboxRunRequest): Promise<SandboxOutcome> {
		checkRequest(request);
		if (!alive) throw new Error("The sandbox is disposed. Create a new one with `createSandbox()`");
		if (running)
			throw new Error("The sandbox is already running. Wait for `run()` to resolve, or use another sandbox");
		const data = encodeHostValue(request.data, "data", limits.maxValueBytes);
		if (!data.ok && data.problem.kind === "value_not_json") throw new TypeError(data.problem.message);
		if (!data.ok) return { ok: false, error: { ...data.problem } };
		const { signal } = request;
		if (signal?.aborted) return cancelledOutcome(signal);
		running = true;
		try {
			return await start({ runId: nextRunId++, request, dataJson: data.json ?? "null", limits, cancelGraceMs });
		} finally {
			running = false;
			current = null;
		}
	}

	async function start(setup: HostRunSetup): Promise<SandboxOutcome> {
		const { signal } = setup.request;
		let lease: WorkerLease;
		try {
			lease = await workerPool().lease(kind);
		} catch (error) {
			return {
				ok: false,
				error: { kind: "internal", message: `Could not start a sandbox worker: ${String(error)}` },
			};
		}
		workerPool().warm(kind);
		if (signal?.aborted || !alive) {
			lease.release();
			return signal?.aborted
				? cancelledOutcome(signal)
				: { ok: false, error: { kind: "cancelled", message: DISPOSED } };
		}
		const hostRun = new HostRun(lease, setup);
		current = hostRun;
		const onAbort = () => hostRun.cancel(reasonText(signal?.reason));
		signal?.addEventListener("abort", onAbort, { once: true });
		try {
			return await hostRun.outcome;
		} finally {
			signal?.removeEventListener("abort", onAbort);
		}
	}

	return {
		run,
		get alive() {
			return alive;
		},
		async dispose() {
			if (!alive) return;
			alive = false;
			liveSandboxes--;
			const inFlight = current;
			if (inFlight) {
				inFlight.cancel(DISPOSED);
				await inFlight.outcome;
			}
		},
	};
}

/** Counts of live sandboxes, runs and workers in this process. */
export function sandboxStats(): SandboxStats {
	const stats: SandboxStats = {
		liveSandboxes,
		activeRuns: runCounters.active,
		...workerPool().stats(),
		engineDisposeFailures: runCounters.disposeFailures,
	};
	if (runCounters.lastDisposeError !== undefined) stats.lastEngineDisposeError = runCounters.lastDisposeError;
	return stats;
}

/**
 * Starts a worker for sandboxes with these options in the background, unless one is ready or starting, so that the
 * first run does not wait for a worker to start (a few hundred ms on a slow machine). Throws `TypeError` for bad
 * options. The worker does not keep the process alive.
 */
export function warmSandboxPool(options: Pick<SandboxOptions, "limits" | "workerEntry"> = {}): void {
	const limits = resolveLimits(options.limits);
	workerPool().warm({ entry: options.workerEntry ?? DEFAULT_WORKER_ENTRY, stackMb: workerStackMb(limits) });
}

/** Ends the warm workers of the pool (runs in progress keep theirs). Call before the process must exit promptly. */
export function shutdownSandboxPool(): Promise<void> {
	return workerPool().shutdown();
}

function checkRequest(request: SandboxRunRequest): void {
	if (typeof request !== "object" || request === null) {
		throw new TypeError(`Expected \`request\` to be an object, got ${String(request)}`);
	}
	for (const key of ["prelude", "body", "filename"] as const) {
		if (typeof request[key] !== "string") {
			throw new TypeError(`Expected \`request.${key}\` to be a string, got ${typeof request[key]}`);
		}
	}
	if (request.filename === "" || request.filename === "<prelude>" || request.filename === "<sandbox>") {
		throw new TypeError(`Expected \`request.filename\` to be a file name of the script, got \`${request.filename}\``);
	}
	if (typeof request.hostFunctions !== "object" || request.hostFunctions === null) {
		throw new TypeError(`Expected \`request.hostFunctions\` to be an object, got ${String(request.hostFunctions)}`);
	}
	for (const [name, fn] of Object.entries(request.hostFunctions)) {
		if (typeof fn !== "object" || fn === null || typeof fn.fn !== "function" || !KINDS.includes(fn.kind)) {
			throw new TypeError(
				`Expected \`hostFunctions.${name}\` to be { kind: "async" | "sync" | "event", fn }, got ${String(fn?.kind)}`,
			);
		}
		if (fn.params !== undefined && (!Array.isArray(fn.params) || fn.params.some((p) => typeof p !== "string"))) {
			throw new TypeError(`Expected \`hostFunctions.${name}.params\` to be an array of strings`);
		}
		if (fn.callSite !== undefined && typeof fn.callSite !== "boolean") {
			throw new TypeError(`Expected \`hostFunctions.${name}.callSite\` to be a boolean, got ${typeof fn.callSite}`);
		}
		if (fn.watchChanges !== undefined && typeof fn.watchChanges !== "function") {
			throw new TypeError(
				`Expected \`hostFunctions.${name}.watchChanges\` to be a function, got ${typeof fn.watchChanges}`,
			);
		}
		if (fn.watchChanges !== undefined && fn.kind !== "sync") {
			throw new TypeError(
				`Expected \`hostFunctions.${name}\` with \`watchChanges\` to be of kind "sync", got "${fn.kind}"`,
			);
		}
	}
	if (request.signal !== undefined && !(request.signal instanceof AbortSignal)) {
		throw new TypeError("Expected `request.signal` to be an AbortSignal");
	}
	if (request.onEventError !== undefined && typeof request.onEventError !== "function") {
		throw new TypeError("Expected `request.onEventError` to be a function");
	}
}

function cancelledOutcome(signal: AbortSignal): SandboxOutcome {
	return { ok: false, error: { kind: "cancelled", message: reasonText(signal.reason) } };
}

function reasonText(reason: unknown): string {
	if (reason instanceof Error) return reason.message;
	if (typeof reason === "string" && reason !== "") return reason;
	return "The run was cancelled";
}
