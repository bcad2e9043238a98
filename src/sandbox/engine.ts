/**
 * One run inside a worker: a fresh WASM instance with its own capped memory, a QuickJS runtime and context,
 * the guest boot, prelude and body, the bridge for host calls, and the disposal of every handle at the end.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, VmCallResult } from "quickjs-emscripten-core";
import { type DescribedThrow, dropFirstFrame, type ErrorPhase, limitMessage, toGuestError } from "./guest-error.ts";
import { GuestHelpers } from "./guest-helpers.ts";
import { BOOT_SOURCE, type QuickJSInstance } from "./instance.ts";
import { DEFAULT_SANDBOX_LIMITS, quickjsMemoryLimit, wasmMemoryPages } from "./limits.ts";
import {
	type EngineReport,
	type HostCallResult,
	type HostFunctionSpec,
	type HostMessage,
	MAX_WIRE_DEPTH,
	type WireOutcome,
} from "./protocol.ts";
import type { GuestError } from "./types.ts";

/** How a run reaches the host; implemented by the worker loop over its ports. */
export interface EngineBridge {
	/**
	 * Posts an async or event call, or holds it back to go with the slice's next calls; first waits while the host
	 * has too many calls unread. True when calls are held back.
	 */
	post(callId: number, spec: HostFunctionSpec, argsJson: string): boolean;
	/**
	 * Posts a sync call and blocks until the host answers, or gives a cached function's last answer again while it
	 * still holds; `null` when the run was cancelled meanwhile.
	 */
	callSync(callId: number, spec: HostFunctionSpec, argsJson: string): HostCallResult | null;
	/** True once the host asked the run to stop. */
	cancelRequested(): boolean;
	/**
	 * Called now and then while guest code runs and calls are held back: they go out if the host is waiting for them.
	 * True when calls are still held back.
	 */
	poll(): boolean;
	/** Guest code starts running (a new slice); the host's watchdog measures slices from here. */
	enterSlice(): void;
	/** The worker is back to waiting for the host. */
	leaveSlice(): void;
}

type RunMessage = Extract<HostMessage, { type: "run" }>;

/** Share of a memory limit above which an engine failure, or a thrown null, is taken for running out of memory. */
const NEAR_CAP = 0.75;

/** Time we allow the guest's `describe()` to read a thrown value once the run has ended. */
const DESCRIBE_SLICE_MS = 1000;

/**
 * Answers settled per guest call (a guest call takes its arguments on the engine's stack), and their text: large
 * answers go a few at a time, so their texts are not all in the guest's memory at once.
 */
const SETTLE_BATCH = 64;
const SETTLE_BATCH_CHARS = 256 * 1024;

/** One run of guest code. `done` resolves once, with the outcome and how cleanly the engine went away. */
export class EngineRun {
	readonly done: Promise<{ outcome: WireOutcome; engine: EngineReport }>;
	private resolveDone!: (value: { outcome: WireOutcome; engine: EngineReport }) => void;
	private readonly owned: QuickJSHandle[] = [];
	/** Async calls the host has not answered, with the stack a rejection gets. */
	private readonly pending = new Map<number, { site: string }>();
	private helpers: GuestHelpers | null = null;
	private bodyPromise: QuickJSHandle | null = null;
	private nextCallId = 1;
	private deadline = Number.POSITIVE_INFINITY;
	/** True while a slice is open: guest code ran since the worker last went back to waiting for the host. */
	private inSlice = false;
	/** True while the bridge holds back calls of this slice (the interrupt handler then polls it). */
	private holding = false;
	private tripped: "cpu" | "cancel" | null = null;
	private outcome: WireOutcome | null = null;
	private completed = false;
	private reusable = true;
	/** False after a host-level exception: the instance may be corrupt, so it is dropped rather than freed. */
	private disposable = true;

	private readonly runtime: QuickJSRuntime;
	private readonly context: QuickJSContext;
	private readonly instance: QuickJSInstance;
	private readonly request: RunMessage;
	private readonly bridge: EngineBridge;

