/**
 * Row 8, durable runs on the file-backed run store (`src/runs/`), reported with no target: what the journal adds to
 * an `agent()` call (rows 3a/3b's workloads with the journal off and on, samples paired in this process), resuming
 * a 1,000-call run (loading its journal, replaying every call), and the fdatasync behind each record. Every sample
 * gets a fresh run record in its own temp root, deleted afterwards.
 */
import { open, stat } from "node:fs/promises";
import { join } from "node:path";
import { createWorkflowProgressTracker } from "../../src/progress/index.ts";
import type { RunJournal } from "../../src/runs/index.ts";
import type { WorkflowJournalEntry, WorkflowProgressEvent } from "../../src/runtime/index.ts";
import { type BenchContext, samples } from "../lib/context.ts";
import { runOn, type Workload } from "../lib/engines.ts";
import { formatNumber, formatSummary, type RowResult } from "../lib/report.ts";
import { instantRunner } from "../lib/runners.ts";
import { median, now, type Summary, summarize } from "../lib/stats.ts";
import { tempFileSystem, withJournal, withTempRun } from "../lib/temp-runs.ts";
import { CONCURRENT, EMPTY, SEQUENTIAL } from "../workloads.ts";
import { runEventLog } from "./event-log.ts";
import { trackedRun } from "./overhead.ts";

const CONCURRENT_CALLS = 1000;
/**
 * Row 3b's script, with fewer calls: with the journal on each call waits for its fdatasync (1–3 ms on this disk), so
 * 10,000 took 10–30 s a sample; the cost per call is the same over 1,000 (2,000 before issue 34's second cut).
 */
const SEQUENTIAL_CALLS = 1000;
const RESUMED_CALLS = 1000;
const CONCURRENT_RECORDS = 1000;

/** Journal off and on for the same workload, per call with the empty run subtracted, and their paired difference. */
interface Paired {
	off: Summary;
	on: Summary;
	cost: Summary;
	/** The process's CPU time (every thread) per call, off and on: steadier than wall time on a shared machine. */
	cpuOff: Summary;
	cpuOn: Summary;
}

