/**
 * Row 5, memory: 50 runs alive at once in one process. Resident growth per run, and how much of it the process
 * keeps once they ended (pool shut down, garbage collected). Each sample is a fresh process (memory-child.ts).
 * pi-workflows is measured from source and as built JavaScript, as for row 4, and as built JavaScript in the
 * environment the bin gives its own process (`pi-workflows run` and `worker` start with glibc's trim threshold:
 * src/cli/own-node.ts), which is row 5c's figure; the others run without the variable, whatever the bench's own
 * environment has.
 */
import { relaunchPlan } from "../../src/cli/own-node.ts";
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

const BIN = "pi-workflows (built, as the bin runs it)";
const BUILT = "pi-workflows (built)";
const SOURCE = "pi-workflows (source)";

/** The environment the bin's `run` starts its own process with; undefined where it sets nothing (not glibc). */
function binEnvironment(plain: NodeJS.ProcessEnv): NodeJS.ProcessEnv | undefined {
	return relaunchPlan(["run"], plain)?.env;
}

export async function runMemory(context: BenchContext): Promise<RowResult[]> {
	const script = new URL("bench/rows/memory-child.ts", context.root);
	const { MALLOC_TRIM_THRESHOLD_: _, ...plainEnv } = process.env;
	const all: Array<{ label: string; engine: EngineName; root: string; env?: NodeJS.ProcessEnv }> = [
		{ label: SOURCE, engine: "pi-workflows", root: "src" },
		{ label: "node:vm", engine: "node:vm", root: "src" },
		{ label: "plain", engine: "plain", root: "src" },
	];
	// `--quick` measures pi-workflows as installed only (issue 34's figure), when the build worked: each of its
	// processes takes seconds to start 50 runs.
	const builtOnly = context.quick && "dir" in context.built;
	const variants = all.filter(
		(variant) => enginesFor(context).includes(variant.engine) && !(builtOnly && variant.label === SOURCE),
	);
	const binEnv = binEnvironment(plainEnv);
	if ("dir" in context.built) {
		variants.push({ label: BUILT, engine: "pi-workflows", root: context.built.dir });
		if (binEnv) variants.push({ label: BIN, engine: "pi-workflows", root: context.built.dir, env: binEnv });
	}
	const growth = new Map<string, Summary>();
	const kept = new Map<string, Summary>();
	const notes: string[] = [];
	const sampled = async (variant: (typeof variants)[number]) => {
		const list: MemorySample[] = [];
		// From source (5a, 5c), two samples: the installed package's three (5b, and its share kept) are issue 34's figure.
		const count = variant.label === SOURCE ? samples(context, 2, 1) : samples(context, 3, 1);
		for (let i = 0; i < count; i++) {
			// The second burst (seconds of pi-workflows' workers) only tells reuse from a leak, in the notes: the first
			// sample of each baseline and of the built package (as installed) takes it in a full run, no other does.
			const second = i === 0 && !context.quick && variant.label !== SOURCE;
			const bursts = second ? "2" : "1";
			const args = [variant.engine, variant.root, bursts];
			const options = { nodeFlags: ["--expose-gc"], cwd: context.root, env: variant.env ?? plainEnv };
			list.push(await runChild<MemorySample>(script, args, options));
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
	if (growth.has(SOURCE)) {
		rows.push({
			id: "5a",
			title: "Memory: resident growth per run, 50 runs alive at once (from source)",
			unit: "MiB/run",
			target: { max: 10, text: "≤ 10 MiB" },
			values: values(SOURCE, growth),
		});
	}
	if (growth.has(BUILT)) {
		rows.push({
			id: "5b",
			title: "Memory: resident growth per run, 50 runs alive at once (built JavaScript, as installed)",
			unit: "MiB/run",
			target: { max: 10, text: "≤ 10 MiB" },
			values: values(BUILT, growth),
		});
	}
	if (rows[0]) rows[0].notes = notes;
	return [...rows, ...keptRows(kept)];
}

/** 5c, the share kept as the bin runs (its trim threshold), and 5d, a host that does not set it. */
function keptRows(kept: Map<string, Summary>): RowResult[] {
	const rows: RowResult[] = [];
	const percent = (label: string) => `${formatNumber(kept.get(label)?.median ?? 0)} %`;
	// Without a bin figure (not glibc, or no build), 5c falls back to the built or source figure, as it was.
	const main = [BIN, BUILT, SOURCE].find((label) => kept.has(label));
	if (main) {
		const how =
			main === BIN ? "built, as `pi-workflows run` and `worker` run: MALLOC_TRIM_THRESHOLD_ set by the bin" : main;
		rows.push({
			id: "5c",
			title: `Memory: share of that growth still resident after the runs ended (pool shut down, GC; ${how})`,
			unit: "% kept",
			target: { max: 10, text: "≈ 0 % (≤ 10)" },
			// The baselines grow by a few MiB at most, so their share says nothing; their RSS is in the notes.
			values: { "pi-workflows": kept.get(main) },
			ratios: false,
			notes:
				kept.has(SOURCE) && main !== SOURCE ? [`from source, without the variable: ${percent(SOURCE)} kept`] : [],
		});
	}
	if (main === BIN && kept.has(BUILT)) {
		rows.push({
			id: "5d",
			title: "Memory: the same share in a host that does not set the trim threshold (built JavaScript)",
			unit: "% kept",
			values: { "pi-workflows": kept.get(BUILT) },
			ratios: false,
		});
	}
	return rows;
}
