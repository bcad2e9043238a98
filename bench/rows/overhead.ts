/**
 * Row 3, overhead per `agent()` call with an instant runner and progress tracking on: 1,000 calls at once and
 * 10,000 one after another; and the cost of one `budget` read. The run's own cost (an empty script) is subtracted,
 * so this is the cost of a call. The time spent in the tracker is kept for row 6.
 */

import { createWorkflowProgressTracker } from "../../src/progress/index.ts";
import type { WorkflowJournal, WorkflowProgressEvent } from "../../src/runtime/index.ts";
import { type BenchContext, samples } from "../lib/context.ts";
import { ENGINES, type EngineName, runOn, type Workload } from "../lib/engines.ts";
import { formatNumber, type RowResult } from "../lib/report.ts";
import { instantRunner } from "../lib/runners.ts";
import { median, now, summarize } from "../lib/stats.ts";
import { BUDGET_READS, CONCURRENT, EMPTY, SEQUENTIAL } from "../workloads.ts";

/** One timed run: wall time and the part of it spent in the tracker. */
export interface TrackedRun {
	ms: number;
	trackingMs: number;
	events: number;
}

/** What row 3 measured, for row 6's tracking share. */
export interface OverheadData {
	rows: RowResult[];
	/** Per engine: the 1,000-call runs. */
	concurrent: Partial<Record<EngineName, TrackedRun[]>>;
}

const CONCURRENT_CALLS = 1000;
const SEQUENTIAL_CALLS = 10_000;
const BUDGET_READ_COUNT = 20_000;

export async function runOverhead(context: BenchContext): Promise<OverheadData> {
	const concurrentValues: RowResult["values"] = {};
	const sequentialValues: RowResult["values"] = {};
	const concurrent: OverheadData["concurrent"] = {};
	const notes: string[] = [];
	const budgetReadValues: RowResult["values"] = {};
	for (const engine of ENGINES) {
		// Warm-up: the first runs compile the code paths (in V8 and in QuickJS).
		await trackedRun(engine, CONCURRENT, 200);
		await trackedRun(engine, SEQUENTIAL, 200);
		const empties: number[] = [];
		for (let i = 0; i < 5; i++) empties.push((await trackedRun(engine, EMPTY, 0)).ms);
		const empty = median(empties);
		const concurrentRuns: TrackedRun[] = [];
		for (let i = 0; i < samples(context, 5, 3); i++) {
			concurrentRuns.push(await trackedRun(engine, CONCURRENT, CONCURRENT_CALLS));
		}
		const sequentialRuns: TrackedRun[] = [];
		for (let i = 0; i < samples(context, 3, 1); i++) {
			sequentialRuns.push(await trackedRun(engine, SEQUENTIAL, SEQUENTIAL_CALLS));
		}
		const perCall = (runs: TrackedRun[], calls: number) =>
			summarize(runs.map((run) => (Math.max(0, run.ms - empty) / calls) * 1000));
		concurrentValues[engine] = perCall(concurrentRuns, CONCURRENT_CALLS);
		sequentialValues[engine] = perCall(sequentialRuns, SEQUENTIAL_CALLS);
		concurrent[engine] = concurrentRuns;
		if (engine === "pi-workflows") {
			await trackedRun(engine, BUDGET_READS, 1000);
			const readRuns: TrackedRun[] = [];
			for (let i = 0; i < samples(context, 3, 1); i++) {
				readRuns.push(await trackedRun(engine, BUDGET_READS, BUDGET_READ_COUNT));
			}
			budgetReadValues[engine] = perCall(readRuns, BUDGET_READ_COUNT);
			context.log(`row 3 ${engine}: ${formatNumber(budgetReadValues[engine].median)} µs/budget read`);
		}
		notes.push(`${engine}: an empty run takes ${formatNumber(empty)} ms (subtracted)`);
		context.log(
			`row 3 ${engine}: ${formatNumber(concurrentValues[engine].median)} µs/call at once, ${formatNumber(sequentialValues[engine].median)} µs/call in sequence`,
		);
	}
	return {
		concurrent,
		rows: [
			{
				id: "3a",
				title: "Overhead per `agent()` call, 1,000 at once (instant runner, tracking on)",
				unit: "µs/call",
				target: { max: 100, text: "≤ 100 µs" },
				values: concurrentValues,
				notes,
			},
			{
				id: "3b",
				title: "Overhead per `agent()` call, 10,000 in sequence (instant runner, tracking on)",
				unit: "µs/call",
				target: { max: 200, text: "≤ 200 µs" },
				values: sequentialValues,
			},
			{
				id: "3c",
				title: "A `budget` read (`budget.agentCalls.used`, 20,000 in one synchronous stretch)",
				unit: "µs/read",
				values: budgetReadValues,
				ratios: false,
			},
		],
	};
}

/** Runs `workload` with `n` calls, feeding every event to a fresh tracker and timing the tracker. */
export async function trackedRun(
	engine: EngineName,
	workload: Workload,
	n: number,
	journal?: WorkflowJournal,
): Promise<TrackedRun> {
	const tracker = createWorkflowProgressTracker();
	let trackingMs = 0;
	let events = 0;
	const onProgress = (event: WorkflowProgressEvent) => {
		const started = now();
		tracker.updateFromProgressEvent(event);
		trackingMs += now() - started;
		events++;
	};
	const started = now();
	const value = await runOn(engine, workload, { runner: instantRunner(), args: { n }, onProgress, journal });
	const ms = now() - started;
	if (value !== n) throw new Error(`${workload.name} on ${engine} answered ${String(value)} of ${n} calls`);
	return { ms, trackingMs, events };
}
