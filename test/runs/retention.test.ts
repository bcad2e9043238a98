/**
 * Retention over real run stores in temp folders: old and new records, live ones (a lock held by this process or by
 * a child process), resumable ones; pruning by count and by age, a dry run, deleting one run whole (whatever files
 * it holds) and refusing what is not a plain run folder inside the runs root; the space a run takes.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	createConversationFile,
	DEFAULT_RETENTION,
	deleteRun,
	pruneRuns,
	type RunRecord,
	type RunStore,
} from "../../src/runs/index.ts";
import type { WorkflowRunResult } from "../../src/runtime/index.ts";
import { spawnChild, tempDir, tempStore } from "./support.ts";

const DAY = 24 * 60 * 60 * 1000;

function result(status: WorkflowRunResult["status"], completed: number): WorkflowRunResult {
	return {
		status,
		failures: [],
		counts: { calls: completed, started: completed, completed, failed: 0, skipped: 0 },
		usage: { input: 1, output: 1, total: 2 },
		cost: { usd: 0 },
		droppedLogs: 0,
		durationMs: 10,
	};
}

/** A run that ended `daysAgo` days ago with `status` and `completed` finished agents. */
async function endedRun(
	store: RunStore,
	daysAgo: number,
	status: WorkflowRunResult["status"] = "completed",
	completed = 1,
): Promise<RunRecord> {
	const record = await store.create({ script: "return 1", meta: { name: `r${daysAgo}`, description: "d" } });
	await record.writeSnapshot(result(status, completed));
	age(record, daysAgo);
	return record;
}

/** Moves a run's start and end `daysAgo` days into the past (both files, as an old run would have them). */
function age(record: RunRecord, daysAgo: number, extraMs = 0): void {
	const at = new Date(Date.now() - daysAgo * DAY - extraMs).toISOString();
	const infoPath = join(record.dir, "run.json");
	writeFileSync(infoPath, JSON.stringify({ ...JSON.parse(readFileSync(infoPath, "utf8")), createdAt: at }));
	const snapshotPath = join(record.dir, "snapshot.json");
	if (existsSync(snapshotPath)) {
		writeFileSync(snapshotPath, JSON.stringify({ ...JSON.parse(readFileSync(snapshotPath, "utf8")), endedAt: at }));
	}
}

/** A crashed run (journal, no snapshot) with one finished agent, `daysAgo` days old: resumable. */
async function interruptedRun(store: RunStore, daysAgo: number): Promise<RunRecord> {
	const record = await store.create({ script: "return 1" });
	const journal = await record.journal();
	await journal.record({ key: "k", value: "done", usage: { input: 1, output: 1, total: 2 } });
	await journal.close();
	age(record, daysAgo);
	return record;
}

/** A crashed run with no finished agent, `daysAgo` days old, and, with `kept`, its child's conversation kept. */
async function halfDoneRun(store: RunStore, daysAgo: number, kept: boolean): Promise<RunRecord> {
	const record = await store.create({ script: "return await agent('long task')" });
	if (kept) {
		const header = JSON.stringify({ type: "session", version: 3, id: "s1", cwd: store.cwd, callKey: "k" });
		const turn = JSON.stringify({ type: "message", id: "m1", message: { role: "user", content: "long task" } });
		await createConversationFile(record.dir, { index: 0, label: "writer" }, `${header}\n${turn}\n`);
	}
	age(record, daysAgo);
	return record;
}

/** A child process holding `record`'s lock until killed. */
async function heldByChild(store: RunStore, record: RunRecord) {
	const child = spawnChild(`
		const store = createRunStore({ cwd: ${JSON.stringify(store.cwd)}, root: ${JSON.stringify(store.root)} });
		const lock = await (await store.open(${JSON.stringify(record.id)})).acquire();
		console.log("held " + lock.info.pid);
		setInterval(() => {}, 60_000);`);
	await child.waitFor("held");
	return child;
}

function fileBytes(dir: string): number {
	let total = 0;
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		total += entry.isDirectory() ? fileBytes(path) : statSync(path).size;
	}
	return total;
}

