/**
 * The page stays bounded whatever the log holds: a run that logged 100,000 lines (the real sandbox, the store's
 * event log: test/report/log-run.ts) draws at most `MARK_LIMIT` log marks, each merged mark saying how many entries
 * it stands for, and its file stays under 1 MiB (docs/performance.md, row 14); a small log still draws a mark per
 * entry; a long message, many waits and many failures are cut and counted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEventLog } from "../../src/report/event-log.ts";
import { LOG_ROWS, TEXT_CHARS } from "../../src/report/html.ts";
import { buildReportModel, loadRunReport, type ReportModel, renderReportHtml } from "../../src/report/index.ts";
import { BAND_LIMIT, MARK_LIMIT } from "../../src/report/svg.ts";
import type { RunInfo } from "../../src/runs/index.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { type LogRun, runLogRun } from "./log-run.ts";

checkSandboxLeaks();

/** The log marks of the page: each one's title. */
function markTitles(html: string): string[] {
	return [...html.matchAll(/<path class="mark (?:info|warn|error)" [^>]*><title>(.*?)<\/title><\/path>/g)].map(
		(match) => match[1] ?? "",
	);
}

describe("a run that logged 100,000 lines", () => {
	let run: LogRun;
	let model: ReportModel;
	let html: string;
	beforeAll(async () => {
		run = await runLogRun({ logs: 100_000 });
		model = await loadRunReport(run.store, run.record.id);
		html = renderReportHtml(model);
	}, 120_000);
	afterAll(() => run?.dispose());

	it("draws at most MARK_LIMIT marks, each merged one counting the entries it stands for, and stays under 1 MiB", () => {
		// The event log keeps tens of thousands of them (info lines stop at three quarters of its bound).
		const timed = model.logs.filter((log) => log.time !== undefined);
		expect(timed.length).toBeGreaterThan(50_000);
		expect(model.status).toBe("completed");
		const titles = markTitles(html);
		expect(titles.length).toBeGreaterThan(0);
		expect(titles.length).toBeLessThanOrEqual(MARK_LIMIT);
		// Every entry is in exactly one mark's count.
		const counted = titles.map((title) => Number(/^(\d+) log entries \(/.exec(title)?.[1] ?? 1));
		expect(counted.reduce((sum, count) => sum + count, 0)).toBe(timed.length);
		const merged = titles.find((title) => title.includes(" warn,"));
		expect(merged).toMatch(
			/^\d+ log entries \(\d+ warn, \d+ info\) from \S+ to \S+; the first warn: progress line \d+ of the loop$/,
		);
		expect(html).toContain(`>log (${timed.length} entries)</text>`);
		expect(Buffer.byteLength(html)).toBeLessThan(1024 * 1024);
		// The table below still lists the first LOG_ROWS and counts the rest.
		expect(html.match(/<tr class="log /g)).toHaveLength(LOG_ROWS);
		expect(html).toContain(`… and ${model.logs.length - LOG_ROWS} more entries`);
	});
});

describe("a run that logged a few lines", () => {
	let run: LogRun;
	beforeAll(async () => {
		run = await runLogRun({ logs: 150 });
	}, 120_000);
	afterAll(() => run?.dispose());

	it("still draws one mark per entry, titled with its message", async () => {
		const model = await loadRunReport(run.store, run.record.id);
		const titles = markTitles(renderReportHtml(model));
		expect(titles).toHaveLength(150);
		expect(titles[0]).toBe("info: progress line 0 of the loop");
		expect(titles[99]).toBe("warn: progress line 99 of the loop");
	});
});

const INFO: RunInfo = {
	version: 1,
	id: "wf-20261201-101530-k3f9x2",
	createdAt: "2026-12-01T10:15:30.000Z",
	cwd: "/p",
	script: "",
	meta: { name: "waits", description: "d" },
};

describe("text that grows with the run", () => {
	it("cuts a long log message, draws at most BAND_LIMIT waits, lists at most LOG_ROWS failures and 20 unreadable lines", () => {
		const lines: Record<string, unknown>[] = [{ type: "run_start", time: 0 }];
		for (let i = 0; i < BAND_LIMIT + 40; i++) {
			lines.push(
				{ type: "provider_wait_started", time: i * 10, until: i * 10 + 5, kind: "rate_limit", message: "429" },
				{ type: "provider_wait_ended", time: i * 10 + 5 },
			);
		}
		lines.push({ type: "log", time: 20_000, level: "info", message: "y".repeat(100_000) });
		const log: RunEventLog = {
			sessions: [{ session: 1, time: 0, resumed: false }],
			events: lines.map((line) => ({ ...line, session: 1 })) as unknown as RunEventLog["events"],
			dropped: 0,
			problems: Array.from({ length: 25 }, (_, i) => `events.jsonl line ${i + 1}: not JSON`),
		};
		const failures = Array.from({ length: LOG_ROWS + 5 }, (_, index) => ({
			kind: "agent" as const,
			index,
			cause: "z".repeat(5000),
		}));
		const model = buildReportModel({ info: INFO, status: "failed", journal: [], log });
		model.census = failures;
		const html = renderReportHtml(model);
		expect(html.match(/<rect class="band wait"/g)).toHaveLength(BAND_LIMIT);
		expect(html).toContain(">waits, questions (40 more not drawn)</text>");
		expect(html).toContain(`<pre>${"y".repeat(TEXT_CHARS - 1)}… (100000 characters)</pre>`);
		expect(html).not.toContain("y".repeat(TEXT_CHARS));
		expect(html.match(/<pre>z+… \(5000 characters\)<\/pre>/g)).toHaveLength(LOG_ROWS);
		expect(html).toContain("… and 5 more failures");
		// A record torn in many places: the first unreadable lines named, the rest counted.
		expect(html.match(/Could not read: events\.jsonl line \d+: not JSON/g)).toHaveLength(20);
		expect(html).toContain("Could not read: … and 5 more unreadable lines");
	});
});
