/**
 * `/workflows delete <runId>` and `/workflows prune …` over a real run store, and the space the list shows: a run
 * of this session that still runs and one held by another process are refused with how to stop them; a dry run
 * deletes nothing; the list gives each run's size and the project's total.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readRetentionSettings } from "../../../src/host/auto-prune.ts";
import { RunRegistry } from "../../../src/host/registry.ts";
import { createWorkflowsCommand } from "../../../src/pi/commands/workflows-command.ts";
import { formatBytes } from "../../../src/progress/bytes-text.ts";
import { createWorkflowProgressTracker } from "../../../src/progress/index.ts";
import { createRunStore, type RunRecord, type RunStore } from "../../../src/runs/index.ts";
import { spawnChild } from "../../runs/support.ts";

function fakeContext(cwd: string, mode: "tui" | "print") {
	const shown: { text: string; level: string }[] = [];
	let title = "";
	const ctx = {
		cwd,
		mode,
		ui: {
			notify: (text: string, level: string) => shown.push({ text, level }),
			select: async (heading: string) => {
				title = heading;
				return undefined;
			},
		},
	} as unknown as ExtensionCommandContext;
	return { ctx, shown, title: () => title };
}

function folderBytes(dir: string): number {
	let total = 0;
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		total += entry.isDirectory() ? folderBytes(path) : statSync(path).size;
	}
	return total;
}

describe("/workflows delete, prune and the space runs take", () => {
	let cwd: string;
	let root: string;
	let store: RunStore;
	let registry: RunRegistry;

	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-ret-project-"));
		root = mkdtempSync(join(tmpdir(), "wf-ret-runs-"));
		store = createRunStore({ cwd, root });
		registry = new RunRegistry();
	});
	afterEach(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(root, { recursive: true, force: true });
	});

	async function ended(name: string, extraBytes = 0): Promise<RunRecord> {
		const record = await store.create({ script: "return 1", meta: { name, description: "d" } });
		await record.writeSnapshot({
			status: "completed",
			failures: [],
			counts: { calls: 1, started: 1, completed: 1, failed: 0, skipped: 0 },
			usage: { input: 1, output: 1, total: 2 },
			cost: { usd: 0 },
			droppedLogs: 0,
			durationMs: 5,
		});
		if (extraBytes > 0) {
			mkdirSync(join(record.dir, "children"));
			writeFileSync(join(record.dir, "children", "0.jsonl"), "z".repeat(extraBytes));
		}
		return record;
	}

	const command = () => createWorkflowsCommand({ registry, storeFor: () => store });

	it("the list shows each run's space and the project's total, in print mode and in the TUI's title", async () => {
		const small = await ended("small");
		const big = await ended("big", 300_000);
		const print = fakeContext(cwd, "print");
		await command().handler("", print.ctx);
		const lines = print.shown[0]?.text.split("\n") ?? [];
		expect(lines.find((line) => line.startsWith(big.id))).toMatch(
			new RegExp(` · ${formatBytes(folderBytes(big.dir))}$`),
		);
		expect(lines.find((line) => line.startsWith(small.id))).toMatch(
			new RegExp(` · ${formatBytes(folderBytes(small.dir))}$`),
		);
		expect(formatBytes(folderBytes(big.dir))).toMatch(/^29\d KiB$/);
		const total = formatBytes(folderBytes(big.dir) + folderBytes(small.dir));
		expect(lines.at(-1)).toBe(`2 runs recorded · ${total} on disk · prune old ones: /workflows prune`);
		const tui = fakeContext(cwd, "tui");
		await command().handler("", tui.ctx);
		expect(tui.title()).toBe(`Workflow runs · 2 recorded, ${total} on disk (/workflows prune)`);
	});

	it("delete <runId> removes the run's folder and says what it freed", async () => {
		const record = await ended("gone", 2048);
		const bytes = folderBytes(record.dir);
		const { ctx, shown } = fakeContext(cwd, "print");
		await command().handler(`delete ${record.id}`, ctx);
		expect(shown).toEqual([{ text: `Deleted run ${record.id} (${formatBytes(bytes)}).`, level: "info" }]);
		expect(readdirSync(store.dir)).toEqual([]);
	});

	it("delete refuses a run of this session that still runs, saying how to stop it first", async () => {
		const record = await ended("live");
		const lock = await record.acquire();
		registry.add({
			id: record.id,
			name: "live",
			background: true,
			startedAt: Date.now(),
			envelope: () => createWorkflowProgressTracker().getEnvelope(),
			stop: () => {},
			settled: new Promise(() => {}),
		});
		const { ctx, shown } = fakeContext(cwd, "print");
		await command().handler(`delete ${record.id}`, ctx);
		expect(shown).toEqual([
			{
				text: `/workflows: Run \`${record.id}\` is running in this session: a live run is never deleted. Stop it first (/workflows → the run → stop it, or workflow_runs({ action: "stop", runId: "${record.id}" })), then delete it`,
				level: "error",
			},
		]);
		expect(readdirSync(record.dir)).toContain("run.json");
		await lock.release();
	});

	it("delete refuses a run another process holds, naming it", async () => {
		const record = await ended("elsewhere");
		const child = spawnChild(`
			const store = createRunStore({ cwd: ${JSON.stringify(store.cwd)}, root: ${JSON.stringify(store.root)} });
			await (await store.open(${JSON.stringify(record.id)})).acquire();
			console.log("held");
			setInterval(() => {}, 60_000);`);
		await child.waitFor("held");
		const { ctx, shown } = fakeContext(cwd, "print");
		await command().handler(`delete ${record.id}`, ctx);
		expect(shown[0]?.level).toBe("error");
		expect(shown[0]?.text).toContain(`is running in process ${child.child.pid} on `);
		expect(shown[0]?.text).toContain(`kill ${child.child.pid}`);
		expect(readdirSync(record.dir)).toContain("run.json");
	});

	it("delete without an id, or of an unknown run, says what to give", async () => {
		const { ctx, shown } = fakeContext(cwd, "print");
		await command().handler("delete", ctx);
		await command().handler("delete wf-20261201-101530-abcdef", ctx);
		expect(shown[0]?.text).toBe(
			"/workflows: `delete` takes one run id: /workflows delete <runId> (/workflows lists the runs and their ids)",
		);
		expect(shown[1]?.text).toMatch(/^\/workflows: Run `wf-20261201-101530-abcdef` not found in project /);
	});

	it("prune dry-run keep 1 lists what would go and deletes nothing; prune keep 1 deletes it", async () => {
		const older = await ended("older");
		const newer = await ended("newer");
		const { ctx, shown } = fakeContext(cwd, "print");
		await command().handler("prune dry-run keep 1", ctx);
		const [first = "", ...rest] = shown[0]?.text.split("\n") ?? [];
		expect(first).toMatch(/^Would delete 1 run, .* \(dry run: nothing was deleted; keeping the newest 1\):$/);
		expect(rest[0]).toMatch(new RegExp(`^  ${older.id} · older · completed · started \\d{4}-\\d\\d-\\d\\d · `));
		expect(readdirSync(store.dir).sort()).toEqual([newer.id, older.id].sort());
		await command().handler("prune keep 1", ctx);
		expect(shown[1]?.text).toMatch(/^Deleted 1 run, /);
		expect(readdirSync(store.dir)).toEqual([newer.id]);
		await command().handler("prune", ctx);
		expect(shown[2]?.text).toBe(
			`Nothing to prune (keeping the newest 50 and everything from the last 30 days).\nKept: 1 run, ${formatBytes(folderBytes(newer.dir))}.`,
		);
		await command().handler("prune keep x", ctx);
		expect(shown[3]?.text).toBe(
			'/workflows: `keep` needs a whole number, got "x": /workflows prune [dry-run] [keep <n>] [older-than <days>] [all]',
		);
	});

	it("prune without keep or older-than applies the workflows.retention setting; one it cannot read deletes nothing", async () => {
		const older = await ended("older");
		const newer = await ended("newer");
		const { ctx, shown } = fakeContext(cwd, "print");
		let settings: unknown = { workflows: { retention: { keep: 5 } } };
		const withSetting = () =>
			createWorkflowsCommand({ registry, storeFor: () => store, retention: () => readRetentionSettings(settings) });
		await withSetting().handler("prune dry-run", ctx);
		expect(shown[0]?.text).toMatch(/^Nothing to prune \(keeping the newest 5\)\./);
		settings = { workflows: { retention: { keep: 1 } } };
		await withSetting().handler("prune", ctx);
		expect(shown[1]?.text).toMatch(/^Deleted 1 run, /);
		expect(readdirSync(store.dir)).toEqual([newer.id]);
		expect(existsSync(older.dir)).toBe(false);
		settings = { workflows: { retention: { keep: "all" } } };
		await withSetting().handler("prune", ctx);
		expect(shown[2]?.text).toBe(
			'/workflows: `workflows.retention.keep` must be a whole number, 0 or more, got "all": nothing was pruned. Fix the setting in pi\'s settings.json, or say the rule: /workflows prune keep <n> older-than <days>',
		);
		expect(readdirSync(store.dir)).toEqual([newer.id]);
	});
});
