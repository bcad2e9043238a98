/**
 * The host's side of one run on a leased worker: send the code, answer host calls, cancel with a grace period,
 * and decide whether the worker goes back to the pool or is terminated.
 */
import { types } from "node:util";
import { limitMessage } from "./guest-error.ts";
import { encodeHostValue, toHostErrorData } from "./marshal.ts";
import type { WorkerLease } from "./pool.ts";
import {
	CONTROL,
	callWeight,
	type HostCallResult,
	type HostFunctionSpec,
	type HostMessage,
	type SyncAnswer,
	sliceClock,
	type WorkerMessage,
} from "./protocol.ts";
import type { GuestError, HostFunctionKind, SandboxLimits, SandboxOutcome, SandboxRunRequest } from "./types.ts";
import { type CheckedCall, checkWorkerMessage, describeThrown, type WireRun } from "./wire-check.ts";

/** Weight of worker calls (see `callWeight`) handled in one turn of the host's event loop, at least one call. */
const MAX_TURN_CALL_WEIGHT = 1024 * 1024;

/**
 * How long past `syncSliceMs` a slice may go on before the watchdog ends the worker. The interrupt handler stops
 * interpreted code at `syncSliceMs` and reports where; this is its time to do so. Well under a second, so that a
 * slice stuck in native code ends within `syncSliceMs` + 1 s, termination included.
 */
const WATCHDOG_MARGIN_MS = 500;

/** Counters for leak checks and diagnostics, shared by every run in this process. */
export const runCounters = { active: 0, disposeFailures: 0, lastDisposeError: undefined as string | undefined };

/** Everything one run needs besides the lease. */
export interface HostRunSetup {
	runId: number;
	request: SandboxRunRequest;
	dataJson: string;
	limits: SandboxLimits;
	cancelGraceMs: number;
}

/** One run on one leased worker. `outcome` resolves once; the lease is released or destroyed before it does. */
export class HostRun {
	readonly outcome: Promise<SandboxOutcome>;
	private resolveOutcome!: (outcome: SandboxOutcome) => void;
	private settled = false;
	private cancelReason: string | null = null;
	private graceTimer: NodeJS.Timeout | null = null;
	private watchdog: NodeJS.Timeout | null = null;
	/** Ends the `watchChanges` subscriptions of the request's cached sync functions. */
	private readonly unwatch: (() => void)[] = [];
	private readonly onMessage = (message: WorkerMessage) => this.enqueue(message);
	/** Messages not handled yet, in the worker's order (a "done" never overtakes the calls before it). */
	private readonly inbox: WorkerMessage[] = [];
	/** Weight of the calls handled in this turn of the event loop; reset on the next turn. */
	private turnWeight = 0;
	private nextTurn: NodeJS.Immediate | null = null;
	private workerError = "";
	private readonly onError = (error: unknown) => {
		this.workerError = `: ${describeThrown(error)}`;
	};
	private readonly onExit = (code: number) =>
		this.end(internal(`The sandbox worker stopped unexpectedly (exit code ${code})${this.workerError}`), "gone");

	private readonly lease: WorkerLease;
	private readonly setup: HostRunSetup;
	/** What a message from the worker is checked against. */
	private readonly wire: WireRun;