describe("pruneRuns", () => {
	it("a run killed in its only child, with no finished agent but the child's kept conversation, is resumable and stays", async () => {
		const { store } = tempStore();
		const halfDone = await halfDoneRun(store, 2, true);
		const empty = await halfDoneRun(store, 3, false);
		const pruned = await pruneRuns(store, { keep: 0 });
		expect(pruned.deleted.map((run) => run.id)).toEqual([empty.id]);
		expect(pruned.kept).toEqual([
			{
				id: halfDone.id,
				reason: "resumable",
				why: "interrupted with the kept conversation of 1 unfinished child to resume from, 2 days old",
			},
		]);
		expect(existsSync(halfDone.dir)).toBe(true);
	});

	it("the default rule keeps the newest 50 and everything from the last 30 days; older ones past 50 go", async () => {
		expect(DEFAULT_RETENTION).toEqual({ keep: 50, olderThanDays: 30 });
		const { store } = tempStore();
		const runs: RunRecord[] = [];
		// 48 recent runs, then 4 from 40 days ago: two of them are still among the newest 50.
		for (let i = 0; i < 48; i++) runs.push(await endedRun(store, 0));
		for (let i = 0; i < 4; i++) {
			const record = await endedRun(store, 40);
			age(record, 40, i * 1000);
			runs.push(record);
		}
		const pruned = await pruneRuns(store);
		const oldest = runs.slice(50).map((run) => run.id);
		expect(pruned.deleted.map((run) => run.id).sort()).toEqual([...oldest].sort());
		expect(pruned.remaining.runs).toBe(50);
		for (const run of runs) expect(existsSync(run.dir)).toBe(!oldest.includes(run.id));
		expect((await store.list()).map((run) => run.id)).toHaveLength(50);
	});

	it("by count: keeps the newest n; a live run (child process) and a recent resumable one stay, and say why", async () => {
		const { store } = tempStore();
		const newest = await endedRun(store, 0);
		const live = await endedRun(store, 2);
		const resumable = await endedRun(store, 3, "failed", 2);
		const crashed = await interruptedRun(store, 4);
		const completed = await endedRun(store, 5);
		const oldFailed = await endedRun(store, 20, "failed", 1);
		age(newest, 0);
		const child = await heldByChild(store, live);

		const pruned = await pruneRuns(store, { keep: 1 });
		expect(pruned.deleted.map((run) => run.id)).toEqual([oldFailed.id, completed.id]);
		expect(pruned.kept).toEqual([
			{ id: live.id, reason: "running", why: expect.stringContaining(`running in process ${child.child.pid}`) },
			{
				id: resumable.id,
				reason: "resumable",
				why: expect.stringMatching(/^failed with 2 finished agents to resume from, 3 days old/),
			},
			{
				id: crashed.id,
				reason: "resumable",
				why: expect.stringMatching(/^interrupted with 1 finished agent to resume from, 4 days old/),
			},
		]);
		expect(existsSync(oldFailed.dir)).toBe(false);
		expect(existsSync(completed.dir)).toBe(false);

		// With all: the resumable ones go too, the live one never.
		const all = await pruneRuns(store, { keep: 1, all: true });
		expect(all.deleted.map((run) => run.id).sort()).toEqual([resumable.id, crashed.id].sort());
		expect(all.kept.map((run) => run.id)).toEqual([live.id]);
		expect(existsSync(live.dir)).toBe(true);
		expect(existsSync(newest.dir)).toBe(true);

		// Once its process is gone it is an ended run like the others.
		child.child.kill("SIGKILL");
		await child.exited;
		const after = await pruneRuns(store, { keep: 1, all: true });
		expect(after.deleted.map((run) => run.id)).toEqual([live.id]);
	});

	it("by age: runs older than the days given go, a live one held by this process stays", async () => {
		const { store } = tempStore();
		const recent = await endedRun(store, 1);
		const old = await endedRun(store, 12);
		const held = await endedRun(store, 40);
		const lock = await held.acquire();
		const pruned = await pruneRuns(store, { olderThanDays: 10 });
		expect(pruned.deleted.map((run) => run.id)).toEqual([old.id]);
		expect(pruned.kept).toEqual([
			{ id: held.id, reason: "running", why: expect.stringContaining(`process ${process.pid}`) },
		]);
		expect(existsSync(recent.dir)).toBe(true);
		expect(existsSync(held.dir)).toBe(true);
		await lock.release();
	});

	it("a dry run lists what would go, with its space, and deletes nothing", async () => {
		const { store } = tempStore();
		const keep = await endedRun(store, 0);
		const old = await endedRun(store, 90);
		const dry = await pruneRuns(store, { keep: 1 }, { dryRun: true });
		expect(dry.dryRun).toBe(true);
		expect(dry.deleted).toEqual([
			{ id: old.id, name: "r90", status: "completed", createdAt: expect.any(String), bytes: fileBytes(old.dir) },
		]);
		expect(dry.bytes).toBe(fileBytes(old.dir));
		expect(dry.remaining).toEqual({ runs: 1, bytes: fileBytes(keep.dir) });
		expect(existsSync(old.dir)).toBe(true);
		expect((await store.list()).map((run) => run.id).sort()).toEqual([keep.id, old.id].sort());
	});

	it("a record made a moment ago with no lock yet may be starting: kept even with keep 0 and all", async () => {
		const { store } = tempStore();
		const starting = await store.create({ script: "return 1" });
		const pruned = await pruneRuns(store, { keep: 0, all: true });
		expect(pruned.deleted).toEqual([]);
		expect(pruned.kept).toEqual([
			{
				id: starting.id,
				reason: "running",
				why: "created less than a minute ago, not yet locked: it may be starting",
			},
		]);
		expect(existsSync(starting.dir)).toBe(true);
	});

	it("maxDeletions bounds one prune: the oldest go first, the rest are deferred", async () => {
		const { store } = tempStore();
		const a = await endedRun(store, 50);
		const b = await endedRun(store, 60);
		const c = await endedRun(store, 70);
		const pruned = await pruneRuns(store, { olderThanDays: 30 }, { maxDeletions: 2 });
		expect(pruned.deleted.map((run) => run.id)).toEqual([c.id, b.id]);
		expect(pruned.deferred).toBe(1);
		expect(existsSync(a.dir)).toBe(true);
	});

	it("refuses a rule that is not whole numbers", async () => {
		const { store } = tempStore();
		await expect(pruneRuns(store, { keep: -1 })).rejects.toThrow(
			"Expected `keep` to be a whole number, 0 or more, got `-1`",
		);
		await expect(pruneRuns(store, { olderThanDays: Number.NaN })).rejects.toThrow("`olderThanDays`");
	});
});

