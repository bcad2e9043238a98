/**
 * `pi --workflow-redis <url>`: a pi session's workflow children go to a worker process through the queue. The parent
 * runs on pi's own CLI (`-p --offline`) with the faux provider; the worker answers with its own faux fixture, so an
 * answer in the parent's result says which machine's pi ran the child.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/package.ts";
import { type CliProcess, childStarts, killAll, startWorker } from "../helpers/queue-workers.ts";
import { runCommand } from "../helpers/spawn.ts";
import { hasBinary, startRedis, type TestRedis } from "../helpers/system-binary.ts";

const PI_CLI = join(ROOT, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");

describe.skipIf(!hasBinary("redis-server"))("pi --workflow-redis", () => {
	let redis: TestRedis;
	let dir: string;
	let worker: CliProcess;
	let log: string;

	beforeAll(async () => {
		redis = await startRedis();
		dir = mkdtempSync(join(tmpdir(), "pwf-queue-pi-"));
		log = join(dir, "children.log");
		worker = await startWorker({
			redis: redis.url,
			name: "p1",
			cwd: dir,
			env: { PI_CODING_AGENT_DIR: dir, PWF_QUEUE_LOG: log },
		});
	}, 60_000);

	afterAll(async () => {
		await killAll([worker]);
		await redis?.stop();
		rmSync(dir, { recursive: true, force: true });
	});

	it("sends the session's workflow children to the queue's worker", async () => {
		const { code, stdout, stderr } = await runCommand(
			process.execPath,
			[
				PI_CLI,
				"-p",
				"--offline",
				"--no-session",
				"-e",
				"./src/pi.ts",
				"-e",
				"./test/fixtures/faux-provider-extension.ts",
				"--model",
				"faux/faux-1",
				"--workflow-redis",
				redis.url,
				"Run the workflow",
			],
			{
				cwd: ROOT,
				timeoutMs: 120_000,
				env: { ...process.env, PI_CODING_AGENT_DIR: mkdtempSync(join(dir, "agent-")) },
			},
		);
		expect(code, stderr).toBe(0);
		expect(stdout).toContain("WORKFLOW RESULT >>> Workflow cli-e2e completed");
		// The worker's fixture answers; the parent's own faux would say "child answered ALPHA".
		expect(stdout).toContain("child answered: echo alpha");
		expect(stdout).toContain("child answered: echo beta");
		expect(childStarts(log).map(([pid, task]) => [pid, task])).toEqual(
			expect.arrayContaining([
				[worker.pid, "echo alpha"],
				[worker.pid, "echo beta"],
			]),
		);
	}, 150_000);
});
