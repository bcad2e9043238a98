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
	type HostFunctionSpec,
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
	const supply = new InstanceSupply(variant, new wasm.Module(readFileSync(new URL(wasmUrl))));
	const post = (message: WorkerMessage) => port.postMessage(message);
	const runs = new WorkerRuns(workerData as WorkerBoot, supply, post, port);
	port.on("message", (message: HostPost) => runs.receive(message));
	warmUp(supply.take(DEFAULT_SANDBOX_LIMITS)).then(() => {
		supply.prepare(DEFAULT_SANDBOX_LIMITS);
		post({ type: "ready" });
	});
}

/** The runs this worker serves, by id; each has its own instance, so nothing of one reaches another. */
class WorkerRuns {
	readonly #runs = new Map<number, ServedRun>();
	readonly #boot: WorkerBoot;
	readonly #control: Int32Array;
	readonly #supply: InstanceSupply;
	readonly #post: (message: WorkerMessage) => void;
	readonly #port: MessagePort;
	#waitScheduled = false;

	constructor(boot: WorkerBoot, supply: InstanceSupply, post: (message: WorkerMessage) => void, port: MessagePort) {
		this.#boot = boot;
		this.#control = new Int32Array(boot.control);
		this.#supply = supply;
		this.#post = post;
		this.#port = port;
	}

