/**
 * `pi-workflows runs` and `runs --prune`, in process over a real run store in a temp agent dir: the space column and
 * total, a dry run that deletes nothing, --keep and --older-than, a run held by another process kept, --json, and
 * the prune flags refused without --prune; `runs --delete <runId>`, and what --all says it does.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createRunStore } from "../../src/runs/index.ts";
import { cliInProcess } from "../helpers/cli-in-process.ts";
import { controlsIn, HOSTILE, HOSTILE_BLOCK } from "../helpers/controls.ts";
import { endedRun, spawnChild, tempDir } from "../runs/support.ts";

function setup() {
	const base = tempDir();
	const cwd = join(base, "project");
	const agentDir = join(base, "agent");
	mkdirSync(cwd);
	const store = createRunStore({ cwd, root: join(agentDir, "workflow-runs") });
	const cli = (argv: string[]) => cliInProcess(argv, { cwd, agentDir });
	return { store, cli, cwd, agentDir };
}

describe("pi-workflows runs --prune", () => {
	it("runs lists each run's space and the total, and how to prune", async () => {
		const { store, cli } = setup();
		await endedRun(store, { name: "one", daysAgo: 0 });
		await endedRun(store, { name: "two", daysAgo: 3 });
		const listed = await cli(["runs"]);
		expect(listed.code).toBe(0);
		const lines = listed.stdout.trim().split("\n");
		expect(lines[0]).toMatch(/ · one · completed · .* · \d+ B$/);
		expect(lines[2]).toMatch(/^2 runs recorded · \d+ B on disk · prune old ones: pi-workflows runs --prune$/);
		const json = JSON.parse((await cli(["runs", "--json"])).stdout);
		expect(json[0].bytes).toBeGreaterThan(0);
		// The id is \`runId\`, as run --json and test --json call it; \`id\` stays for readers of the old name.
		const newest = (await store.list())[0]?.id;
		expect(json[0]).toMatchObject({ runId: newest, id: newest });
		expect(JSON.parse((await cli(["runs", String(newest), "--json"])).stdout)).toMatchObject({
			runId: newest,
			id: newest,
		});
	});

	it("--dry-run lists, --keep deletes past the newest n, a run held by another process stays", async () => {
		const { store, cli } = setup();
		const newest = await endedRun(store, { name: "newest", daysAgo: 0 });
		const held = await endedRun(store, { name: "held", daysAgo: 50 });
		const old = await endedRun(store, { name: "old", daysAgo: 60 });
		const child = spawnChild(`
			const store = createRunStore({ cwd: ${JSON.stringify(store.cwd)}, root: ${JSON.stringify(store.root)} });
			await (await store.open(${JSON.stringify(held.id)})).acquire();
			console.log("held");
			setInterval(() => {}, 60_000);`);
		await child.waitFor("held");

		const dry = await cli(["runs", "--prune", "--dry-run", "--keep", "1"]);
		expect(dry.code).toBe(0);
		const lines = dry.stdout.trim().split("\n");
		expect(lines[0]).toMatch(/^Would delete 1 run, \d+ B \(dry run: nothing was deleted; keeping the newest 1\):$/);
		expect(lines[1]).toMatch(new RegExp(`^  ${old.id} · old · completed · started \\d{4}-\\d\\d-\\d\\d · \\d+ B$`));
		expect(lines[2]).toBe("Kept although the rule would let them go:");
		expect(lines[3]).toMatch(new RegExp(`^  ${held.id} · running in process ${child.child.pid} on `));
		expect(lines[4]).toMatch(/^Would keep: 2 runs, \d+(\.\d)? (B|KiB)\.$/);
		expect(existsSync(old.dir)).toBe(true);

		const pruned = await cli(["runs", "--prune", "--keep", "1"]);
		expect(pruned.stdout).toMatch(/^Deleted 1 run, /);
		expect(existsSync(old.dir)).toBe(false);
		expect(existsSync(held.dir)).toBe(true);
		expect(existsSync(newest.dir)).toBe(true);
	});

	it("--older-than deletes by age alone; --json gives the whole result", async () => {
		const { store, cli } = setup();
		const young = await endedRun(store, { name: "young", daysAgo: 2 });
		const old = await endedRun(store, { name: "old", daysAgo: 9 });
		const result = await cli(["runs", "--prune", "--older-than", "7", "--json"]);
		expect(result.code).toBe(0);
		expect(JSON.parse(result.stdout)).toMatchObject({
			rule: { olderThanDays: 7 },
			dryRun: false,
			deleted: [{ id: old.id, name: "old", status: "completed" }],
			kept: [],
			failed: [],
			remaining: { runs: 1 },
		});
		expect(existsSync(young.dir)).toBe(true);
	});

	it("without --keep and --older-than, the workflows.retention setting's rule (the project's over the global), as pi's own prune", async () => {
		const { store, cli, cwd, agentDir } = setup();
		const runs = [
			await endedRun(store, { name: "oldest", daysAgo: 40 }),
			await endedRun(store, { name: "older", daysAgo: 35 }),
			await endedRun(store, { name: "new", daysAgo: 0 }),
		];
		const wouldGo = async (...flags: string[]) => {
			const result = await cli(["runs", "--prune", "--dry-run", "--json", ...flags]);
			expect(result.code, result.stderr).toBe(0);
			const json = JSON.parse(result.stdout) as { rule: object; deleted: Array<{ name: string }> };
			return { rule: json.rule, names: json.deleted.map((run) => run.name).sort() };
		};
		// The default keeps the newest 50: nothing goes.
		expect((await wouldGo()).names).toEqual([]);
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ workflows: { retention: { keep: 1 } } }));
		expect(await wouldGo()).toMatchObject({ rule: { keep: 1 }, names: ["older", "oldest"] });
		mkdirSync(join(cwd, ".pi"));
		writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ workflows: { retention: { keep: 2 } } }));
		expect(await wouldGo()).toMatchObject({ rule: { keep: 2 }, names: ["oldest"] });
		// A flag says the rule alone.
		expect(await wouldGo("--older-than", "36")).toMatchObject({ rule: { olderThanDays: 36 }, names: ["oldest"] });
		// A setting it cannot read deletes nothing and says why.
		writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ workflows: { retention: { keep: -1 } } }));
		expect(await cli(["runs", "--prune"])).toMatchObject({
			code: 2,
			stderr:
				"pi-workflows: `workflows.retention.keep` must be a whole number, 0 or more, got -1: nothing was pruned. Fix the setting, or say the rule with --keep <n> and --older-than <days>\n",
		});
		for (const run of runs) expect(existsSync(run.dir)).toBe(true);
	});

	it("--delete <runId> deletes that one run, however recent; --json says what went; a run held by another process stays", async () => {
		const { store, cli } = setup();
		const keep = await endedRun(store, { name: "keep", daysAgo: 0 });
		const gone = await endedRun(store, { name: "gone", daysAgo: 0 });
		const deleted = await cli(["runs", "--delete", gone.id]);
		expect(deleted).toMatchObject({ code: 0, stderr: "" });
		expect(deleted.stdout).toMatch(new RegExp(`^Deleted run ${gone.id} \\(\\d+(\\.\\d)? (B|KiB)\\)\\.\n$`));
		expect(existsSync(gone.dir)).toBe(false);
		expect(existsSync(keep.dir)).toBe(true);

		const json = await endedRun(store, { name: "json", daysAgo: 0 });
		expect(JSON.parse((await cli(["runs", "--delete", json.id, "--json"])).stdout)).toMatchObject({
			runId: json.id,
			id: json.id,
		});
		expect(existsSync(json.dir)).toBe(false);

		const held = await endedRun(store, { name: "held", daysAgo: 0 });
		const child = spawnChild(`
			const store = createRunStore({ cwd: ${JSON.stringify(store.cwd)}, root: ${JSON.stringify(store.root)} });
			await (await store.open(${JSON.stringify(held.id)})).acquire();
			console.log("held");
			setInterval(() => {}, 60_000);`);
		await child.waitFor("held");
		const busy = await cli(["runs", "--delete", held.id]);
		// As every refusal the store names (an unknown id too): exit 2, saying what to do.
		expect(busy.code).toBe(2);
		expect(busy.stderr).toContain(`process ${child.child.pid}`);
		expect(existsSync(held.dir)).toBe(true);

		expect(await cli(["runs", "--delete"])).toMatchObject({
			code: 2,
			stderr:
				"pi-workflows: `runs --delete` needs the id of the run to delete: pi-workflows runs --delete <runId>\n",
		});
	});

	it("--all says what it does: it lets recent resumable runs go too, not every run, and says how to delete one", async () => {
		const { store, cli } = setup();
		await endedRun(store, { name: "recent", daysAgo: 0 });
		const result = await cli(["runs", "--prune", "--all"]);
		expect(result.code).toBe(0);
		expect(result.stdout).toBe(
			"Nothing to prune (keeping the newest 50 and everything from the last 30 days; --all lets resumable runs from the last 7 days go too, not every run).\n" +
				"To delete one run: pi-workflows runs --delete <runId>; every run: pi-workflows runs --prune --keep 0 --all.\n" +
				"Kept: 1 run, " +
				result.stdout.split("Kept: 1 run, ")[1],
		);
		const help = await cli(["runs", "--help"]);
		expect(help.stdout).toContain("pi-workflows runs --delete <runId>");
		expect(help.stdout).toContain("--all lets resumable runs from the last 7 days go too; it is not every run");
	});

	it("prune flags without --prune, and a bad number, are command-line errors", async () => {
		const { cli } = setup();
		expect(await cli(["runs", "--keep", "3"])).toMatchObject({
			code: 2,
			stderr: "pi-workflows: --keep goes with --prune: pi-workflows runs --prune --keep 20\n",
		});
		expect(await cli(["runs", "--prune", "--older-than", "soon"])).toMatchObject({
			code: 2,
			stderr: 'pi-workflows: --older-than must be a whole number from 0 to 100000, got "soon"\n',
		});
	});
});

describe("pi-workflows runs: what a script wrote reaches the terminal visible", () => {
	const bad = HOSTILE;

	it("runs and runs <id> show the run's name, failures, error and stored progress with ^[ and ^G, never ESC or BEL", async () => {
		const { store, cli } = setup();
		const failed = await store.create({ script: "return 1", meta: { name: `nice${bad}`, description: "d" } });
		await failed.writeSnapshot({
			status: "failed",
			failures: [{ kind: "agent", index: 0, label: `label${bad}`, cause: `cause${bad}` }],
			error: { code: "script_error", message: `error${bad}` },
			counts: { calls: 1, started: 1, completed: 0, failed: 1, skipped: 0 },
			usage: { input: 1, output: 1, total: 2 },
			cost: { usd: 0 },
			droppedLogs: 0,
			durationMs: 1,
		} as never);
		const progressed = await store.create({ script: "return 1", meta: { name: "progressed", description: "d" } });
		// A record written before its progress text was made visible keeps it raw: `runs <id>` shows it visible.
		await progressed.writeSnapshot(
			{
				status: "completed",
				failures: [],
				counts: { calls: 0, started: 0, completed: 0, failed: 0, skipped: 0 },
				usage: { input: 0, output: 0, total: 0 },
				cost: { usd: 0 },
				droppedLogs: 0,
				durationMs: 1,
			} as never,
			{ progress: `Workflow progressed: completed\n  info: log${bad}` },
		);
		const shown = HOSTILE_BLOCK;

		const listed = await cli(["runs"]);
		expect(listed.code).toBe(0);
		expect(controlsIn(listed.stdout)).toEqual([]);
		expect(listed.stdout).toContain(`${failed.id} · nice${shown} · failed`);

		const one = await cli(["runs", failed.id]);
		expect(one.code).toBe(0);
		expect(controlsIn(one.stdout)).toEqual([]);
		expect(one.stdout).toContain(`Run ${failed.id} (nice${shown}): failed`);
		expect(one.stdout).toContain(`Error (script_error): error${shown}`);
		expect(one.stdout).toContain(`  ✗ label${shown}: cause${shown}`);

		const stored = await cli(["runs", progressed.id]);
		expect(controlsIn(stored.stdout)).toEqual([]);
		expect(stored.stdout).toContain(`Workflow progressed: completed\n  info: log${shown}`);
	});
});