export async function runDurable(context: BenchContext): Promise<RowResult[]> {
	const fileSystem = await tempFileSystem();
	context.log(`row 8: temp roots in ${fileSystem}`);
	// Warm-up: the first runs compile the code paths, journaled ones included.
	await trackedRun("pi-workflows", CONCURRENT, 200);
	await journaledRun(CONCURRENT, 200);
	await journaledRun(SEQUENTIAL, 200);
	const empties: number[] = [];
	for (let i = 0; i < 5; i++) empties.push((await trackedRun("pi-workflows", EMPTY, 0)).ms);
	const empty = median(empties);

	const concurrent = await paired(CONCURRENT, CONCURRENT_CALLS, samples(context, 9, 3), empty);
	context.log(`row 8 journal, 1,000 at once: ${describePaired(concurrent)}`);
	const sequential = await paired(SEQUENTIAL, SEQUENTIAL_CALLS, samples(context, 3, 1), empty);
	context.log(`row 8 journal, 1,000 in sequence: ${describePaired(sequential)}`);

	const resumes = [];
	for (let i = 0; i < samples(context, 5, 3); i++) resumes.push(await resume(RESUMED_CALLS));
	const replayMs = summarize(resumes.map((sample) => sample.replayMs));
	const perCall = (ms: number) => (Math.max(0, ms - empty) / RESUMED_CALLS) * 1000;
	const perReplay = summarize(resumes.map((sample) => perCall(sample.replayMs)));
	const perLive = summarize(resumes.map((sample) => perCall(sample.liveMs)));
	const openMs = summarize(resumes.map((sample) => sample.openMs));
	context.log(`row 8 resume: open ${formatSummary(openMs)} ms, replay ${formatSummary(replayMs)} ms`);

	const sequentialRecords = samples(context, 500, 200);
	const recordLatency: number[] = [];
	const rawLatency: number[] = [];
	const concurrentRecords: number[] = [];
	for (let i = 0; i < samples(context, 5, 3); i++) {
		recordLatency.push(await recordsInSequence(sequentialRecords));
		rawLatency.push(await rawDatasyncs(sequentialRecords));
		concurrentRecords.push(await recordsAtOnce(CONCURRENT_RECORDS));
	}
	const latency = summarize(recordLatency);
	const raw = summarize(rawLatency);
	context.log(
		`row 8 record: ${formatSummary(latency)} µs in sequence (bare write+fdatasync ${formatSummary(raw)} µs)`,
	);

	const eventLog = await runEventLog(context);
	const pi = (summary: Summary): RowResult["values"] => ({ "pi-workflows": summary });
	return [
		{
			id: "8a",
			title: "Durable: journal cost per `agent()` call, 1,000 at once (row 3a's run, journal on − off)",
			unit: "µs/call",
			values: pi(concurrent.cost),
			ratios: false,
			notes: [
				`journal off ${formatSummary(concurrent.off)} → on ${formatSummary(concurrent.on)} µs/call, samples paired in one process; an empty run takes ${formatNumber(empty)} ms (subtracted)`,
				describeCpu(concurrent),
				`every sample is a fresh run record (lock, journal) in its own temp root, in ${fileSystem}`,
			],
		},
		{
			id: "8b",
			title: "Durable: journal cost per `agent()` call, 1,000 in sequence (row 3b's script, journal on − off)",
			unit: "µs/call",
			values: pi(sequential.cost),
			ratios: false,
			notes: [
				`journal off ${formatSummary(sequential.off)} → on ${formatSummary(sequential.on)} µs/call`,
				describeCpu(sequential),
			],
		},
		{
			id: "8c",
			title: "Durable: resume of a 1,000-call run (8a's script), replaying every call from its journal",
			unit: "ms",
			values: pi(replayMs),
			ratios: false,
			notes: [
				`no call reached the runner; the journal holds ${formatNumber(median(resumes.map((sample) => sample.bytes)) / RESUMED_CALLS)} bytes per call`,
			],
		},
		{
			id: "8d",
			title: "Durable: the same resume per replayed call (empty run subtracted)",
			unit: "µs/call",
			values: pi(perReplay),
			ratios: false,
			notes: [`a live call (instant runner, journal off), run in the same samples: ${formatSummary(perLive)} µs`],
		},
		{
			id: "8e",
			title: "Durable: loading that 1,000-entry journal (`record.journal()`: read, parse, open for appending)",
			unit: "ms",
			values: pi(openMs),
			ratios: false,
		},
		{
			id: "8f",
			title: `Durable: one \`record()\` in sequence (${sequentialRecords} per sample, each awaited: a write and an fdatasync)`,
			unit: "µs/record",
			values: pi(latency),
			ratios: false,
			notes: [`a bare write+fdatasync of the same line on the same file system: ${formatSummary(raw)} µs`],
		},
		{
			id: "8g",
			title: "Durable: 1,000 `record()` calls at once, until the last resolves (group commit)",
			unit: "ms",
			values: pi(summarize(concurrentRecords)),
			ratios: false,
		},
		...eventLog,
	];
}

/** `count` samples of `workload` with the journal off and on, alternating which goes first. */
async function paired(workload: Workload, n: number, count: number, empty: number): Promise<Paired> {
	const off: Timed[] = [];
	const on: Timed[] = [];
	const plainRun = () => timed(() => trackedRun("pi-workflows", workload, n));
	for (let i = 0; i < count; i++) {
		if (i % 2 === 0) off.push(await plainRun());
		on.push(await journaledRun(workload, n));
		if (i % 2 === 1) off.push(await plainRun());
	}
	const perCall = (ms: number) => (Math.max(0, ms - empty) / n) * 1000;
	const cpuPerCall = (sample: Timed) => (sample.cpuMs / n) * 1000;
	return {
		off: summarize(off.map((sample) => perCall(sample.ms))),
		on: summarize(on.map((sample) => perCall(sample.ms))),
		cost: summarize(on.map((sample, i) => ((sample.ms - off[i].ms) / n) * 1000)),
		cpuOff: summarize(off.map(cpuPerCall)),
		cpuOn: summarize(on.map(cpuPerCall)),
	};
}

function describePaired({ off, on, cost }: Paired): string {
	return `off ${formatNumber(off.median)} → on ${formatNumber(on.median)} µs/call, cost ${formatNumber(cost.median)} µs/call`;
}

function describeCpu({ cpuOff, cpuOn }: Paired): string {
	return `CPU time of the process (all threads) ${formatSummary(cpuOff)} → ${formatSummary(cpuOn)} µs/call`;
}

/** A run's wall time and the process's CPU time over it, in ms. */
interface Timed {
	ms: number;
	cpuMs: number;
}

