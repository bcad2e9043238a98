/**
 * Row 8's event-log half (`src/runs/event-log.ts`), reported with no target: what the buffered log costs per
 * progress event (appending every event of row 3a's 1,000-call run, the flush and the one sync at close), and what
 * a line weighs on disk. The events are a real run's, captured once; each sample writes them to a fresh record.
 */
import { stat } from "node:fs/promises";
import type { EventLogEvent } from "../../src/runs/index.ts";
import type { WorkflowProgressEvent } from "../../src/runtime/index.ts";
import { type BenchContext, samples } from "../lib/context.ts";
import { runOn } from "../lib/engines.ts";
import { formatNumber, type RowResult } from "../lib/report.ts";
import { instantRunner } from "../lib/runners.ts";
import { median, now, summarize } from "../lib/stats.ts";
import { withTempRun } from "../lib/temp-runs.ts";
import { CONCURRENT } from "../workloads.ts";

const CALLS = 1000;

/** Rows 8h and 8i. */
export async function runEventLog(context: BenchContext): Promise<RowResult[]> {
	const events: EventLogEvent[] = [];
	await runOn("pi-workflows", CONCURRENT, {
		runner: instantRunner(),
		args: { n: CALLS },
		onProgress: (event: WorkflowProgressEvent) => events.push(event as unknown as EventLogEvent),
		journal: undefined,
	});
	const perEvent: number[] = [];
	const appendOnly: number[] = [];
	const bytes: number[] = [];
	for (let i = 0; i < samples(context, 9, 3); i++) {
		const sample = await withTempRun("", async (record) => {
			const log = await record.eventLog();
			const started = now();
			for (const event of events) log.append(event);
			const appended = now() - started;
			await log.close();
			const total = now() - started;
			const size = (await stat(log.path)).size;
			return { appended, total, size };
		});
		perEvent.push((sample.total / events.length) * 1000);
		appendOnly.push((sample.appended / events.length) * 1000);
		bytes.push(sample.size / events.length);
	}
	const kinds = new Map<string, number>();
	for (const event of events) kinds.set(event.type, (kinds.get(event.type) ?? 0) + 1);
	const perCall = (median(perEvent) * events.length) / CALLS;
	context.log(`row 8 event log: ${formatNumber(median(perEvent))} µs/event, ${formatNumber(median(bytes))} B/event`);
	return [
		{
			id: "8h",
			title: `Durable: the event log per progress event (row 3a's run: ${events.length} events appended, flushed, synced once)`,
			unit: "µs/event",
			values: { "pi-workflows": summarize(perEvent) },
			ratios: false,
			notes: [
				`of which appending to the buffer (JSON of the line, the bound's check): ${formatNumber(median(appendOnly))} µs/event; about ${formatNumber(perCall)} µs per agent() call in all`,
				`events by kind: ${[...kinds].map(([kind, n]) => `${kind} ${n}`).join(", ")}`,
			],
		},
		{
			id: "8i",
			title: "Durable: bytes per line of the event log (the same run)",
			unit: "B/event",
			values: { "pi-workflows": summarize(bytes) },
			ratios: false,
			notes: [
				`${formatNumber((median(bytes) * events.length) / CALLS)} bytes per agent() call; the default bound (16 MiB) holds about ${formatNumber((16 * 1024 * 1024) / ((median(bytes) * events.length) / CALLS))} such calls`,
			],
		},
	];
}
