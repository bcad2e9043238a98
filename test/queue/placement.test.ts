/**
 * Children placed by what a worker has (issue 48 §2): a real redis-server, real `pi-workflows worker` processes with
 * different labels, children on pi-ai's faux provider. 200 children with mixed required labels run only on workers
 * with every label they need; a child needing a label no live worker has fails with `placement_unsatisfiable`
 * after its wait and says so from the first report; a worker that appears with the label, or gains it in its labels
 * file, takes a waiting child; `pi-workflows workers` lists the live workers; a child that prefers a busy worker's
 * label runs on an idle one, and one that only prefers waits for the first worker; a label set goes once no worker
 * takes from it and no child waits in it, on Redis's clock (a host whose clock is behind still has its set listed).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GENERAL_PURPOSE_AGENT } from "../../src/agents/agent-types.ts";
import { createQueueHost, type QueueHost } from "../../src/queue/host.ts";
import { liveLabelSets, liveWorkers } from "../../src/queue/placement.ts";
import { queuePlanner } from "../../src/queue/plan.ts";
import type { WorkflowAgentChild } from "../../src/runtime/core/types.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import {
	agentRequest,
	type CliProcess,
	childStarts,
	killAll,
	spawnCli,
	startWorker,
	waitFor,
} from "../helpers/queue-workers.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { hasBinary, startRedis, type TestRedis } from "../helpers/system-binary.ts";

checkSandboxLeaks();

const MIXED = `export const meta = { name: "mixed", description: "children with mixed required labels" };
const sets = [[], ["gpu"], ["region=us"], ["gpu", "repo=acme"], ["region=eu"]];
const answers = await parallel(Array.from({ length: args.n }, (_, i) => () =>
	agent("task " + i + " needs " + (sets[i % 5].join("+") || "nothing"), { label: "t" + i, placement: { labels: sets[i % 5] } })));
return answers.filter((answer) => typeof answer === "string" && answer.startsWith("child answered")).length;`;

/** The three workers' labels. */
const LABELS: Record<string, string> = { wa: "gpu,region=eu", wb: "region=us", wc: "gpu,repo=acme" };

