/**
 * Row 1, host responsiveness: while a script keeps the CPU busy for about 2 s, how long is the host's event loop
 * stalled at worst? A TUI redraws on that loop, so this is how long pi would freeze.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { type BenchContext, samples } from "../lib/context.ts";
import { ENGINES, type EngineName, runOn } from "../lib/engines.ts";
import type { RowResult } from "../lib/report.ts";
import { formatNumber } from "../lib/report.ts";
import { instantRunner } from "../lib/runners.ts";
import { now, sleep, summarize } from "../lib/stats.ts";
import { BURN } from "../workloads.ts";

/** The histogram's sampling interval, subtracted from its maximum so an idle loop reads about 0. */
const RESOLUTION_MS = 10;
const BURN_MS = 2000;

export async function runResponsiveness(context: BenchContext): Promise<RowResult[]> {
	const values: RowResult["values"] = {};
	const notes: string[] = [];
	for (const engine of ENGINES) {
		const iterations = await calibrate(engine);
		const stalls: number[] = [];
		const burns: number[] = [];
		for (let i = 0; i < samples(context, 3, 1); i++) {
			const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
			histogram.enable();
			// The histogram measures from its first tick: a stall before that one would go unseen.
			await sleep(3 * RESOLUTION_MS);
			const started = now();
			await runOn(engine, BURN, { runner: instantRunner(), args: { iterations } });
			burns.push(now() - started);
			// The histogram's timer records a stall when it fires late, after the stall: give it the chance.
			await sleep(3 * RESOLUTION_MS);
			histogram.disable();
			stalls.push(Math.max(0, histogram.max / 1e6 - RESOLUTION_MS));
		}
		context.log(`row 1 ${engine}: worst stall ${stalls.map((s) => formatNumber(s)).join(", ")} ms`);
		values[engine] = summarize(stalls);
		notes.push(
			`${engine} burned ${formatNumber(summarize(burns).median)} ms (${iterations.toExponential(2)} loop rounds)`,
		);
	}
	return [
		{
			id: "1",
			title: "Host responsiveness: worst event-loop stall while a script burns CPU for 2 s",
			unit: "ms",
			target: { max: 20, text: "≤ 20 ms" },
			values,
			notes,
		},
	];
}

/** Loop rounds that take about `BURN_MS` on this engine (QuickJS interprets the loop; V8 compiles it). */
async function calibrate(engine: EngineName): Promise<number> {
	const time = async (iterations: number) => {
		const started = now();
		await runOn(engine, BURN, { runner: instantRunner(), args: { iterations } });
		return now() - started;
	};
	// A first run pays for start-up and compilation; it must not count as loop time.
	await time(1000);
	let iterations = 1e5;
	let elapsed = await time(iterations);
	while (elapsed < 300) {
		iterations *= elapsed < 30 ? 10 : 3;
		elapsed = await time(iterations);
	}
	// Once more at about the target size: a compiled loop does not scale linearly from a short one.
	iterations = Math.round((iterations * BURN_MS) / elapsed);
	elapsed = Math.min(await time(iterations), await time(iterations));
	return Math.round((iterations * BURN_MS) / elapsed);
}