describe("deleteRun", () => {
	it("removes the whole folder, whatever it holds (event log, conversations), and says how much it freed", async () => {
		const { store } = tempStore();
		const record = await endedRun(store, 0);
		writeFileSync(join(record.dir, "events.jsonl"), `${"x".repeat(1000)}\n`);
		mkdirSync(join(record.dir, "children"));
		writeFileSync(join(record.dir, "children", "0-a.jsonl"), "y".repeat(5000));
		const bytes = fileBytes(record.dir);
		expect((await store.list())[0]?.bytes).toBe(bytes);
		expect(await deleteRun(store, record.id)).toEqual({ id: record.id, bytes });
		expect(existsSync(record.dir)).toBe(false);
		expect(readdirSync(store.dir)).toEqual([]);
	});

	it("refuses a live run, naming its process and how to stop it first", async () => {
		const { store } = tempStore();
		const record = await endedRun(store, 0);
		const child = await heldByChild(store, record);
		const pid = child.child.pid;
		await expect(deleteRun(store, record.id)).rejects.toMatchObject({
			code: "run_busy",
			message: expect.stringMatching(
				new RegExp(
					`^Run \`${record.id}\` is running in process ${pid} on .*: a live run is never deleted\\. Stop it first .*kill ${pid}\\), then delete it$`,
				),
			),
		});
		expect(existsSync(join(record.dir, "run.json"))).toBe(true);
	});

	it("refuses a run folder that is a link, and leaves where it leads alone", async () => {
		const { store } = tempStore();
		const record = await endedRun(store, 0);
		// The real folder moves outside the runs root; a link with the run's name takes its place.
		const outside = join(tempDir(), record.id);
		mkdirSync(outside);
		for (const name of readdirSync(record.dir)) {
			writeFileSync(join(outside, name), readFileSync(join(record.dir, name)));
		}
		await deleteRun(store, record.id);
		symlinkSync(outside, record.dir);
		await expect(deleteRun(store, record.id)).rejects.toMatchObject({
			code: "run_store",
			message: expect.stringContaining("is not a plain folder (a link or a file)"),
		});
		const pruned = await pruneRuns(store, { keep: 0, all: true });
		expect(pruned.deleted).toEqual([]);
		expect(pruned.failed).toEqual([{ id: record.id, error: expect.stringContaining("is not a plain folder") }]);
		expect(readdirSync(outside).sort()).toEqual(["run.json", "script.js", "snapshot.json"]);
	});

	it("refuses what is not a run id or not this project's run", async () => {
		const { store } = tempStore();
		await expect(deleteRun(store, "../x")).rejects.toMatchObject({ code: "run_id_invalid" });
		await expect(deleteRun(store, "wf-20261201-101530-abcdef")).rejects.toMatchObject({ code: "run_not_found" });
	});

	it("a delete that stopped halfway is out of the list at once, and the next prune finishes it", async () => {
		const { store } = tempStore();
		const record = await endedRun(store, 0);
		const trash = join(store.dir, `.deleting-${record.id}-0000`);
		mkdirSync(join(trash, "children"), { recursive: true });
		writeFileSync(join(trash, "children", "x"), "left over");
		expect((await store.list()).map((run) => run.id)).toEqual([record.id]);
		await pruneRuns(store);
		expect(readdirSync(store.dir)).toEqual([record.id]);
	});
});
