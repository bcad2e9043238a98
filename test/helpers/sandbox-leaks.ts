/** For progress tests that run real workflows: after each test no sandbox, run or leased worker is left behind. */
import { afterAll, afterEach, expect } from "vitest";
import { sandboxStats, shutdownSandboxPool } from "../../src/sandbox/index.ts";

export function checkSandboxLeaks(): void {
	afterEach(() => {
		const stats = sandboxStats();
		expect(stats.liveSandboxes, "sandboxes left alive").toBe(0);
		expect(stats.activeRuns, "runs left active").toBe(0);
		expect(stats.leasedWorkers, "workers left leased").toBe(0);
	});
	afterAll(async () => {
		await shutdownSandboxPool();
	});
}
