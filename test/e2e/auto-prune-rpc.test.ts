/**
 * The automatic prune through pi's own loader (`pi --mode rpc -e ./src/pi.ts`): when the session starts, a project's
 * old record goes and the session is told; with a `workflows.retention` setting it cannot use, it is told that and
 * nothing goes.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRunStore, type RunRecord } from "../../src/runs/index.ts";

const root = join(import.meta.dirname, "..", "..");
const piCli = join(root, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");

const dirs: string[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
	for (const child of children.splice(0)) {
		if (child.exitCode !== null) continue;
		const closed = new Promise((resolve) => child.once("close", resolve));
		child.stdin.end();
		child.kill("SIGTERM");
		await closed;
	}
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** pi in RPC mode in `cwd`; resolves with the first notification that `match` accepts. */
function notified(cwd: string, agentDir: string, match: (message: string) => boolean): Promise<string> {
	const child = spawn(
		process.execPath,
		[
			piCli,
			"--mode",
			"rpc",
			"--offline",
			"--no-session",
			"-e",
			join(root, "src", "pi.ts"),
			"-e",
			join(root, "test", "fixtures", "faux-provider-extension.ts"),
			"--model",
			"faux/faux-1",
		],
		{
			cwd,
			env: {
				...process.env,
				PI_CODING_AGENT_DIR: agentDir,
				PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
			},
		},
	);
	children.push(child);
	let buffer = "";
	let seen = "";
	return new Promise((resolve, reject) => {
		child.stdout.on("data", (chunk: Buffer) => {
			buffer += chunk.toString("utf8");
			for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
				const text = buffer.slice(0, newline).trim();
				buffer = buffer.slice(newline + 1);
				if (!text.startsWith("{")) continue;
				const line = JSON.parse(text) as { type?: string; method?: string; message?: unknown };
				if (line.type !== "extension_ui_request" || line.method !== "notify") continue;
				seen += `${String(line.message)}\n`;
				if (match(String(line.message))) resolve(String(line.message));
			}
		});
		child.stderr.on("data", (chunk: Buffer) => {
			seen += chunk.toString("utf8");
		});
		child.on("close", () => reject(new Error(`pi exited before the notification; it said:\n${seen}`)));
	});
}

/** A project with one run record that ended 90 days ago. */
async function projectWithOldRun(): Promise<{ cwd: string; agentDir: string; old: RunRecord }> {
	const cwd = mkdtempSync(join(tmpdir(), "wf-prune-rpc-project-"));
	const agentDir = mkdtempSync(join(tmpdir(), "wf-prune-rpc-agent-"));
	dirs.push(cwd, agentDir);
	const store = createRunStore({ cwd, root: join(agentDir, "workflow-runs") });
	const old = await store.create({ script: "return 1", meta: { name: "ancient", description: "d" } });
	await old.writeSnapshot({
		status: "completed",
		failures: [],
		counts: { calls: 0, started: 0, completed: 0, failed: 0, skipped: 0 },
		usage: { input: 0, output: 0, total: 0 },
		cost: { usd: 0 },
		droppedLogs: 0,
		durationMs: 1,
	});
	const at = new Date(Date.now() - 90 * 24 * 60 * 60 * 1000).toISOString();
	for (const [file, field] of [
		["run.json", "createdAt"],
		["snapshot.json", "endedAt"],
	] as const) {
		const path = join(old.dir, file);
		writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), [field]: at }));
	}
	return { cwd, agentDir, old };
}

describe("the automatic prune when a pi session starts (RPC mode)", () => {
	it("deletes a project's record past the rule and says so", async () => {
		const { cwd, agentDir, old } = await projectWithOldRun();
		// keep 0: the one old run is past the count too.
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ workflows: { retention: { keep: 0 } } }));
		const message = await notified(cwd, agentDir, (text) => text.includes("pruned"));
		expect(message).toMatch(
			/^pi-workflows: pruned 1 old workflow run \(\d+(\.\d)? (B|KiB)\); set workflows\.retention/,
		);
		expect(existsSync(old.dir)).toBe(false);
	}, 90_000);

	it("a retention setting it cannot use is named, and nothing is deleted", async () => {
		const { cwd, agentDir, old } = await projectWithOldRun();
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ workflows: { retention: { keep: "all" } } }));
		const message = await notified(cwd, agentDir, (text) => text.includes("retention"));
		expect(message).toBe(
			'pi-workflows: `workflows.retention.keep` must be a whole number, 0 or more, got "all"; old runs are not pruned',
		);
		expect(existsSync(old.dir)).toBe(true);
	}, 90_000);
});