	constructor(lease: WorkerLease, setup: HostRunSetup) {
		this.lease = lease;
		this.setup = setup;
		this.outcome = new Promise((resolve) => {
			this.resolveOutcome = resolve;
		});
		runCounters.active++;
		const { request, runId, limits, dataJson } = setup;
		const functions: HostFunctionSpec[] = Object.entries(request.hostFunctions).map(([name, fn]) => ({
			name,
			kind: fn.kind,
			params: fn.params ?? [],
			callSite: fn.callSite !== false,
			cached: fn.watchChanges !== undefined,
		}));
		this.wire = {
			runId,
			functions: new Map<string, HostFunctionKind>(functions.map((spec) => [spec.name, spec.kind])),
			maxValueBytes: limits.maxValueBytes,
		};
		Atomics.store(lease.control, CONTROL.cancel, 0);
		Atomics.store(lease.control, CONTROL.syncReady, 0);
		Atomics.store(lease.control, CONTROL.busy, 0);
		Atomics.store(lease.control, CONTROL.consumed, 0);
		const changed = () => Atomics.add(lease.control, CONTROL.changes, 1);
		for (const fn of Object.values(request.hostFunctions)) {
			if (fn.watchChanges) this.unwatch.push(fn.watchChanges(changed));
		}
		this.watch();
		lease.worker.on("message", this.onMessage);
		lease.worker.on("error", this.onError);
		lease.worker.on("exit", this.onExit);
		const { prelude, body, filename } = request;
		this.post({ type: "run", runId, prelude, body, filename, dataJson, functions, limits });
	}

	/** Asks the run to stop; a worker that does not answer within the grace period is terminated. */
	cancel(reason: string): void {
		if (this.settled || this.cancelReason !== null) return;
		this.cancelReason = reason;
		const { control } = this.lease;
		Atomics.store(control, CONTROL.cancel, 1);
		Atomics.store(control, CONTROL.syncReady, 1);
		Atomics.notify(control, CONTROL.syncReady);
		this.post({ type: "cancel", runId: this.setup.runId, reason });
		this.graceTimer = setTimeout(() => this.end(this.cancelled(), "terminate"), this.setup.cancelGraceMs);
	}

	/**
	 * The watchdog. QuickJS polls its interrupt handler only while it interprets; a long native call (JSON.stringify
	 * of a deep value is quadratic) never yields, so a slice still running `WATCHDOG_MARGIN_MS` past `syncSliceMs`
	 * ends the worker. It looks again when the current slice (or, between slices, the next) could first be late.
	 */
	private watch(): void {
		const { control } = this.lease;
		const allowed = this.setup.limits.syncSliceMs + WATCHDOG_MARGIN_MS;
		const now = sliceClock();
		const ran = Atomics.load(control, CONTROL.busy) === 1 ? (now - Atomics.load(control, CONTROL.sliceStart)) | 0 : 0;
		if (ran >= allowed) {
			const message = limitMessage("limit_cpu", this.setup.limits);
			this.end(
				this.cancelReason !== null ? this.cancelled() : { ok: false, error: { kind: "limit_cpu", message } },
				"terminate",
			);
			return;
		}
		this.watchdog = setTimeout(() => this.watch(), allowed - Math.max(0, ran));
		this.watchdog.unref();
	}

	private enqueue(message: WorkerMessage): void {
		if (this.settled) return;
		this.inbox.push(message);
		this.drain();
	}

	/**
	 * Handles queued messages until this turn's share of call weight is used, then yields to the event loop: Node
	 * delivers a busy port's messages back to back in one turn, and a guest posting large calls would hold it.
	 */
	private drain(): void {
		// Once the share is used, the next turn (scheduled when the first call counted) drains the rest.
		while (!this.settled && this.inbox.length > 0 && this.turnWeight < MAX_TURN_CALL_WEIGHT) {
			this.receive(this.inbox.shift() as WorkerMessage);
		}
	}

