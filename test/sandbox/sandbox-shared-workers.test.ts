import { describe, expect, it } from "vitest";
import { type HostFunction, type SandboxOutcome, sandboxStats } from "../../src/sandbox/index.ts";
import { SOLO_WORKERS } from "../../src/sandbox/pool.ts";
import { RUNS_PER_WORKER } from "../../src/sandbox/protocol.ts";
import { checkLeaks, request, runOnce, sandbox } from "./support.ts";

checkLeaks();

/** A host call that waits until `open()`; `waiting(n)` resolves once n calls wait. */
function gate() {
	const waiters: (() => void)[] = [];
	const arrivals: { count: number; resolve: () => void }[] = [];
	let opened = false;
	const fn: HostFunction = {
		kind: "async",
		fn: () =>
			opened
				? Promise.resolve(null)
				: new Promise<null>((resolve) => {
						waiters.push(() => resolve(null));
						for (const arrival of arrivals) if (waiters.length >= arrival.count) arrival.resolve();
					}),
	};
	return {
		fn,
		waiting: (count: number) =>
			new Promise<void>((resolve) => {
				if (waiters.length >= count) resolve();
				else arrivals.push({ count, resolve });
			}),
		open: () => {
			opened = true;
			for (const wake of waiters.splice(0)) wake();
		},
	};
}

/**
 * Runs get a worker of their own until `SOLO_WORKERS` are alive; this fills them with one waiting run each, so the
 * runs a test starts next share the first of them (the pool packs runs into the fullest worker with room).
 */
async function fillSoloWorkers(): Promise<{ release: () => Promise<SandboxOutcome[]> }> {
	const held = gate();
	const fillers = Array.from({ length: SOLO_WORKERS }, () =>
		runOnce(request("await host.wait(); return 'filler';", { wait: held.fn })),
	);
	await held.waiting(SOLO_WORKERS);
	expect(sandboxStats()).toMatchObject({ leasedWorkers: SOLO_WORKERS, runsOnBusiestWorker: 1 });
	return {
		release: () => {
			held.open();
			return Promise.all(fillers);
		},
	};
}

/** The runs a test started after `fillSoloWorkers()` (`count` of them) all share one worker. */
function expectSharing(count: number): void {
	expect(sandboxStats(), "the runs share one worker").toMatchObject({
		leasedWorkers: SOLO_WORKERS,
		runsOnBusiestWorker: count + 1,
	});
}

