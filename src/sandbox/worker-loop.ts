/**
 * The worker's side of the protocol: compile the QuickJS module once and warm it up, then serve up to
 * `RUNS_PER_WORKER` runs side by side, each in its own instance, routing host calls over the parent port (async,
 * event; a slice's calls go as one message) or blocking on the control buffer (sync). The next run's instance is
 * made ahead.
 */
import { readFileSync } from "node:fs";
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import type { QuickJSSyncVariant } from "quickjs-emscripten-core";
import { type EngineBridge, EngineRun } from "./engine.ts";
import { InstanceSupply } from "./instance.ts";
import { DEFAULT_SANDBOX_LIMITS } from "./limits.ts";
import {
	CONTROL,
	callWeight,
	type HostCallResult,
	type HostMessage,
	type HostPost,
	MAX_UNREAD_CALL_WEIGHT,
	RUN_SLOT,
	runSlot,
	type SyncAnswer,
	sliceClock,
	type WorkerBoot,
	type WorkerMessage,
} from "./protocol.ts";
import { warmUp } from "./warm-up.ts";
import { wasm } from "./wasm.ts";

/**
 * Serves runs in this worker thread with the given QuickJS build. `wasmUrl` is the build's `.wasm` file.
 * TypeScript reads the build packages' types as CommonJS (a `default` property) while Node loads their ESM
 * entry (the variant itself), so both shapes are accepted.
 */
export function serveWorker(build: QuickJSSyncVariant | { default: QuickJSSyncVariant }, wasmUrl: string): void {
	const variant = "default" in build ? build.default : build;
	const port = parentPort;
	if (!port) throw new Error("serveWorker() must run in a worker thread");
	const boot = workerData as WorkerBoot;
	const control = new Int32Array(boot.control);
	const supply = new InstanceSupply(variant, new wasm.Module(readFileSync(new URL(wasmUrl))));
	const post = (message: WorkerMessage) => port.postMessage(message);
	/** The runs this worker serves, by id; each has its own instance, so nothing of one reaches another. */
	const runs = new Map<number, ServedRun>();

	const bridgeFor = (runId: number, slot: number): EngineBridge => {
		const cancel = runSlot(slot, RUN_SLOT.cancel);
		const consumed = runSlot(slot, RUN_SLOT.consumed);
		// Weight of this run's call messages posted so far (wrapping like the host's count in its consumed slot), and of
		// those that have left the worker.
		let posted = 0;
		let sent = 0;
		// Calls held back while the host has not read the ones before (it will read these as one message, with one
		// wake-up), until it has, or the slice ends. A call made while the host is caught up goes at once, so a call
		// just before a long stretch (a log, then a native stall) is not held.
		let outbox: WorkerMessage[] = [];
		let outboxWeight = 0;
		const flush = () => {
			if (outbox.length === 0) return;
			post(outbox.length === 1 ? (outbox[0] as WorkerMessage) : { type: "batch", runId, messages: outbox });
			outbox = [];
			outboxWeight = 0;
			sent = posted;
		};
		const caughtUp = () => Atomics.load(control, consumed) === sent;
		// Last answers of cached sync functions, by name: still the host's answer while the guest has posted
		// nothing since (any post clears them) and the host's change count is the one read before asking.
		const answers = new Map<string, { argsJson: string; changes: number; result: HostCallResult }>();
		return {
			post: (callId, spec, argsJson) => {
				answers.clear();
				if (((posted - Atomics.load(control, consumed)) | 0) > MAX_UNREAD_CALL_WEIGHT) {
					flush();
					waitForHostToRead(control, consumed, cancel, posted);
				}
				const weight = callWeight(argsJson);
				posted = (posted + weight) | 0;
				const wasEmpty = outbox.length === 0;
				outbox.push({ type: "call", runId, callId, name: spec.name, kind: spec.kind, argsJson });
				outboxWeight += weight;
				if ((wasEmpty && caughtUp()) || outboxWeight > MAX_BATCH_WEIGHT) flush();
				return outbox.length > 0;
			},
			callSync: (callId, spec, argsJson) => {
				const changes = Atomics.load(control, runSlot(slot, RUN_SLOT.changes));
				const last = spec.cached ? answers.get(spec.name) : undefined;
				if (last && last.changes === changes && last.argsJson === argsJson) return last.result;
				answers.clear();
				posted = (posted + callWeight(argsJson)) | 0;
				outbox.push({ type: "call", runId, callId, name: spec.name, kind: "sync", argsJson });
				flush();
				const result = waitForAnswer(control, cancel, boot.syncPort, runId, callId);
				if (spec.cached && result?.ok) answers.set(spec.name, { argsJson, changes, result });
				return result;
			},
			cancelRequested: () => Atomics.load(control, cancel) !== 0,
			poll: () => {
				if (outbox.length > 0 && caughtUp()) flush();
				return outbox.length > 0;
			},
			enterSlice: () => {
				Atomics.store(control, CONTROL.sliceStart, sliceClock());
				Atomics.store(control, CONTROL.sliceSlot, slot);
				Atomics.store(control, CONTROL.busy, 1);
			},
			leaveSlice: () => {
				flush();
				Atomics.store(control, CONTROL.busy, 0);
			},
		};
	};

	const deliver = (served: ServedRun, message: HostMessage) => {
		if (!served.engine) served.queue.push(message);
		else if (message.type === "settle") served.engine.settle([message]);
		else if (message.type === "cancel") served.engine.cancel();
	};

	const start = (message: Extract<HostMessage, { type: "run" }>) => {
		const served: ServedRun = { engine: null, queue: [] };
		runs.set(message.runId, served);
		drain(boot.syncPort);
		EngineRun.start(supply.take(message.limits), message, bridgeFor(message.runId, message.slot)).then(
			(engine) => {
				served.engine = engine;
				const queued = served.queue.splice(0);
				const settles = queued.filter((item) => item.type === "settle");
				if (settles.length > 0) engine.settle(settles);
				if (queued.some((item) => item.type === "cancel")) engine.cancel();
				engine.done.then(({ outcome, engine: report }) => {
					runs.delete(message.runId);
					post({ type: "done", runId: message.runId, outcome, engine: report });
					supply.prepare(message.limits);
				});
			},
			(error: unknown) => {
				runs.delete(message.runId);
				post({
					type: "fatal",
					runId: message.runId,
					message: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
				});
			},
		);
	};

	port.on("message", (message: HostPost) => {
		if (message.type === "run") {
			start(message);
			return;
		}
		const messages = message.type === "batch" ? message.messages : [message];
		// The settles of one run in a batch are delivered together: one pass over its jobs for all of them.
		const settles = new Map<ServedRun, Extract<HostMessage, { type: "settle" }>[]>();
		for (const item of messages) {
			const served = runs.get(item.runId);
			if (!served) continue;
			if (item.type === "settle" && served.engine) {
				const list = settles.get(served);
				if (list) list.push(item);
				else settles.set(served, [item]);
			} else deliver(served, item);
		}
		for (const [served, list] of settles) served.engine?.settle(list);
	});
	warmUp(supply.take(DEFAULT_SANDBOX_LIMITS)).then(() => {
		supply.prepare(DEFAULT_SANDBOX_LIMITS);
		post({ type: "ready" });
	});
}