	private receive(raw: WorkerMessage): void {
		// Every byte from the worker is untrusted: a script that corrupts its engine's memory can make it post anything.
		const message = checkWorkerMessage(raw, this.wire);
		if (message.type === "corrupt") {
			this.end({ ok: false, error: { kind: "corrupt", message: message.problem } }, "terminate");
		} else if (message.type === "call") {
			const { call } = message;
			// dispatch() does not reject; if it ever did, an unhandled rejection would end the host process.
			this.dispatch(call).catch((error: unknown) =>
				this.end(internal(`A host call failed outside its handler: ${describeThrown(error)}`), "terminate"),
			);
			// Read: a worker waiting for the host to catch up may post again.
			const weight = callWeight(call.argsJson);
			this.turnWeight += weight;
			this.nextTurn ??= setImmediate(() => {
				this.nextTurn = null;
				this.turnWeight = 0;
				this.drain();
			});
			Atomics.add(this.lease.control, CONTROL.consumed, weight);
			Atomics.notify(this.lease.control, CONTROL.consumed);
		} else if (message.type === "done") {
			if (!message.engine.disposedCleanly && message.engine.disposeError) {
				runCounters.disposeFailures++;
				runCounters.lastDisposeError = message.engine.disposeError;
			}
			const keep = message.engine.reusable && message.engine.disposedCleanly;
			const outcome: SandboxOutcome = this.cancelReason !== null ? this.cancelled() : message.outcome;
			this.end(outcome, keep ? "release" : "terminate");
		} else if (message.type === "fatal") {
			this.end(internal(`The sandbox worker failed: ${message.message}`), "terminate");
		}
	}

	private async dispatch(call: CheckedCall): Promise<void> {
		const { request, limits } = this.setup;
		const host = request.hostFunctions[call.name];
		const { args } = call;
		if (call.kind === "event") {
			const report = (error: unknown) => {
				try {
					request.onEventError?.(call.name, error);
				} catch {
					// The host's own reporter threw: nothing is left to tell.
				}
			};
			try {
				const returned = host.fn(args);
				if (types.isPromise(returned)) returned.catch(report);
			} catch (error) {
				report(error);
			}
			return;
		}
		let result: HostCallResult;
		try {
			const encoded = encodeHostValue(await host.fn(args), `${call.name}()`, limits.maxValueBytes);
			result = encoded.ok
				? encoded.json === undefined
					? { ok: true }
					: { ok: true, json: encoded.json }
				: {
						ok: false,
						error: {
							name: "TypeError",
							message: encoded.problem.message,
							props: { code: encoded.problem.kind, path: encoded.problem.path },
						},
					};
		} catch (error) {
			result = { ok: false, error: toHostErrorData(error, limits.maxValueBytes) };
		}
		if (this.settled || this.cancelReason !== null) return;
		if (call.kind === "sync") {
			const answer: SyncAnswer = { type: "answer", runId: call.runId, callId: call.callId, result };
			this.lease.syncPort.postMessage(answer);
			Atomics.store(this.lease.control, CONTROL.syncReady, 1);
			Atomics.notify(this.lease.control, CONTROL.syncReady);
		} else {
			this.post({ type: "settle", runId: call.runId, callId: call.callId, result });
		}
	}

	private cancelled(): SandboxOutcome {
		return { ok: false, error: { kind: "cancelled", message: this.cancelReason ?? "The run was cancelled" } };
	}

	/** Settles the run once: stop listening, hand the worker back or end it, then resolve. */
	private end(outcome: SandboxOutcome, worker: "release" | "terminate" | "gone"): void {
		if (this.settled) return;
		this.settled = true;
		if (this.graceTimer) clearTimeout(this.graceTimer);
		if (this.nextTurn) clearImmediate(this.nextTurn);
		if (this.watchdog) clearTimeout(this.watchdog);
		for (const stop of this.unwatch) stop();
		this.lease.worker.off("message", this.onMessage);
		this.lease.worker.off("error", this.onError);
		this.lease.worker.off("exit", this.onExit);
		const finished = worker === "release" ? Promise.resolve(this.lease.release()) : this.lease.destroy();
		finished.then(
			() => {
				runCounters.active--;
				this.resolveOutcome(outcome);
			},
			(error: unknown) => {
				runCounters.active--;
				this.resolveOutcome(internal(`Could not stop the sandbox worker: ${String(error)}`));
			},
		);
	}

	private post(message: HostMessage): void {
		this.lease.worker.postMessage(message);
	}
}

function internal(message: string): SandboxOutcome {
	const error: GuestError = { kind: "internal", message };
	return { ok: false, error };
}
