/**
 * The HTML scorecard (`eval --report`): graded trials through the real `compareArms`, drawn as one self-contained
 * page: the verdict with its interval, the arms, cost against pass rate, and the cases × arms grid with the cases
 * where the arms disagree first, each trial a mark linking to its run's report; text from cases and graders shown
 * as text. Opened in Debian's headless chromium: nothing requested but the file, no error, no markup run.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { checkEvalSpec, renderScorecardHtml, scorecardOf, type TrialRecord } from "../../src/eval/index.ts";
import { CHROMIUM_ARGS, findBinary, hasBinary } from "../helpers/system-binary.ts";

const MARKUP = `<img src=x onerror="globalThis.__pwned=1">`;
const dir = mkdtempSync(join(tmpdir(), "wf-eval-html-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 12 cases; arm B passes all, baseline A one in four; case c5's id and every reason carry markup. */
function card() {
	const ids = Array.from({ length: 12 }, (_, n) => (n === 5 ? `c5 ${MARKUP}` : `c${n}`));
	const spec = checkEvalSpec(
		{ cases: ids.map((id) => ({ id })), arms: { A: { workflow: "a.js" }, B: { workflow: "b.js" } }, trials: 2 },
		join(dir, "x.eval.json"),
	);
	const trials: TrialRecord[] = ids.flatMap((caseId, n) =>
		[1, 2].flatMap((trial) =>
			["A", "B"].map((arm) => {
				const pass = arm === "B" || n % 4 === 0;
				return {
					caseId,
					arm,
					trial,
					runId: `wf-20261204-210000-${arm.toLowerCase()}${n}t${trial}`,
					status: "completed" as const,
					costUsd: arm === "B" ? 0.02 : 0.01,
					durationMs: 1000,
					grade: { pass, reason: `${MARKUP} graded`, costUsd: 0 },
				};
			}),
		),
	);
	return scorecardOf("ev-20261204-210000-abcdef", spec, { trials, planned: 48 });
}

describe("renderScorecardHtml", () => {
	const html = renderScorecardHtml(card(), { reportHref: (runId) => `file:///runs/${runId}/report.html` });

	it("draws the verdict with its interval, and forbids every fetch", () => {
		expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none';`);
		expect(html).toMatch(
			/<tr class="verdict" data-verdict="better"><td><svg [^>]*><line [^>]*\/><rect class="interval" /,
		);
		expect(html).toContain("B is better: +75 points");
	});

	it("lists the cases where the arms disagree first, each trial a mark linking to its run's report", () => {
		const order = [...html.matchAll(/<tr class="case" data-case="([^"]*)"/g)].map((m) => m[1]);
		expect(order.slice(-3)).toEqual(["c0", "c4", "c8"]);
		expect(order).toHaveLength(12);
		expect(html).toContain(
			`<a href="file:///runs/wf-20261204-210000-b1t2/report.html"><span class="mark" data-outcome="passed"`,
		);
		expect(html.match(/class="mark"/g)).toHaveLength(48);
	});

	it("says which calls decided the failing trials, the calls' labels shown as text", () => {
		const blamed = card();
		blamed.blame = {
			arms: { A: { failing: 2, blamed: 2, decisive: { [`draft ${MARKUP}`]: 2 } } },
			trials: [1, 2].map((trial) => ({
				caseId: "c1",
				arm: "A",
				trial,
				runId: `wf-20261204-210000-a1t${trial}`,
				against: { arm: "B", trial, runId: `wf-20261204-210000-b1t${trial}` },
				decisive: [`draft ${MARKUP}`],
				decisivePairs: [],
				sentence: `failed because of \`draft ${MARKUP}\`: swapping its answer passes`,
			})),
		};
		const page = renderScorecardHtml(blamed);
		expect(page).not.toContain(MARKUP);
		expect(page).toContain(
			"<h2>Blame</h2>\n<p>Blame, arm A: `draft &lt;img src=x onerror=&quot;globalThis.__pwned=1&quot;&gt;` decided 2 of 2 failing trials</p>",
		);
		expect(page).toContain(
			'<p class="note">A c1 #2: failed because of `draft &lt;img src=x onerror=&quot;globalThis.__pwned=1&quot;&gt;`: swapping its answer passes (against B #2)</p>',
		);
		expect(html).not.toContain("<h2>Blame</h2>");
	});

	it("shows markup from cases and graders as text", () => {
		expect(html).not.toContain(MARKUP);
		expect(html).toContain("c5 &lt;img src=x onerror=&quot;globalThis.__pwned=1&quot;&gt;");
	});
});

describe.skipIf(!hasBinary("chromium"))("the scorecard in a real browser", () => {
	it("asks for nothing but the file, runs no markup, and shows every mark", async () => {
		const path = join(dir, "scorecard.html");
		writeFileSync(path, renderScorecardHtml(card()));
		const browser = await chromium.launch({ executablePath: findBinary("chromium"), args: CHROMIUM_ARGS });
		try {
			const page = await browser.newPage();
			const requested: string[] = [];
			const errors: string[] = [];
			page.on("request", (request) => requested.push(request.url()));
			page.on("pageerror", (error) => errors.push(error.message));
			await page.goto(pathToFileURL(path).href);
			expect(requested).toEqual([pathToFileURL(path).href]);
			expect(errors).toEqual([]);
			expect(await page.locator("span.mark").count()).toBe(48);
			expect(await page.locator('tr.verdict[data-verdict="better"] rect.interval').count()).toBe(1);
			expect(await page.locator("img").count()).toBe(0);
			expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
		} finally {
			await browser.close();
		}
	}, 120_000);
});
