/**
 * Shared pieces of the sandbox tests: a minimal prelude that exposes `host` and `data` as globals, a request
 * builder, and the leak check every test file runs after each test.
 */
import { afterAll, afterEach, expect } from "vitest";
import {
	createSandbox,
	type HostFunction,
	type Sandbox,
	type SandboxOptions,
	type SandboxRunRequest,
	type SandboxValue,
	sandboxStats,
	shutdownSandboxPool,
} from "../../src/sandbox/index.ts";

/** Installs `host` and `data` as globals, the way a real prelude installs the script's globals. */
export const PRELUDE = "(host, data) => { globalThis.host = host; globalThis.data = data; }";

/** Wraps statements in an async arrow called at once, on the same line, so positions stay the author's. */
export function body(source: string): string {
	return `(async () => {${source}\n})()`;
}

/** A request with the test prelude; `source` is the body's statements. */
export function request(
	source: string,
	hostFunctions: Record<string, HostFunction> = {},
	extra: Partial<SandboxRunRequest> = {},
): SandboxRunRequest {
	return { prelude: PRELUDE, body: body(source), filename: "wf.js", data: null, hostFunctions, ...extra };
}

const open = new Set<Sandbox>();

/** A sandbox that the leak check disposes (and complains about) if the test forgot to. */
export function sandbox(options?: SandboxOptions): Sandbox {
	const created = createSandbox(options);
	open.add(created);
	return created;
}

/** Runs one request in a fresh sandbox and disposes it. */
export async function runOnce(req: SandboxRunRequest, options?: SandboxOptions) {
	const box = sandbox(options);
	try {
		return await box.run(req);
	} finally {
		await box.dispose();
	}
}

/** Runs `source` and returns the value, failing the test with the guest error otherwise. */
export async function resultOf(
	source: string,
	hostFunctions: Record<string, HostFunction> = {},
	data: SandboxValue = null,
): Promise<SandboxValue> {
	const outcome = await runOnce(request(source, hostFunctions, { data }));
	if (!outcome.ok) throw new Error(`guest failed: ${JSON.stringify(outcome.error)}`);
	return outcome.value;
}

/** After each test: no sandbox, run or leased worker is left, and every engine was freed cleanly. */
export function checkLeaks(): void {
	afterEach(async () => {
		const forgotten = [...open].filter((box) => box.alive);
		for (const box of open) await box.dispose();
		open.clear();
		expect(forgotten.length, "sandboxes left undisposed").toBe(0);
		const stats = sandboxStats();
		expect(stats.liveSandboxes).toBe(0);
		expect(stats.activeRuns).toBe(0);
		expect(stats.leasedWorkers).toBe(0);
		expect(stats.engineDisposeFailures, stats.lastEngineDisposeError).toBe(0);
	});
	afterAll(async () => {
		await shutdownSandboxPool();
	});
}
