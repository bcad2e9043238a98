/**
 * The queue when something around it goes wrong: a real redis-server, a real `pi-workflows worker` process and the
 * CLI host (`run --redis`), children on pi-ai's faux provider. Messages on the control channel that no host of this
 * version sends leave the worker and its child running; a host whose Redis died still ends and exits.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENERAL_PURPOSE_AGENT } from "../../src/agents/agent-types.ts";
import { createQueueHost } from "../../src/queue/host.ts";
import { queuePlanner } from "../../src/queue/plan.ts";
import { controlChannel, jobIdOf } from "../../src/queue/protocol.ts";
import type { WorkflowAgentChild } from "../../src/runtime/core/types.ts";
import {
	type CliProcess,
	childStarts,
	killAll,
	QUEUE_FAUX,
	spawnCli,
	startWorker,
	waitFor,
} from "../helpers/queue-workers.ts";
import { hasBinary, startRedis, type TestRedis } from "../helpers/system-binary.ts";

const ONE = `export const meta = { name: "one", description: "one child on the queue" };
return await agent("sleep 600000 " + args.word, { label: args.word });`;

describe.skipIf(!hasBinary("redis-server"))("the queue when things go wrong", () => {
	let redis: TestRedis;
	let project: string;
	let log: string;
	let env: NodeJS.ProcessEnv;
	let worker: CliProcess;
	let workerExit: number | null | undefined;

	// A host that does not exit (the fault under test) must not outlive the suite.
	const hosts: CliProcess[] = [];
	const started = (word: string) => childStarts(log).some(([, task]) => task === `sleep 600000 ${word}`);
	const run = (word: string, extra: string[] = []) => {
		const host = spawnCli(
			[
				"run",
				"one.js",
				"--args",
				JSON.stringify({ word }),
				"-e",
				QUEUE_FAUX,
				"--model",
				"faux/faux-1",
				"--json",
				"--redis",
				redis.url,
				...extra,
			],
			{ cwd: project, env },
		);
		hosts.push(host);
		return host;
	};

	beforeAll(async () => {
		redis = await startRedis();
		project = mkdtempSync(join(tmpdir(), "pwf-queue-faults-"));
		const agentDir = join(project, ".agent");
		mkdirSync(agentDir);
		log = join(project, "children.log");
		env = { PI_CODING_AGENT_DIR: agentDir, PWF_QUEUE_LOG: log };
		writeFileSync(join(project, "one.js"), ONE);
		worker = await startWorker({ redis: redis.url, name: "w1", cwd: project, env, concurrency: 3 });
		worker.exited.then((code) => {
			workerExit = code;
		});
	}, 60_000);

	afterAll(async () => {
		await killAll([...hosts, worker]);
		await redis?.stop();
		rmSync(project, { recursive: true, force: true });
	});

	it("control messages no host sends are ignored, logged a few lines only: the worker and its child go on", async () => {
		const host = createQueueHost({ redis: redis.url, pollMs: 500 });
		const publisher = new Redis(redis.url);
		const reports: WorkflowAgentChild[] = [];
		try {
			const runner = host.runner({
				runId: "wf-bad-controls",
				prepare: queuePlanner({
					agentTypes: new Map([[GENERAL_PURPOSE_AGENT.name, GENERAL_PURPOSE_AGENT]]),
					defaultModel: "faux/faux-1",
				}),
			});
			const answer = runner(
				{
					key: "b",
					index: 0,
					attempt: 1,
					prompt: "sleep 3000 b1",
					agentType: "general-purpose",
					label: "b",
					description: "b",
					cwd: project,
				},
				{ signal: new AbortController().signal, reportChild: (child) => reports.push(child) },
			);
			// Running: the worker has the child's controls, which a message's action would be looked up in.
			await waitFor(() => reports.some((child) => child.status === "active"), "the child to run");
			const jobId = jobIdOf("wf-bad-controls", "b", 1);
			const bad = [
				JSON.stringify({ jobId, action: "frobnicate" }),
				JSON.stringify({ jobId, action: "__proto__" }),
				JSON.stringify({ jobId, action: "constructor" }),
				JSON.stringify({ jobId, action: "toString" }),
				"not JSON {",
				"null",
				"42",
				'"stop"',
				"[]",
				JSON.stringify({ jobId }),
				JSON.stringify({ jobId: 7, action: "stop" }),
				JSON.stringify({ action: "stop" }),
				JSON.stringify({ jobId, action: ["pause"] }),
				JSON.stringify({ jobId, action: "steer", text: { not: "text" } }),
				...Array.from({ length: 200 }, (_, i) => JSON.stringify({ jobId, action: `flood${i}` })),
			];
			for (const message of bad) await publisher.publish(controlChannel("pi-workflows"), message);
			const result = await Promise.race([
				answer,
				worker.exited.then((code) => {
					throw new Error(`the worker exited (${code}): ${worker.stderr()}`);
				}),
			]);
			expect(result).toMatchObject({ status: "completed", result: "slept B1" });
			expect(workerExit).toBeUndefined();
			const ignored = worker
				.stderr()
				.split("\n")
				.filter((line) => line.includes("pwf:pi-workflows:control"));
			const why =
				"(a host of a newer pi-workflows, or something else publishing there; run the same version on the host and the workers)";
			expect(ignored).toEqual([
				`worker: ignored a message on pwf:pi-workflows:control: its action "frobnicate" is not one of stop, steer, pause, skip, restart ${why}`,
				`worker: ignored a message on pwf:pi-workflows:control: its action "__proto__" is not one of stop, steer, pause, skip, restart ${why}`,
				`worker: ignored a message on pwf:pi-workflows:control: its action "constructor" is not one of stop, steer, pause, skip, restart ${why}`,
				`worker: ignored a message on pwf:pi-workflows:control: its action "toString" is not one of stop, steer, pause, skip, restart ${why}`,
				`worker: ignored a message on pwf:pi-workflows:control: it is not JSON ${why}`,
				"worker: further bad messages on pwf:pi-workflows:control are counted, not logged",
				"worker: ignored 10 bad messages on pwf:pi-workflows:control so far",
				"worker: ignored 100 bad messages on pwf:pi-workflows:control so far",
			]);
		} finally {
			publisher.disconnect();
			await host.close();
		}
	}, 60_000);

	it("a worker told twice to stop quits at once and takes its children's job folders with it", async () => {
		// Its child never answers the stop (its worker is gone): the host lets it go soon.
		const host = createQueueHost({ redis: redis.url, pollMs: 500, stopGraceMs: 500 });
		const quitting = await startWorker({ redis: redis.url, name: "w-quit", cwd: project, env, labels: "quit" });
		const stop = new AbortController();
		const folders = () =>
			readdirSync(tmpdir()).filter((name) => name.startsWith("pwf-job-") && name.includes(`-${quitting.pid}-`));
		try {
			const answer = host.runner({
				runId: "wf-quit",
				prepare: queuePlanner({
					agentTypes: new Map([[GENERAL_PURPOSE_AGENT.name, GENERAL_PURPOSE_AGENT]]),
					defaultModel: "faux/faux-1",
				}),
			})(
				{
					key: "q",
					index: 0,
					attempt: 1,
					prompt: "sleep 600000 q1",
					agentType: "general-purpose",
					label: "q",
					description: "q",
					cwd: project,
					placement: { labels: ["quit"] },
				},
				{ signal: stop.signal, reportChild: () => {} },
			);
			await waitFor(() => started("q1"), "the child to start");
			expect(folders().length).toBeGreaterThan(0);
			quitting.child.kill("SIGTERM");
			await waitFor(() => quitting.stderr().includes("taking no new jobs"), "the worker to start closing");
			quitting.child.kill("SIGTERM");
			expect(await quitting.exited).toBe(130);
			expect(folders()).toEqual([]);
			stop.abort();
			await answer;
		} finally {
			await killAll([quitting]);
			await host.close();
		}
	}, 60_000);

	it("Ctrl-C after Redis died: the run stops and the CLI exits", async () => {
		const host = run("i1");
		await waitFor(() => started("i1"), "the child to start");
		await redis.kill();
		try {
			host.child.kill("SIGINT");
			const code = await host.exited;
			expect(code, host.stderr()).toBe(130);
			expect(JSON.parse(host.stdout()).status).toBe("stopped");
		} finally {
			await redis.start();
		}
	}, 60_000);

	it("Redis gone for good: the waiting call fails with queue_unreachable and the CLI exits", async () => {
		// Redis may stay away 3 s here (60 s unless --redis-unreachable-ms says otherwise) before the calls fail.
		const host = run("u1", ["--redis-unreachable-ms", "3000"]);
		await waitFor(() => started("u1"), "the child to start");
		await redis.kill();
		const code = await host.exited;
		const json = JSON.parse(host.stdout());
		expect(code, host.stderr()).toBe(1);
		expect(json.failures[0]).toMatchObject({
			code: "queue_unreachable",
			cause: expect.stringMatching(
				/^Redis at redis:\/\/127\.0\.0\.1:\d+ did not answer for \d+ s; the child's job may still run there. Check Redis, then resume the run/,
			),
		});
	}, 60_000);
});