describe.skipIf(!hasBinary("redis-server"))("placement: children go to workers with the labels they need", () => {
	let redis: TestRedis;
	let project: string;
	let log: string;
	let env: NodeJS.ProcessEnv;
	let host: QueueHost;
	let labelsFile: string;
	const workers = new Map<string, CliProcess>();

	const planner = queuePlanner({
		agentTypes: new Map([[GENERAL_PURPOSE_AGENT.name, GENERAL_PURPOSE_AGENT]]),
		defaultModel: "faux/faux-1",
	});
	const request = (key: string, prompt: string, labels: string[], waitMs?: number) =>
		agentRequest(key, prompt, project, {
			index: 7,
			placement: { labels, ...(waitMs !== undefined ? { waitMs } : {}) },
		});

	beforeAll(async () => {
		redis = await startRedis();
		project = mkdtempSync(join(tmpdir(), "pwf-placement-"));
		const agentDir = join(project, ".agent");
		mkdirSync(agentDir);
		log = join(project, "children.log");
		labelsFile = join(project, "wb.labels");
		env = { PI_CODING_AGENT_DIR: agentDir, PWF_QUEUE_LOG: log };
		const started = await Promise.all(
			Object.entries(LABELS).map(async ([name, labels]) => {
				const worker = await startWorker({
					redis: redis.url,
					name,
					cwd: project,
					env,
					concurrency: 4,
					labels,
					...(name === "wb" ? { labelsFile } : {}),
				});
				return [name, worker] as const;
			}),
		);
		for (const [name, worker] of started) workers.set(name, worker);
		host = createQueueHost({ redis: redis.url, pollMs: 500 });
	}, 60_000);

	afterAll(async () => {
		await host?.close();
		await killAll(workers.values());
		await redis?.stop();
		rmSync(project, { recursive: true, force: true });
	});

	it("200 children with mixed required labels over three workers: none runs on a worker without a label it needs", async () => {
		const result = await runWorkflowScript(MIXED, {
			agentRunner: host.runner({ runId: "wf-mixed", prepare: planner, cwd: project }),
			args: { n: 200 },
			concurrency: 24,
		});
		expect(result.status, result.error?.message).toBe("completed");
		expect(result.value).toBe(200);
		const byPid = new Map([...workers].map(([name, worker]) => [worker.pid, LABELS[name]?.split(",") ?? []]));
		const ran = childStarts(log).filter(([, task]) => task.startsWith("task "));
		// Each child ran once: a job a worker fetched while its slots were full waited for one, and kept its lock.
		const seen = new Map<string, number[]>();
		for (const [pid, task] of ran) seen.set(task, [...(seen.get(task) ?? []), pid]);
		expect([...seen].filter(([, pids]) => pids.length > 1)).toEqual([]);
		expect(ran).toHaveLength(200);
		const misplaced = ran.filter(([pid, task]) => {
			const needs = task.split(" needs ")[1] ?? "";
			const has = byPid.get(pid);
			return !has || (needs !== "nothing" && needs.split("+").some((label) => !has.includes(label)));
		});
		expect(misplaced).toEqual([]);
		// Every worker took children: the ones needing nothing went anywhere, the others where they could.
		const pids = new Set(ran.map(([pid]) => pid));
		expect(pids).toEqual(new Set([...workers.values()].map((worker) => worker.pid)));
	}, 120_000);

	it("a child needing a label no live worker has says so at once and fails with placement_unsatisfiable after its wait", async () => {
		const reports: WorkflowAgentChild[] = [];
		const runner = host.runner({ runId: "wf-unplaceable", prepare: planner, cwd: project });
		const result = await runner(request("tpu-child", "task tpu", ["tpu", "region=eu"], 1500), {
			signal: new AbortController().signal,
			reportChild: (child) => reports.push(child),
		});
		expect(reports[0]).toMatchObject({ status: "queued", activity: "waiting: no live worker has region=eu and tpu" });
		expect(result).toMatchObject({ status: "failed", code: "placement_unsatisfiable" });
		expect(result.error).toBe(
			`\`tpu-child\` (#8) needs a worker with every one of the labels region=eu, tpu, and no live worker at ${redis.url} had them for its whole wait of 1.5 s (live workers: wa: gpu, region=eu; wb: region=us; wc: gpu, repo=acme). Start a worker with --labels region=eu,tpu, add the labels to a running worker's --labels-file, or change the call's \`placement\` (\`placement.waitMs\` says how long a child waits)`,
		);
		// Its job is gone: no worker that appears later runs a child whose call already failed.
		expect(await host.queue.getJobCounts("waiting")).toMatchObject({ waiting: 0 });
		expect(childStarts(log).filter(([, task]) => task === "task tpu")).toEqual([]);
	}, 30_000);

	it("a worker started later with the label takes a waiting child; a worker given the label in its file takes another", async () => {
		const reports: WorkflowAgentChild[] = [];
		const runner = host.runner({ runId: "wf-late", prepare: planner, cwd: project });
		const context = {
			signal: new AbortController().signal,
			reportChild: (child: WorkflowAgentChild) => reports.push(child),
		};
		const late = runner(request("late-child", "task late", ["late"]), context);
		await waitFor(() => reports.some((child) => child.activity === "waiting: no live worker has late"), "the wait");
		const wd = await startWorker({ redis: redis.url, name: "wd", cwd: project, env, labels: "late" });
		workers.set("wd", wd);
		expect(await late).toMatchObject({ status: "completed", result: "child answered: task late" });
		expect(childStarts(log).filter(([, task]) => task === "task late")).toEqual([[wd.pid, "task late"]]);

		const cloned = runner(request("cloned-child", "task cloned", ["repo=other"]), context);
		await waitFor(
			() => reports.some((child) => child.activity === "waiting: no live worker has repo=other"),
			"the wait",
		);
		writeFileSync(labelsFile, "# cloned just now\nrepo=other\n");
		expect(await cloned).toMatchObject({ status: "completed", result: "child answered: task cloned" });
		expect(childStarts(log).filter(([, task]) => task === "task cloned")).toEqual([
			[workers.get("wb")?.pid, "task cloned"],
		]);
	}, 60_000);

	it("a resumed host finds its waiting child's job in the label set's queue: one start when a worker gains the label", async () => {
		const events: string[] = [];
		const first = createQueueHost({ redis: redis.url, pollMs: 500 });
		const reports: WorkflowAgentChild[] = [];
		const queued: string[] = [];
		const waiting = first.runner({
			runId: "wf-resumed",
			prepare: planner,
			cwd: project,
			onJob: (event) => queued.push(event.how),
		})(request("resumed-child", "task resumed", ["gpu", "resumed"]), {
			signal: new AbortController().signal,
			reportChild: (child) => reports.push(child),
		});
		await waitFor(
			() => reports.some((child) => child.activity === "waiting: no live worker has gpu and resumed"),
			"the wait",
		);
		// The wait is reported while the job is still being added: the host goes only once the job is in Redis.
		await waitFor(() => queued.includes("queued"), "the first host's job in Redis");
		// The host goes away (as a crashed one would, its job left in Redis); a new one resumes the run.
		await first.close();
		expect(await waiting).toMatchObject({ status: "failed", code: "queue_unreachable" });
		const resumed = host.runner({
			runId: "wf-resumed",
			prepare: planner,
			cwd: project,
			onJob: (event) => events.push(event.how),
		})(request("resumed-child", "task resumed", ["gpu", "resumed"]), {
			signal: new AbortController().signal,
			reportChild: () => {},
		});
		await waitFor(() => events.includes("found"), "the resumed host to find the job");
		writeFileSync(labelsFile, "repo=other gpu resumed\n");
		expect(await resumed).toMatchObject({ status: "completed", result: "child answered: task resumed" });
		expect(events[0]).toBe("found");
		expect(childStarts(log).filter(([, task]) => task === "task resumed")).toEqual([
			[workers.get("wb")?.pid, "task resumed"],
		]);
	}, 60_000);

	it("pi-workflows workers lists the live workers: labels, concurrency, running children, last heartbeat", async () => {
		type Row = { name: string; labels: string[]; concurrency: number; running: number; at: number };
		const list = async (): Promise<Row[]> => {
			const listed = spawnCli(["workers", "--redis", redis.url, "--json"], { cwd: project, env });
			expect(await listed.exited, listed.stderr()).toBe(0);
			return JSON.parse(listed.stdout()) as Row[];
		};
		// A heartbeat says what ran at its beat (each second): the last test's child may still be counted at first.
		let rows = await list();
		for (let tries = 0; tries < 20 && rows.some((row) => row.running > 0); tries++) rows = await list();
		expect(rows.map((row) => [row.name, row.labels, row.concurrency, row.running])).toEqual([
			["wa", ["gpu", "region=eu"], 4, 0],
			["wb", ["gpu", "region=us", "repo=other", "resumed"], 4, 0],
			["wc", ["gpu", "repo=acme"], 4, 0],
			["wd", ["late"], 2, 0],
		]);
		expect(rows.every((row) => typeof row.at === "number")).toBe(true);
		const table = spawnCli(["workers", "--redis", redis.url], { cwd: project, env });
		expect(await table.exited).toBe(0);
		expect(table.stdout().split("\n").slice(0, 3)).toEqual([
			`4 live workers at ${redis.url}`,
			expect.stringMatching(/^WORKER +LABELS +RUNNING +LAST HEARTBEAT +HOST$/),
			expect.stringMatching(/^wa +gpu,region=eu +0\/4 +\d+\.\d s ago +\S+:\d+$/),
		]);
	}, 30_000);
	it("two children that prefer the label of a worker with one slot: one runs there, the other on an idle worker without it", async () => {
		const wp = await startWorker({ redis: redis.url, name: "wp", cwd: project, env, concurrency: 1, labels: "fast" });
		workers.set("wp", wp);
		const runner = host.runner({ runId: "wf-prefer", prepare: planner, cwd: project });
		const stop = new AbortController();
		const prefer = (word: string) =>
			runner(
				{ ...request(`prefer-${word}`, `sleep 600000 ${word}`, []), placement: { labels: [], prefer: ["fast"] } },
				{ signal: stop.signal, reportChild: () => {} },
			);
		// Queued together while wp's heartbeat says its one slot is free: both go to the queue of `fast`, and the one wp
		// cannot take waits there until it moves back to the plain queue, which the idle workers take from.
		const answers = [prefer("pa"), prefer("pb")];
		try {
			const started = () => childStarts(log).filter(([, task]) => /^sleep 600000 p[ab]$/.test(task));
			await waitFor(() => started().length === 2, "both children to start, neither behind the other");
			const pids = started().map(([pid]) => pid);
			expect(pids.filter((pid) => pid === wp.pid)).toHaveLength(1);
			expect(pids.filter((pid) => pid !== wp.pid)).toHaveLength(1);
		} finally {
			stop.abort();
			await Promise.all(answers);
		}
	}, 60_000);

	it("a child that only prefers a label waits as a plain child while no worker is live, and the first worker takes it", async () => {
		// A Redis of its own: no worker is live there.
		const empty = await startRedis();
		const alone = createQueueHost({ redis: empty.url, pollMs: 500 });
		let worker: CliProcess | undefined;
		try {
			const reports: WorkflowAgentChild[] = [];
			const runner = alone.runner({ runId: "wf-prefer-alone", prepare: planner, cwd: project });
			let settled = false;
			const answer = runner(
				{ ...request("alone-child", "task alone", []), placement: { labels: [], prefer: ["fast"], waitMs: 300 } },
				{ signal: new AbortController().signal, reportChild: (child) => reports.push(child) },
			).finally(() => {
				settled = true;
			});
			await waitFor(() => reports.length > 0 || settled, "the child's first report");
			expect(reports[0]).toMatchObject({ status: "queued", activity: "waiting for a worker" });
			worker = await startWorker({ redis: empty.url, name: "w-first", cwd: project, env });
			// Its waitMs is for required labels: a preference alone never fails the child.
			expect(await answer).toMatchObject({ status: "completed", result: "child answered: task alone" });
			expect(childStarts(log).filter(([, task]) => task === "task alone")).toEqual([[worker.pid, "task alone"]]);
		} finally {
			await alone.close();
			await killAll([worker]);
			await empty.stop();
		}
	}, 60_000);

	it("a host whose clock is a minute behind Redis's: its child's label set stays listed and the worker with the label takes it", async () => {
		const wk = await startWorker({ redis: redis.url, name: "wk", cwd: project, env, labels: "skew" });
		workers.set("wk", wk);
		// Only this process's Date: the worker and Redis keep the real time.
		vi.useFakeTimers({ toFake: ["Date"], now: Date.now() - 60_000, shouldAdvanceTime: true });
		const skewed = createQueueHost({ redis: redis.url, pollMs: 500 });
		try {
			const runner = skewed.runner({ runId: "wf-skew", prepare: planner, cwd: project });
			const answer = runner(request("skew-child", "task skew", ["skew"]), {
				signal: new AbortController().signal,
				reportChild: () => {},
			});
			const started = () => childStarts(log).filter(([, task]) => task === "task skew");
			await waitFor(() => started().length > 0, "the worker with the label to take the child");
			expect(await answer).toMatchObject({ status: "completed", result: "child answered: task skew" });
			expect(started()).toEqual([[wk.pid, "task skew"]]);
		} finally {
			vi.useRealTimers();
			await skewed.close();
		}
	}, 60_000);

	// Last: it kills a worker.
	it("a label set stays listed while a worker that takes from it lives; once it died and no child waits, it goes", async () => {
		// The host refreshes a set only while its child waits, for 200 ms here: after that, only the worker keeps it.
		const short = createQueueHost({ redis: redis.url, pollMs: 500, labelSetTtlMs: 200 });
		const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
		const sets = () => liveLabelSets(connection, "pi-workflows");
		try {
			const wz = await startWorker({ redis: redis.url, name: "wz", cwd: project, env, labels: "zone=z" });
			workers.set("wz", wz);
			const runner = short.runner({ runId: "wf-zone", prepare: planner, cwd: project });
			const answer = await runner(request("zone-child", "task zone", ["zone=z"]), {
				signal: new AbortController().signal,
				reportChild: () => {},
			});
			expect(answer).toMatchObject({ status: "completed", result: "child answered: task zone" });
			// A set no worker takes from, whose child failed its wait.
			const unplaced = await runner(request("nowhere-child", "task nowhere", ["zone=none"], 300), {
				signal: new AbortController().signal,
				reportChild: () => {},
			});
			expect(unplaced).toMatchObject({ status: "failed", code: "placement_unsatisfiable" });
			const answered = Date.now();
			const beatSince = async () =>
				(await liveWorkers(connection, "pi-workflows")).some(
					(beat) => beat.name === "wz" && beat.at > answered + 1000,
				);
			await waitFor(beatSince, "a heartbeat of wz a second after the host's last refresh");
			expect(await sets()).toContain("pi-workflows@zone=z");
			wz.child.kill("SIGKILL");
			await wz.exited;
			workers.delete("wz");
			await waitFor(
				async () => !(await sets()).includes("pi-workflows@zone=z"),
				"the dead worker's label set to go",
			);
			// The set of the child that failed its wait, which no worker took from, went as well.
			expect(await sets()).not.toContain("pi-workflows@zone=none");
		} finally {
			connection.disconnect();
			await short.close();
		}
	}, 60_000);
});