	private constructor(instance: QuickJSInstance, request: RunMessage, bridge: EngineBridge) {
		this.instance = instance;
		this.runtime = instance.runtime;
		this.context = instance.prepared?.context ?? instance.runtime.newContext();
		if (instance.prepared) this.own(instance.prepared.boot);
		this.request = request;
		this.bridge = bridge;
		this.done = new Promise((resolve) => {
			this.resolveDone = resolve;
		});
		this.runtime.setMemoryLimit(quickjsMemoryLimit(request.limits));
		this.runtime.setMaxStackSize(request.limits.stackBytes);
		this.runtime.setInterruptHandler(() => this.shouldInterrupt());
	}

	/** Starts running `request` on `instance`, a fresh engine that no other run has used. */
	static async start(
		instance: Promise<QuickJSInstance>,
		request: RunMessage,
		bridge: EngineBridge,
	): Promise<EngineRun> {
		const run = new EngineRun(await instance, request, bridge);
		run.guard(() => run.begin());
		return run;
	}

	/**
	 * The host's answers to async calls, settled together: their promises in a few guest calls (one per
	 * `SETTLE_BATCH`), then the jobs they unblock in one pass.
	 */
	settle(answers: readonly { callId: number; result: HostCallResult }[]): void {
		this.guard(() => {
			const helpers = this.helpers as GuestHelpers;
			let batch: QuickJSHandle[] = [];
			let chars = 0;
			for (const { callId, result } of answers) {
				const entry = this.pending.get(callId);
				if (this.outcome || !entry) continue;
				this.pending.delete(callId);
				this.resume();
				batch.push(this.context.newNumber(callId), ...helpers.payload(result, entry.site));
				chars += result.ok ? (result.json?.length ?? 0) : 0;
				if (batch.length >= SETTLE_BATCH * 3 || chars >= SETTLE_BATCH_CHARS) {
					helpers.settle(batch);
					batch = [];
					chars = 0;
				}
			}
			if (batch.length > 0) helpers.settle(batch);
			this.pump();
		});
	}

	/** True while the run can only go on once the host answers: it has unanswered calls, and no guest code runs. */
	waitingForHost(): boolean {
		return !this.outcome && !this.inSlice && this.pending.size > 0;
	}

	/** Ends the run as cancelled (the host also set the shared flag, for code that is running). */
	cancel(): void {
		this.guard(() =>
			this.finish({
				ok: false,
				error: { kind: "cancelled", message: limitMessage("cancelled", this.request.limits) },
			}),
		);
	}

	private begin(): void {
		const { context, request } = this;
		const boot = this.instance.prepared?.boot ?? this.evaluate(BOOT_SOURCE, "<sandbox>", "boot");
		if (!boot) return;
		const rawCall = this.own(
			context.newFunction("hostCall", (index, args, site) => this.hostCall(index, args, site)),
		);
		const maxChars = this.own(context.newNumber(request.limits.maxValueBytes));
		const maxDepth = this.own(context.newNumber(MAX_WIRE_DEPTH));
		const helpers = this.call(boot, context.undefined, [rawCall, maxChars, maxDepth], "boot");
		if (!helpers) return;
		this.helpers = new GuestHelpers(context, helpers);
		const specs = this.decodeOwned(JSON.stringify(request.functions), "boot");
		const host = specs && this.call(this.helpers.makeHost, context.undefined, [specs], "boot");
		const data = host && this.decodeOwned(request.dataJson, "prelude");
		const prelude = data && this.evaluate(request.prelude, "<prelude>", "prelude");
		if (!host || !data || !prelude) return;
		if (context.typeof(prelude) !== "function") {
			this.finish(internal(`The prelude's completion value must be a function, got ${context.typeof(prelude)}`));
			return;
		}
		if (!this.call(prelude, context.undefined, [host, data], "prelude")) return;
		const body = this.evaluate(request.body, request.filename, "body");
		if (!body) return;
		const state = context.getPromiseState(body);
		if (state.type === "fulfilled" && state.notAPromise) {
			const message = `The body's completion value must be a promise, got ${context.typeof(body)}`;
			this.finish({ ok: false, error: { kind: "thrown", name: "TypeError", message } });
			return;
		}
		if (state.type === "fulfilled") state.value.dispose();
		if (state.type === "rejected") state.error.dispose();
		this.bodyPromise = body;
		this.pump();
	}

