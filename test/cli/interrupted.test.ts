/**
 * Issue 47 through the built bin: a run whose process is killed (SIGKILL: no handler runs, nothing is flushed on the
 * way out) while its only child is in its third model request, after two tool-using turns, resumes; the resumed
 * child goes on from those two turns, told it was interrupted, and writes only the notes left.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempRepo } from "../helpers/git-repo.ts";
import { buildCopy, keylessEnv, ROOT, removeAll } from "../helpers/package.ts";
import { runCommand, type SpawnResult } from "../helpers/spawn.ts";

const FAUX = join(ROOT, "test", "fixtures", "faux-provider-extension.ts");
const PI = ["-e", FAUX, "--model", "faux/faux-1"];

const dirs: string[] = [];
let bin: string;
let project: string;
let agentDir: string;

beforeAll(async () => {
	const copy = await buildCopy();
	dirs.push(copy);
	bin = join(copy, "dist", "cli", "main.js");
	project = mkdtempSync(join(tmpdir(), "wf-cli-interrupted-"));
	agentDir = mkdtempSync(join(tmpdir(), "wf-cli-interrupted-agent-"));
	dirs.push(project, agentDir);
}, 120_000);
afterAll(() => removeAll(dirs));

function env(): NodeJS.ProcessEnv {
	return keylessEnv(agentDir);
}

function cli(args: string[], cwd = project): Promise<SpawnResult> {
	return runCommand(process.execPath, [bin, ...args], { cwd, env: env(), timeoutMs: 90_000 });
}

/** Spawns the bin in `cwd` and sends it `signal` once stderr shows `marker`. */
function killedAt(
	args: string[],
	marker: string,
	signal: NodeJS.Signals = "SIGKILL",
	cwd = project,
): Promise<SpawnResult & { signal: NodeJS.Signals | null }> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, args, { cwd, env: env(), stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		let sent = false;
		child.stdout.on("data", (chunk) => {
			stdout += chunk;
		});
		child.stderr.on("data", (chunk) => {
			stderr += chunk;
			if (stderr.includes(marker) && !sent) {
				sent = true;
				child.kill(signal);
			}
		});
		child.on("error", reject);
		child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
	});
}

