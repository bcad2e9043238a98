/**
 * The few WebAssembly types the sandbox uses. TypeScript declares `WebAssembly` only in its DOM libraries,
 * which this package does not load, so the global is typed here once.
 */

/** A compiled module, opaque to us: compiled once per worker and instantiated once per run. */
export type WasmModule = object;

/** A linear memory; its `maximum` is the run's memory cap. */
export interface WasmMemory {
	readonly buffer: ArrayBuffer;
}

interface WasmApi {
	Module: new (bytes: Uint8Array) => WasmModule;
	Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
}

/** `globalThis.WebAssembly`, typed. */
export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
