/**
 * A fresh QuickJS instance for one run: the module compiled once per worker, instantiated with its own
 * `WebAssembly.Memory` whose maximum is the run's memory cap (QuickJS's own memory limit does not bound the
 * WASM heap by itself), and Emscripten's complaints kept for error messages instead of going to stderr.
 */
import {
	type CustomizeVariantOptions,
	newQuickJSWASMModuleFromVariant,
	newVariant,
	type QuickJSRuntime,
	type QuickJSSyncVariant,
} from "quickjs-emscripten-core";
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
}

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
