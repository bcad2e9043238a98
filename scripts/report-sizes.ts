/**
 * Measures the report page of runs that hold a lot (test/report/log-run.ts: the real sandbox, the store's event
 * log, a scripted runner): 100k log lines, 1,000 and 10,000 agents, long prompts edited in a resume (a prompt is kept to its first 200 characters before the report sees it). Prints the
 * page's size, its log marks and its elements; docs/performance.md (row 14) keeps the numbers.
 * Usage: node scripts/report-sizes.ts
 */
import { loadRunReport, renderReportHtml } from "../src/report/index.ts";
import { shutdownSandboxPool } from "../src/sandbox/index.ts";
import { type LogRunOptions, runLogRun } from "../test/report/log-run.ts";

const cases: [string, LogRunOptions][] = [
	["one agent, 100k log lines", { logs: 100_000 }],
	["1,000 agents", { agents: 1000 }],
	["10,000 agents", { agents: 10_000 }],
	[
		"1,000 agents, 10,000-character prompts, resumed with each edited",
		{ agents: 1000, promptChars: 10_000, resume: "edited" },
	],
];
try {
	for (const [name, options] of cases) {
		const run = await runLogRun(options);
		try {
			const html = renderReportHtml(await loadRunReport(run.store, run.record.id));
			const marks = html.match(/<path class="mark /g)?.length ?? 0;
			const elements = html.match(/<[a-z]/g)?.length ?? 0;
			const kib = Math.round(Buffer.byteLength(html) / 1024);
			process.stdout.write(`${name}: ${kib} KiB, ${marks} log marks, ${elements} elements\n`);
		} finally {
			run.dispose();
		}
	}
} finally {
	await shutdownSandboxPool();
}
