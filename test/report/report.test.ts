/**
 * The report of a real run (test/report/scenario.ts: pi children on the faux provider, the real sandbox, the run
 * store; phases, a failure, a stall retry, a resume with one edited prompt): its model, the `--text` timeline and
 * the HTML file through `pi-workflows report`, markup kept as text, and a run without an event log.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/cli.ts";
import { loadRunReport, type ReportModel, renderReportHtml, renderReportText } from "../../src/report/index.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { MARKUP, type ReportScenario, runReportScenario } from "./scenario.ts";

checkSandboxLeaks();

let scenario: ReportScenario;
let model: ReportModel;
beforeAll(async () => {
	scenario = await runReportScenario();
	model = await loadRunReport(scenario.store, scenario.record.id);
}, 120_000);
afterAll(() => scenario?.dispose());

/** The calls of session `n` as "label: outcome [bar outcomes]". */
function lanes(n: number): string[] {
	const session = model.sessions.find((candidate) => candidate.session === n);
	return (session?.calls ?? []).map((id) => {
		const call = model.calls[id];
		const bars = call?.bars.filter((bar) => bar.outcome !== "queued").map((bar) => bar.outcome) ?? [];
		return `${call?.label}: ${call?.outcome} [${bars.join(" ")}]`;
	});
}

/** Runs `pi-workflows <argv>` in this process against the scenario's project and store. */
async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
	let stdout = "";
	let stderr = "";
	const sink = (write: (text: string) => void) => ({
		write: (chunk: string) => {
			write(String(chunk));
			return true;
		},
	});
	const code = await runCli(argv, {
		cwd: scenario.cwd,
		env: {},
		agentDir: scenario.agentDir,
		stdout: sink((text) => {
			stdout += text;
		}) as unknown as NodeJS.WritableStream,
		stderr: sink((text) => {
			stderr += text;
		}) as unknown as NodeJS.WritableStream,
	});
	return { code, stdout, stderr };
}

