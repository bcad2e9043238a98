/**
 * The benchmark's own parts: the ideal makespan it divides by, and the three engines giving the same answer for
 * every workload (so their timings compare the same work). No timings are asserted.
 */
import { describe, expect, it } from "vitest";
import { ENGINES, runOn, type Workload } from "../../bench/lib/engines.ts";
import { type BenchReport, formatSummary, renderTable } from "../../bench/lib/report.ts";
import { delayRunner, instantRunner } from "../../bench/lib/runners.ts";
import { idealMakespan } from "../../bench/lib/simulate.ts";
import { summarize } from "../../bench/lib/stats.ts";
import { CONCURRENT, FAN_OUT, MIX, PIPELINE, SEQUENTIAL, TRIVIAL } from "../../bench/workloads.ts";
import type { JsonValue } from "../../src/runtime/index.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

describe("idealMakespan()", () => {
	it("schedules a fan-out greedily in submission order", async () => {
		const durations = new Map([
			["fan 0", 30],
			["fan 1", 30],
			["fan 2", 20],
			["fan 3", 50],
		]);
		// Two slots: 0 and 1 end at 30, 2 runs 30–50, 3 runs 30–80.
		expect(await idealMakespan(FAN_OUT.plain, { prompts: [...durations.keys()] }, durations, 2)).toBe(80);
	});

	it("lets pipeline items move on without waiting for each other", async () => {
		const durations = new Map([
			["a s1", 10],
			["a s2", 10],
			["a s3", 10],
			["b s1", 50],
			["b s2", 10],
			["b s3", 10],
		]);
		expect(await idealMakespan(PIPELINE.plain, { items: ["a", "b"] }, durations, 2)).toBe(70);
	});
});

describe("runOn()", () => {
	const prompts = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix} ${i}`);
	const cases: Array<{ workload: Workload; args: JsonValue; expected: unknown; jobs: string[] }> = [
		{ workload: TRIVIAL, args: {}, expected: "ok", jobs: ["Say hello"] },
		{ workload: FAN_OUT, args: { prompts: prompts("fan", 6) }, expected: 6, jobs: prompts("fan", 6) },
		{
			workload: PIPELINE,
			args: { items: ["x", "y"] },
			expected: 2,
			jobs: ["x s1", "x s2", "x s3", "y s1", "y s2", "y s3"],
		},
		{
			workload: MIX,
			args: { scan: ["scan 0"], work: ["work 0", "work 1"], check: ["check 0", "check 1", "check 2"] },
			expected: 3,
			jobs: ["scan 0", "work 0 plan", "work 0 a", "work 0 b", "work 1 plan", "work 1 a", "work 1 b"].concat(
				prompts("check", 3),
			),
		},
	];
	for (const { workload, args, expected, jobs } of cases) {
		it(`gives the same answer for ${workload.name} on every engine`, async () => {
			const durations = new Map(jobs.map((job) => [job, 1]));
			for (const engine of ENGINES) {
				expect(await runOn(engine, workload, { runner: delayRunner(durations), args }), engine).toEqual(expected);
			}
		});
	}

	it("counts every answered call the same way on every engine", async () => {
		for (const engine of ENGINES) {
			expect(await runOn(engine, SEQUENTIAL, { runner: instantRunner(), args: { n: 5 } }), engine).toBe(5);
			expect(await runOn(engine, CONCURRENT, { runner: instantRunner(), args: { n: 7 } }), engine).toBe(7);
		}
	});
});

describe("renderTable()", () => {
	it("prints the machine, one line per row with median (min–max), the ratio to plain and the verdict, and the time each row took", () => {
		const report: BenchReport = {
			date: "2026-01-01T00:00:00.000Z",
			node: "v22.0.0",
			cores: 2,
			cpu: "test cpu",
			platform: "linux x64",
			quick: true,
			load: { start: [1, 1, 1], end: [2, 2, 2] },
			durationS: 3,
			rowSeconds: { "9": 2.6 },
			rows: [
				{
					id: "9",
					title: "A row",
					unit: "ms",
					target: { max: 10, text: "≤ 10 ms" },
					values: { "pi-workflows": summarize([12, 11, 14]), plain: summarize([3]) },
					notes: ["a note"],
				},
			],
		};
		const table = renderTable(report);
		expect(table).toContain("Node v22.0.0 · 2 cores (test cpu)");
		expect(table).toContain("| 9 | A row | ms | ≤ 10 ms | 12.0 (11.0–14.0) | — | 3.00 | 4.00× | — | **no** |");
		expect(table).toContain("- 9: a note");
		expect(table).toContain("Time per row: 9: 3 s");
		expect(formatSummary(summarize([0.5]))).toBe("0.50");
	});
});