async function timed(run: () => Promise<{ ms: number }>): Promise<Timed> {
	const cpu = process.cpuUsage();
	const { ms } = await run();
	const used = process.cpuUsage(cpu);
	return { ms, cpuMs: (used.user + used.system) / 1000 };
}

/** Row 3's tracked run of `workload` with a fresh record's journal (its setup untimed). */
function journaledRun(workload: Workload, n: number): Promise<Timed> {
	return withTempRun(workload.source, (record) =>
		withJournal(record, async (journal) => {
			const sample = await timed(() => trackedRun("pi-workflows", workload, n, journal));
			expectEntries(journal, n);
			return sample;
		}),
	);
}

/** One resume sample: the journal's load, the replay, a live run of the same calls just before it, the file's size. */
interface ResumeSample {
	openMs: number;
	replayMs: number;
	liveMs: number;
	bytes: number;
}

/** A run of `calls` at once recorded, then resumed; a journal-off run in between gives the live figure to compare. */
async function resume(calls: number): Promise<ResumeSample> {
	return withTempRun(CONCURRENT.source, async (record) => {
		await withJournal(record, async (journal) => {
			await trackedRun("pi-workflows", CONCURRENT, calls, journal);
			expectEntries(journal, calls);
		});
		const bytes = (await stat(join(record.dir, "journal.jsonl"))).size;
		const liveMs = (await trackedRun("pi-workflows", CONCURRENT, calls)).ms;
		return withJournal(record, async (journal, openMs) => {
			expectEntries(journal, calls);
			return { openMs, replayMs: await replayRun(journal, calls), liveMs, bytes };
		});
	});
}

/** The 1,000-call script over a full journal, tracking on as in row 3; throws unless every call replayed. */
async function replayRun(journal: RunJournal, calls: number): Promise<number> {
	const tracker = createWorkflowProgressTracker();
	let replayed = 0;
	let live = 0;
	const onProgress = (event: WorkflowProgressEvent) => {
		tracker.updateFromProgressEvent(event);
		if (event.type === "agent_finished" && event.cached) replayed++;
		if (event.type === "agent_started") live++;
	};
	const started = now();
	const value = await runOn("pi-workflows", CONCURRENT, {
		runner: instantRunner(),
		args: { n: calls },
		onProgress,
		journal,
	});
	const ms = now() - started;
	if (value !== calls || replayed !== calls || live !== 0) {
		throw new Error(`The resume answered ${String(value)}, replayed ${replayed} and ran ${live} of ${calls} calls`);
	}
	return ms;
}

/** µs per `record()` when each waits for the one before. */
function recordsInSequence(count: number): Promise<number> {
	return withTempRun("", (record) =>
		withJournal(record, async (journal) => {
			const started = now();
			for (let i = 0; i < count; i++) await journal.record(entry(i));
			const us = ((now() - started) / count) * 1000;
			expectEntries(journal, count);
			return us;
		}),
	);
}

/** ms until all of `count` concurrent `record()` calls have resolved. */
function recordsAtOnce(count: number): Promise<number> {
	return withTempRun("", (record) =>
		withJournal(record, async (journal) => {
			const started = now();
			await Promise.all(Array.from({ length: count }, (_, i) => journal.record(entry(i))));
			const ms = now() - started;
			expectEntries(journal, count);
			return ms;
		}),
	);
}

/** µs per write+fdatasync of one journal-sized line with no journal around it: the floor under 8f. */
function rawDatasyncs(count: number): Promise<number> {
	return withTempRun("", async (_record, root) => {
		const handle = await open(join(root, "raw.jsonl"), "a", 0o600);
		try {
			const started = now();
			for (let i = 0; i < count; i++) {
				await handle.write(`${JSON.stringify(entry(i))}\n`);
				await handle.datasync();
			}
			return ((now() - started) / count) * 1000;
		} finally {
			await handle.close();
		}
	});
}

/** An entry shaped like the ones row 3's runs record (key, answer, child id, label, agent type). */
function entry(i: number): WorkflowJournalEntry {
	return {
		key: `${i.toString(16).padStart(16, "0")}#0`,
		value: "ok",
		agentId: `instant-${i}`,
		label: `task ${i}`,
		agentType: "general-purpose",
	};
}

/** A journal missing entries means records failed (the run only warns), so the timing would be of something else. */
function expectEntries(journal: RunJournal, count: number): void {
	if (journal.size !== count) throw new Error(`The journal holds ${journal.size} entries, expected ${count}`);
}