	/** Runs queued jobs until the body's promise settles, or nothing more can happen until the host answers. */
	private pump(): void {
		const { context, runtime } = this;
		while (!this.outcome && this.bodyPromise) {
			if (this.tripped === null && runtime.hasPendingJob()) {
				this.resume();
				const jobs = runtime.executePendingJobs();
				if (jobs.error) {
					this.failWith(jobs.error, "running");
					jobs.error.dispose();
				}
				continue;
			}
			const state = context.getPromiseState(this.bodyPromise);
			if (state.type === "rejected") {
				this.failWith(state.error, "running");
				state.error.dispose();
			} else if (this.tripped !== null) {
				// A job stopped by the interrupt handler only rejects its own promise; the run still ends here.
				if (state.type === "fulfilled") state.value.dispose();
				this.finishTripped(this.tripped);
			} else if (state.type === "fulfilled") {
				this.succeedWith(state.value);
				state.value.dispose();
			} else if (this.pending.size === 0) {
				this.finish({
					ok: false,
					error: { kind: "unsettled", message: limitMessage("unsettled", this.request.limits) },
				});
			}
			return;
		}
	}

	private hostCall(
		indexHandle: QuickJSHandle,
		argsHandle: QuickJSHandle,
		siteHandle: QuickJSHandle,
	): VmCallResult<QuickJSHandle> | QuickJSHandle | undefined {
		const { context, request } = this;
		const helpers = this.helpers as GuestHelpers;
		const spec = request.functions[context.getNumber(indexHandle)];
		const argsJson = context.getString(argsHandle);
		const site = dropFirstFrame(context.getString(siteHandle));
		if (Buffer.byteLength(argsJson) > request.limits.maxValueBytes) {
			const message = `The arguments of \`${spec.name}\` are larger than ${request.limits.maxValueBytes} bytes as JSON, the limit for a value crossing the sandbox boundary`;
			const props = { code: "limit_value_size", path: spec.name };
			return { error: helpers.makeError({ name: "TypeError", message, props }, site) };
		}
		const callId = this.nextCallId++;
		// Waiting for the host inside a slice does not start a new one: a loop of host calls that never awaits
		// still ends at `syncSliceMs` (it used to run for ever on `budget` reads).
		if (spec.kind === "event") {
			this.holding = this.bridge.post(callId, spec, argsJson);
			return undefined;
		}
		if (spec.kind === "async") {
			this.pending.set(callId, { site });
			this.holding = this.bridge.post(callId, spec, argsJson);
			// The guest makes the call's promise under this id (guest.ts, `makeHost`).
			return context.newNumber(callId);
		}
		const answer = this.bridge.callSync(callId, spec, argsJson);
		if (answer === null) {
			return { error: helpers.makeError({ name: "Error", message: "The run was cancelled", props: {} }, site) };
		}
		if (!answer.ok) return { error: helpers.makeError(answer.error, site) };
		return answer.json === undefined ? undefined : context.newString(answer.json);
	}

	private succeedWith(value: QuickJSHandle): void {
		const { context, helpers, request } = this;
		if (context.typeof(value) === "undefined" || !helpers) {
			this.finish({ ok: true, json: "null" });
			return;
		}
		this.resume();
		const encoded = helpers.encode(value, "result");
		if ("error" in encoded) {
			this.failWith(encoded.error, "running");
			encoded.error.dispose();
		} else if ("failure" in encoded) {
			const { kind, message, path, found } = encoded.failure;
			this.finish({ ok: false, error: { kind, message, path, ...(found ? { found } : {}) } });
		} else if (Buffer.byteLength(encoded.json) > request.limits.maxValueBytes) {
			const message = `\`result\` is larger than ${request.limits.maxValueBytes} bytes as JSON, the limit for a value crossing the sandbox boundary`;
			this.finish({ ok: false, error: { kind: "limit_value_size", message, path: "result" } });
		} else {
			this.finish({ ok: true, json: encoded.json });
		}
	}