describe("runs sharing a worker", () => {
	it("each run has its own globals, prototypes and values, though they share a worker thread", async () => {
		const fillers = await fillSoloWorkers();
		const held = gate();
		const count = RUNS_PER_WORKER - 1;
		const runs = Array.from({ length: count }, (_, i) =>
			runOnce(
				request(
					`globalThis.mine = ${i}; Object.prototype.tag = "run ${i}"; Array.prototype.push = () => ${i};
					await host.wait();
					return [globalThis.mine, ({}).tag, [].push(1), typeof globalThis.other];`,
					{ wait: held.fn },
				),
			),
		);
		await held.waiting(count);
		expectSharing(count);
		held.open();
		const outcomes = await Promise.all(runs);
		expect(outcomes).toEqual(
			Array.from({ length: count }, (_, i) => ({ ok: true, value: [i, `run ${i}`, i, "undefined"] })),
		);
		expect(await fillers.release()).toEqual(Array(SOLO_WORKERS).fill({ ok: true, value: "filler" }));
	});

	it("a spinning run is stopped at its slice, and the run beside it goes on and finishes", async () => {
		const fillers = await fillSoloWorkers();
		const held = gate();
		let ticks = 0;
		const tick: HostFunction = { kind: "async", fn: async () => ++ticks };
		const limits = { syncSliceMs: 300 };
		const steady = sandbox({ limits });
		const spinner = sandbox({ limits });
		try {
			const steadyRun = steady.run(
				request("await host.wait(); let n = 0; for (let i = 0; i < 50; i++) n = await host.tick(); return n;", {
					wait: held.fn,
					tick,
				}),
			);
			await held.waiting(1);
			const spinnerRun = spinner.run(request("await host.wait(); for (;;) {}", { wait: held.fn }));
			await held.waiting(2);
			expectSharing(2);
			held.open();
			const [steadyOutcome, spinnerOutcome] = await Promise.all([steadyRun, spinnerRun]);
			expect(spinnerOutcome).toMatchObject({ ok: false, error: { kind: "limit_cpu" } });
			expect(steadyOutcome).toEqual({ ok: true, value: 50 });
			expect(await fillers.release()).toEqual(Array(SOLO_WORKERS).fill({ ok: true, value: "filler" }));
		} finally {
			await steady.dispose();
			await spinner.dispose();
		}
	});

	it("a spinning run does not hold up a run on another worker", async () => {
		const fillers = await fillSoloWorkers();
		const held = gate();
		const limits = { syncSliceMs: 4000 };
		// Fill the first worker: its filler, a spinner and runs that wait beside it.
		const spinner = runOnce(request("await host.wait(); for (;;) {}", { wait: held.fn }), { limits });
		const neighbours = Array.from({ length: RUNS_PER_WORKER - 2 }, () =>
			runOnce(request("await host.wait(); return 'beside';", { wait: held.fn }), { limits }),
		);
		await held.waiting(RUNS_PER_WORKER - 1);
		expectSharing(RUNS_PER_WORKER - 1);
		held.open();
		// That worker is full, so this run goes to another and ends while the spinner spins.
		let spinnerEnded = false;
		void spinner.then(() => {
			spinnerEnded = true;
		});
		const other = await runOnce(request("return 'elsewhere';"), { limits });
		expect(other).toEqual({ ok: true, value: "elsewhere" });
		expect(spinnerEnded, "the other worker's run finished before the spinner was stopped").toBe(false);
		expect(await spinner).toMatchObject({ ok: false, error: { kind: "limit_cpu" } });
		expect(await Promise.all(neighbours)).toEqual(
			Array.from({ length: RUNS_PER_WORKER - 2 }, () => ({ ok: true, value: "beside" })),
		);
		expect(await fillers.release()).toEqual(Array(SOLO_WORKERS).fill({ ok: true, value: "filler" }));
	});

	it("a run stuck in native code ends its worker; the run beside it fails at once, saying why", async () => {
		const fillers = await fillSoloWorkers();
		const held = gate();
		const limits = { syncSliceMs: 300 };
		const never: HostFunction = { kind: "async", fn: () => new Promise(() => {}) };
		const beside = runOnce(request("await host.wait(); await host.never();", { wait: held.fn, never }), { limits });
		await held.waiting(1);
		const stuck = runOnce(
			request("await host.wait(); let v = []; for (let i = 0; i < 200000; i++) v = [v]; JSON.stringify(v);", {
				wait: held.fn,
			}),
			{ limits },
		);
		await held.waiting(2);
		expectSharing(2);
		held.open();
		const [besideOutcome, stuckOutcome] = (await Promise.all([beside, stuck])) as SandboxOutcome[];
		expect(stuckOutcome).toMatchObject({ ok: false, error: { kind: "limit_cpu" } });
		expect(besideOutcome).toMatchObject({ ok: false, error: { kind: "internal" } });
		expect(!besideOutcome.ok && besideOutcome.error.message).toMatch(
			/^The sandbox worker this run shared with other runs was ended because another run on it was stuck in native code for more than 800 ms \(its limit_cpu\); this run was lost with it\. Run the script again$/,
		);
		// The first worker's filler went with it; the others are untouched.
		const fillerOutcomes = await fillers.release();
		expect(fillerOutcomes[0]).toMatchObject({ ok: false, error: { kind: "internal" } });
		expect(fillerOutcomes.slice(1)).toEqual(Array(SOLO_WORKERS - 1).fill({ ok: true, value: "filler" }));
	});

	it("a run that runs out of memory retires its worker only after the run beside it finished", async () => {
		const fillers = await fillSoloWorkers();
		const held = gate();
		const limits = { memoryBytes: 64 * 1024 * 1024 };
		const beside = runOnce(request("await host.wait(); await host.wait(); return 'fine';", { wait: held.fn }), {
			limits,
		});
		await held.waiting(1);
		const bomb = runOnce(request("const a = []; for (;;) a.push('x'.repeat(1000) + a.length);"), { limits });
		expect(await bomb).toMatchObject({ ok: false, error: { kind: "limit_memory" } });
		const live = sandboxStats().liveWorkers;
		held.open();
		expect(await beside).toEqual({ ok: true, value: "fine" });
		expect(await fillers.release()).toEqual(Array(SOLO_WORKERS).fill({ ok: true, value: "filler" }));
		// Retired: it took no new run, and ended with its last one.
		expect(sandboxStats().liveWorkers).toBeLessThan(live);
	});

	it("a cancelled run whose worker is in a neighbour's slice ends within its grace period, and the neighbour goes on", async () => {
		const fillers = await fillSoloWorkers();
		const held = gate();
		const controller = new AbortController();
		const limits = { syncSliceMs: 3000 };
		const cancelled = runOnce(
			request(
				"await host.wait(); await host.never();",
				{ wait: held.fn, never: { kind: "async", fn: () => new Promise(() => {}) } },
				{ signal: controller.signal },
			),
			{ limits, cancelGraceMs: 100 },
		);
		await held.waiting(1);
		const busy = runOnce(
			request(
				"await host.wait(); host.note(); const end = Date.now() + 1500; while (Date.now() < end) {} return 'spun';",
				{ wait: held.fn, note: { kind: "event", fn: () => controller.abort("stop") } },
			),
			{ limits, cancelGraceMs: 100 },
		);
		await held.waiting(2);
		expectSharing(2);
		// Which ended first, not how long it took: the neighbour spins 1.5 s, the cancelled run's grace is 100 ms.
		const ended: string[] = [];
		void cancelled.then(() => ended.push("cancelled"));
		void busy.then(() => ended.push("neighbour"));
		held.open();
		expect(await cancelled).toEqual({ ok: false, error: { kind: "cancelled", message: "stop" } });
		expect(ended, "cancelled before the neighbour's slice ended").toEqual(["cancelled"]);
		expect(await busy).toEqual({ ok: true, value: "spun" });
		expect(await fillers.release()).toEqual(Array(SOLO_WORKERS).fill({ ok: true, value: "filler" }));
	});

	it("leaves no run, slot or worker behind: the pool ends with its idle workers only", async () => {
		const fillers = await fillSoloWorkers();
		await Promise.all(Array.from({ length: 6 }, (_, i) => runOnce(request(`return ${i};`))));
		await fillers.release();
		expect(sandboxStats()).toMatchObject({ activeRuns: 0, leasedWorkers: 0, runsOnBusiestWorker: 0 });
		expect(sandboxStats().idleWorkers).toBeLessThanOrEqual(2);
	});
});
