import { describe, expect, it } from "vitest";
import { callLabelled, callsLabelled, type Route, runExample } from "./harness.ts";

const FILE = "pipeline-migration.js";
const MIGRATION = "replace moment with date-fns";
const FILES = ["a.ts", "b.ts", "c.ts", "d.ts", "e.ts"];

/**
 * a.ts migrates cleanly; b.ts needs nothing; c.ts's editor fails; d.ts fails its check; e.ts's analyst fails.
 * d.ts's analyst answers only once a.ts has been checked: with a barrier between stages the run could not finish.
 */
function routes(): Route[] {
	let aChecked: () => void = () => {};
	const gate = new Promise<void>((resolve) => {
		aChecked = resolve;
	});
	return [
		{ when: { label: "analyse b.ts" }, answer: { structured: { needed: false, plan: "no moment import" } } },
		{ when: { label: "analyse e.ts" }, answer: { fail: "context window exceeded" } },
		{
			when: { label: "analyse d.ts" },
			answer: { structured: { needed: true, plan: "plan for d.ts" } },
			waitFor: () => gate,
		},
		{
			when: { label: /^analyse / },
			answer: (request) => ({ structured: { needed: true, plan: `plan for ${request.label.slice(8)}` } }),
		},
		{ when: { label: "change c.ts" }, answer: { fail: "edit tool refused" } },
		{
			when: { label: /^change / },
			answer: (request) => ({
				structured: { changed: true, summary: `swapped imports in ${request.label.slice(7)}` },
			}),
		},
		{
			when: { label: "check d.ts" },
			answer: { structured: { ok: false, output: "d.ts:3 format() expects a Date" } },
		},
		{
			when: { label: /^check / },
			answer: (request) => {
				if (request.label === "check a.ts") aChecked();
				return { structured: { ok: true, output: "" } };
			},
		},
	];
}

describe("pipeline-migration.js", () => {
	it("sends each file through analyse, change and check, feeding each stage's answer into the next prompt", async () => {
		const run = await runExample(FILE, { args: { files: FILES, migration: MIGRATION }, routes: routes() });
		expect(run.runner.unmatched).toEqual([]);
		expect(callsLabelled(run, /^analyse /)).toHaveLength(5);
		for (const call of run.calls) expect(call.phase).toBe(call.label.split(" ")[0]);

		const analyse = callLabelled(run, "analyse a.ts");
		expect(analyse.prompt).toContain(`Migration: ${MIGRATION}\nRead a.ts.`);
		expect(analyse.tools).toEqual(["read", "grep", "find", "ls"]);
		expect(callLabelled(run, "change a.ts").prompt).toContain(
			"Apply it to a.ts only, following this plan:\nplan for a.ts",
		);
		const check = callLabelled(run, "check a.ts");
		expect(check.prompt).toContain("Run `npx tsc --noEmit` and judge a.ts only");
		expect(check.prompt).toContain("a.ts was just changed: swapped imports in a.ts");
		// b.ts needed nothing: no editor, no checker.
		expect(callsLabelled(run, /b\.ts$/).map((c) => c.label)).toEqual(["analyse b.ts"]);
	});

	it("has no barrier: a fast file is checked while a slow one is still being analysed", async () => {
		const run = await runExample(FILE, { args: { files: FILES, migration: MIGRATION }, routes: routes() });
		const at = (type: string, label: string) =>
			run.events.findIndex((e) => e.type === type && "label" in e && e.label === label);
		expect(at("agent_finished", "check a.ts")).toBeGreaterThan(-1);
		expect(at("agent_finished", "check a.ts")).toBeLessThan(at("agent_finished", "analyse d.ts"));
	});

	it("reports every file: migrated, unchanged, check-failed, and failed with the stage it reached", async () => {
		const run = await runExample(FILE, {
			args: { files: FILES, migration: MIGRATION, check: "npm run typecheck" },
			routes: routes(),
		});
		expect(run.result.status).toBe("completed");
		expect(run.result.value).toEqual({
			migration: MIGRATION,
			migrated: [{ file: "a.ts", summary: "swapped imports in a.ts" }],
			unchanged: ["b.ts"],
			checkFailed: [{ file: "d.ts", output: "d.ts:3 format() expects a Date" }],
			failed: [
				{ file: "c.ts", stage: "change" },
				{ file: "e.ts", stage: "analyse" },
			],
		});
		expect(callLabelled(run, "check d.ts").prompt).toContain("Run `npm run typecheck`");
		const logged = run.logs.filter((l) => l.phase === "report").map((l) => [l.message, l.data]);
		expect(logged).toEqual([
			["c.ts: failed", { stage: "change" }],
			["e.ts: failed", { stage: "analyse" }],
			["d.ts: check-failed", { stage: "check" }],
			["migration done", { migrated: 1, unchanged: 1 }],
		]);
	});

	it("records each failed file in the census twice: the agent's cause and the pipeline slot it emptied", async () => {
		const run = await runExample(FILE, { args: { files: FILES, migration: MIGRATION }, routes: routes() });
		const census = run.result.failures.map((f) => [f.kind, f.kind === "agent" ? f.label : f.index, f.cause]);
		expect(census).toEqual(
			expect.arrayContaining([
				["agent", "analyse e.ts", "context window exceeded"],
				["pipeline", 4, "stage 1 returned null"],
				["agent", "change c.ts", "edit tool refused"],
				["pipeline", 2, "stage 2 returned null"],
			]),
		);
		expect(census).toHaveLength(4);
	});
});