	/** A message from the host: a run to start, or messages for runs under way (several, in a batch). */
	receive(message: HostPost): void {
		this.#handle(message);
		if (this.#waitScheduled) return;
		this.#waitScheduled = true;
		// After this turn's promise jobs (an ended run's `done` is one).
		setImmediate(() => {
			this.#waitScheduled = false;
			this.#waitForHost();
		});
	}

	/**
	 * While this worker serves a single run that can only go on once the host answers, waits for the host's next
	 * message on the control buffer and reads it from the port itself: a thread woken that way skips its event loop's
	 * wake-up and message dispatch (about 7 % of a call in sequence, docs/performance.md, issue 50). Back to the event
	 * loop after `HOST_WAIT_MS` without a message (a real agent's answer takes seconds), or once the run does anything
	 * else: a sleeping worker runs none of its own asynchronous work.
	 */
	#waitForHost(): void {
		let until = performance.now() + HOST_WAIT_MS;
		for (;;) {
			if (this.#runs.size !== 1) return;
			const [served] = this.#runs.values();
			if (!served?.engine?.waitingForHost()) return;
			const seen = Atomics.load(this.#control, CONTROL.hostPosted);
			const received = receiveMessageOnPort(this.#port);
			if (received) {
				this.#handle(received.message as HostPost);
				until = performance.now() + HOST_WAIT_MS;
				continue;
			}
			const left = until - performance.now();
			if (left <= 0) return;
			Atomics.wait(this.#control, CONTROL.hostPosted, seen, left);
		}
	}

	#handle(message: HostPost): void {
		if (message.type === "run") {
			this.#start(message);
			return;
		}
		const messages = message.type === "batch" ? message.messages : [message];
		// The settles of one run in a batch are delivered together: one pass over its jobs for all of them.
		const settles = new Map<ServedRun, Extract<HostMessage, { type: "settle" }>[]>();
		for (const item of messages) {
			const served = this.#runs.get(item.runId);
			if (!served) continue;
			if (item.type === "settle" && served.engine) {
				const list = settles.get(served);
				if (list) list.push(item);
				else settles.set(served, [item]);
			} else deliver(served, item);
		}
		for (const [served, list] of settles) served.engine?.settle(list);
	}

	/** Starts a run in the instance made ahead, hands it what arrived meanwhile, and makes the next one when it ends. */
	#start(message: Extract<HostMessage, { type: "run" }>): void {
		const served: ServedRun = { engine: null, queue: [] };
		this.#runs.set(message.runId, served);
		drain(this.#boot.syncPort);
		const bridge = new RunBridge(this.#control, this.#boot.syncPort, this.#post, message.runId, message.slot);
		EngineRun.start(this.#supply.take(message.limits), message, bridge).then(
			(engine) => {
				served.engine = engine;
				const queued = served.queue.splice(0);
				const settles = queued.filter((item) => item.type === "settle");
				if (settles.length > 0) engine.settle(settles);
				if (queued.some((item) => item.type === "cancel")) engine.cancel();
				engine.done.then(({ outcome, engine: report }) => {
					this.#runs.delete(message.runId);
					this.#post({ type: "done", runId: message.runId, outcome, engine: report });
					this.#supply.prepare(message.limits);
				});
			},
			(error: unknown) => {
				this.#runs.delete(message.runId);
				this.#post({
					type: "fatal",
					runId: message.runId,
					message: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
				});
			},
		);
	}
}

/** A message for a run: held while its engine starts, else handed to it. */
function deliver(served: ServedRun, message: HostMessage): void {
	if (!served.engine) served.queue.push(message);
	else if (message.type === "settle") served.engine.settle([message]);
	else if (message.type === "cancel") served.engine.cancel();
}

/**
 * One run's side of the host calls. Async and event calls are held back while the host has not read the ones
 * before (it will read these as one message, with one wake-up), until it has, or the slice ends; a call made while
 * the host is caught up goes at once, so a call just before a long stretch (a log, then a native stall) is not held.
 */
class RunBridge implements EngineBridge {
	readonly #control: Int32Array;
	readonly #syncPort: MessagePort;
	readonly #send: (message: WorkerMessage) => void;
	readonly #runId: number;
	readonly #slot: number;
	readonly #cancel: number;
	readonly #consumed: number;
	// Weight of this run's call messages posted so far (wrapping like the host's count in its consumed slot), and of
	// those that have left the worker.
	#posted = 0;
	#sent = 0;
	#outbox: WorkerMessage[] = [];
	#outboxWeight = 0;
	// Last answers of cached sync functions, by name: still the host's answer while the guest has posted
	// nothing since (any post clears them) and the host's change count is the one read before asking.
	readonly #answers = new Map<string, { argsJson: string; changes: number; result: HostCallResult }>();

	constructor(
		control: Int32Array,
		syncPort: MessagePort,
		send: (message: WorkerMessage) => void,
		runId: number,
		slot: number,
	) {
		this.#control = control;
		this.#syncPort = syncPort;
		this.#send = send;
		this.#runId = runId;
		this.#slot = slot;
		this.#cancel = runSlot(slot, RUN_SLOT.cancel);
		this.#consumed = runSlot(slot, RUN_SLOT.consumed);
	}

	post(callId: number, spec: HostFunctionSpec, argsJson: string): boolean {
		this.#answers.clear();
		if (((this.#posted - Atomics.load(this.#control, this.#consumed)) | 0) > MAX_UNREAD_CALL_WEIGHT) {
			this.#flush();
			waitForHostToRead(this.#control, this.#consumed, this.#cancel, this.#posted);
		}
		const weight = callWeight(argsJson);
		this.#posted = (this.#posted + weight) | 0;
		const wasEmpty = this.#outbox.length === 0;
		this.#outbox.push({ type: "call", runId: this.#runId, callId, name: spec.name, kind: spec.kind, argsJson });
		this.#outboxWeight += weight;
		if ((wasEmpty && this.#caughtUp()) || this.#outboxWeight > MAX_BATCH_WEIGHT) this.#flush();
		return this.#outbox.length > 0;
	}

	callSync(callId: number, spec: HostFunctionSpec, argsJson: string): HostCallResult | null {
		const changes = Atomics.load(this.#control, runSlot(this.#slot, RUN_SLOT.changes));
		const last = spec.cached ? this.#answers.get(spec.name) : undefined;
		if (last && last.changes === changes && last.argsJson === argsJson) return last.result;
		this.#answers.clear();
		this.#posted = (this.#posted + callWeight(argsJson)) | 0;
		this.#outbox.push({ type: "call", runId: this.#runId, callId, name: spec.name, kind: "sync", argsJson });
		this.#flush();
		const result = waitForAnswer(this.#control, this.#cancel, this.#syncPort, this.#runId, callId);
		if (spec.cached && result?.ok) this.#answers.set(spec.name, { argsJson, changes, result });
		return result;
	}

	cancelRequested(): boolean {
		return Atomics.load(this.#control, this.#cancel) !== 0;
	}

	poll(): boolean {
		if (this.#outbox.length > 0 && this.#caughtUp()) this.#flush();
		return this.#outbox.length > 0;
	}

	enterSlice(): void {
		Atomics.store(this.#control, CONTROL.sliceStart, sliceClock());
		Atomics.store(this.#control, CONTROL.sliceSlot, this.#slot);
		Atomics.store(this.#control, CONTROL.busy, 1);
	}

	leaveSlice(): void {
		this.#flush();
		Atomics.store(this.#control, CONTROL.busy, 0);
	}

	#flush(): void {
		if (this.#outbox.length === 0) return;
		const outbox = this.#outbox;
		this.#send(
			outbox.length === 1 ? (outbox[0] as WorkerMessage) : { type: "batch", runId: this.#runId, messages: outbox },
		);
		this.#outbox = [];
		this.#outboxWeight = 0;
		this.#sent = this.#posted;
	}

	/** The host has read every call this run sent. */
	#caughtUp(): boolean {
		return Atomics.load(this.#control, this.#consumed) === this.#sent;
	}
}

/** A run this worker serves; messages that arrive while its engine starts wait in `queue`. */
interface ServedRun {
	engine: EngineRun | null;
	queue: HostMessage[];
}

/** How long a worker serving one run waits for the host on the control buffer before going back to its event loop. */
const HOST_WAIT_MS = 50;

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
