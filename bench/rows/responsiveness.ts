/**
 * Row 1, host responsiveness: while a script keeps the CPU busy for about 0.5 s, how long is the host's event loop
 * stalled at worst? A TUI redraws on that loop, so this is how long pi would freeze. Row 1b: how soon after a script
 * gets stuck in native code (a stretch that never polls the interrupt handler) the watchdog ends the run — a
 * reaction time, measured here rather than bounded in a test, where load would break the bound.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { type BenchContext, enginesFor, samples } from "../lib/context.ts";
import { type EngineName, runOn } from "../lib/engines.ts";
import type { RowResult } from "../lib/report.ts";
import { formatNumber } from "../lib/report.ts";
import { instantRunner } from "../lib/runners.ts";
import { now, sleep, summarize } from "../lib/stats.ts";
import { BURN } from "../workloads.ts";

/** The histogram's sampling interval, subtracted from its maximum so an idle loop reads about 0. */
const RESOLUTION_MS = 10;
/**
 * The worst stall is what counts: half a second of burning shows it (pi-workflows' stalls come from message
 * handling; 2 s, then 1 s, before issue 34's cuts of the bench's own time).
 */
const BURN_MS = 500;

export async function runResponsiveness(context: BenchContext): Promise<RowResult[]> {
	const values: RowResult["values"] = {};
	const notes: string[] = [];
	for (const engine of enginesFor(context)) {
		const iterations = await calibrate(engine, BURN_MS);
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
		await stuckSliceReaction(context),
		{
			id: "1",
			title: `Host responsiveness: worst event-loop stall while a script burns CPU for ${BURN_MS / 1000} s`,
			unit: "ms",
			target: { max: 20, text: "≤ 20 ms" },
			values,
			notes,
		},
	];
}

/** Loop rounds that take about `burnMs` on this engine (QuickJS interprets the loop; V8 compiles it). */
async function calibrate(engine: EngineName, burnMs: number): Promise<number> {
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
	iterations = Math.round((iterations * burnMs) / elapsed);
	elapsed = await time(iterations);
	return Math.round((iterations * burnMs) / elapsed);
}

/** The slice bound of row 1b: the watchdog must end a stuck stretch within this plus its grace (1.5 s). */
const STUCK_SLICE_MS = 1000;
/**
 * Builds a 200,000-deep array in stretches (a sleep between them), says so, then stringifies it in one stuck slice:
 * JSON.stringify never yields to the interrupt handler.
 */
const STUCK_SCRIPT = `export const meta = { name: "stuck", description: "a slice stuck in native code" };\nconst v = [];\nlet d = v;\nfor (let i = 0; i < 200000; i++) { d = d[0] = []; if (i % 5000 === 0) await sleep(0); }\nlog("stuck next");\nJSON.stringify(v);`;

async function stuckSliceReaction(context: BenchContext): Promise<RowResult> {
	const reactions: number[] = [];
	// Two samples (three before issue 34's second cut of the bench's own time): the reaction is the slice plus the
	// watchdog's poll, within a few tens of ms from one sample to the next.
	for (let i = 0; i < samples(context, 2, 1); i++) {
		let stuckAt = 0;
		const result = await runWorkflowScript(STUCK_SCRIPT, {
			filename: "stuck.js",
			agentRunner: instantRunner(),
			limits: { syncSliceMs: STUCK_SLICE_MS },
			onProgress: (event) => {
				if (event.type === "log") stuckAt = now();
			},
		});
		if (result.error?.code !== "limit_cpu")
			throw new Error(`row 1b: expected limit_cpu, got ${result.error?.code}: ${result.error?.message}`);
		reactions.push(now() - stuckAt);
	}
	context.log(`row 1b: ended ${reactions.map((r) => formatNumber(r)).join(", ")} ms after the script got stuck`);
	return {
		id: "1b",
		title: `Watchdog: a stretch stuck in native code (syncSliceMs ${STUCK_SLICE_MS}) ends this long after it began`,
		unit: "ms",
		target: { max: STUCK_SLICE_MS + 1500, text: `≤ ${STUCK_SLICE_MS + 1500} ms (syncSliceMs + 1.5 s)` },
		values: { "pi-workflows": summarize(reactions) },
		ratios: false,
	};
}
