/**
 * A 1,000-agent run (test/report/big-run.ts: a scripted runner, the real sandbox, the store's event log, a resume)
 * stays readable: a phase with more calls than `LANE_LIMIT` packs them into shared rows, every call can still be
 * hovered, the file stays small, and `--text` is one line per call. (Its time to build and open is in the bench.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRunReport, type ReportModel, renderReportHtml, renderReportText } from "../../src/report/index.ts";
import { LANE_LIMIT } from "../../src/report/svg.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { type BigRun, runBigRun } from "./big-run.ts";

checkSandboxLeaks();

let big: BigRun;
let model: ReportModel;
let html: string;
beforeAll(async () => {
	big = await runBigRun(1000);
	model = await loadRunReport(big.store, big.record.id);
	html = renderReportHtml(model);
}, 120_000);
afterAll(() => big?.dispose());

describe("the report of a 1,000-agent run", () => {
	it("has every call of both sessions, the failures and retries of the first, the replays of the resume", () => {
		expect(model.sessions.map((session) => session.calls.length)).toEqual([1000, 1000]);
		const first = model.calls.filter((call) => call.session === 1);
		// Reviews are calls 600…998: every 50th index fails on both attempts; the summary fails too.
		const failed = [0, 50, 100, 150, 200, 250, 300, 350].map((n) => `review ${n}`);
		expect(first.filter((call) => call.outcome === "failed").map((call) => call.label)).toEqual([
			...failed,
			"summary",
		]);
		const retried = first.find((call) => call.label === "review 0");
		expect(retried?.bars.filter((bar) => bar.outcome !== "queued").map((bar) => bar.outcome)).toEqual([
			"failed",
			"failed",
		]);
		const resume = model.calls.filter((call) => call.session === 2);
		expect(resume.filter((call) => call.outcome === "replayed")).toHaveLength(991);
		expect(resume.filter((call) => call.why?.kind === "unfinished").map((call) => call.label)).toEqual([
			...failed,
			"summary",
		]);
		// The summary's prompt counts the reviews, so it is another call now; the recorded summary had failed.
		expect(resume.find((call) => call.label === "summary")?.why).toEqual({
			kind: "unfinished",
			nearest: { label: "summary", index: 999 },
			differences: [
				"the call of that label in the first run did not finish (failed: summary model overloaded), so nothing was recorded to replay; it is another call now",
				"its prompt differs (see the diff of their first characters)",
			],
			diff: { same: "Summarize 39", recorded: "1", now: "9" },
		});
		expect(model.status).toBe("completed");
	});

	it("packs a phase of more than LANE_LIMIT calls into shared rows, each call still a bar to hover", () => {
		const session = /<svg class="timeline" data-session="1"[\s\S]*?<\/svg>/.exec(html)?.[0] ?? "";
		expect(session).toMatch(/scan · 600 calls packed into \d+ rows/);
		const rows = Number(/scan · 600 calls packed into (\d+) rows/.exec(session)?.[1]);
		expect(rows).toBeGreaterThan(0);
		expect(rows).toBeLessThan(600);
		expect(LANE_LIMIT).toBeLessThan(600);
		// Every call of the session has a bar that names it.
		const named = new Set([...session.matchAll(/data-c="(\d+)"/g)].map((match) => Number(match[1])));
		expect(named).toEqual(new Set(model.sessions[0]?.calls));
		// Lanes drawn: one per packed row, one per call of the small phases; far fewer than calls.
		expect(session.match(/<g class="lane/g)?.length).toBeLessThan(700);
	});

	it("stays small: a replayed call's detail points at the call that ran instead of repeating it", () => {
		expect(Buffer.byteLength(html)).toBeLessThan(700 * 1024);
		const data = JSON.parse(
			/<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html)?.[1] ?? "[]",
		);
		expect(data).toHaveLength(2000);
		const replayed = model.calls.find((call) => call.session === 2 && call.outcome === "replayed");
		expect(data[replayed?.id ?? -1]).toMatchObject({ ref: expect.any(String), outcome: "replayed" });
		expect(data[Number(data[replayed?.id ?? -1].ref)].label).toBe(
			`#${(replayed?.index ?? 0) + 1} ${replayed?.label}`,
		);
	});

	it("--text: one line per call of each session", () => {
		const lines = renderReportText(model).split("\n");
		expect(lines.filter((line) => /^ {4}#\d+ /.test(line))).toHaveLength(2000);
	});
});
