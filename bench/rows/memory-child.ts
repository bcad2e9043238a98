/**
 * One sample of row 5, in a fresh process started with --expose-gc: 50 runs of one engine alive at once (each
 * waiting in an agent call), then all released; twice, so memory that is kept for reuse can be told from a leak.
 * Prints resident memory (MiB) before, while the first 50 are alive, after each burst (pool shut down, garbage
 * collected), as one JSON line.
 *
 * Usage: node --expose-gc bench/rows/memory-child.ts <pi-workflows|node:vm|plain> [src | built copy]
 */
import type { EngineName } from "../lib/engines.ts";
import { loadEngine } from "../lib/load-engine.ts";
import { holdRunner, instantRunner } from "../lib/runners.ts";
import { sleep } from "../lib/stats.ts";
import { TRIVIAL } from "../workloads.ts";

const RUNS = 50;
const [engine = "pi-workflows", root = "src", bursts = "2"] = process.argv.slice(2);
const collect = (globalThis as { gc?: () => void }).gc;
if (!collect) throw new Error("Run with --expose-gc");
const loaded = await loadEngine(engine as EngineName, root);

/** Collects garbage a few times, with pauses for workers to exit and finalizers to run, then reads the RSS. */
async function settledRss(): Promise<number> {
	for (let i = 0; i < 3; i++) {
		collect?.();
		await sleep(150);
	}
	return process.memoryUsage().rss / (1024 * 1024);
}

/** 50 runs alive at once; resolves to the RSS while they are, once they all ended. */
async function burst(): Promise<number> {
	const hold = holdRunner();
	const runs = Array.from({ length: RUNS }, () => loaded.run(TRIVIAL, hold.runner));
	await hold.arrived(RUNS);
	const peak = await settledRss();
	hold.release();
	await Promise.all(runs);
	await loaded.close();
	return peak;
}

// Load every code path first, so the baseline holds the code and only the runs' own memory is measured.
await loaded.run(TRIVIAL, instantRunner());
await loaded.close();
const baseMb = await settledRss();
const peakMb = await burst();
const endMb = await settledRss();
let end2Mb: number | null = null;
if (bursts === "2") {
	await burst();
	end2Mb = await settledRss();
}
process.stdout.write(`${JSON.stringify({ baseMb, peakMb, endMb, end2Mb })}\n`);
