/**
 * The report agrees with itself (issue 33): on a real run that a newcomer meets (test/report/newcomer-run.ts: a
 * failed first session, then a resume that replays two calls and runs the failed one again, on models with and
 * without a price), the header, the phase table, each session's heading and `--text` give one count of calls and
 * attempts, one cost figure with its unknown part said the same way, and every session's end. (A replay of unknown
 * price saving "unknown": test/progress/cost-render.test.ts and the resume line of test/e2e/resume-edit.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/cli.ts";
import { loadRunReport, type ReportModel, renderReportHtml } from "../../src/report/index.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { type NewcomerRun, runNewcomer } from "./newcomer-run.ts";

checkSandboxLeaks();

let run: NewcomerRun;
let model: ReportModel;
let html: string;
let text: string;
beforeAll(async () => {
	run = await runNewcomer();
	model = await loadRunReport(run.store, run.record.id);
	html = renderReportHtml(model);
	text = await cliText();
}, 120_000);
afterAll(() => run?.dispose());

/** `pi-workflows report <id> --text`, run in this process against the run's project. */
async function cliText(): Promise<string> {
	let stdout = "";
	const code = await runCli(["report", run.record.id, "--text"], {
		cwd: run.cwd,
		env: {},
		agentDir: run.agentDir,
		stdout: {
			write: (chunk: string) => {
				stdout += String(chunk);
				return true;
			},
		} as unknown as NodeJS.WritableStream,
		stderr: { write: () => true } as unknown as NodeJS.WritableStream,
	});
	expect(code).toBe(0);
	return stdout;
}

/** The text of the element with `id` (its tags taken out). */
function byId(id: string): string {
	const match = new RegExp(`<span id="${id}">(.*?)</span>(?=</b>)`).exec(html);
	return (match?.[1] ?? "").replace(/<[^>]*>/g, "");
}

/** The phase table's rows, as their cells' text. */
function phaseRows(): string[][] {
	const table = /<table id="phases">(.*?)<\/table>/.exec(html)?.[1] ?? "";
	return [...table.matchAll(/<tr>(.*?)<\/tr>/g)]
		.slice(1)
		.map((row) =>
			[...(row[1] ?? "").matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((cell) =>
				(cell[1] ?? "").replace(/<[^>]*>/g, "").trim(),
			),
		);
}

describe("one count of calls and attempts", () => {
	it("the header, the phase table, each session and --text count the same calls, and name attempts apart", () => {
		// Three calls in the first run, three in the resume (two replayed): six lanes; 1 + 1 + 1 + 1 attempts.
		expect(model.calls).toHaveLength(6);
		expect(model.attempts).toBe(4);
		expect(byId("calls")).toBe("6 calls, 4 attempts in 2 sessions (1 resume)");
		expect(phaseRows().map((row) => row[1])).toEqual(["6"]);
		expect(html.match(/ · (\d+) calls<\/div>/g)).toEqual([" · 3 calls</div>", " · 3 calls</div>"]);
		const chips = [...html.matchAll(/data-outcome="[a-z]+">(\d+) [a-z]+</g)].map((chip) => Number(chip[1]));
		expect(chips.reduce((sum, n) => sum + n, 0)).toBe(6);
		expect(text.split("\n")[0]).toMatch(
			/ · 5 completed, 1 failed, 0 skipped of 6 calls \(2 replayed\) · .* · 4 attempts$/,
		);
	});
});

describe("one cost figure", () => {
	it("the header, the phase row and --text say the same dollars and the same unknown calls", () => {
		// `one`, the failed `three` and the resumed `three` ran on a model with no price; `two` on a priced one.
		const spent = /^\$0\.\d+ \+ unknown for 3 calls$/;
		const [row] = phaseRows();
		expect(row?.[3]).toMatch(spent);
		expect(byId("cost").split("; ")[0]).toBe(row?.[3]);
		// The replays: `two` (priced) and `one` (unknown).
		expect(row?.[4]).toMatch(/^\$0\.\d+ \+ unknown for 1 call$/);
		expect(byId("cost")).toBe(`${row?.[3]}; replayed calls had cost ${row?.[4]}`);
		expect(text.split("\n")[0]).toContain(` · ${row?.[3]}; replayed calls had cost ${row?.[4]} · `);
		expect(model.cost.usd).toBeGreaterThan(0);
		expect(model.unknownCostCalls).toBe(3);
	});
});

describe("every session's outcome, after the resume", () => {
	it("the first session stays failed (red, with its error) in the page and in --text; the resume completed", () => {
		expect(model.sessions.map((session) => `${session.session} ${session.status}`)).toEqual([
			"1 failed",
			"2 completed",
		]);
		expect(html).toMatch(
			/<section class="session" data-session="1" data-status="failed"><h2>Session 1: the first run <span class="chip o-failed">failed<\/span><\/h2>/,
		);
		expect(html).toMatch(
			/data-status="failed">[\s\S]*?<div class="note problem">Error: script_error: step three gave nothing/,
		);
		expect(html).toMatch(/<h2>Resume 1 <span class="chip o-completed">completed<\/span><\/h2>/);
		// The header's outcomes keep the first session's failed call beside the resume's.
		expect(html).toContain('<span class="chip o-failed" data-outcome="failed">1 failed</span>');
		const lines = text.split("\n");
		expect(lines.find((line) => line.startsWith("First run"))).toMatch(/^First run · failed · /);
		expect(lines[lines.findIndex((line) => line.startsWith("First run")) + 1]).toBe(
			"  Error: script_error: step three gave nothing (6:28)",
		);
		expect(lines.find((line) => line.startsWith("Resume 1"))).toMatch(/^Resume 1 · completed · /);
	});
});
