/**
 * Row 11, the schema worker's heap against the number of distinct schemas: one run of 60 `agent()` calls in
 * sequence, each with a pattern-heavy schema of its own (issue 19's shape: 20 patterns of 900 characters), then
 * three runs of 20 more. What the worker keeps is bounded by bytes, so the heap must stop growing once its cache is
 * full. Each sample is a fresh process (schema-memory-child.ts).
 */
import { runChild } from "../lib/child.ts";
import { type BenchContext, samples } from "../lib/context.ts";
import { formatNumber, type RowResult } from "../lib/report.ts";
import { summarize } from "../lib/stats.ts";

/** What schema-memory-child.ts prints. */
interface SchemaMemorySample {
	firstRun: string;
	checkpoints: { schemas: number; heapMb: number }[];
	afterRuns: number[];
	limitMb: number;
	msPerSchema: number;
}

/**
 * The cache holds about 11 of these schemas (64 MiB), so 60 fill it five times over; 120 (and later runs of 30)
 * before issue 34's cut of the bench's own time showed the same level at twice the compiles.
 */
const FIRST = 60;
const LATER_RUNS = 3;
const PER_RUN = 20;
/** Checkpoints of the first run shown as rows. */
const SHOWN = [10, 30, 60];

export async function runSchemaMemory(context: BenchContext): Promise<RowResult[]> {
	const script = new URL("bench/rows/schema-memory-child.ts", context.root);
	const list: SchemaMemorySample[] = [];
	// `--quick`: one later run; the first run already shows the heap levelling off, the later ones that it stays so.
	const laterRuns = context.quick ? 1 : LATER_RUNS;
	// `--quick`: half the first run (the cache is full after about 11) and a later run of half the size.
	const first = context.quick ? FIRST / 2 : FIRST;
	const perRun = context.quick ? PER_RUN / 2 : PER_RUN;
	// Two samples, the later runs (the last two rows) in the first only: the heap at a checkpoint varies by well under
	// 1 MiB between processes, and each compile costs about 80 ms.
	for (let i = 0; i < samples(context, 2, 1); i++) {
		const args = [first, i === 0 ? laterRuns : 0, perRun].map(String);
		list.push(await runChild<SchemaMemorySample>(script, args, { nodeFlags: ["--expose-gc"], cwd: context.root }));
	}
	const failed = list.find((sample) => sample.firstRun !== "completed");
	const at = (schemas: number) => list.flatMap((s) => s.checkpoints.filter((c) => c.schemas === schemas));
	const rows: RowResult[] = [];
	for (const schemas of SHOWN.filter((shown) => shown <= first)) {
		const points = at(schemas);
		if (points.length === 0) continue;
		rows.push({
			id: `11${String.fromCharCode(97 + rows.length)}`,
			title: `Schema worker: heap after ${schemas} distinct pattern-heavy schemas in one run`,
			unit: "MiB",
			values: { "pi-workflows": summarize(points.map((point) => point.heapMb)) },
			ratios: false,
		});
	}
	// Flat once the cache is full: the growth per schema over the second half of the run.
	const growth = list.flatMap((sample) => {
		const half = sample.checkpoints.filter((c) => c.schemas >= first / 2 && c.schemas <= first);
		const from = half[0];
		const to = half.at(-1);
		return from && to && to.schemas > from.schemas
			? [((to.heapMb - from.heapMb) * 1024) / (to.schemas - from.schemas)]
			: [];
	});
	if (growth.length > 0) {
		rows.push({
			id: `11${String.fromCharCode(97 + rows.length)}`,
			title: `Schema worker: heap growth per distinct schema from ${first / 2} to ${first} in one run`,
			unit: "KiB/schema",
			target: { max: 64, text: "≈ 0 (≤ 64)" },
			values: { "pi-workflows": summarize(growth) },
			ratios: false,
		});
	}
	const laterText =
		laterRuns === 1
			? `1 more run of ${perRun} fresh schemas`
			: `${laterRuns} more runs of ${perRun} fresh schemas each`;
	const later = list.flatMap((sample) => {
		const points = sample.checkpoints.filter((c) => c.schemas > first).map((c) => c.heapMb);
		return points.length > 0 ? [Math.max(...points)] : [];
	});
	if (later.length > 0) {
		rows.push({
			id: `11${String.fromCharCode(97 + rows.length)}`,
			title: `Schema worker: highest heap over ${laterText}`,
			unit: "MiB",
			values: { "pi-workflows": summarize(later) },
			ratios: false,
		});
	}
	const after = list.flatMap((sample) => sample.afterRuns.slice(-1));
	if (after.length > 0) {
		rows.push({
			id: `11${String.fromCharCode(97 + rows.length)}`,
			title: "Schema worker: heap once the last run ended",
			unit: "MiB",
			values: { "pi-workflows": summarize(after) },
			ratios: false,
		});
	}
	const peak = Math.max(...list.flatMap((sample) => sample.checkpoints.map((c) => c.heapMb)));
	const notes = [
		`the worker's heap limit is ${formatNumber(list[0]?.limitMb ?? 0)} MiB; the highest checkpoint was ${formatNumber(peak)} MiB`,
		`${formatNumber(summarize(list.map((s) => s.msPerSchema)).median)} ms per schema (compile, one agent call, one check)`,
	];
	if (failed) notes.push(`the first run did not complete: ${failed.firstRun}`);
	context.log(`row 11: ${notes.join("; ")}`);
	if (rows.length > 0) rows[0].notes = notes;
	return rows;
}
