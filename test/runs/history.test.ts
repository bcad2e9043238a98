/**
 * A project's cost history from its run store: every finished agent call of every run (answers and tool steps are
 * no calls), with its run's workflow name; each completed run's total, unknown when a call's cost was; the run asking
 * left out; a run whose record cannot be read left out too.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type RunStore, readCostHistory } from "../../src/runs/index.ts";
import type { WorkflowJournalEntry, WorkflowRunResult } from "../../src/runtime/core/types.ts";
import { tempStore } from "./support.ts";

function ended(status: WorkflowRunResult["status"]): WorkflowRunResult {
	return {
		status,
		failures: [],
		counts: { calls: 2, started: 2, completed: 2, failed: 0, skipped: 0 },
		usage: { input: 0, output: 0, total: 0 },
		cost: { usd: 0 },
		droppedLogs: 0,
		durationMs: 1,
	};
}

async function run(
	store: RunStore,
	name: string,
	entries: WorkflowJournalEntry[],
	status?: WorkflowRunResult["status"],
): Promise<string> {
	const record = await store.create({ script: "return 1", meta: { name, description: "d" } });
	const journal = await record.journal();
	for (const entry of entries) await journal.record(entry);
	await journal.close();
	if (status) await record.writeSnapshot(ended(status));
	return record.id;
}

const call = (
	key: string,
	usd: number | undefined,
	extra: Partial<WorkflowJournalEntry> = {},
): WorkflowJournalEntry => ({
	key,
	value: "ok",
	label: key,
	agentType: "general-purpose",
	model: "a/m",
	usage: { input: 90, output: 10, total: 100 },
	...(usd !== undefined ? { cost: { usd } } : { cost: { usd: 0, unpriced: 1 } }),
	...extra,
});

describe("readCostHistory", () => {
	it("calls of every run, each run's total when it completed and every cost is known, the asking run left out", async () => {
		const { store } = tempStore();
		const done = await run(
			store,
			"review",
			[
				call("plan", 0.1, { phase: "plan" }),
				call("fix", 0.2),
				{ key: "q", kind: "answer", value: "yes" },
				{ key: "t", kind: "tool", value: "out" },
			],
			"completed",
		);
		const unpriced = await run(store, "review", [call("plan", undefined, { phase: "plan" })], "completed");
		const failed = await run(store, "review", [call("plan", 0.3, { phase: "plan" })], "failed");
		const asking = await run(store, "review", [call("plan", 9)]);
		const broken = await run(store, "review", [call("plan", 9)], "completed");
		writeFileSync(join(store.dir, broken, "run.json"), "{ not json");

		const history = await readCostHistory(store, { exclude: asking });
		const byRun = (id: string) => history.calls.filter((c) => c.runId === id).map(({ runId: _, ...rest }) => rest);
		expect(byRun(done)).toEqual([
			{
				workflow: "review",
				phase: "plan",
				label: "plan",
				agentType: "general-purpose",
				model: "a/m",
				usd: 0.1,
				tokens: 100,
			},
			{ workflow: "review", label: "fix", agentType: "general-purpose", model: "a/m", usd: 0.2, tokens: 100 },
		]);
		expect(byRun(unpriced)).toEqual([
			{ workflow: "review", phase: "plan", label: "plan", agentType: "general-purpose", model: "a/m", tokens: 100 },
		]);
		expect(byRun(failed)).toHaveLength(1);
		expect(history.calls.filter((c) => c.runId === asking || c.runId === broken)).toEqual([]);
		expect(history.runs.map(({ runId, usd, calls }) => [runId, usd, calls])).toEqual(
			expect.arrayContaining([
				[done, expect.closeTo(0.3, 10), 2],
				[unpriced, undefined, 1],
			]),
		);
		expect(history.runs).toHaveLength(2);
		// At most `maxRuns` runs are read (ids made in the same second have no order, so which one is not asked).
		const one = await readCostHistory(store, { maxRuns: 1 });
		expect(new Set(one.calls.map((c) => c.runId)).size).toBeLessThanOrEqual(1);
		expect(one.calls.length).toBeLessThanOrEqual(2);
		expect((await readCostHistory(store, { maxRuns: 0 })).calls).toEqual([]);
	});
});

/** A completed run written by hand with the id `id` (ids order runs: newest last here) and these journal lines. */
function handRun(store: RunStore, id: string, lines: string[]): void {
	const dir = join(store.dir, id);
	mkdirSync(dir, { recursive: true });
	const info = { version: 1, id, createdAt: "2026-12-01T10:00:00.000Z", cwd: store.cwd, script: "return 1" };
	writeFileSync(join(dir, "run.json"), JSON.stringify({ ...info, meta: { name: "big", description: "d" } }));
	writeFileSync(join(dir, "journal.jsonl"), lines.join(""));
	writeFileSync(join(dir, "snapshot.json"), `${JSON.stringify({ ...ended("completed"), runId: id }, null, "\t")}\n`);
}

