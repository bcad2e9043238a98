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
	RUN_SLOT,
	runSlot,
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
	/** Messages not handled yet, in the worker's order (a "done" never overtakes the calls before it). */
	private readonly inbox: WorkerMessage[] = [];
	/** Weight of the calls handled in this turn of the event loop; reset on the next turn. */
	private turnWeight = 0;
	private nextTurn: NodeJS.Immediate | null = null;
	/** This run's slots in the worker's control buffer. */
	private readonly cancelSlot: number;
	private readonly consumedSlot: number;

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
		this.cancelSlot = runSlot(lease.slot, RUN_SLOT.cancel);
		this.consumedSlot = runSlot(lease.slot, RUN_SLOT.consumed);
		Atomics.store(lease.control, this.cancelSlot, 0);
		Atomics.store(lease.control, this.consumedSlot, 0);
		const changesSlot = runSlot(lease.slot, RUN_SLOT.changes);
		const changed = () => Atomics.add(lease.control, changesSlot, 1);
		for (const fn of Object.values(request.hostFunctions)) {
			if (fn.watchChanges) this.unwatch.push(fn.watchChanges(changed));
		}
		this.watch();
		lease.attach(runId, {
			message: (message) => this.enqueue(message),
			exit: (code, error, reason) =>
				this.end(
					internal(
						reason === undefined
							? `The sandbox worker stopped unexpectedly (exit code ${code})${error}`
							: `The sandbox worker this run shared with other runs was ended because ${reason}; this run was lost with it. Run the script again`,
					),
					"gone",
				),
		});
		const { prelude, body, filename } = request;
		const slot = lease.slot;
		this.post({ type: "run", runId, slot, prelude, body, filename, dataJson, functions, limits });
	}

	/** Asks the run to stop; a worker that does not answer within the grace period is terminated. */
	cancel(reason: string): void {
		if (this.settled || this.cancelReason !== null) return;
		this.cancelReason = reason;
		const { control } = this.lease;
		Atomics.store(control, this.cancelSlot, 1);
		Atomics.store(control, CONTROL.syncReady, 1);
		Atomics.notify(control, CONTROL.syncReady);
		this.post({ type: "cancel", runId: this.setup.runId, reason });
		this.graceTimer = setTimeout(() => {
			// A worker in another run's slice reaches the cancel when that slice ends (the watchdog bounds it): this run
			// ends now and its slot frees when the worker reports it done. A worker in this run's slice is stuck in it.
			const elsewhere = !this.inSlice() && this.lease.neighbours() > 0;
			this.end(this.cancelled(), elsewhere ? "abandon" : "terminate", "it did not stop when cancelled");
		}, this.setup.cancelGraceMs);
	}

	/** Whether the worker is in a slice of this run. */
	private inSlice(): boolean {
		const { control, slot } = this.lease;
		return Atomics.load(control, CONTROL.busy) === 1 && Atomics.load(control, CONTROL.sliceSlot) === slot;
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
		const ran = this.inSlice() ? (now - Atomics.load(control, CONTROL.sliceStart)) | 0 : 0;
		if (ran >= allowed) {
			const message = limitMessage("limit_cpu", this.setup.limits);
			this.end(
				this.cancelReason !== null ? this.cancelled() : { ok: false, error: { kind: "limit_cpu", message } },
				"terminate",
				`another run on it was stuck in native code for more than ${allowed} ms (its limit_cpu)`,
			);
			return;
		}
		this.watchdog = setTimeout(() => this.watch(), allowed - Math.max(0, ran));
		this.watchdog.unref();
	}

	private enqueue(message: WorkerMessage): void {
		if (this.settled) return;
		// A slice's calls come as one batch; each is checked on its own as it is handled.
		if (typeof message === "object" && message !== null && message.type === "batch") {
			if (!Array.isArray(message.messages) || message.messages.length === 0) {
				this.end(corruptOutcome("a batch message holds no messages"), "terminate", CORRUPT);
				return;
			}
			for (const inner of message.messages) this.inbox.push(inner);
		} else this.inbox.push(message);
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
			this.end(corruptOutcome(message.problem), "terminate", CORRUPT);
		} else if (message.type === "call") {
			const { call } = message;
			// dispatch() does not reject; if it ever did, an unhandled rejection would end the host process.
			this.dispatch(call).catch((error: unknown) =>
				this.end(internal(`A host call failed outside its handler: ${describeThrown(error)}`), "retire"),
			);
			// Read: a worker waiting for the host to catch up may post again.
			const weight = callWeight(call.argsJson);
			this.turnWeight += weight;
			this.nextTurn ??= setImmediate(() => {
				this.nextTurn = null;
				this.turnWeight = 0;
				this.drain();
			});
			Atomics.add(this.lease.control, this.consumedSlot, weight);
			Atomics.notify(this.lease.control, this.consumedSlot);
		} else if (message.type === "done") {
			if (!message.engine.disposedCleanly && message.engine.disposeError) {
				runCounters.disposeFailures++;
				runCounters.lastDisposeError = message.engine.disposeError;
			}
			const keep = message.engine.reusable && message.engine.disposedCleanly;
			const outcome: SandboxOutcome = this.cancelReason !== null ? this.cancelled() : message.outcome;
			this.end(outcome, keep ? "release" : "retire");
		} else if (message.type === "fatal") {
			this.end(internal(`The sandbox worker failed: ${message.message}`), "retire");
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

	/**
	 * Settles the run once: stop listening, hand the worker back, retire it (it ends once its other runs end), leave
	 * it to finish this run's cancel on its own (`abandon`), or end it now (`terminate`, `gone`: the other runs on it
	 * fail, told `why`); then resolve.
	 */
	private end(
		outcome: SandboxOutcome,
		worker: "release" | "retire" | "abandon" | "terminate" | "gone",
		why = "it failed",
	): void {
		if (this.settled) return;
		this.settled = true;
		if (this.graceTimer) clearTimeout(this.graceTimer);
		if (this.nextTurn) clearImmediate(this.nextTurn);
		if (this.watchdog) clearTimeout(this.watchdog);
		for (const stop of this.unwatch) stop();
		const finished =
			worker === "terminate" || worker === "gone"
				? this.lease.destroy(why)
				: this.lease.release({ retire: worker === "retire", untilDone: worker === "abandon" });
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
		this.lease.post(message);
	}
}

/** What the other runs on a worker are told when a corrupt message ended it. */
const CORRUPT = "another run on it sent a message the host could not trust (its engine's memory may be corrupt)";

function corruptOutcome(problem: string): SandboxOutcome {
	return { ok: false, error: { kind: "corrupt", message: problem } };
}

function internal(message: string): SandboxOutcome {
	const error: GuestError = { kind: "internal", message };
	return { ok: false, error };
}
