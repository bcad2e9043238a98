/**
 * Remote children's workspaces end to end: a worker started with `--repo <bare remote in a temp dir>` runs each child
 * in a worktree of the host run's commit; a child that wrote a file pushes `workflows/<runId>/<label>`, and the host
 * fetches it into its repository as a kept branch; a child that only answered leaves no branch.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempRepo, type TempRepo } from "../helpers/git-repo.ts";
import { type CliProcess, killAll, QUEUE_FAUX, spawnCli, waitFor } from "../helpers/queue-workers.ts";
import { hasBinary, startRedis, type TestRedis } from "../helpers/system-binary.ts";

describe.skipIf(!hasBinary("redis-server"))("a worker with --repo", () => {
	let redis: TestRedis;
	let repo: TempRepo;
	let scratch: string;
	let bare: string;
	let worker: CliProcess;
	let env: NodeJS.ProcessEnv;

	beforeAll(async () => {
		redis = await startRedis();
		scratch = mkdtempSync(join(tmpdir(), "pwf-queue-git-"));
		bare = join(scratch, "remote.git");
		execFileSync("git", ["init", "--quiet", "--bare", bare]);
		repo = createTempRepo();
		repo.git(["remote", "add", "origin", bare]);
		repo.git(["push", "--quiet", "origin", "main"]);
		repo.git(["fetch", "--quiet", "origin"]);
		env = { PI_CODING_AGENT_DIR: join(scratch, "agent") };
		worker = spawnCli(
			[
				"worker",
				"--redis",
				redis.url,
				"--repo",
				bare,
				"--cache",
				join(scratch, "cache"),
				"-e",
				QUEUE_FAUX,
				"--name",
				"g1",
			],
			{ cwd: scratch, env },
		);
		await waitFor(() => worker.stderr().includes("takes jobs from"), "the worker to start", 60_000);
	}, 90_000);

	afterAll(async () => {
		await killAll([worker]);
		await redis?.stop();
		repo?.dispose();
		rmSync(scratch, { recursive: true, force: true });
	});

	it("a child that wrote a file comes back as a kept branch of the host's repository; one that only answered, as nothing", async () => {
		const script = join(scratch, "writers.js");
		writeFileSync(
			script,
			`export const meta = { name: "writers", description: "remote children that change files" };
const wrote = await agent("write notes/a.md alpha", { label: "writer a" });
const read = await agent("hello there", { label: "reader" });
return { wrote, read };`,
		);
		const run = spawnCli(
			["run", script, "--redis", redis.url, "-e", QUEUE_FAUX, "--model", "faux/faux-1", "--json"],
			{
				cwd: repo.dir,
				env,
			},
		);
		expect(await run.exited, run.stderr()).toBe(0);
		const result = JSON.parse(run.stdout());
		expect(result.failures, run.stderr()).toEqual([]);
		expect(result.value).toEqual({ wrote: "wrote notes/a.md", read: "child answered: hello there" });
		const branches = repo
			.git(["branch", "--list", `workflows/${result.runId}/*`, "--format=%(refname:short)"])
			.trim();
		expect(branches).toBe(`workflows/${result.runId}/writer-a`);
		expect(repo.git(["show", `${branches}:notes/a.md`])).toBe("alpha\n");
		// The remote has it too, and the host's working tree is untouched.
		expect(execFileSync("git", ["-C", bare, "branch", "--list", "workflows/*"], { encoding: "utf8" })).toContain(
			"writer-a",
		);
		expect(repo.git(["status", "--porcelain"])).toBe("");
		expect(worker.stderr()).toContain("took");
	}, 90_000);
});