describe("the report's model of a real run", () => {
	it("the header names the script the run starts from by its sha256 (12 hex digits, the whole in its title); a record made without a tier shows none", async () => {
		const sha256 = createHash("sha256").update(scenario.record.info.script).digest("hex");
		expect(model.script).toEqual({ sha256 });
		const html = renderReportHtml(model);
		expect(html).toContain(
			`script sha256 <code id="script-sha256" title="${sha256}">${sha256.slice(0, 12)}</code></div>`,
		);
		expect(renderReportText(model).split("\n")[1]).toBe(`Script: sha256 ${sha256.slice(0, 12)}`);
	});

	it("a session per run: the first with a lane per call (the stall retry two bars), the resume replaying three", () => {
		expect(model.name).toBe("release-notes");
		expect(model.status).toBe("completed");
		expect(model.sessions.map((session) => [session.session, session.resumed])).toEqual([
			[1, false],
			[2, true],
		]);
		const widget = `${MARKUP} widget`;
		expect(lanes(1)).toEqual([
			"note parser: completed [completed]",
			`${widget}: completed [completed]`,
			"note build: completed [stalled completed]",
			"note crash: failed [failed]",
			"summarize: completed [completed]",
		]);
		expect(lanes(2)).toEqual([
			"note parser: replayed [replayed]",
			`${widget}: replayed [replayed]`,
			"note build: replayed [replayed]",
			"note crash: failed [failed]",
			"summarize: completed [completed]",
		]);
		expect(model.sessions[0]?.phases.map((phase) => phase.name)).toEqual(["gather", "write"]);
		// Each call's bars follow one another: queued, then each attempt, none overlapping.
		for (const call of model.calls) {
			for (let i = 1; i < call.bars.length; i++) {
				expect(call.bars[i]?.start).toBeGreaterThanOrEqual(call.bars[i - 1]?.end ?? 0);
			}
		}
		const build = model.calls.find((call) => call.label === "note build" && call.session === 1);
		expect(build).toMatchObject({ attempts: 2, agentType: "watched", model: "faux/faux-priced" });
		expect(build?.bars.find((bar) => bar.outcome === "stalled")?.note).toMatch(/stalled/);
		// Each attempt's conversation is a pi session file in the run's folder, linked from its call (and its replay).
		expect(build?.transcripts).toEqual([
			join(scenario.record.dir, "children/002-note-build-1.jsonl"),
			join(scenario.record.dir, "children/002-note-build-2.jsonl"),
		]);
		for (const path of build?.transcripts ?? []) expect(existsSync(path)).toBe(true);
		const replayed = model.calls.find((call) => call.label === "note build" && call.session === 2);
		expect(replayed?.transcripts).toEqual(build?.transcripts);
		expect(model.attempts).toBe(8);
	});

	it("why it ran again: the edited prompt against the recorded call, with its diff; the failed call did not finish", () => {
		const summarize = model.calls.find((call) => call.label === "summarize" && call.session === 2);
		expect(summarize?.why).toEqual({
			kind: "edited",
			nearest: { label: "summarize", index: 4 },
			differences: [
				expect.stringMatching(
					/^has another prompt from character 8: recorded "Summarize the three notes for the rel…", now "Summarise the 3 notes for the release…" \(\d+ characters then, \d+ now\)$/,
				),
			],
			diff: { same: "Summari", recorded: "ze the three", now: "se the 3" },
		});
		const crash = model.calls.find((call) => call.label === "note crash" && call.session === 2);
		expect(crash?.why?.kind).toBe("unfinished");
		expect(crash?.why?.differences[0]).toMatch(/^it did not finish in the first run \(failed: 400 invalid request/);
		// Calls of the first run, and replayed ones, have nothing to explain.
		expect(model.calls.filter((call) => call.why).map((call) => call.label)).toEqual(["note crash", "summarize"]);
	});

	it("tokens and cost by phase, the census and the log (markup and all)", () => {
		const gather = model.phases.find((phase) => phase.phase === "gather");
		expect(gather?.calls).toBe(8);
		expect(gather?.tokens).toBeGreaterThan(0);
		expect(gather?.cost.usd).toBeGreaterThan(0);
		expect(gather?.replayedCost.usd).toBeGreaterThan(0);
		expect(model.census).toEqual([
			expect.objectContaining({ kind: "agent", label: "note crash", cause: expect.stringContaining(MARKUP) }),
		]);
		expect(model.logs.map((log) => `${log.session} ${log.level} ${log.message}`)).toEqual([
			expect.stringMatching(/^1 warn `note build`: stalled after .* without progress; retried once$/),
			`1 info ${MARKUP} gathered notes`,
			`2 info ${MARKUP} gathered notes`,
		]);
		expect(model.missing).toEqual([]);
	});
});

describe("pi-workflows report", () => {
	it("--text: a line per call with a bar of --width characters, the calls that ran again and why, the census", async () => {
		const { code, stdout } = await cli(["report", scenario.record.id, "--text", "--width", "20"]);
		expect(code).toBe(0);
		const lines = stdout.split("\n");
		expect(lines[0]).toMatch(
			new RegExp(
				`^release-notes · ${scenario.record.id} · completed · .* · 8 completed, 2 failed, 0 skipped of 10 calls \\(3 replayed\\) · .* tokens · \\$.* · 8 attempts$`,
			),
		);
		const bar = (label: string, marks: string, tail: string) =>
			new RegExp(`^    ${label}\\s+\\|[${marks} ]{20}\\| ${tail}`);
		const first = lines.slice(lines.indexOf(lines.find((line) => line.startsWith("First run")) ?? ""));
		expect(first.find((line) => line.includes("note build"))).toMatch(
			bar("#3 note build", "·~█", "completed .* · 2 attempts"),
		);
		expect(first.find((line) => line.includes("note crash"))).toMatch(bar("#4 note crash", "·✗", "failed"));
		const resume = lines.slice(lines.findIndex((line) => line.startsWith("Resume 1")));
		expect(resume.find((line) => line.includes("note parser"))).toMatch(bar("#1 note parser", "=", "replayed"));
		expect(resume.find((line) => line.includes("summarize"))).toMatch(
			bar("#5 summarize", "·█", "completed .*↻ ran again"),
		);
		// Every bar is exactly --width wide.
		for (const line of lines.filter((candidate) => candidate.startsWith("    #"))) {
			expect(/\|(.*)\|/.exec(line)?.[1]).toHaveLength(20);
		}
		expect(stdout).toContain("Why it ran again:\n  #4 note crash: it did not finish in the first run");
		expect(stdout).toMatch(
			/\n {2}#5 summarize: nearest recorded call summarize \(#5 then\): has another prompt from character 8/,
		);
		expect(stdout).toContain(`Census:\n  ✗ note crash: 400 invalid request: ${MARKUP} not allowed`);
	});

	it("writes the HTML next to the run's record (or to --out) and prints its path", async () => {
		const plain = await cli(["report", scenario.record.id]);
		expect(plain.code).toBe(0);
		expect(plain.stdout).toBe(`${join(scenario.record.dir, "report.html")}\n`);
		expect(plain.stderr).toMatch(
			/^Report of run wf-.* \(10 calls, \d+ KiB\): open it in a browser; it fetches nothing\.\n$/,
		);
		const out = await cli(["report", scenario.record.id, "--out", "custom.html"]);
		expect(out.stdout).toBe(`${join(scenario.cwd, "custom.html")}\n`);
		expect(readFileSync(join(scenario.cwd, "custom.html"), "utf8")).toBe(
			readFileSync(join(scenario.record.dir, "report.html"), "utf8"),
		);
	});

	it("says what to give when the run id is missing or unknown", async () => {
		const none = await cli(["report"]);
		expect(none).toMatchObject({ code: 2, stdout: "" });
		expect(none.stderr).toBe(
			"pi-workflows: `report` takes one run id: pi-workflows report <runId> [--out <file>] [--text] (pi-workflows runs lists them)\n",
		);
		const unknown = await cli(["report", "wf-20200101-000000-aaaaaa"]);
		expect(unknown.code).toBe(2);
		expect(unknown.stderr).toMatch(
			/^pi-workflows: Run `wf-20200101-000000-aaaaaa` not found in project .*\. Recent runs here: wf-/,
		);
	});
});

describe("the HTML file", () => {
	it("holds every string from the script and the models as text: no markup gets through", () => {
		const html = renderReportHtml(model);
		expect(html).not.toContain("<img");
		expect(html).not.toContain("<i>parser");
		// The label (lane, why table), the prompt, answer and error (the detail data), the log entry and the census.
		expect(html).toContain("&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt; widget");
		expect(html).toContain("&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt; gathered notes");
		expect(html).toContain("400 invalid request: &lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt; not allowed");
		expect(html).toContain("\\u003ci\\u003eparser\\u003c/i\\u003e");
		// One script of data and one of code, both the report's own; nothing to fetch.
		expect(html.match(/<script/g)).toHaveLength(2);
		expect(html).not.toMatch(/<[a-z][^>]*\s(src|href)=/i);
		expect(html).toContain("default-src 'none'");
	});
});

describe("a run without an event log", () => {
	it("still gets a report, from its journal and census, saying what is missing", async () => {
		const log = join(scenario.record.dir, "events.jsonl");
		renameSync(log, `${log}.away`);
		try {
			const old = await loadRunReport(scenario.store, scenario.record.id);
			expect(old.sessions).toEqual([]);
			expect(old.missing[0]).toMatch(
				/^This run has no event log \(events\.jsonl\): it was recorded before runs kept one\./,
			);
			expect(old.calls.map((call) => `${call.label}: ${call.outcome}`)).toEqual([
				"note parser: completed",
				`${MARKUP} widget: completed`,
				"note build: completed",
				"note crash: failed",
				"summarize: completed",
				"summarize: completed",
			]);
			const text = renderReportText(old);
			expect(text).toContain("\n! This run has no event log");
			expect(renderReportHtml(old)).toContain('<div class="note missing">This run has no event log');
		} finally {
			renameSync(`${log}.away`, log);
		}
		expect(existsSync(log)).toBe(true);
	});
});
