/**
 * Row 12, the run report (`src/report/`): the time to build the HTML of a 1,000-agent run from its record (read
 * run.json, journal, snapshot and event log, fold, draw) and of the same run resumed once (2,000 calls over two
 * sessions), the file's size, and the time Debian's chromium takes to open it: from navigation start to the first
 * frame painted after the page's "ready" mark (its script has run). The run is test/report/big-run.ts: three phases,
 * failures and retries, on the run store with its event log.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { loadRunReport, renderReportHtml, writeRunReport } from "../../src/report/index.ts";
import { CHROMIUM_ARGS, findBinary } from "../../test/helpers/system-binary.ts";
import { type BigRun, runBigRun } from "../../test/report/big-run.ts";
import { type BenchContext, samples } from "../lib/context.ts";
import { formatSummary, type RowResult } from "../lib/report.ts";
import { now, type Summary, summarize } from "../lib/stats.ts";

const AGENTS = 1000;

interface Measured {
	build: Summary;
	kib: number;
	open?: Summary;
}

export async function runReport(context: BenchContext): Promise<RowResult[]> {
	// One run measured twice: after its first session, then resumed (the same record a fresh resumed run would have).
	const run = await runBigRun(AGENTS, { resume: false });
	const executablePath = findBinary("chromium");
	let browser: Browser | undefined;
	try {
		if (executablePath) browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
		const one = await measure(run, context, browser);
		await run.resume();
		const two = await measure(run, context, browser);
		context.log(
			`row 14: build ${formatSummary(one.build)} ms, ${one.kib} KiB, open ${one.open ? formatSummary(one.open) : "—"} ms`,
		);
		const pi = (summary: Summary): RowResult["values"] => ({ "pi-workflows": summary });
		const size = (kib: number): Summary => summarize([kib]);
		const rows: RowResult[] = [
			{
				id: "14a",
				title: "Report: build the HTML of a 1,000-agent run (read the record, fold, draw)",
				unit: "ms",
				values: pi(one.build),
				ratios: false,
			},
			{
				id: "14b",
				title: "Report: the same run resumed once (2,000 calls over two sessions)",
				unit: "ms",
				values: pi(two.build),
				ratios: false,
			},
			{
				id: "14c",
				title: "Report: the file of the 1,000-agent run",
				unit: "KiB",
				values: pi(size(one.kib)),
				ratios: false,
			},
			{
				id: "14d",
				title: "Report: the file of the resumed run",
				unit: "KiB",
				values: pi(size(two.kib)),
				ratios: false,
			},
		];
		if (one.open && two.open) {
			const target = { max: 1000, text: "≤ 1 s" };
			rows.push(
				{
					id: "14e",
					title: "Report: open the 1,000-agent run's file in chromium (navigation to the first frame after ready)",
					unit: "ms",
					target,
					values: pi(one.open),
					ratios: false,
				},
				{
					id: "14f",
					title: "Report: open the resumed run's file in chromium",
					unit: "ms",
					target,
					values: pi(two.open),
					ratios: false,
				},
			);
		} else {
			rows.push({
				id: "14e",
				title: "Report: open in chromium: skipped, chromium is not on PATH",
				unit: "",
				values: {},
				ratios: false,
			});
		}
		return rows;
	} finally {
		await browser?.close();
		run.dispose();
	}
}

async function measure(run: BigRun, context: BenchContext, browser: Browser | undefined): Promise<Measured> {
	// Warm-up: the first build compiles the code paths.
	renderReportHtml(await loadRunReport(run.store, run.record.id));
	const builds: number[] = [];
	for (let i = 0; i < samples(context, 9, 3); i++) {
		const started = now();
		renderReportHtml(await loadRunReport(run.store, run.record.id));
		builds.push(now() - started);
	}
	const out = join(run.record.dir, "bench-report.html");
	const { bytes } = await writeRunReport(run.store, run.record.id, { out });
	const measured: Measured = { build: summarize(builds), kib: Math.round(bytes / 1024) };
	if (!browser) return measured;
	try {
		const opens: number[] = [];
		for (let i = 0; i < samples(context, 5, 1) + 1; i++) {
			const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
			await page.goto(pathToFileURL(out).href);
			await page.waitForFunction(
				() =>
					(globalThis as unknown as { document: { documentElement: { dataset: { ready?: string } } } }).document
						.documentElement.dataset.ready === "1",
			);
			// Then two animation frames: the page has been laid out and painted once its script has run.
			const painted = await page.evaluate(
				() =>
					new Promise<number>((resolve) => {
						const page = globalThis as unknown as {
							requestAnimationFrame(callback: () => void): void;
							performance: { now(): number };
						};
						page.requestAnimationFrame(() => page.requestAnimationFrame(() => resolve(page.performance.now())));
					}),
			);
			// The first open warms the browser's caches of its own code; it is not a sample.
			if (i > 0) opens.push(painted);
			await page.close();
		}
		measured.open = summarize(opens);
	} finally {
		await rm(out, { force: true });
	}
	return measured;
}