	/** Ends the run with the error the guest threw (or QuickJS raised); `phase` tells syntax errors apart. */
	private failWith(thrown: QuickJSHandle, phase: ErrorPhase): void {
		if (this.outcome) return;
		const { limits, filename } = this.request;
		if (this.tripped === "cancel" || this.bridge.cancelRequested()) {
			this.finish({ ok: false, error: { kind: "cancelled", message: limitMessage("cancelled", limits) } });
			return;
		}
		const trippedBefore = this.tripped;
		// When QuickJS cannot even allocate its "out of memory" error, it throws null instead. Built-ins that allocate
		// through the runtime's allocator (`String.prototype.normalize`) fail without raising anything: what is caught
		// is then the engine's "uninitialized" placeholder, which reads as undefined but is not, and no script makes.
		const placeholder =
			this.context.typeof(thrown) === "undefined" && !this.context.sameValue(thrown, this.context.undefined);
		if (
			placeholder ||
			(this.context.sameValue(thrown, this.context.null) && this.nearCap(quickjsMemoryLimit(limits)))
		) {
			this.reusable = false;
			this.finish({ ok: false, error: { kind: "limit_memory", message: limitMessage("limit_memory", limits) } });
			return;
		}
		const described = this.describe(thrown);
		// Reading the thrown value can run the script's getters, which may run out of time themselves.
		const tripped = trippedBefore ?? this.tripped;
		const error = toGuestError(described, { filename, phase, tripped, limits });
		if (error.kind.startsWith("limit_")) this.reusable = false;
		this.finish({ ok: false, error });
	}

	/** Ends the run for a limit our interrupt handler enforced, when no error value reached us. */
	private finishTripped(tripped: "cpu" | "cancel"): void {
		const kind = tripped === "cpu" ? "limit_cpu" : "cancelled";
		if (kind === "limit_cpu") this.reusable = false;
		this.finish({ ok: false, error: { kind, message: limitMessage(kind, this.request.limits) } });
	}

	/** Reads a thrown value through the guest's captured helpers, with a fresh slice and the full memory cap. */
	private describe(thrown: QuickJSHandle): DescribedThrow {
		const { context, helpers } = this;
		if (!helpers) return { message: String(context.dump(thrown)), props: {} };
		this.tripped = null;
		this.deadline = performance.now() + Math.min(DESCRIBE_SLICE_MS, this.request.limits.syncSliceMs);
		this.runtime.setMemoryLimit(-1);
		return helpers.describe(thrown) ?? { message: "The script threw a value that could not be read", props: {} };
	}

	private evaluate(code: string, filename: string, phase: ErrorPhase): QuickJSHandle | null {
		this.resume(true, phase);
		const result = this.context.evalCode(code, filename, { type: "global", strict: true });
		if (result.error) {
			this.failWith(result.error, phase);
			result.error.dispose();
			return null;
		}
		return this.own(result.value);
	}

	private call(
		fn: QuickJSHandle,
		self: QuickJSHandle,
		args: QuickJSHandle[],
		phase: ErrorPhase,
	): QuickJSHandle | null {
		this.resume(true, phase);
		const result = this.context.callFunction(fn, self, args);
		if (result.error) {
			this.failWith(result.error, phase);
			result.error.dispose();
			return null;
		}
		return this.own(result.value);
	}

	private decodeOwned(json: string, phase: ErrorPhase): QuickJSHandle | null {
		this.resume(true, phase);
		const result = (this.helpers as GuestHelpers).decode(json);
		if (result.error) {
			this.failWith(result.error, phase);
			result.error.dispose();
			return null;
		}
		return this.own(result.value);
	}

	private shouldInterrupt(): boolean {
		if (this.tripped !== null) return true;
		if (this.holding) this.holding = this.bridge.poll();
		if (this.bridge.cancelRequested()) this.tripped = "cancel";
		else if (performance.now() > this.deadline) this.tripped = "cpu";
		return this.tripped !== null;
	}

