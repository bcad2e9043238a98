/**
 * One sample of row 4, in a fresh process: load one engine, then time its first run, the run right after, and
 * later runs (each after a short pause, as runs come in practice). Prints one JSON line.
 *
 * Usage: node bench/rows/start-child.ts <pi-workflows|node:vm|plain> [src (default) | built copy] [cold | warm]
 */
import type { EngineName } from "../lib/engines.ts";
import { loadEngine } from "../lib/load-engine.ts";
import { instantRunner } from "../lib/runners.ts";
import { sleep } from "../lib/stats.ts";
import { TRIVIAL } from "../workloads.ts";

/** Milliseconds since this process started (performance's time origin). */
const bootMs = performance.now();
const [engine = "pi-workflows", root = "src", mode = "cold"] = process.argv.slice(2);
const LATER_RUNS = 10;
const PAUSE_MS = 20;

const loaded = await loadEngine(engine as EngineName, root);
const runner = instantRunner();
const importedMs = performance.now();
// "warm": the pool starts a worker at load, as the pi extension does when a session starts, and the first run
// comes once it is ready (in pi, the model takes longer than that to call the tool).
if (mode === "warm") await loaded.warm?.();
const warmMs = performance.now() - importedMs;
const timed = async () => {
	const started = performance.now();
	await loaded.run(TRIVIAL, runner);
	return performance.now() - started;
};
const firstMs = await timed();
const secondMs = await timed();
const later: number[] = [];
for (let i = 0; i < LATER_RUNS; i++) {
	await sleep(PAUSE_MS);
	later.push(await timed());
}
later.sort((a, b) => a - b);
await loaded.close();
const laterMs = later[LATER_RUNS >> 1];
process.stdout.write(
	`${JSON.stringify({ bootMs, importMs: importedMs - bootMs, warmMs, firstMs, importFirstMs: importedMs - bootMs + firstMs, secondMs, laterMs })}\n`,
);
