/**
 * Row 4, start: a trivial workflow's first run in a fresh process, and a run after that. Each sample is a new
 * Node process (rows/start-child.ts). pi-workflows is measured from source (Node strips the types, in the host
 * and in every sandbox worker) and as built JavaScript (what an installed package runs in its workers).
 */
import { runChild } from "../lib/child.ts";
import { type BenchContext, enginesFor, samples } from "../lib/context.ts";
import type { EngineName } from "../lib/engines.ts";
import { formatNumber, formatSummary, type RowResult } from "../lib/report.ts";
import { summarize } from "../lib/stats.ts";

/** What start-child.ts prints. */
interface StartSample {
	bootMs: number;
	importMs: number;
	warmMs: number;
	firstMs: number;
	/** The import and the first run together: what a host that starts, imports and runs one workflow waits. */
	importFirstMs: number;
	secondMs: number;
	laterMs: number;
}

interface Variant {
	label: string;
	engine: EngineName;
	root: string;
	/** "warm": the pool starts a worker at load (as the extension does when a pi session starts). */
	mode: "cold" | "warm";
}

export async function runStart(context: BenchContext): Promise<RowResult[]> {
	const all: Variant[] = [
		{ label: "pi-workflows (source)", engine: "pi-workflows", root: "src", mode: "cold" },
		{ label: "pi-workflows (warmed)", engine: "pi-workflows", root: "src", mode: "warm" },
		{ label: "node:vm", engine: "node:vm", root: "src", mode: "cold" },
		{ label: "plain", engine: "plain", root: "src", mode: "cold" },
	];
	const variants = all.filter((variant) => enginesFor(context).includes(variant.engine));
	const notes: string[] = [];
	const { built } = context;
	if ("dir" in built) {
		variants.push({ label: "pi-workflows (built)", engine: "pi-workflows", root: built.dir, mode: "cold" });
	} else notes.push(`the build failed, so the built variant was skipped: ${built.error.split("\n")[0]}`);

	const script = new URL("bench/rows/start-child.ts", context.root);
	const results = new Map<string, StartSample[]>(variants.map((variant) => [variant.label, []]));
	// Round-robin over the variants, so a busy moment on the machine does not fall on one of them only.
	for (let i = 0; i < samples(context, 4, 1); i++) {
		for (const variant of variants) {
			const args = [variant.engine, variant.root, variant.mode];
			const sample = await runChild<StartSample>(script, args, { cwd: context.root });
			results.get(variant.label)?.push(sample);
		}
	}
	const pick = (label: string, key: keyof StartSample) => {
		const list = results.get(label);
		return list && list.length > 0 ? summarize(list.map((sample) => sample[key])) : undefined;
	};
	const row = (key: keyof StartSample, engineLabel: (engine: EngineName) => string) => ({
		"pi-workflows": pick(engineLabel("pi-workflows"), key),
		"node:vm": pick(engineLabel("node:vm"), key),
		plain: pick(engineLabel("plain"), key),
	});
	const sourceLabel = (engine: EngineName) => (engine === "pi-workflows" ? "pi-workflows (source)" : engine);
	const builtLabel = (engine: EngineName) => (engine === "pi-workflows" ? "pi-workflows (built)" : engine);
	const warmedLabel = (engine: EngineName) => (engine === "pi-workflows" ? "pi-workflows (warmed)" : engine);
	for (const variant of variants) {
		const list = results.get(variant.label) ?? [];
		context.log(`row 4 ${variant.label}: first ${list.map((s) => formatNumber(s.firstMs)).join(", ")} ms`);
	}
	notes.push(
		`second run right after the first: ${variants.map((v) => `${v.label} ${formatSummary(pick(v.label, "secondMs"))} ms`).join("; ")}`,
		`Node's own start-up before the bench script ran: ${formatSummary(pick("plain", "bootMs"))} ms`,
	);
	const rows: RowResult[] = [
		{
			id: "4a",
			title: "Start: first run of a trivial workflow in a fresh process (from source)",
			unit: "ms",
			target: { max: 150, text: "≤ 150 ms" },
			values: row("firstMs", sourceLabel),
			notes,
		},
	];
	// The built variant's rows (as an installed copy runs), only when the build worked.
	const hasBuilt = (results.get("pi-workflows (built)")?.length ?? 0) > 0;
	const builtRow = (id: string, title: string, key: keyof StartSample): RowResult[] =>
		hasBuilt ? [{ id, title, unit: "ms", target: { max: 150, text: "≤ 150 ms" }, values: row(key, builtLabel) }] : [];
	rows.push(...builtRow("4b", "Start: first run in a fresh process, built JavaScript (as installed)", "firstMs"));
	rows.push(
		{
			id: "4c",
			title: "Start: first run in a pi session (pool warmed when the session started, worker ready)",
			unit: "ms",
			target: { max: 150, text: "≤ 150 ms" },
			values: row("firstMs", warmedLabel),
			notes: [
				`the warmed worker was ready ${formatSummary(pick("pi-workflows (warmed)", "warmMs"))} ms after the call`,
			],
		},
		{
			id: "4d",
			title: "Start: loading the engine's modules (from source)",
			unit: "ms",
			values: row("importMs", sourceLabel),
		},
		{
			id: "4e",
			title: "Start: a later run (20 ms after the previous one; median of 10)",
			unit: "ms",
			target: { max: 10, text: "≤ 10 ms" },
			values: row("laterMs", sourceLabel),
		},
	);
	rows.push(
		...builtRow(
			"4f",
			"Start: import + first run in a fresh process, built JavaScript (as installed)",
			"importFirstMs",
		),
	);
	return rows;
}