/** A journal line as the journal writes it: key, value, usage, cost, model, label, agent type. */
function costLine(key: string, value: unknown, usd: number): string {
	return `${JSON.stringify({ key, value, usage: { input: 90, output: 10, total: 100 }, cost: { usd }, model: "a/m", label: key, agentType: "general-purpose" })}\n`;
}

describe("readCostHistory's bounds", () => {
	it("reads the cost fields of a line with a huge answer, and the lines after it, without the answer", async () => {
		const { store } = tempStore();
		const answer = { notes: "x".repeat(3 * 1024 * 1024), usage: { total: 1 }, cost: { usd: 99 } };
		handRun(store, "wf-20261201-100000-aaaaaa", [
			costLine("huge", answer, 0.25),
			`{"key":"tool","kind":"tool","value":{"output":"${"y".repeat(200_000)}","isError":false},"label":"t"}\n`,
			costLine("after", "ok", 0.5),
		]);
		const history = await readCostHistory(store);
		expect(history.calls.map(({ label, usd, tokens }) => [label, usd, tokens])).toEqual([
			["huge", 0.25, 100],
			["after", 0.5, 100],
		]);
		expect(history.runs).toEqual([{ runId: "wf-20261201-100000-aaaaaa", workflow: "big", usd: 0.75, calls: 2 }]);
	});

	it("newest first, up to a bound on bytes: a journal is not read past it, and older runs are not read at all", async () => {
		const { store } = tempStore();
		const line = (key: string) => costLine(key, "z".repeat(1000), 0.1);
		handRun(store, "wf-20261201-100000-aaaaaa", [line("old 1"), line("old 2")]);
		handRun(store, "wf-20261202-100000-bbbbbb", [line("new 1"), line("new 2"), line("new 3")]);
		const all = await readCostHistory(store);
		expect(all.calls.map((c) => c.label)).toEqual(["new 1", "new 2", "new 3", "old 1", "old 2"]);
		// Room for the newest run's first two lines only: its third is not read, and the older run is not opened.
		const bytes = Buffer.byteLength(line("new 1")) * 2 + 10;
		const bounded = await readCostHistory(store, { maxBytes: bytes });
		expect(bounded.calls.map((c) => c.label)).toEqual(["new 1", "new 2"]);
		// A run read in part has no total: its total would be too low.
		expect(bounded.runs).toEqual([]);
		const oneRun = await readCostHistory(store, { maxRuns: 1 });
		expect(oneRun.calls.map((c) => c.label)).toEqual(["new 1", "new 2", "new 3"]);
	});

	it("a journal that is not a regular file (a FIFO) is passed over, not waited on", async () => {
		const { store } = tempStore();
		handRun(store, "wf-20261201-100000-aaaaaa", [costLine("old", "ok", 0.1)]);
		handRun(store, "wf-20261202-100000-bbbbbb", []);
		const journal = join(store.dir, "wf-20261202-100000-bbbbbb", "journal.jsonl");
		rmSync(journal);
		execFileSync("mkfifo", [journal]);
		const history = await readCostHistory(store);
		expect(history.calls.map((c) => c.label)).toEqual(["old"]);
		expect(history.runs.map((r) => r.runId)).toEqual(["wf-20261201-100000-aaaaaa"]);
	});
});
