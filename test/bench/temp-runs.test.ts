/**
 * The durable-run rows' plumbing: a sample's temp root is gone afterwards (also when the sample fails), the run it
 * holds is let go, and `runOn` hands pi-workflows the journal, so row 8 times recording and replay, not plain runs.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runOn } from "../../bench/lib/engines.ts";
import { instantRunner } from "../../bench/lib/runners.ts";
import { withJournal, withTempRun } from "../../bench/lib/temp-runs.ts";
import { CONCURRENT } from "../../bench/workloads.ts";
import type { WorkflowAgentRunner } from "../../src/runtime/index.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

describe("withTempRun()", () => {
	it("deletes the temp root after the sample, and after a sample that throws", async () => {
		let kept = "";
		await withTempRun("", async (_record, root) => {
			kept = root;
			expect(existsSync(root)).toBe(true);
		});
		expect(existsSync(kept)).toBe(false);
		await expect(
			withTempRun("", async (_record, root) => {
				kept = root;
				throw new Error("sample failed");
			}),
		).rejects.toThrow("sample failed");
		expect(existsSync(kept)).toBe(false);
	});
});

describe("withJournal()", () => {
	it("releases the lock and closes the journal, so the run can be held again", async () => {
		await withTempRun("", async (record) => {
			const journal = await withJournal(record, async (open) => {
				await open.record({ key: "k#0", value: "ok" });
				return open;
			});
			await expect(journal.record({ key: "k#1", value: "ok" })).rejects.toMatchObject({ code: "run_store" });
			expect(await withJournal(record, async (open) => open.size)).toBe(1);
		});
	});
});

describe("runOn() with a journal", () => {
	it("records every call, and a second run over that journal replays them all without the runner", async () => {
		let calls = 0;
		const counting: WorkflowAgentRunner = async (request, context) => {
			calls++;
			return instantRunner()(request, context);
		};
		await withTempRun(CONCURRENT.source, async (record) => {
			const args = { n: 20 };
			const first = await withJournal(record, async (journal) => {
				const value = await runOn("pi-workflows", CONCURRENT, { runner: counting, args, journal });
				return { value, size: journal.size };
			});
			expect(first).toEqual({ value: 20, size: 20 });
			expect(calls).toBe(20);
			const again = await withJournal(record, (journal) =>
				runOn("pi-workflows", CONCURRENT, { runner: counting, args, journal }),
			);
			expect(again).toBe(20);
			expect(calls).toBe(20);
		});
	});
});