describe("pi-workflows: a killed run's child goes on from its finished turns", () => {
	it("SIGKILL after two turns of four; `resume` continues the child and writes only notes 3 and 4", async () => {
		const file = join(project, "notes.js");
		writeFileSync(
			file,
			'export const meta = { name: "notes", description: "one child, four turns" };\nreturn await agent("notes 4", { label: "notes" });\n',
		);
		const killed = await killedAt([bin, "run", file, ...PI], "faux: the notes child waits after 2 turns");
		expect(killed.signal, killed.stderr).toBe("SIGKILL");
		expect(existsSync(join(project, "note2.txt"))).toBe(true);
		expect(existsSync(join(project, "note3.txt"))).toBe(false);
		const [run] = JSON.parse((await cli(["runs", "--json"])).stdout) as { id: string }[];
		expect(run?.id).toMatch(/^wf-/);

		const resumed = await cli(["resume", run?.id as string, ...PI]);
		expect(resumed.code, resumed.stderr).toBe(0);
		expect(JSON.parse(resumed.stdout)).toBe("wrote 4 notes, going on after 2 earlier turns");
		expect(readFileSync(join(project, "note4.txt"), "utf8")).toBe("note 4\n");
		expect(resumed.stderr).toContain("continued after an interruption at turn 3");
		expect(resumed.stderr).toMatch(
			/Workflow notes completed in .*: 1 agent \(1 completed\), 1 continued after an interruption \(\d+(\.\d)?k? tokens not paid again\), /,
		);
	}, 150_000);

	it("`resume --no-continue-interrupted` starts the killed run's child afresh: it writes its first two notes again", async () => {
		const file = join(project, "notes-afresh.js");
		writeFileSync(
			file,
			'export const meta = { name: "notes-afresh", description: "one child, four turns" };\nreturn await agent("notes 4", { label: "notes" });\n',
		);
		const marker = "faux: the notes child waits after 2 turns";
		const killed = await killedAt([bin, "run", file, ...PI], marker);
		expect(killed.signal, killed.stderr).toBe("SIGKILL");
		const runs = JSON.parse((await cli(["runs", "--json"])).stdout) as { id: string; name?: string }[];
		const runId = runs.find((run) => run.name === "notes-afresh")?.id as string;
		expect(runId).toMatch(/^wf-/);
		// A fresh child waits again after its second turn (one told it was interrupted would go on): it is killed there.
		const again = await killedAt([bin, "resume", runId, "--no-continue-interrupted", ...PI], marker);
		expect(again.signal, again.stderr).toBe("SIGKILL");
		expect(again.stderr).not.toContain("continued after an interruption");
	}, 150_000);

	it("an isolated child SIGKILLed after two turns goes on in the worktree the kill left, and its branch holds all four notes", async () => {
		const repo = createTempRepo();
		try {
			const file = join(repo.dir, "iso-notes.js");
			writeFileSync(
				file,
				'export const meta = { name: "iso-notes", description: "one isolated child, four turns" };\nreturn await agent("notes 4", { label: "notes", isolation: "worktree" });\n',
			);
			const killed = await killedAt(
				[bin, "run", file, ...PI],
				"faux: the notes child waits after 2 turns",
				"SIGKILL",
				repo.dir,
			);
			expect(killed.signal, killed.stderr).toBe("SIGKILL");
			const [run] = JSON.parse((await cli(["runs", "--json"], repo.dir)).stdout) as { id: string }[];
			const runId = run?.id as string;
			const branch = `workflows/${runId}/notes`;
			// The kill left the worktree with the two notes written and nothing committed.
			const left = repo.git(["worktree", "list", "--porcelain"]);
			expect(left).toContain(`branch refs/heads/${branch}`);
			expect(repo.git(["rev-parse", branch]).trim()).toBe(repo.git(["rev-parse", "main"]).trim());

			const resumed = await cli(["resume", runId, ...PI], repo.dir);
			expect(resumed.code, resumed.stderr).toBe(0);
			expect(JSON.parse(resumed.stdout)).toBe("wrote 4 notes, going on after 2 earlier turns");
			expect(resumed.stderr).toContain("continued after an interruption at turn 3");
			for (const n of [1, 2, 3, 4]) expect(repo.git(["show", `${branch}:note${n}.txt`])).toBe(`note ${n}\n`);
			expect(repo.git(["branch", "--list", "workflows/*", "--format=%(refname:short)"]).trim()).toBe(branch);
			expect(repo.leftovers()).toEqual({ worktrees: [], locks: [] });
			expect(existsSync(join(repo.dir, "note1.txt"))).toBe(false);
		} finally {
			repo.dispose();
		}
	}, 150_000);

	it("Ctrl-C in a one-call run's child: the run says to resume it (not to run it again), and the resume goes on", async () => {
		const file = join(project, "notes-ctrl-c.js");
		writeFileSync(
			file,
			'export const meta = { name: "notes-ctrl-c", description: "one child, three turns" };\nreturn await agent("notes 3", { label: "notes" });\n',
		);
		const stopped = await killedAt([bin, "run", file, ...PI], "faux: the notes child waits after 2 turns", "SIGINT");
		expect(stopped.code, stopped.stderr).toBe(130);
		const runId = /Resume it: pi-workflows resume (wf-\S+)/.exec(stopped.stderr)?.[1];
		expect(runId, stopped.stderr).toBeDefined();
		expect(stopped.stderr).toContain(
			`Run ${runId} kept the conversation of 1 unfinished child, which a resume goes on from. Resume it: pi-workflows resume ${runId}`,
		);
		const resumed = await cli(["resume", runId as string, ...PI]);
		expect(resumed.code, resumed.stderr).toBe(0);
		expect(JSON.parse(resumed.stdout)).toBe("wrote 3 notes, going on after 2 earlier turns");
	}, 150_000);
});
