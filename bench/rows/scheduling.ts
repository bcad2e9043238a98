/**
 * Row 2, scheduling: 300 agents with fixed pseudo-random durations (5–100 ms) at concurrency 8, as a fan-out, a
 * three-stage pipeline and a mix of phases. The makespan is divided by the ideal one for the same durations, so
 * 1.00 means the engine added nothing to the critical path.
 */
import type { JsonValue } from "../../src/runtime/core/types.ts";
import { type BenchContext, enginesFor, samples } from "../lib/context.ts";
import { runOn, type Workload } from "../lib/engines.ts";
import { formatNumber, type RowResult } from "../lib/report.ts";
import { delayRunner, instantRunner } from "../lib/runners.ts";
import { randomInt, seededRandom } from "../lib/seeded.ts";
import { idealMakespan } from "../lib/simulate.ts";
import { now, summarize } from "../lib/stats.ts";
import { FAN_OUT, MIX, PIPELINE, TRIVIAL } from "../workloads.ts";

const CONCURRENCY = 8;
const SEED = 20_261_130;
/**
 * Agent durations, ms. Short enough that a scenario's ideal makespan is about 2 s (the bench's wall time), long
 * enough that a fraction of a ms per call on the critical path stays a percent or two of it.
 */
const SHORTEST_MS = 5;
const LONGEST_MS = 100;

/** A workload with its arguments and every prompt it will send, in a fixed order. */
interface Scenario {
	id: string;
	title: string;
	workload: Workload;
	args: JsonValue;
	prompts: string[];
	/** What the workload returns when every agent answered. */
	expected: number;
}

export async function runScheduling(context: BenchContext): Promise<RowResult[]> {
	const rows: RowResult[] = [];
	// Start-up is row 4's business: a warm engine, so the makespans measure scheduling only.
	for (const engine of enginesFor(context)) await runOn(engine, TRIVIAL, { runner: instantRunner() });
	for (const scenario of scenarios(context.quick ? QUICK_SHARE : 1)) {
		const random = seededRandom(SEED);
		const durations = new Map(scenario.prompts.map((prompt) => [prompt, randomInt(random, SHORTEST_MS, LONGEST_MS)]));
		const ideal = await idealMakespan(scenario.workload.plain, scenario.args, durations, CONCURRENCY);
		const values: RowResult["values"] = {};
		for (const engine of enginesFor(context)) {
			const ratios: number[] = [];
			// pi-workflows twice, a baseline once: a quiet machine moves the ratio by well under 1 % between samples, a
			// busy one by several % (pi-workflows most), and each sample costs the real agent time.
			for (let i = 0; i < samples(context, engine === "pi-workflows" ? 2 : 1, 1); i++) {
				const started = now();
				const value = await runOn(engine, scenario.workload, {
					runner: delayRunner(durations),
					concurrency: CONCURRENCY,
					args: scenario.args,
				});
				if (value !== scenario.expected) {
					throw new Error(`${scenario.workload.name} on ${engine} finished ${String(value)} agents`);
				}
				ratios.push((now() - started) / ideal);
			}
			context.log(`row ${scenario.id} ${engine}: ${ratios.map((r) => r.toFixed(3)).join(", ")} × ideal`);
			values[engine] = summarize(ratios);
		}
		rows.push({
			id: scenario.id,
			title: scenario.title,
			unit: "× ideal",
			target: { max: 1.05, text: "≤ 1.05" },
			values,
			notes: [
				`ideal makespan ${formatNumber(ideal)} ms (${scenario.prompts.length} agents, sum ${formatNumber(sum(durations))} ms)`,
			],
		});
	}
	return rows;
}

/**
 * `--quick` runs each shape with a third of its agents (same durations, so the same share of overhead per step):
 * the row's real agent time is most of `--quick`'s, and a third of it still shows the ratio to within a few %.
 */
const QUICK_SHARE = 1 / 3;

/** The three shapes, with `share` of their agents (1 in a full run). */
function scenarios(share: number): Scenario[] {
	const range = (prefix: string, count: number) =>
		Array.from({ length: Math.round(count * share) }, (_, i) => `${prefix} ${i}`);
	const fan = range("fan", 300);
	const items = range("item", 100);
	const scan = range("scan", 60);
	const work = range("work", 60);
	const check = range("check", 60);
	return [
		{
			id: "2a",
			title: `Scheduling: ${fan.length} agents as one \`parallel\` fan-out, makespan ÷ ideal`,
			workload: FAN_OUT,
			args: { prompts: fan },
			prompts: fan,
			expected: fan.length,
		},
		{
			id: "2b",
			title: `Scheduling: ${items.length} items × 3-stage \`pipeline\`, makespan ÷ ideal`,
			workload: PIPELINE,
			args: { items },
			prompts: items.flatMap((item) => [`${item} s1`, `${item} s2`, `${item} s3`]),
			expected: items.length,
		},
		{
			id: "2c",
			title: `Scheduling: mix (fan-out ${scan.length} → pipeline ${work.length} × (1 + 2 in parallel) → fan-out ${check.length}), makespan ÷ ideal`,
			workload: MIX,
			args: { scan, work, check },
			prompts: [...scan, ...work.flatMap((item) => [`${item} plan`, `${item} a`, `${item} b`]), ...check],
			expected: check.length,
		},
	];
}

function sum(durations: ReadonlyMap<string, number>): number {
	let total = 0;
	for (const ms of durations.values()) total += ms;
	return total;
}