/** A run this worker serves; messages that arrive while its engine starts wait in `queue`. */
interface ServedRun {
	engine: EngineRun | null;
	queue: HostMessage[];
}

/** Weight of calls (see `callWeight`) held back for one message; past it they go at once. */
const MAX_BATCH_WEIGHT = 256 * 1024;

/**
 * Blocks while the host has more than `MAX_UNREAD_CALL_WEIGHT` of this run's calls unread (or until the run is
 * cancelled). The wait is part of the slice, like a sync call's.
 */
function waitForHostToRead(control: Int32Array, consumedSlot: number, cancelSlot: number, posted: number): void {
	for (;;) {
		const consumed = Atomics.load(control, consumedSlot);
		if (((posted - consumed) | 0) <= MAX_UNREAD_CALL_WEIGHT || Atomics.load(control, cancelSlot) !== 0) return;
		Atomics.wait(control, consumedSlot, consumed, 50);
	}
}

/** Blocks until the host answers this sync call; `null` when the run is cancelled first. */
function waitForAnswer(control: Int32Array, cancelSlot: number, syncPort: MessagePort, runId: number, callId: number) {
	for (;;) {
		const received = receiveMessageOnPort(syncPort);
		if (received) {
			const answer = received.message as SyncAnswer;
			if (answer.runId === runId && answer.callId === callId) return answer.result;
			continue;
		}
		if (Atomics.load(control, cancelSlot) !== 0) return null;
		Atomics.wait(control, CONTROL.syncReady, 0);
		Atomics.store(control, CONTROL.syncReady, 0);
	}
}

/** Drops answers left over from an earlier run's cancelled sync call. */
function drain(syncPort: MessagePort): void {
	while (receiveMessageOnPort(syncPort)) {}
}
