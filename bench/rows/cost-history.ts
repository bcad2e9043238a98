/**
 * Row 17: the cost history an estimate reads before every capped run (`readCostHistory`, src/runs/history.ts), in a
 * project with 3,000 runs whose newest 40 each hold a 7 MiB answer (issue 42.11: read whole, this took 1.1–1.4 GB and
 * 6–13 s). The store is written once in a temp root (run.json, journal, snapshot per run, as the store writes them)
 * and deleted afterwards; each sample reads the history as a fresh estimate does.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRunStore, readCostHistory } from "../../src/runs/index.ts";
import { type BenchContext, samples } from "../lib/context.ts";
import { formatNumber, type RowResult } from "../lib/report.ts";
import { now, summarize } from "../lib/stats.ts";

const RUNS = 3000;
const BIG_RUNS = 40;
const ANSWER_BYTES = 7 * 1024 * 1024;
const CALLS_PER_RUN = 4;

/** Rows 17a and 17b. */
export async function runCostHistory(context: BenchContext): Promise<RowResult[]> {
	const root = mkdtempSync(join(tmpdir(), "pi-workflows-bench-history-"));
	try {
		const cwd = join(root, "project");
		mkdirSync(cwd);
		const store = createRunStore({ cwd, root: join(root, "runs") });
		const runs = context.quick ? RUNS / 3 : RUNS;
		const written = writeHistory(store.dir, cwd, runs);
		context.log(`row 17: wrote ${runs} runs, ${formatNumber(written / 1024 / 1024)} MiB of journals`);
		const times: number[] = [];
		const growth: number[] = [];
		let calls = 0;
		for (let i = 0; i < samples(context, 5, 2); i++) {
			globalThis.gc?.();
			const before = process.memoryUsage();
			let peak = before.rss;
			const watch = setInterval(() => {
				peak = Math.max(peak, process.memoryUsage().rss);
			}, 5);
			const started = now();
			const history = await readCostHistory(store);
			times.push(now() - started);
			clearInterval(watch);
			peak = Math.max(peak, process.memoryUsage().rss);
			growth.push((peak - before.rss) / 1024 / 1024);
			calls = history.calls.length;
		}
		return [
			{
				id: "17a",
				title: `Cost history: read before a capped run, ${runs} runs whose newest ${BIG_RUNS} hold a 7 MiB answer each`,
				unit: "ms",
				target: { max: 1000, text: "≤ 1 s" },
				values: { "pi-workflows": summarize(times) },
				ratios: false,
				notes: [`${calls} calls read from the newest runs within the bounds (200 runs, 32 MiB of journal)`],
			},
			{
				id: "17b",
				title: "Cost history: resident memory growth while reading it (the same store)",
				unit: "MiB",
				target: { max: 64, text: "≤ 64 MiB" },
				values: { "pi-workflows": summarize(growth) },
				ratios: false,
			},
		];
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
}

/** Writes `runs` completed runs of workflow `big` under `dir`, the newest `BIG_RUNS` with a 7 MiB answer; the bytes. */
function writeHistory(dir: string, cwd: string, runs: number): number {
	const answer = "a".repeat(ANSWER_BYTES);
	let bytes = 0;
	for (let i = 0; i < runs; i++) {
		const id = runIdAt(i);
		const runDir = join(dir, id);
		mkdirSync(runDir, { recursive: true });
		const info = { version: 1, id, createdAt: "2026-12-01T10:00:00.000Z", cwd, script: "return 1" };
		writeFileSync(join(runDir, "run.json"), JSON.stringify({ ...info, meta: { name: "big", description: "d" } }));
		const big = i >= runs - BIG_RUNS;
		let journal = "";
		for (let c = 0; c < CALLS_PER_RUN; c++) {
			const value = big && c === 0 ? answer : `answer ${c} of ${id}`;
			journal += `${JSON.stringify({ key: `k${c}`, value, usage: { input: 900, output: 100, total: 1000 }, cost: { usd: 0.01 }, model: "a/m", label: `call ${c}`, agentType: "general-purpose" })}\n`;
		}
		writeFileSync(join(runDir, "journal.jsonl"), journal);
		bytes += journal.length;
		const snapshot = { status: "completed", counts: {}, usage: {}, cost: { usd: 0.04 }, runId: id };
		writeFileSync(join(runDir, "snapshot.json"), JSON.stringify(snapshot, null, "\t"));
	}
	return bytes;
}

/** Run ids that sort in creation order: one a second from 2026-12-01 00:00:00. */
function runIdAt(i: number): string {
	const hours = Math.floor(i / 3600);
	const minutes = Math.floor((i % 3600) / 60);
	const seconds = i % 60;
	const time = [hours, minutes, seconds].map((n) => String(n).padStart(2, "0")).join("");
	return `wf-20261201-${time}-aaaaaa`;
}
