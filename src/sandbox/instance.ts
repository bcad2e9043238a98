/**
 * A fresh QuickJS instance for one run: the module compiled once per worker, instantiated with its own
 * `WebAssembly.Memory` whose maximum is the run's memory cap (QuickJS's own memory limit does not bound the
 * WASM heap by itself), and Emscripten's complaints kept for error messages instead of going to stderr.
 * The supply makes the next run's instance while the worker waits, so a run does not wait for it.
 */
import {
	type CustomizeVariantOptions,
	newQuickJSWASMModuleFromVariant,
	newVariant,
	type QuickJSContext,
	type QuickJSHandle,
	type QuickJSRuntime,
	type QuickJSSyncVariant,
} from "quickjs-emscripten-core";
import { bootGuest } from "./guest.ts";
import { wasmMemoryPages } from "./limits.ts";
import type { SandboxLimits } from "./types.ts";
import { type WasmMemory, type WasmModule, wasm } from "./wasm.ts";

/** One run's engine before any guest code. */
export interface QuickJSInstance {
	runtime: QuickJSRuntime;
	memory: WasmMemory;
	/** The last lines Emscripten printed (a failed memory grow, an abort). */
	engineLog: string[];
	/** Time taken to instantiate, in ms. */
	instantiateMs: number;
	/**
	 * A context made ahead, in which only the guest boot function has been evaluated (not called), so the run that
	 * takes this instance skips compiling it. That run owns both.
	 */
	prepared?: { context: QuickJSContext; boot: QuickJSHandle };
}

/** The guest boot function as source text; evaluating it only makes the function. */
export const BOOT_SOURCE = `(${bootGuest.toString()})`;

/** Lines of Emscripten output kept per run. */
const LOG_LINES = 5;

/** Instantiates `wasmModule` with a fresh memory capped at `limits.memoryBytes`. */
export async function instantiate(
	variant: QuickJSSyncVariant,
	wasmModule: WasmModule,
	limits: SandboxLimits,
): Promise<QuickJSInstance> {
	const started = performance.now();
	const memory = new wasm.Memory(wasmMemoryPages(limits));
	const engineLog: string[] = [];
	const printErr = (line: string) => {
		if (engineLog.push(line) > LOG_LINES) engineLog.shift();
	};
	// quickjs-emscripten types these options with the DOM's WebAssembly types, which we do not load.
	const options = {
		wasmModule,
		wasmMemory: memory,
		emscriptenModule: { printErr, print: printErr },
	} as unknown as CustomizeVariantOptions;
	const quickjs = await newQuickJSWASMModuleFromVariant(newVariant(variant, options));
	return { runtime: quickjs.newRuntime(), memory, engineLog, instantiateMs: performance.now() - started };
}

/** Fresh instances, one made ahead of need. An instance is handed out once and never reused. */
export class InstanceSupply {
	private spare: { maximum: number; instance: Promise<QuickJSInstance> } | null = null;
	private readonly variant: QuickJSSyncVariant;
	private readonly wasmModule: WasmModule;

	constructor(variant: QuickJSSyncVariant, wasmModule: WasmModule) {
		this.variant = variant;
		this.wasmModule = wasmModule;
	}

	/** An unused instance for a run with these limits: the spare when its memory cap matches, else a new one. */
	take(limits: SandboxLimits): Promise<QuickJSInstance> {
		const spare = this.spare;
		this.spare = null;
		if (spare?.maximum === wasmMemoryPages(limits).maximum) return spare.instance;
		if (spare) spare.instance.then(disposeInstance, ignore);
		return instantiate(this.variant, this.wasmModule, limits);
	}

	/** Makes the spare for the next run, expected to have these limits (the last run's are the best guess). */
	prepare(limits: SandboxLimits): void {
		if (this.spare) return;
		// A spare that failed to instantiate is tried once more, so the run that takes it gets a fresh attempt's error.
		const instance = instantiate(this.variant, this.wasmModule, limits)
			.then(withBoot)
			.catch(() => instantiate(this.variant, this.wasmModule, limits));
		this.spare = { maximum: wasmMemoryPages(limits).maximum, instance };
	}
}

/** The instance with a context made and the boot function evaluated in it, or as it was if that failed. */
function withBoot(instance: QuickJSInstance): QuickJSInstance {
	const context = instance.runtime.newContext();
	const boot = context.evalCode(BOOT_SOURCE, "<sandbox>", { type: "global", strict: true });
	if (boot.error) {
		// The run evaluates it again and reports what went wrong.
		boot.error.dispose();
		context.dispose();
		return instance;
	}
	return { ...instance, prepared: { context, boot: boot.value } };
}

/** Frees an instance no run took. */
function disposeInstance(instance: QuickJSInstance): void {
	instance.prepared?.boot.dispose();
	instance.prepared?.context.dispose();
	instance.runtime.dispose();
}

function ignore(): void {}
