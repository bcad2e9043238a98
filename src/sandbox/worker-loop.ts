/**
 * The worker's side of the protocol: compile the QuickJS module once and warm it up, then serve runs one at a time,
 * routing host calls over the parent port (async, event) or blocking on the control buffer (sync). Between runs
 * the next run's instance is made ahead.
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
	MAX_UNREAD_CALL_WEIGHT,
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
	let current: { runId: number; engine: EngineRun | null; queue: HostMessage[] } | null = null;

	const bridgeFor = (runId: number): EngineBridge => {
		// Weight of this run's call messages posted so far (wrapping like the host's count in CONTROL.consumed).
		let posted = 0;
		// Last answers of cached sync functions, by name: still the host's answer while the guest has posted
		// nothing since (any post clears them) and the host's change count is the one read before asking.
		const answers = new Map<string, { argsJson: string; changes: number; result: HostCallResult }>();
		return {
			post: (callId, spec, argsJson) => {
				answers.clear();
				waitForHostToRead(control, posted);
				posted = (posted + callWeight(argsJson)) | 0;
				post({ type: "call", runId, callId, name: spec.name, kind: spec.kind, argsJson });
			},
			callSync: (callId, spec, argsJson) => {
				const changes = Atomics.load(control, CONTROL.changes);
				const last = spec.cached ? answers.get(spec.name) : undefined;
				if (last && last.changes === changes && last.argsJson === argsJson) return last.result;
				answers.clear();
				posted = (posted + callWeight(argsJson)) | 0;
				post({ type: "call", runId, callId, name: spec.name, kind: "sync", argsJson });
				const result = waitForAnswer(control, boot.syncPort, runId, callId);
				if (spec.cached && result?.ok) answers.set(spec.name, { argsJson, changes, result });
				return result;
			},
			cancelRequested: () => Atomics.load(control, CONTROL.cancel) !== 0,
			enterSlice: () => {
				Atomics.store(control, CONTROL.sliceStart, sliceClock());
				Atomics.store(control, CONTROL.busy, 1);
			},
			leaveSlice: () => Atomics.store(control, CONTROL.busy, 0),
		};
	};

	const deliver = (engine: EngineRun, message: HostMessage) => {
		if (message.type === "settle") engine.settle(message.callId, message.result);
		else if (message.type === "cancel") engine.cancel();
	};

	port.on("message", (message: HostMessage) => {
		if (message.type !== "run") {
			if (current?.runId !== message.runId) return;
			if (current.engine) deliver(current.engine, message);
			else current.queue.push(message);
			return;
		}
		const run: { runId: number; engine: EngineRun | null; queue: HostMessage[] } = {
			runId: message.runId,
			engine: null,
			queue: [],
		};
		current = run;
		drain(boot.syncPort);
		EngineRun.start(supply.take(message.limits), message, bridgeFor(message.runId)).then(
			(engine) => {
				run.engine = engine;
				for (const queued of run.queue.splice(0)) deliver(engine, queued);
				engine.done.then(({ outcome, engine: report }) => {
					if (current === run) current = null;
					post({ type: "done", runId: run.runId, outcome, engine: report });
					supply.prepare(message.limits);
				});
			},
			(error: unknown) => {
				if (current === run) current = null;
				post({
					type: "fatal",
					message: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
				});
			},
		);
	});
	warmUp(supply.take(DEFAULT_SANDBOX_LIMITS)).then(() => {
		supply.prepare(DEFAULT_SANDBOX_LIMITS);
		post({ type: "ready" });
	});
}

/**
 * Blocks while the host has more than `MAX_UNREAD_CALL_WEIGHT` of this run's calls unread (or until the run is
 * cancelled). The wait is part of the slice, like a sync call's.
 */
function waitForHostToRead(control: Int32Array, posted: number): void {
	for (;;) {
		const consumed = Atomics.load(control, CONTROL.consumed);
		if (((posted - consumed) | 0) <= MAX_UNREAD_CALL_WEIGHT || Atomics.load(control, CONTROL.cancel) !== 0) return;
		Atomics.wait(control, CONTROL.consumed, consumed, 50);
	}
}

/** Blocks until the host answers this sync call; `null` when the run is cancelled first. */
function waitForAnswer(control: Int32Array, syncPort: MessagePort, runId: number, callId: number) {
	for (;;) {
		const received = receiveMessageOnPort(syncPort);
		if (received) {
			const answer = received.message as SyncAnswer;
			if (answer.runId === runId && answer.callId === callId) return answer.result;
			continue;
		}
		if (Atomics.load(control, CONTROL.cancel) !== 0) return null;
		Atomics.wait(control, CONTROL.syncReady, 0);
		Atomics.store(control, CONTROL.syncReady, 0);
	}
}

/** Drops answers left over from an earlier run's cancelled sync call. */
function drain(syncPort: MessagePort): void {
	while (receiveMessageOnPort(syncPort)) {}
}
