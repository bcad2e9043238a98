import { afterEach, describe, expect, it } from "vitest";
import { sandboxStats, shutdownSandboxPool, warmSandboxPool } from "../../src/sandbox/index.ts";
import { request, runOnce } from "./support.ts";

/** Polls `check` until it is true; false after `ms`. */
async function eventually(check: () => boolean, ms = 20_000): Promise<boolean> {
	const until = Date.now() + ms;
	while (!check()) {
		if (Date.now() > until) return false;
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
	return true;
}

afterEach(async () => {
	await shutdownSandboxPool();
});

describe("warmSandboxPool()", () => {
	it("starts one worker in the background, which waits idle for the first run", async () => {
		warmSandboxPool();
		warmSandboxPool();
		expect(sandboxStats().liveWorkers).toBe(1);
		expect(await eventually(() => sandboxStats().idleWorkers === 1)).toBe(true);
		const outcome = await runOnce(request("return 1 + 1;"));
		expect(outcome).toEqual({ ok: true, value: 2 });
	});

	it("throws a TypeError for bad limits", () => {
		expect(() => warmSandboxPool({ limits: { stackBytes: 1 } })).toThrow(TypeError);
	});
});

describe("shutdownSandboxPool()", () => {
	it("also ends a worker that is still starting, so none comes up afterwards", async () => {
		warmSandboxPool();
		await shutdownSandboxPool();
		expect(sandboxStats().liveWorkers).toBe(0);
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(sandboxStats()).toMatchObject({ liveWorkers: 0, idleWorkers: 0 });
	});

	it("counts a worker being ended as live until its thread exits, never as kept idle", async () => {
		warmSandboxPool();
		expect(await eventually(() => sandboxStats().idleWorkers === 1)).toBe(true);
		const ending = shutdownSandboxPool();
		// The leak checks read `idleWorkers` against the pool's size: one on its way out is not one kept.
		expect(sandboxStats().idleWorkers).toBe(0);
		await ending;
		expect(sandboxStats()).toMatchObject({ liveWorkers: 0, idleWorkers: 0 });
	});
});
