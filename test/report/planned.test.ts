/**
 * Planned against actual in the report: a real run (the tool's, with its plan made beside it) whose real answers
 * take another branch than its dry run's stand-ins did: per phase, the calls that ran as planned, outside the plan,
 * and planned but never ran, and the plan's estimate against the cost; in `report --text` and in Chromium.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DurableRun } from "../../src/host/durable-run.ts";
import { startToolRun } from "../../src/pi/runs/tool-run.ts";
import { runReportText, writeRunReport } from "../../src/report/index.ts";
import { plannedAgainstActual } from "../../src/report/planned.ts";
import { createRunStore, type RunStore } from "../../src/runs/index.ts";
import { createFakeRunner } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { CHROMIUM_ARGS, findBinary, hasBinary } from "../helpers/system-binary.ts";

checkSandboxLeaks();

/** The dry run's stand-in answer is not "yes": it plans a note; the real answer is, and two fixes run instead. */
const BRANCHY = `export const meta = { name: "branchy", description: "look, then fix or note", phases: [{ title: "look" }, { title: "act" }] };
phase("look");
const answer = await agent("is it broken?", { label: "look" });
phase("act");
if (answer === "yes") await parallel(["a", "b"].map((x) => () => agent("fix " + x, { label: "fix" })));
else await agent("write a note", { label: "note" });
return answer;
`;

describe("plannedAgainstActual", () => {
	it("per phase and label: as planned, outside the plan, planned but never ran", () => {
		const planned = plannedAgainstActual(
			{
				version: 1,
				createdAt: 0,
				workflow: "w",
				phases: [
					{
						phase: "read",
						calls: [{ phase: "read", label: "read", agentType: "scout", count: 3 }],
						low: 3,
						high: 3,
					},
					{ calls: [{ label: "sum", agentType: "g", count: 1 }], low: 1, high: 1 },
				],
				total: { low: 4, high: 4, usd: { low: 0.1, high: 0.2 } },
				basis: "the catalog",
			},
			[
				{ phase: "read", label: "read" },
				{ phase: "read", label: "read" },
				{ phase: "read", label: "extra" },
			],
			{ usd: 0.05 },
			"(no phase)",
		);
		expect(planned.phases).toEqual([
			{
				phase: "read",
				planned: 3,
				ran: 3,
				asPlanned: 2,
				outside: 1,
				neverRan: 1,
				outsideLabels: [{ label: "extra", calls: 1 }],
				missingLabels: [{ label: "read", calls: 1 }],
			},
			{
				phase: "(no phase)",
				planned: 1,
				ran: 0,
				asPlanned: 0,
				outside: 0,
				neverRan: 1,
				outsideLabels: [],
				missingLabels: [{ label: "sum", calls: 1 }],
			},
		]);
		expect(planned.estimateUsd).toEqual({ low: 0.1, high: 0.2 });
	});
});

describe("the report of a run that diverged from its plan", () => {
	let cwd: string;
	let root: string;
	let store: RunStore;
	let runId: string;
	beforeAll(async () => {
		cwd = mkdtempSync(join(tmpdir(), "wf-planned-project-"));
		root = mkdtempSync(join(tmpdir(), "wf-planned-runs-"));
		store = createRunStore({ cwd, root });
		const fake = createFakeRunner((request) => (request.prompt === "is it broken?" ? "yes" : "done"));
		const source = { script: BRANCHY, filename: "branchy.js" };
		const run = startToolRun({
			source: BRANCHY,
			options: { agentRunner: fake.runner, filename: "branchy.js", cwd },
			durable: DurableRun.fresh(store, source),
			record: source,
			ctx: { hasUI: false, mode: "print", cwd } as unknown as ExtensionContext,
			ui: { widgetKey: "w", statusKey: "s" },
			// The fake children answer at once: the run's end waits for its plan rather than ending without one.
			plan: { dry: async () => ({ cwd }), estimate: { cwd, runsRoot: root }, graceMs: 600_000 },
		});
		const outcome = await run.finished;
		runId = outcome.saved.runId ?? "";
	}, 60_000);
	afterAll(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(root, { recursive: true, force: true });
	});

	it("report --text: each phase's planned calls against the real ones, and the estimate against the cost", async () => {
		const text = await runReportText(store, runId);
		const from = text.indexOf("Planned against actual:");
		expect(from).toBeGreaterThan(0);
		expect(text.slice(from).split("\n").slice(0, 3)).toEqual([
			"Planned against actual: no estimate, cost $0.00",
			"  look: 1 planned, 1 ran: 1 as planned",
			"  act: 1 planned, 2 ran: 0 as planned · 2 outside the plan (fix ×2) · 1 planned but never ran (note ×1)",
		]);
	});

	describe.skipIf(!hasBinary("chromium"))("in Chromium", () => {
		it("a table row per phase: planned, ran, as planned, outside the plan, never ran", async () => {
			const { path } = await writeRunReport(store, runId);
			const browser = await chromium.launch({ executablePath: findBinary("chromium"), args: CHROMIUM_ARGS });
			try {
				const page = await browser.newPage();
				await page.goto(pathToFileURL(path).href);
				const rows = await page.$$eval("table#planned tr[data-phase]", (trs) =>
					trs.map((tr) => [...tr.querySelectorAll("td")].slice(0, 6).map((td) => td.textContent)),
				);
				expect(rows).toEqual([
					["look", "1", "1", "1", "0", "0"],
					["act", "1", "2", "0", "2", "1"],
				]);
				expect(await page.textContent("#planned-cost")).toBe("no estimate, cost $0.00");
				expect(await page.isVisible("table#planned")).toBe(true);
			} finally {
				await browser.close();
			}
		});
	});
});
