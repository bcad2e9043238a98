import { describe, expect, it } from "vitest";
import type { HostFunction } from "../../src/sandbox/index.ts";
import { checkLeaks, request, runOnce, sandbox } from "./support.ts";

checkLeaks();

/** A host function that never answers. */
const never: HostFunction = { kind: "async", fn: () => new Promise(() => {}) };

/** An event host function that aborts `controller` once the guest has reached it. */
function abortWhenCalled(controller: AbortController, reason: unknown, delayMs = 0): HostFunction {
	return { kind: "event", fn: () => void setTimeout(() => controller.abort(reason), delayMs) };
}

describe("cancelling a run", () => {
	it("while the guest awaits a host call: ends with cancelled and the signal's reason", async () => {
		const controller = new AbortController();
		const outcome = await runOnce(
			request(
				"host.reached(); await host.never();",
				{ never, reached: abortWhenCalled(controller, new Error("user stopped")) },
				{
					signal: controller.signal,
				},
			),
		);
		expect(outcome).toEqual({ ok: false, error: { kind: "cancelled", message: "user stopped" } });
	});

	it("while the guest is busy: stops it through the interrupt handler", async () => {
		const controller = new AbortController();
		const outcome = await runOnce(
			request(
				"host.reached(); for (;;) {}",
				{ reached: abortWhenCalled(controller, "stop now", 50) },
				{
					signal: controller.signal,
				},
			),
			{ cancelGraceMs: 60_000 },
		);
		expect(outcome).toEqual({ ok: false, error: { kind: "cancelled", message: "stop now" } });
	});

	it("while the guest is blocked in a sync call the host never answers", async () => {
		const controller = new AbortController();
		const stuck: HostFunction = { kind: "sync", fn: () => new Promise(() => {}) };
		const outcome = await runOnce(
			request(
				"host.reached(); host.stuck();",
				{ stuck, reached: abortWhenCalled(controller, "stop", 50) },
				{
					signal: controller.signal,
				},
			),
			{ cancelGraceMs: 60_000 },
		);
		expect(outcome).toEqual({ ok: false, error: { kind: "cancelled", message: "stop" } });
	});

	it("while the guest is stuck in native code: terminates the worker after the grace period", async () => {
		const controller = new AbortController();
		const outcome = await runOnce(
			request(
				"let v = []; for (let i = 0; i < 200000; i++) v = [v]; host.reached(); JSON.stringify(v);",
				{
					reached: abortWhenCalled(controller, "stop", 50),
				},
				{ signal: controller.signal },
			),
			{ cancelGraceMs: 100 },
		);
		expect(outcome).toEqual({ ok: false, error: { kind: "cancelled", message: "stop" } });
	});

	it("with a signal aborted before the run: ends with cancelled without running anything", async () => {
		let called = false;
		const touch: HostFunction = {
			kind: "event",
			fn: () => {
				called = true;
			},
		};
		const outcome = await runOnce(
			request("host.touch();", { touch }, { signal: AbortSignal.abort(new Error("too late")) }),
		);
		expect(outcome).toEqual({ ok: false, error: { kind: "cancelled", message: "too late" } });
		expect(called).toBe(false);
	});

	it("leaves the sandbox able to run again", async () => {
		const box = sandbox();
		try {
			const controller = new AbortController();
			const first = await box.run(
				request(
					"host.reached(); await host.never();",
					{ never, reached: abortWhenCalled(controller, "x") },
					{
						signal: controller.signal,
					},
				),
			);
			expect(first).toMatchObject({ ok: false, error: { kind: "cancelled" } });
			expect(await box.run(request("return 'again';"))).toEqual({ ok: true, value: "again" });
		} finally {
			await box.dispose();
		}
	});
});

describe("Sandbox.dispose", () => {
	it("cancels a run in progress, and later runs reject", async () => {
		const box = sandbox();
		let disposed!: Promise<void>;
		const reached: HostFunction = {
			kind: "event",
			fn: () => {
				disposed = box.dispose();
			},
		};
		const outcome = await box.run(request("host.reached(); await host.never();", { never, reached }));
		await disposed;
		expect(outcome).toEqual({ ok: false, error: { kind: "cancelled", message: "The sandbox was disposed" } });
		expect(box.alive).toBe(false);
		await expect(box.run(request("return 1;"))).rejects.toThrow(
			"The sandbox is disposed. Create a new one with `createSandbox()`",
		);
		await box.dispose();
	});
});
