/**
 * Row 2, scheduling: 300 agents with fixed pseudo-random durations (5–100 ms) at concurrency 8, as a fan-out, a
 * three-stage pipeline and a mix of phases. The makespan is divided by the ideal one for the same durations, so
 * 1.00 means the engine added nothing to the critical path.
 */
import type { JsonValue } from "../../src/runtime/core/types.ts";
import { type BenchContext, samples } from "../lib/context.ts";
import { ENGINES, runOn, type Workload } from "../lib/engines.ts";
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
	for (const engine of ENGINES) await runOn(engine, TRIVIAL, { runner: instantRunner() });
	for (const scenario of scenarios()) {
		const random = seededRandom(SEED);
		const durations = new Map(scenario.prompts.map((prompt) => [prompt, randomInt(random, SHORTEST_MS, LONGEST_MS)]));
		const ideal = await idealMakespan(scenario.workload.plain, scenario.args, durations, CONCURRENCY);
		const values: RowResult["values"] = {};
		for (const engine of enginesFor(context)) {
			const ratios: number[] = [];
			// Two samples: a makespan ratio varies by about 1 % between them, and each costs the real agent time.
			for (let i = 0; i < samples(context, 2, 1); i++) {
				const started = now();
				const value = await runOn(engine, scenario.workload, {
					runner: delayRunner(durations),
					concurrency: CONCURRENCY,
					args: scenario.args,
				});
				const makespan = now() - started;
				if (value !== scenario.expected) {
					throw new Error(`${scenario.workload.name} on ${engine} finished ${String(value)} agents`);
				}
				ratios.push(makespan / ideal);
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
 * The engines a run measures: each row is already a ratio to its own ideal, so `--quick` leaves out node:vm (the
 * peers' design, always within 1 % of plain here) to save a third of the row's real agent time.
 */
function enginesFor(context: BenchContext): readonly (typeof ENGINES)[number][] {
	return context.quick ? ENGINES.filter((engine) => engine !== "node:vm") : ENGINES;
}

function scenarios(): Scenario[] {
	const range = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix} ${i}`);
	const items = range("item", 100);
	const scan = range("scan", 60);
	const work = range("work", 60);
	const check = range("check", 60);
	return [
		{
			id: "2a",
			title: "Scheduling: 300 agents as one `parallel` fan-out, makespan ÷ ideal",
			workload: FAN_OUT,
			args: { prompts: range("fan", 300) },
			prompts: range("fan", 300),
			expected: 300,
		},
		{
			id: "2b",
			title: "Scheduling: 100 items × 3-stage `pipeline`, makespan ÷ ideal",
			workload: PIPELINE,
			args: { items },
			prompts: items.flatMap((item) => [`${item} s1`, `${item} s2`, `${item} s3`]),
			expected: 100,
		},
		{
			id: "2c",
			title: "Scheduling: mix (fan-out 60 → pipeline 60 × (1 + 2 in parallel) → fan-out 60), makespan ÷ ideal",
			workload: MIX,
			args: { scan, work, check },
			prompts: [...scan, ...work.flatMap((item) => [`${item} plan`, `${item} a`, `${item} b`]), ...check],
			expected: 60,
		},
	];
}

function sum(durations: ReadonlyMap<string, number>): number {
	let total = 0;
	for (const ms of durations.values()) total += ms;
	return total;
}
