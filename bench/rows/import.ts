/**
 * Row 9, import: loading the package's entries in a fresh Node process, as an installed copy is loaded (built
 * JavaScript): the core entry `pi-workflows` (runtime, progress, run store; no pi) and, for comparison, the pi
 * entry `pi-workflows/pi`, which loads pi, and the schema libraries the core entry loads only when a run first
 * checks a header or a schema (ajv, ajv-formats, re2js), to show what deferring them saves on this machine at this
 * load. Each sample is a new process (rows/import-child.ts).
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { runChild } from "../lib/child.ts";
import { type BenchContext, samples } from "../lib/context.ts";
import { formatSummary, type RowResult } from "../lib/report.ts";
import { summarize } from "../lib/stats.ts";

export async function runImport(context: BenchContext): Promise<RowResult[]> {
	const { built } = context;
	if (!("dir" in built)) throw new Error(`row 9 measures the built package, and the build failed: ${built.error}`);
	const script = new URL("bench/rows/import-child.ts", context.root);
	const require = createRequire(new URL("package.json", context.root));
	const entries = {
		core: join(built.dir, "index.js"),
		pi: join(built.dir, "pi.js"),
		deferred: ["ajv", "ajv/dist/2020.js", "ajv-formats", "re2js"].map((name) => require.resolve(name)).join(","),
	};
	const times: Record<keyof typeof entries, number[]> = { core: [], pi: [], deferred: [] };
	// The notes (the pi entry loads pi: 1.5 s a process) take fewer samples than the row's own figure.
	const count = { core: samples(context, 7, 3), pi: samples(context, 3, 1), deferred: samples(context, 3, 1) };
	for (let i = 0; i < count.core; i++) {
		for (const [name, path] of Object.entries(entries) as Array<[keyof typeof entries, string]>) {
			if (i >= count[name]) continue;
			times[name].push((await runChild<{ importMs: number }>(script, [path], { cwd: context.root })).importMs);
		}
	}
	return [
		{
			id: "9",
			title: "Import: the core entry `pi-workflows` (built) in a fresh process",
			unit: "ms",
			// Issue 34's target: a round ago the core entry took 56 ms.
			target: { max: 60, text: "≤ 60 ms" },
			values: { "pi-workflows": summarize(times.core) },
			ratios: false,
			notes: [
				`the pi entry \`pi-workflows/pi\`, which loads pi: ${formatSummary(summarize(times.pi))} ms`,
				`ajv, ajv-formats and re2js, which the core entry loads on first use instead: ${formatSummary(summarize(times.deferred))} ms`,
			],
		},
	];
}
