/**
 * The automatic prune over a real run store: the `workflows.retention` setting read (off, a rule, mistakes named and
 * nothing pruned), old records deleted at most `AUTO_PRUNE_MAX` at a time, a live one never, the person told.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AUTO_PRUNE_MAX, autoPrune, readRetentionSettings } from "../../src/host/auto-prune.ts";
import type { RunRecord } from "../../src/runs/index.ts";
import { endedRun, tempStore } from "../runs/support.ts";

describe("readRetentionSettings", () => {
	it("on by default with the default rule; false or auto: false turn it off; keep and olderThanDays set the rule", () => {
		expect(readRetentionSettings({})).toEqual({ auto: true, rule: {}, problems: [] });
		expect(readRetentionSettings({ workflows: { retention: false } })).toEqual({
			auto: false,
			rule: {},
			problems: [],
		});
		expect(readRetentionSettings({ workflows: { retention: { auto: false } } }).auto).toBe(false);
		expect(readRetentionSettings({ workflows: { retention: { keep: 10, olderThanDays: 3 } } })).toEqual({
			auto: true,
			rule: { keep: 10, olderThanDays: 3 },
			problems: [],
		});
	});

	it("a setting it cannot use is named, and turns the automatic prune off", () => {
		expect(readRetentionSettings({ workflows: { retention: { keep: -5, olderThan: 3 } } })).toEqual({
			auto: false,
			rule: {},
			problems: [
				"`workflows.retention.keep` must be a whole number, 0 or more, got -5",
				"`workflows.retention.olderThan` is not a setting (`workflows.retention` must be false or { auto?: boolean, keep?: number, olderThanDays?: number })",
			],
		});
		expect(readRetentionSettings({ workflows: { retention: "yes" } }).auto).toBe(false);
	});
});

describe("autoPrune", () => {
	it("deletes old records past the rule, never a live one, and says what it freed", async () => {
		const { store } = tempStore();
		const recent = await endedRun(store, { daysAgo: 1, agents: 0 });
		const old = await endedRun(store, { daysAgo: 45, agents: 0 });
		const live = await endedRun(store, { daysAgo: 60, agents: 0 });
		const lock = await live.acquire();
		const told: string[] = [];
		const result = await autoPrune(store, readRetentionSettings({ workflows: { retention: { keep: 1 } } }), (m) =>
			told.push(m),
		);
		expect(result?.deleted.map((run) => run.id)).toEqual([old.id]);
		expect(existsSync(old.dir)).toBe(false);
		expect(existsSync(live.dir)).toBe(true);
		expect(existsSync(recent.dir)).toBe(true);
		expect(told).toEqual([
			expect.stringMatching(
				/^pi-workflows: pruned 1 old workflow run \(\d+ B\); set workflows\.retention to \{ "auto": false \} to keep them$/,
			),
		]);
		await lock.release();
	});

	it("turned off, or with a setting it cannot use, deletes nothing", async () => {
		const { store } = tempStore();
		const old = await endedRun(store, { daysAgo: 400, agents: 0 });
		const told: string[] = [];
		expect(
			await autoPrune(store, readRetentionSettings({ workflows: { retention: false } }), (m) => told.push(m)),
		).toBe(undefined);
		await autoPrune(store, readRetentionSettings({ workflows: { retention: { keep: "x" } } }), (m) => told.push(m));
		expect(existsSync(old.dir)).toBe(true);
		expect(told).toEqual([
			'pi-workflows: `workflows.retention.keep` must be a whole number, 0 or more, got "x"; old runs are not pruned',
		]);
	});

	it(`deletes at most ${AUTO_PRUNE_MAX} runs per start, the oldest first`, async () => {
		const { store } = tempStore();
		const runs: RunRecord[] = [];
		for (let i = 0; i < AUTO_PRUNE_MAX + 3; i++) runs.push(await endedRun(store, { daysAgo: 100 + i, agents: 0 }));
		const result = await autoPrune(store, readRetentionSettings({ workflows: { retention: { keep: 0 } } }), () => {});
		expect(result?.deleted).toHaveLength(AUTO_PRUNE_MAX);
		expect(result?.deferred).toBe(3);
		expect(runs.filter((run) => existsSync(run.dir)).map((run) => run.id)).toEqual(
			runs.slice(0, 3).map((run) => run.id),
		);
	});
});
