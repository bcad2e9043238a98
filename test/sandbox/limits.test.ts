import { describe, expect, it } from "vitest";
import { DEFAULT_SANDBOX_LIMITS } from "../../src/sandbox/index.ts";
import { quickjsMemoryLimit, resolveLimits, wasmMemoryPages, workerStackMb } from "../../src/sandbox/limits.ts";
import { defaultWorkerEntry } from "../../src/sandbox/pool.ts";

const MiB = 1024 * 1024;

describe("resolveLimits", () => {
	it("fills in the defaults", () => {
		expect(resolveLimits(undefined)).toEqual({
			memoryBytes: 256 * MiB,
			stackBytes: MiB,
			syncSliceMs: 5000,
			maxValueBytes: 8 * MiB,
		});
		expect(resolveLimits({ syncSliceMs: 100 })).toEqual({ ...DEFAULT_SANDBOX_LIMITS, syncSliceMs: 100 });
	});

	it.each([
		[
			{ memoryBytes: 1024 },
			"Expected `limits.memoryBytes` to be an integer from 33554432 to 2147483648, got 1024 (number)",
		],
		[{ syncSliceMs: "5" }, "Expected `limits.syncSliceMs` to be an integer from 1 to 86400000, got `5` (string)"],
		[{ stackBytes: 1.5 }, "Expected `limits.stackBytes` to be an integer from 65536 to 67108864, got 1.5 (number)"],
		[{ cpuMs: 1 }, "Expected `limits` keys among memoryBytes, stackBytes, syncSliceMs, maxValueBytes, got `cpuMs`"],
		[null, "Expected `limits` to be an object, got null"],
	])("throws a TypeError for %j", (limits, message) => {
		expect(() => resolveLimits(limits as never)).toThrow(new TypeError(message));
	});
});

describe("derived numbers", () => {
	it("caps the WASM memory at memoryBytes and keeps QuickJS's own limit below it", () => {
		const limits = resolveLimits({ memoryBytes: 64 * MiB });
		expect(wasmMemoryPages(limits)).toEqual({ initial: 256, maximum: 1024 });
		expect(quickjsMemoryLimit(limits)).toBeLessThan(64 * MiB);
		expect(quickjsMemoryLimit(limits)).toBeGreaterThan(48 * MiB);
	});

	it("gives the worker thread 32× QuickJS's stack", () => {
		expect(workerStackMb(resolveLimits({ stackBytes: 2 * MiB }))).toBe(64);
	});
});

describe("defaultWorkerEntry", () => {
	it.each([
		["file:///repo/src/sandbox/pool.ts", "file:///repo/src/sandbox/worker.ts"],
		["file:///repo/dist/sandbox/pool.js", "file:///repo/dist/sandbox/worker.js"],
		[
			"file:///app/node_modules/pi-workflows/src/sandbox/pool.ts",
			"file:///app/node_modules/pi-workflows/dist/sandbox/worker.js",
		],
	])("from %s spawns %s", (moduleUrl, entry) => {
		expect(defaultWorkerEntry(moduleUrl).href).toBe(entry);
	});
});
