/**
 * Children on other machines: a real redis-server, three real `pi-workflows worker` processes and the CLI host
 * (`run --redis`), children on pi-ai's faux provider. A 20-agent run spread over the workers gives a local run's
 * result; a worker killed with SIGKILL loses nothing and no call takes two results; Ctrl-C removes the queued jobs
 * and ends the running ones; a host killed mid-run resumes and takes the jobs that finished meanwhile as they are;
 * a Redis restart; a job a worker cannot run fails with that cause; a worker's child refused for credit stops the run.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Job, Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENERAL_PURPOSE_AGENT } from "../../src/agents/agent-types.ts";
import { ChildControls } from "../../src/children/controls.ts";
import { createQueueHost, type QueueJobEvent } from "../../src/queue/host.ts";
import { scratchFolder } from "../../src/queue/job-place.ts";
import { queuePlanner } from "../../src/queue/plan.ts";
import type { WorkflowAgentChild } from "../../src/runtime/core/types.ts";
import {
	agentRequest,
	type CliProcess,
	childStarts,
	killAll,
	QUEUE_FAUX,
	spawnCli,
	startWorker,
	waitFor,
} from "../helpers/queue-workers.ts";
import { hasBinary, startRedis, type TestRedis } from "../helpers/system-binary.ts";

const FAN = `export const meta = { name: "fan", description: "children on the queue" };
const words = Array.from({ length: args.n }, (_, i) => args.prefix + i);
const answers = await parallel(words.map((w) => () => agent("sleep " + args.ms + " " + w, { label: w })));
return { answers, calls: budget.agentCalls.used };`;

describe.skipIf(!hasBinary("redis-server"))("the queue runner with worker processes", () => {
	let redis: TestRedis;
	let project: string;
	let log: string;
	let env: NodeJS.ProcessEnv;
	const workers = new Map<string, CliProcess>();

	const spawnWorker = async (name: string) => {
		workers.set(name, await startWorker({ redis: redis.url, name, cwd: project, env }));
	};
	const host = (command: "run" | "resume", target: string, args: object | undefined, extra: string[] = []) =>
		spawnCli(
			[
				command,
				target,
				...(args ? ["--args", JSON.stringify(args)] : []),
				"-e",
				QUEUE_FAUX,
				"--model",
				"faux/faux-1",
				"--json",
				...extra,
			],
			{ cwd: project, env },
		);
	const starts = (prefix: string) => childStarts(log).filter(([, task]) => task.split(" ")[2]?.startsWith(prefix));
	const result = async (run: CliProcess) => {
		const code = await run.exited;
		return { code, json: JSON.parse(run.stdout() || "null"), stderr: run.stderr() };
	};

	beforeAll(async () => {
		redis = await startRedis();
		project = mkdtempSync(join(tmpdir(), "pwf-queue-project-"));
		const agentDir = join(project, ".agent");
		mkdirSync(agentDir);
		log = join(project, "children.log");
		env = { PI_CODING_AGENT_DIR: agentDir, PWF_QUEUE_LOG: log };
		writeFileSync(join(project, "fan.js"), FAN);
		await Promise.all(["w1", "w2", "w3"].map(spawnWorker));
	}, 60_000);

	afterAll(async () => {
		await killAll(workers.values());
		await redis?.stop();
		rmSync(project, { recursive: true, force: true });
	});

	it("a 20-agent run spread over the workers gives the local run's result", async () => {
		const args = { n: 20, ms: 100, prefix: "a" };
		const local = await result(host("run", "fan.js", args));
		expect(local.code).toBe(0);
		const before = starts("a").length;
		const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
		const queue = new Queue("pi-workflows", { connection });
		const run = host("run", "fan.js", args, ["--redis", redis.url, "--concurrency", "8"]);
		// The run's concurrency caps its jobs in flight: waiting and running together never pass 8.
		let most = 0;
		let watching = true;
		const watch = (async () => {
			while (watching) {
				const counts = await queue.getJobCounts("waiting", "active");
				most = Math.max(most, (counts.waiting ?? 0) + (counts.active ?? 0));
				await new Promise((resolve) => setTimeout(resolve, 20));
			}
		})();
		const queued = await result(run);
		watching = false;
		await watch;
		await queue.close();
		connection.disconnect();
		expect(most).toBeGreaterThan(0);
		expect(most).toBeLessThanOrEqual(8);
		expect(queued.code, queued.stderr).toBe(0);
		expect(queued.json.value).toEqual(local.json.value);
		expect(queued.json.counts).toEqual(local.json.counts);
		// Not usage: a remote child without --repo has no edit/write, so its prompt lists fewer tools.
		expect(queued.json.usage.output).toEqual(local.json.usage.output);
		const remote = starts("a").slice(before);
		// Each child ran once, and on a worker, not on the host.
		expect(remote.map(([, task]) => task).sort()).toEqual(
			args.n > 0 ? local.json.value.answers.map((_: string, i: number) => `sleep 100 a${i}`).sort() : [],
		);
		const pids = new Set(remote.map(([pid]) => pid));
		const workerPids = new Set([...workers.values()].map((worker) => worker.pid));
		expect([...pids].every((pid) => workerPids.has(pid))).toBe(true);
		expect(pids.size).toBeGreaterThan(1);
		// The run's warning says once what a worker without --repo gives a child.
		expect(queued.stderr.match(/workers run without --repo/g)).toHaveLength(1);
	}, 90_000);

	it("a worker killed with SIGKILL mid-run: its children run again elsewhere, each call takes one result", async () => {
		const run = host("run", "fan.js", { n: 6, ms: 2500, prefix: "k" }, ["--redis", redis.url, "--concurrency", "6"]);
		await waitFor(() => starts("k").length >= 6, "six children to start");
		const [victimName, victim] =
			[...workers].find(([, worker]) => starts("k").some(([pid]) => pid === worker.pid)) ?? [];
		if (!victim || !victimName) throw new Error("no worker took a child");
		const lost = starts("k")
			.filter(([pid]) => pid === victim.pid)
			.map(([, task]) => task);
		victim.child.kill("SIGKILL");
		await victim.exited;
		workers.delete(victimName);
		// Its children's scratch folders outlive it, until another worker on the machine starts or stops.
		const victimScratch = () =>
			readdirSync(tmpdir()).filter((name) => name.includes(`-${victim.pid}-`) && name.startsWith("pwf-job-"));
		expect(victimScratch().length).toBeGreaterThan(0);
		const done = await result(run);
		expect(done.code, done.stderr).toBe(0);
		expect(done.json.value.answers).toEqual(Array.from({ length: 6 }, (_, i) => `slept K${i}`));
		expect(done.json.counts).toMatchObject({ calls: 6, completed: 6, failed: 0 });
		// The killed worker's children ran once more, on the others, after it; the rest ran once.
		const tasks = starts("k").map(([, task]) => task);
		const survivors = [...workers.values()].map((worker) => worker.pid);
		for (let i = 0; i < 6; i++) {
			const task = `sleep 2500 k${i}`;
			const ranOn = starts("k")
				.filter(([, t]) => t === task)
				.map(([pid]) => pid);
			expect(tasks.filter((t) => t === task)).toHaveLength(lost.includes(task) ? 2 : 1);
			if (lost.includes(task)) {
				expect(ranOn[0]).toBe(victim.pid);
				expect(survivors).toContain(ranOn[1]);
			}
		}
		// A live worker's folder on this machine (this process's, made as a worker makes one) is not the new one's to take.
		const live = await scratchFolder();
		try {
			await spawnWorker(victimName);
			expect(victimScratch()).toEqual([]);
			expect(existsSync(live)).toBe(true);
		} finally {
			rmSync(live, { recursive: true, force: true });
		}
	}, 90_000);

	it("a worker killed mid-child: the job's next worker goes on from the child's finished turns (issue 47)", async () => {
		writeFileSync(
			join(project, "turns.js"),
			'export const meta = { name: "turns", description: "one long child" };\nreturn await agent("turns 4 c1", { label: "long" });',
		);
		const waits = () => childStarts(log).filter(([, task]) => task === "waits C1");
		const run = host("run", "turns.js", undefined, ["--redis", redis.url]);
		await waitFor(() => waits().length === 1, "the child to wait after two turns");
		// The worker copies the conversation after each turn: the kill comes once the copy holds both turns.
		const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
		const copied = async () => {
			const [key] = await connection.keys("pwf:pi-workflows:conversation:*");
			const text = key ? await connection.get(key) : null;
			return (text?.match(/"role":"toolResult"/g) ?? []).length === 2;
		};
		await waitFor(copied, "the worker's copy of the child's two turns");
		connection.disconnect();
		const [pid] = waits()[0] ?? [];
		const [victimName, victim] = [...workers].find(([, worker]) => worker.pid === pid) ?? [];
		if (!victim || !victimName) throw new Error("no worker took the child");
		victim.child.kill("SIGKILL");
		await victim.exited;
		workers.delete(victimName);
		const done = await result(run);
		expect(done.code, done.stderr).toBe(0);
		// The next worker started from the two finished turns, told it was interrupted, and did only the two left.
		expect(done.json.value).toBe("went on C1 after 2 earlier turns");
		expect(done.json.counts).toMatchObject({ calls: 1, completed: 1, continued: 1 });
		expect(waits()).toHaveLength(1);
		await spawnWorker(victimName);
		// The job is done: its copy is gone.
		const after = new Redis(redis.url, { maxRetriesPerRequest: null });
		expect(await after.keys("pwf:pi-workflows:conversation:*")).toEqual([]);
		after.disconnect();
	}, 90_000);

	it("a child running three times as long as its worker's lock keeps its job: one start, answered by that worker", async () => {
		const queueHost = createQueueHost({ redis: redis.url, pollMs: 500 });
		const events: QueueJobEvent[] = [];
		const runner = queueHost.runner({
			runId: "wf-long",
			prepare: queuePlanner({
				agentTypes: new Map([[GENERAL_PURPOSE_AGENT.name, GENERAL_PURPOSE_AGENT]]),
				defaultModel: "faux/faux-1",
			}),
			onJob: (event) => events.push(event),
		});
		try {
			// The workers' --stalled-ms is 2000: the lock is renewed while the quiet child sleeps 6 s, and the other
			// workers, idle, check for stalled jobs every 800 ms all along.
			const result = await runner(
				{
					key: "long",
					index: 0,
					attempt: 1,
					prompt: "sleep 6000 long1",
					agentType: "general-purpose",
					label: "long",
					description: "long",
					cwd: project,
				},
				{ signal: new AbortController().signal, reportChild: () => {} },
			);
			expect(result).toMatchObject({ status: "completed", result: "slept LONG1" });
			const ran = starts("long1");
			expect(ran.map(([, task]) => task)).toEqual(["sleep 6000 long1"]);
			const [name] = [...workers].find(([, worker]) => worker.pid === ran[0]?.[0]) ?? [];
			expect(events.map((event) => [event.how, event.worker])).toEqual([
				["queued", undefined],
				["found", name],
			]);
			const job = await Job.fromId(queueHost.queue, "wf-long.long.1");
			expect(job?.stalledCounter).toBe(0);
		} finally {
			await queueHost.close();
		}
	}, 60_000);

	it("Ctrl-C removes the queued jobs and ends the running ones within seconds", async () => {
		// Six slots on three workers, ten children: four wait in the queue.
		const run = host("run", "fan.js", { n: 10, ms: 600_000, prefix: "c" }, [
			"--redis",
			redis.url,
			"--concurrency",
			"10",
		]);
		await waitFor(() => starts("c").length >= 6, "six children to start");
		const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
		const queue = new Queue("pi-workflows", { connection });
		try {
			expect((await queue.getJobCounts("waiting")).waiting).toBe(4);
			run.child.kill("SIGINT");
			const done = await result(run);
			expect(done.code).toBe(130);
			expect(done.json.status).toBe("stopped");
			expect(done.json.counts.completed).toBe(0);
			const counts = await queue.getJobCounts("waiting", "active", "completed");
			expect(counts).toMatchObject({ waiting: 0, active: 0 });
			// The six that ran answered as stopped children; the four that waited never started. A worker freed by the
			// stop may still take a waiting job before the host removes it: it sees the stop key and answers "stopped"
			// without starting a child.
			const ended = (await queue.getJobs(["completed"])).filter((job) => job.data.request.label.startsWith("c"));
			expect(ended.map((job) => job.returnvalue.result.status)).toEqual(Array(ended.length).fill("stopped"));
			const ran = new Set(starts("c").map(([, task]) => task.split(" ")[2]));
			expect(ran.size).toBe(6);
			expect(ended.filter((job) => ran.has(job.data.request.label))).toHaveLength(6);
			expect(starts("c")).toHaveLength(6);
		} finally {
			await queue.close();
			connection.disconnect();
		}
	}, 90_000);

	it("a host killed mid-run resumes: jobs that finished meanwhile are taken as they are, none runs twice", async () => {
		const args = { n: 6, ms: 1500, prefix: "h" };
		const run = host("run", "fan.js", args, ["--redis", redis.url, "--concurrency", "3"]);
		await waitFor(() => starts("h").length >= 4, "four children to start");
		run.child.kill("SIGKILL");
		await run.exited;
		// The children running when the host died finish on their workers with nobody waiting: wait for that state
		// (every child that started has its job completed), not for the clock.
		const started = starts("h").length;
		const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
		const queue = new Queue("pi-workflows", { connection });
		try {
			await waitFor(async () => {
				const done = await queue.getJobs(["completed"]);
				return done.filter((job) => job.data.request.label.startsWith("h")).length >= started;
			}, "the started children's jobs to complete");
		} finally {
			await queue.close();
			connection.disconnect();
		}
		const listed = spawnCli(["runs", "--json"], { cwd: project, env });
		await listed.exited;
		const runId = (JSON.parse(listed.stdout()) as Array<{ id: string; name: string }>).find(
			(r) => r.name === "fan",
		)?.id;
		expect(runId).toBeDefined();
		const resumed = await result(
			host("resume", runId as string, undefined, ["--redis", redis.url, "--concurrency", "3"]),
		);
		expect(resumed.code, resumed.stderr).toBe(0);
		expect(resumed.json.value.answers).toEqual(Array.from({ length: 6 }, (_, i) => `slept H${i}`));
		const tasks = starts("h").map(([, task]) => task);
		expect(tasks.sort()).toEqual(Array.from({ length: 6 }, (_, i) => `sleep 1500 h${i}`).sort());
	}, 90_000);

	it("Redis restarted mid-run: host and workers reconnect and the run completes", async () => {
		const run = host("run", "fan.js", { n: 4, ms: 1500, prefix: "r" }, ["--redis", redis.url, "--concurrency", "4"]);
		await waitFor(() => starts("r").length >= 4, "four children to start");
		await redis.kill();
		await new Promise((resolve) => setTimeout(resolve, 1000));
		await redis.start();
		const done = await result(run);
		expect(done.code, done.stderr).toBe(0);
		expect(done.json.value.answers).toEqual(Array.from({ length: 4 }, (_, i) => `slept R${i}`));
	}, 120_000);

	it("a job the worker cannot run (a model it does not have) fails with that cause", async () => {
		mkdirSync(join(project, ".pi", "agents"), { recursive: true });
		writeFileSync(
			join(project, ".pi", "agents", "ghost.md"),
			"---\nname: ghost\nmodel: nowhere/ghost-9\n---\nYou answer.\n",
		);
		writeFileSync(
			join(project, "ghost.js"),
			`export const meta = { name: "ghost", description: "a model the workers lack" };\nreturn await agent("hello", { agent: "ghost" });`,
		);
		const done = await result(host("run", "ghost.js", undefined, ["--redis", redis.url]));
		expect(done.code, JSON.stringify(done.json)).toBe(1);
		expect(done.json.failures[0].cause).toMatch(
			/^worker w\d could not run the child: Agent type `ghost` \(.*ghost\.md\) names model `nowhere\/ghost-9`, which pi cannot resolve/,
		);
	}, 60_000);

	it("a worker's child refused for credit stops the host's run as it does locally: no other child starts", async () => {
		writeFileSync(
			join(project, "refused.js"),
			`export const meta = { name: "refused", description: "a spent credit balance" };\nreturn await parallel(Array.from({ length: 10 }, (_, i) => () => agent((i === 0 ? "refuse" : "sleep 10") + " q" + i)));`,
		);
		const done = await result(host("run", "refused.js", undefined, ["--redis", redis.url, "--concurrency", "1"]));
		expect(done.code, done.stderr).toBe(130);
		expect(done.json.error).toMatchObject({
			code: "provider_limit",
			details: { kind: "quota", terminal: true, provider: "faux" },
		});
		expect(done.json.error.message).toMatch(/^Stopped: provider `faux` refused `refuse q0` for quota or billing \(/);
		expect(childStarts(log).filter(([, task]) => / q\d+$/.test(task))).toEqual([[expect.any(Number), "refuse q0"]]);
	}, 60_000);

	it("skip and restart reach a child running on a worker; its reports stream back to the host", async () => {
		const queueHost = createQueueHost({ redis: redis.url, pollMs: 500 });
		const controls = new ChildControls();
		const reports: WorkflowAgentChild[] = [];
		const runner = queueHost.runner({
			runId: "wf-controls",
			controls,
			prepare: queuePlanner({
				agentTypes: new Map([[GENERAL_PURPOSE_AGENT.name, GENERAL_PURPOSE_AGENT]]),
				defaultModel: "faux/faux-1",
			}),
		});
		const request = (key: string, prompt: string) => agentRequest(key, prompt, project);

		const context = {
			signal: new AbortController().signal,
			reportChild: (child: WorkflowAgentChild) => reports.push(child),
		};
		try {
			const skipped = runner(request("skip-me", "sleep 600000 s1"), context);
			await waitFor(() => starts("s1").length === 1, "the child to start");
			controls.get("skip-me")?.skip();
			expect(await skipped).toMatchObject({ status: "stopped", error: "skipped by the user", noRetry: true });

			const restarted = runner(request("restart-me", "sleep 1500 s2"), context);
			// What a person sees: the worker's report that the child runs (before it, only skip reaches a child).
			await waitFor(
				() => reports.some((child) => child.callKey === "restart-me" && child.status === "active"),
				"the worker's report that the child runs",
			);
			controls.get("restart-me")?.restart();
			const result = await restarted;
			expect(result).toMatchObject({ status: "completed", result: "slept S2" });
			expect(result.warnings).toContain("restarted by the user");
			expect(starts("s2")).toHaveLength(2);
			// The worker's reports, as the local runner makes them, under the job's id.
			const mine = reports.filter((child) => child.callKey === "restart-me");
			expect(mine[0]).toMatchObject({ status: "queued", activity: "waiting for a worker" });
			expect(mine.some((child) => child.status === "active" && child.model === "faux/faux-1")).toBe(true);
			expect(new Set(mine.map((child) => child.id))).toEqual(new Set(["wf-controls.restart-me.1"]));
		} finally {
			await queueHost.close();
		}
	}, 60_000);

	it("a child still waiting for a worker: steer and pause say so, a stop removes its job", async () => {
		// A queue no worker takes jobs from: the job waits.
		const idle = createQueueHost({ redis: redis.url, queueName: "no-workers", pollMs: 500 });
		const controls = new ChildControls();
		const runner = idle.runner({
			runId: "wf-idle",
			controls,
			prepare: queuePlanner({ agentTypes: new Map([[GENERAL_PURPOSE_AGENT.name, GENERAL_PURPOSE_AGENT]]) }),
		});
		const stop = new AbortController();
		try {
			const pending = runner(
				{
					key: "waiting",
					index: 3,
					attempt: 1,
					prompt: "hello",
					agentType: "general-purpose",
					label: "idle",
					description: "idle",
					cwd: project,
				},
				{ signal: stop.signal, reportChild: () => {} },
			);
			await waitFor(async () => (await idle.queue.getJobCounts("waiting")).waiting === 1, "the job to wait");
			const control = controls.get("waiting");
			await expect(control?.steer("go on")).rejects.toThrow(
				"`idle` (#4) is still waiting for a worker; only skip works before it starts",
			);
			expect(() => control?.pause()).toThrow("still waiting for a worker");
			stop.abort("stopped by the test");
			expect(await pending).toMatchObject({ status: "stopped", error: "stopped by the test" });
			expect(await idle.queue.getJobCounts("waiting", "active")).toEqual({ waiting: 0, active: 0 });
		} finally {
			await idle.close();
		}
	}, 30_000);
});
