import { describe, expect, it } from "vitest";
import { type HostFunction, sandboxStats } from "../../src/sandbox/index.ts";
import { watchHostBlocking } from "../helpers/host-cpu.ts";
import { checkLeaks, request, runOnce, sandbox } from "./support.ts";

checkLeaks();

/** Serves runs with QuickJS's debug build, which asserts on every leaked object when a runtime is freed. */
const debugWorker = new URL("./debug-worker.ts", import.meta.url);

const hostFunctions: Record<string, HostFunction> = {
	ok: { kind: "async", fn: async ([x]) => ({ x: x ?? null }) },
	sync: { kind: "sync", fn: ([x]) => ({ x: x ?? null }) },
	note: { kind: "event", fn: () => {} },
	fail: {
		kind: "async",
		fn: async () => {
			throw Object.assign(new Error("nope"), { code: "E_NOPE", details: { a: [1] } });
		},
	},
	failSync: {
		kind: "sync",
		fn: () => {
			throw new Error("nope");
		},
	},
	never: { kind: "async", fn: () => new Promise(() => {}) },
};

/** Scripts that take every path through the engine: success, errors both ways, limits, unsettled. */
const SCRIPTS: [string, string][] = [
	["host calls of every kind", "const a = await host.ok(1); const b = host.sync(2); host.note(3); return { a, b };"],
	["a thrown error", "throw new Error('boom');"],
	["a syntax error", "let x = ;"],
	["a rejected async call", "try { await host.fail(); } catch (e) { return e.details; }"],
	["a throwing sync call", "try { host.failSync(); } catch (e) { return e.message; }"],
	["calls left in flight", "host.never(); host.never(); throw new Error('gave up');"],
	["an unsettled promise", "await new Promise(() => {});"],
	["a bad argument", "await host.ok(() => 1);"],
	["a bad result", "return { f() {} };"],
	["a stack overflow", "const f = () => f(); f();"],
	["a deep JSON.parse", "JSON.parse('['.repeat(100000));"],
	["an endless loop", "for (;;) {}"],
];

describe("engine disposal (debug build)", () => {
	it.each(SCRIPTS)("frees every QuickJS object after %s", async (_what, source) => {
		await runOnce(request(source, hostFunctions), { workerEntry: debugWorker, limits: { syncSliceMs: 300 } });
		expect(sandboxStats().engineDisposeFailures, sandboxStats().lastEngineDisposeError).toBe(0);
	});

	it("frees every QuickJS object after a cancel", async () => {
		const controller = new AbortController();
		const reached: HostFunction = { kind: "event", fn: () => void setTimeout(() => controller.abort("stop"), 20) };
		const outcome = await runOnce(
			request("host.reached(); await host.never();", { ...hostFunctions, reached }, { signal: controller.signal }),
			{ workerEntry: debugWorker },
		);
		expect(outcome).toMatchObject({ ok: false, error: { kind: "cancelled" } });
		expect(sandboxStats().engineDisposeFailures, sandboxStats().lastEngineDisposeError).toBe(0);
	});
});

describe("worker lifetimes", () => {
	it("keeps at most the pool's idle workers once runs are over", async () => {
		await Promise.all(Array.from({ length: 4 }, () => runOnce(request("return 1;"))));
		const stats = sandboxStats();
		expect(stats.leasedWorkers).toBe(0);
		expect(stats.idleWorkers).toBeLessThanOrEqual(2);
	});

	it("keeps the host's event loop responsive while the guest is busy", async () => {
		// The host's CPU time between timer ticks, not the timer's lateness: load delays a timer, not the host's work.
		const host = watchHostBlocking();
		const box = sandbox({ limits: { syncSliceMs: 500 } });
		try {
			await box.run(request("return 1;"));
			host.enable();
			const outcome = await box.run(request("for (;;) {}"));
			host.disable();
			expect(outcome).toMatchObject({ ok: false, error: { kind: "limit_cpu" } });
			expect(host.max, `host code held the event loop for ${host.max} ms of CPU time`).toBeLessThan(100);
		} finally {
			await box.dispose();
		}
	});
});
