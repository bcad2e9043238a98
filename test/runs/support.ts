/**
 * Shared pieces of the run-store tests: a temp folder per test (a store root and project folders in it, removed
 * afterwards), and child processes that use the real store, for the lock and for permissions (root ignores modes),
 * ended after the test. Both are cleaned up by the test that made them (`onTestFinished`): a module-level
 * `afterEach` here would hook only the first file that imports this module, as test files share their worker's
 * module cache (vitest.config.ts, `isolate: false`), and every later file's lock holders ran on forever.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";
import { createRunStore, type RunRecord, type RunStore } from "../../src/runs/index.ts";

/** The Node 22 binary the package runs on (the machine's default `node` may be older). */
export const NODE = fileURLToPath(new URL("../../node_modules/.bin/node", import.meta.url));
/** The store's entry, for child processes to import. */
export const RUNS_ENTRY = new URL("../../src/runs/index.ts", import.meta.url).href;

/** A fresh temp folder, removed after the test. */
export function tempDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "pi-workflows-runs-"));
	onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
	return dir;
}

/** A store root and a project folder (named `name`) in one temp folder. */
export function tempStore(name = "project"): { store: RunStore; root: string; base: string } {
	const base = tempDir();
	const root = join(base, "runs");
	const cwd = join(base, name);
	mkdirSync(cwd, { recursive: true });
	return { store: createRunStore({ cwd, root }), root, base };
}

/** A child process running `body` (an ES module body with `createRunStore` in scope), its output collected. */
export function spawnChild(
	body: string,
	options: { uid?: number; gid?: number } = {},
): {
	child: ChildProcess;
	output: () => string;
	exited: Promise<number | null>;
	/** Resolves with the output once it contains `text`. */
	waitFor: (text: string) => Promise<string>;
} {
	const source = `import { createRunStore } from ${JSON.stringify(RUNS_ENTRY)};\n${body}`;
	const child = spawn(NODE, ["--input-type=module", "-e", source], {
		stdio: ["ignore", "pipe", "pipe"],
		...options,
	});
	let out = "";
	const listeners: (() => void)[] = [];
	const onData = (chunk: Buffer) => {
		out += chunk;
		for (const listener of listeners) listener();
	};
	child.stdout?.on("data", onData);
	child.stderr?.on("data", onData);
	const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
	onTestFinished(async () => {
		if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
		await exited;
	});
	const waitFor = (text: string) =>
		new Promise<string>((resolve, reject) => {
			const check = () => {
				if (out.includes(text)) resolve(out);
			};
			listeners.push(check);
			check();
			void exited.then(() => (out.includes(text) ? resolve(out) : reject(new Error(`child exited: ${out}`))));
		});
	return { child, output: () => out, exited, waitFor };
}

/** A completed run recorded `daysAgo` days ago (its start and its end), with `agents` agents that completed. */
export async function endedRun(
	store: RunStore,
	{ name, daysAgo = 0, agents = 1 }: { name?: string; daysAgo?: number; agents?: number } = {},
): Promise<RunRecord> {
	const record = await store.create({ script: "return 1", ...(name ? { meta: { name, description: "d" } } : {}) });
	await record.writeSnapshot({
		status: "completed",
		failures: [],
		counts: { calls: agents, started: agents, completed: agents, failed: 0, skipped: 0 },
		usage: { input: agents, output: agents, total: 2 * agents },
		cost: { usd: 0 },
		droppedLogs: 0,
		durationMs: 1,
	});
	const at = new Date(Date.now() - daysAgo * 24 * 60 * 60 * 1000).toISOString();
	for (const [file, field] of [
		["run.json", "createdAt"],
		["snapshot.json", "endedAt"],
	] as const) {
		const path = join(record.dir, file);
		writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), [field]: at }));
	}
	return record;
}
