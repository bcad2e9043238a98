/**
 * Row 5, memory: 50 runs alive at once in one process. Resident growth per run, and how much of it the process
 * keeps once they ended (pool shut down, garbage collected). Each sample is a fresh process (memory-child.ts).
 * pi-workflows is measured from source and as built JavaScript, as for row 4.
 */
import { runChild } from "../lib/child.ts";
import { type BenchContext, enginesFor, samples } from "../lib/context.ts";
import type { EngineName } from "../lib/engines.ts";
import { formatNumber, type RowResult } from "../lib/report.ts";
import { median, type Summary, summarize } from "../lib/stats.ts";

/** What memory-child.ts prints, in MiB. */
interface MemorySample {
	baseMb: number;
	peakMb: number;
	endMb: number;
	/** After a second burst; null when the sample took one. */
	end2Mb: number | null;
}

const RUNS = 50;

export async function runMemory(context: BenchContext): Promise<RowResult[]> {
	const script = new URL("bench/rows/memory-child.ts", context.root);
	const all: Array<{ label: string; engine: EngineName; root: string }> = [
		{ label: "pi-workflows (source)", engine: "pi-workflows", root: "src" },
		{ label: "node:vm", engine: "node:vm", root: "src" },
		{ label: "plain", engine: "plain", root: "src" },
	];
	// `--quick` measures pi-workflows as installed only (issue 34's figure), when the build worked: each of its
	// processes takes seconds to start 50 runs.
	const builtOnly = context.quick && "dir" in context.built;
	const variants = all.filter(
		(variant) =>
			enginesFor(context).includes(variant.engine) && !(builtOnly && variant.label === "pi-workflows (source)"),
	);
	if ("dir" in context.built) {
		variants.push({ label: "pi-workflows (built)", engine: "pi-workflows", root: context.built.dir });
	}
	const growth = new Map<string, Summary>();
	const kept = new Map<string, Summary>();
	const notes: string[] = [];
	const sampled = async (variant: (typeof variants)[number]) => {
		const list: MemorySample[] = [];
		// From source (5a, 5c), two samples: the installed package's three (5b, and its share kept) are issue 34's figure.
		const count = variant.label === "pi-workflows (source)" ? samples(context, 2, 1) : samples(context, 3, 1);
		for (let i = 0; i < count; i++) {
			// The second burst (seconds of pi-workflows' workers) only tells reuse from a leak, in the notes: the first
			// sample of each baseline and of the built package (as installed) takes it in a full run, no other does.
			const second = i === 0 && !context.quick && variant.label !== "pi-workflows (source)";
			const bursts = second ? "2" : "1";
			const args = [variant.engine, variant.root, bursts];
			list.push(await runChild<MemorySample>(script, args, { nodeFlags: ["--expose-gc"], cwd: context.root }));
		}
		return list;
	};
	// The baselines' processes run side by side: each mostly waits in its pauses for the collector, and a process's
	// resident memory is its own. pi-workflows' variants, which start a dozen worker threads, run one at a time.
	const baselines = variants.filter((variant) => variant.engine !== "pi-workflows");
	const baselineSamples = new Map(
		await Promise.all(baselines.map(async (variant) => [variant.label, await sampled(variant)] as const)),
	);
	for (const variant of variants) {
		const list = baselineSamples.get(variant.label) ?? (await sampled(variant));
		growth.set(variant.label, summarize(list.map((s) => (s.peakMb - s.baseMb) / RUNS)));
		kept.set(
			variant.label,
			summarize(list.map((s) => (100 * Math.max(0, s.endMb - s.baseMb)) / Math.max(1, s.peakMb - s.baseMb))),
		);
		const mid = (key: "baseMb" | "peakMb" | "endMb") => formatNumber(summarize(list.map((s) => s[key])).median);
		const second = list.flatMap((s) => (s.end2Mb === null ? [] : [s.end2Mb]));
		const secondText = second.length > 0 ? ` → ${formatNumber(median(second))} after a second burst` : "";
		notes.push(
			`${variant.label}: RSS ${mid("baseMb")} → ${mid("peakMb")} MiB with ${RUNS} runs alive → ${mid("endMb")} after${secondText}`,
		);
		context.log(`row 5 ${notes.at(-1)}`);
	}
	const values = (label: string, map: Map<string, Summary>) => ({
		"pi-workflows": map.get(label),
		"node:vm": map.get("node:vm"),
		plain: map.get("plain"),
	});
	const rows: RowResult[] = [];
	if (growth.has("pi-workflows (source)")) {
		rows.push({
			id: "5a",
			title: "Memory: resident growth per run, 50 runs alive at once (from source)",
			unit: "MiB/run",
			target: { max: 10, text: "≤ 10 MiB" },
			values: values("pi-workflows (source)", growth),
		});
	}
	if (growth.has("pi-workflows (built)")) {
		rows.push({
			id: "5b",
			title: "Memory: resident growth per run, 50 runs alive at once (built JavaScript, as installed)",
			unit: "MiB/run",
			target: { max: 10, text: "≤ 10 MiB" },
			values: values("pi-workflows (built)", growth),
		});
	}
	if (rows[0]) rows[0].notes = notes;
	const source = kept.has("pi-workflows (source)");
	const keptNote =
		source && kept.has("pi-workflows (built)")
			? [`built JavaScript: ${formatNumber(kept.get("pi-workflows (built)")?.median ?? 0)} % kept`]
			: [];
	rows.push({
		id: "5c",
		title: `Memory: share of that growth still resident after the runs ended (pool shut down, GC; ${source ? "from source" : "built JavaScript"})`,
		unit: "% kept",
		target: { max: 10, text: "≈ 0 % (≤ 10)" },
		// The baselines grow by a few MiB at most, so their share says nothing; their RSS is in the notes.
		values: { "pi-workflows": kept.get(source ? "pi-workflows (source)" : "pi-workflows (built)") },
		ratios: false,
		notes: keptNote,
	});
	return rows;
}