	/**
	 * Called whenever guest code is about to run. A slice starts when the worker comes back from waiting for the host
	 * (or, `fresh`, for each step of the boot): the jobs, the result's encoding and the rest of one step share it, so
	 * a script cannot stretch a stretch that never awaits to several slices (it got up to 2 × syncSliceMs).
	 */
	private resume(fresh = false, phase?: ErrorPhase): void {
		if (this.inSlice && !fresh) return;
		this.inSlice = true;
		const { syncSliceMs } = this.request.limits;
		if (phase === "boot" || phase === "prelude") {
			// Not the script's code: the sandbox's boot and the runtime's prelude (in a fresh worker, V8 compiles QuickJS's
			// functions while they run) are bounded by the default slice at least, and the host's watchdog does not time
			// them; `syncSliceMs` bounds the script's own stretches, from its body on.
			this.deadline = performance.now() + Math.max(syncSliceMs, DEFAULT_SANDBOX_LIMITS.syncSliceMs);
			this.bridge.leaveSlice();
			return;
		}
		this.deadline = performance.now() + syncSliceMs;
		this.bridge.enterSlice();
	}

	private own(handle: QuickJSHandle): QuickJSHandle {
		this.owned.push(handle);
		return handle;
	}

	/**
	 * Runs an engine step, then completes the run if the step finished it: disposal waits until the step has
	 * freed its own handles. A host-level exception (a WASM trap, our own bug) ends the run and retires the worker.
	 */
	private guard(step: () => void): void {
		try {
			step();
			this.inSlice = false;
			this.holding = false;
			this.bridge.leaveSlice();
		} catch (error) {
			this.inSlice = false;
			this.holding = false;
			this.bridge.leaveSlice();
			this.reusable = false;
			this.disposable = false;
			if (!this.outcome) {
				// The engine cannot say why it died; a memory close to the cap means a failed grow did it.
				const nearCap = this.nearCap(wasmMemoryPages(this.request.limits).maximum * 65536);
				this.outcome = nearCap
					? {
							ok: false,
							error: { kind: "limit_memory", message: limitMessage("limit_memory", this.request.limits) },
						}
					: internal(
							`The sandbox engine failed: ${[describeHostError(error), ...this.instance.engineLog].join("; ")}`,
						);
			}
		}
		if (this.outcome && !this.completed) this.complete(this.outcome);
	}

	/** True when the run's memory has grown close to `bytes`. */
	private nearCap(bytes: number): boolean {
		return this.instance.memory.buffer.byteLength >= bytes * NEAR_CAP;
	}

	/** Records the outcome; the enclosing `guard` completes the run. */
	private finish(outcome: WireOutcome): void {
		if (!this.outcome) this.outcome = outcome;
	}

	private complete(outcome: WireOutcome): void {
		this.completed = true;
		const report: EngineReport = {
			disposedCleanly: false,
			reusable: this.reusable,
			instantiateMs: this.instance.instantiateMs,
		};
		if (this.disposable) {
			try {
				this.disposeAll();
				report.disposedCleanly = true;
			} catch (error) {
				report.disposeError = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
				report.reusable = false;
			}
		}
		this.resolveDone({ outcome, engine: report });
	}

	private disposeAll(): void {
		this.pending.clear();
		this.helpers?.dispose();
		for (const handle of this.owned.reverse()) if (handle.alive) handle.dispose();
		this.owned.length = 0;
		this.context.dispose();
		this.runtime.dispose();
	}
}

/** `{ name, message }` of an engine failure, which may be an Error or an Emscripten `ExitStatus` object. */
function describeHostError(error: unknown): string {
	if (typeof error === "object" && error !== null) {
		const { name, message } = error as { name?: unknown; message?: unknown };
		if (typeof message === "string") return typeof name === "string" ? `${name}: ${message}` : message;
	}
	return String(error);
}

function internal(message: string): WireOutcome {
	const error: GuestError = { kind: "internal", message };
	return { ok: false, error };
}
