/**
 * The report of the real run (test/report/scenario.ts) opened in Debian's headless chromium through playwright-core
 * (no browser download): a lane per call in each session, colours by outcome, the why-it-ran note on the edited
 * call, nothing requested but the file itself, and markup from labels, prompts, answers, errors and the log shown
 * as text (no element made from it, no handler run), in the page and in the detail box a hover or click fills.
 */
import { pathToFileURL } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeRunReport } from "../../src/report/index.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { CHROMIUM_ARGS, findBinary, hasBinary } from "../helpers/system-binary.ts";
import { MARKUP, type ReportScenario, runReportScenario } from "./scenario.ts";

checkSandboxLeaks();

/** The page's globals these checks use (the project compiles without the DOM's types). */
interface PageGlobals {
	document: {
		documentElement: { dataset: Record<string, string | undefined> };
		querySelectorAll(selector: string): { length: number };
	};
	getComputedStyle(element: unknown): { fill: string };
	__pwned?: number;
}

describe.skipIf(!hasBinary("chromium"))("the report in a real browser", () => {
	let scenario: ReportScenario;
	let browser: Browser;
	let page: Page;
	let fileUrl: string;
	const requested: string[] = [];
	const errors: string[] = [];

	beforeAll(async () => {
		scenario = await runReportScenario();
		const { path } = await writeRunReport(scenario.store, scenario.record.id);
		fileUrl = pathToFileURL(path).href;
		browser = await chromium.launch({ executablePath: findBinary("chromium"), args: CHROMIUM_ARGS });
		page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
		page.on("request", (request) => requested.push(request.url()));
		page.on("pageerror", (error) => errors.push(error.message));
		page.on("console", (message) => {
			if (message.type() === "error") errors.push(message.text());
		});
		await page.goto(fileUrl);
		await page.waitForFunction(
			() => (globalThis as unknown as PageGlobals).document.documentElement.dataset.ready === "1",
		);
	}, 120_000);
	afterAll(async () => {
		await browser?.close();
		scenario?.dispose();
	});

	/** `[data-outcome, label text]` of each lane of a session's timeline. */
	const lanesOf = (session: number) =>
		page.$$eval(`svg.timeline[data-session="${session}"] g.lane`, (lanes) =>
			lanes.map((lane) => [
				lane.getAttribute("data-outcome"),
				lane.querySelector("text.ll")?.lastChild?.textContent,
			]),
		);

	it("asks for nothing but the file, and runs without an error", () => {
		expect(requested).toEqual([fileUrl]);
		expect(errors).toEqual([]);
	});

	it("draws a lane per call in each session, grouped by phase, with the status and outcomes in the header", async () => {
		expect(await lanesOf(1)).toEqual([
			["completed", "#1 note parser"],
			["completed", `#2 ${MARKUP.slice(0, 31)}…`],
			["completed", "#3 note build"],
			["failed", "#4 note crash"],
			["completed", "#5 summarize"],
		]);
		expect(await lanesOf(2)).toEqual([
			["replayed", "#1 note parser"],
			["replayed", `#2 ${MARKUP.slice(0, 31)}…`],
			["replayed", "#3 note build"],
			["failed", "↻ #4 note crash"],
			["completed", "↻ #5 summarize"],
		]);
		const groups = await page.$$eval('svg.timeline[data-session="1"] g.group', (all) =>
			all.map((group) => group.getAttribute("data-phase")),
		);
		expect(groups).toEqual(["gather", "write"]);
		expect(await page.textContent("#status")).toBe("completed");
		expect(await page.$$eval("#outcomes .chip", (chips) => chips.map((chip) => chip.textContent))).toEqual([
			"5 completed",
			"2 failed",
			"3 replayed",
		]);
	});

	it("colours each attempt by how it ended: the stall retry's first bar stalled, then completed", async () => {
		const barsOf = async (session: number, index: number) =>
			page
				.locator(`svg.timeline[data-session="${session}"] g.lane >> nth=${index}`)
				.locator("rect.b:not(.o-queued)")
				.evaluateAll((rects) =>
					rects.map((rect) => (globalThis as unknown as PageGlobals).getComputedStyle(rect).fill),
				);
		expect(await barsOf(1, 0)).toEqual(["rgb(46, 157, 91)"]);
		expect(await barsOf(1, 2)).toEqual(["rgb(224, 138, 30)", "rgb(46, 157, 91)"]);
		expect(await barsOf(1, 3)).toEqual(["rgb(214, 69, 69)"]);
		expect(await barsOf(2, 0)).toEqual(["rgb(74, 144, 217)"]);
		// Time in the queue is drawn apart, in its own colour.
		const queued = await page.$$eval("svg.timeline rect.o-queued", (rects) =>
			rects.map((rect) => (globalThis as unknown as PageGlobals).getComputedStyle(rect).fill),
		);
		expect(new Set(queued)).toEqual(new Set(queued.length > 0 ? ["rgb(207, 213, 221)"] : []));
	});

	it("says why the edited call ran again: the recorded call, what differs, and the prompt's diff", async () => {
		const summarize =
			scenario.record.id && (await page.getAttribute('svg.timeline[data-session="2"] g.lane >> nth=4', "data-key"));
		const row = page.locator(`tr.why-row[data-key="${summarize}"]`);
		expect(await row.getAttribute("data-kind")).toBe("edited");
		const text = (await row.textContent()) ?? "";
		expect(text).toContain("nearest recorded call: summarize (#5 then)");
		expect(text).toContain('has another prompt from character 8: recorded "Summarize the three notes');
		expect(await row.locator("del").textContent()).toBe("ze the three");
		expect(await row.locator("ins").textContent()).toBe("se the 3");
		const crash = page.locator('tr.why-row[data-kind="unfinished"]');
		expect(await crash.textContent()).toContain("it did not finish in the first run (failed: 400 invalid request");
	});

	it("shows markup from the script and the models as text: no element is made from it and no handler runs", async () => {
		const none = () =>
			page.evaluate(() => {
				const page = globalThis as unknown as PageGlobals;
				return {
					images: page.document.querySelectorAll("img").length,
					italics: page.document.querySelectorAll("main i:not(.legend i), #detail i").length,
					pwned: page.__pwned,
				};
			});
		expect(await none()).toEqual({ images: 0, italics: 0, pwned: undefined });
		// The label in its lane, the log entry in the table, the error in the census: each as the text it is.
		const title = await page.textContent('svg.timeline[data-session="1"] g.lane >> nth=1 >> title');
		expect(title).toBe(`${MARKUP} widget · general-purpose`);
		expect(await page.locator("#log tr.log.info pre").first().textContent()).toBe(`${MARKUP} gathered notes`);
		expect(await page.locator("#census pre").textContent()).toBe(`400 invalid request: ${MARKUP} not allowed`);

		// Hover the widget's bar: the detail box has its label and prompt, as text.
		await page.hover('svg.timeline[data-session="1"] g.lane >> nth=1 >> rect.o-completed');
		const detail = page.locator("#detail");
		expect(await detail.getAttribute("class")).toBe("on");
		const shown = (await detail.textContent()) ?? "";
		expect(shown).toContain(`Label#2 ${MARKUP} widget`);
		expect(shown).toContain(`PromptNote on the widget ${MARKUP} change`);
		// Click the parser's bar (its answer has markup) and the crash's (its error has): pinned, still text.
		await page.click('svg.timeline[data-session="1"] g.lane >> nth=0 >> rect.o-completed');
		expect(await detail.textContent()).toContain(`Answer<i>parser</i> is faster ${MARKUP}`);
		await page.click('svg.timeline[data-session="1"] g.lane >> nth=3 >> rect.o-failed');
		const crash = (await detail.textContent()) ?? "";
		expect(crash).toContain(`Error400 invalid request: ${MARKUP} not allowed`);
		expect(crash).toContain("Agent typegeneral-purpose");
		expect(crash).toContain("Modelfaux/faux-priced");
		expect(await none()).toEqual({ images: 0, italics: 0, pwned: undefined });
		expect(requested).toEqual([fileUrl]);
	});

	it("the detail box of the stalled call: both attempts, the stall and the tokens", async () => {
		await page.click('svg.timeline[data-session="1"] g.lane >> nth=2 >> rect.o-completed');
		const text = (await page.textContent("#detail")) ?? "";
		expect(text).toContain("Attempts2");
		expect(text).toMatch(/Errorstalled: stalled after 1\.5 s/);
		expect(text).toMatch(/Tokens\d+/);
		expect(text).toMatch(/Cost\$0\.\d+/);
		// Both attempts' conversations, as paths in the run's folder.
		expect(text).toContain(
			`Conversation${scenario.record.dir}/children/002-note-build-1.jsonl\n${scenario.record.dir}/children/002-note-build-2.jsonl`,
		);
	});
});
