/**
 * Row 12, children through the BullMQ queue on a real redis-server (started on a free port for the row):
 * 12a the overhead per `agent()` call through Redis, 1,000 quick jobs, against the local instant runner (a BullMQ
 * worker in this process answers each job at once, so what is left is the queue: add, take, progress, complete, the
 * host's queue event and its read of the result); 12b the makespan of a fan-out of fixed-length children on one
 * `pi-workflows worker` process against three (real workers, real pi sessions on the faux provider), as a ratio;
 * 12c how soon a worker killed with SIGKILL has its children answered by the others (workers on the default
 * `--stalled-ms`), against the time they would have taken anyway.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Job, Worker } from "bullmq";
import { Redis } from "ioredis";
import { GENERAL_PURPOSE_AGENT } from "../../src/agents/agent-types.ts";
import { createQueueHost } from "../../src/queue/host.ts";
import { DEFAULT_STALLED_MS } from "../../src/queue/job-runner.ts";
import { queuePlanner } from "../../src/queue/plan.ts";
import type { QueueJobData, QueueJobReturn } from "../../src/queue/protocol.ts";
import type { WorkflowAgentResult, WorkflowAgentRunner } from "../../src/runtime/core/types.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { type CliProcess, killAll, startWorker } from "../../test/helpers/queue-workers.ts";
import { startRedis } from "../../test/helpers/system-binary.ts";
import { type BenchContext, samples } from "../lib/context.ts";
import { formatNumber, type RowResult } from "../lib/report.ts";
import { instantRunner } from "../lib/runners.ts";
import { median, now, summarize } from "../lib/stats.ts";

const CALLS = 1000;
const CONCURRENCY = 32;
const FAN_OUT = 24;
const CHILD_MS = 500;
const WORKER_SLOTS = 4;
/** Row 12c: six children of a second, on three workers; one dies while they run. */
const RECOVERY_CHILDREN = 6;
const RECOVERY_CHILD_MS = 1000;

const MANY = `export const meta = { name: "many", description: "quick jobs" };
const done = await parallel(Array.from({ length: args.n }, (_, i) => () => agent("task " + i)));
return done.filter(Boolean).length;`;

const FIXED = `export const meta = { name: "fixed", description: "fixed-length children" };
const done = await parallel(Array.from({ length: args.n }, (_, i) => () => agent("sleep " + args.ms + " f" + i)));
return done.filter(Boolean).length;`;

const planner = queuePlanner({
	agentTypes: new Map([[GENERAL_PURPOSE_AGENT.name, GENERAL_PURPOSE_AGENT]]),
	defaultModel: "faux/faux-1",
});

async function timed(runner: WorkflowAgentRunner, source: string, args: object, concurrency: number): Promise<number> {
	const started = now();
	const result = await runWorkflowScript(source, { agentRunner: runner, args, concurrency });
	if (result.status !== "completed") throw new Error(`the run ${result.status}: ${result.error?.message}`);
	return now() - started;
}

export async function runQueue(context: BenchContext): Promise<RowResult[]> {
	const redis = await startRedis();
	const project = mkdtempSync(join(tmpdir(), "pwf-bench-queue-"));
	const workers: CliProcess[] = [];
	try {
		const overhead = await measureOverhead(context, redis.url);
		const env = { PI_CODING_AGENT_DIR: join(project, ".agent") };
		let started = 0;
		// The missing workers start side by side: each is a CLI process loading pi, seconds on this machine.
		const more = async (count: number) => {
			const starting = Array.from({ length: Math.max(0, count - workers.length) }, () =>
				startWorker({
					redis: redis.url,
					name: `b${started++}-${Date.now()}`,
					cwd: project,
					env,
					concurrency: WORKER_SLOTS,
					stalledMs: DEFAULT_STALLED_MS,
				}),
			);
			const startedAt = now();
			const settled = await Promise.allSettled(starting);
			if (starting.length > 0) {
				context.log(
					`row 12: ${starting.length} worker(s) started in ${formatNumber((now() - startedAt) / 1000)} s`,
				);
			}
			// Every worker that did start is kept, so the row's end kills it even when another failed to start.
			for (const outcome of settled) if (outcome.status === "fulfilled") workers.push(outcome.value);
			const failed = settled.find((outcome) => outcome.status === "rejected");
			if (failed) throw failed.reason;
		};
		const phases = new Map<number, Phases[]>();
		const makespan = async (count: number, queueName: string, warm: boolean) => {
			await more(count);
			const host = createQueueHost({ redis: redis.url, queueName });
			try {
				let run = 0;
				const once = async (n: number, measured: boolean) => {
					const runId = `wf-bench-${count}-${run++}-${Date.now()}`;
					const taken = new Map<string, number>();
					const inner = host.runner({ runId, prepare: planner, cwd: process.cwd() });
					const runner: WorkflowAgentRunner = async (request, ctx) => {
						const result = await inner(request, ctx);
						taken.set(request.key, Date.now());
						return result;
					};
					const ms = await timed(runner, FIXED, { n, ms: CHILD_MS }, n);
					if (measured)
						phases.set(count, [...(phases.get(count) ?? []), ...(await jobPhases(host, runId, taken))]);
					return ms;
				};
				// Warm-up: one round that fills every slot, so each worker has made its first pi sessions (unless it has).
				if (!warm) await once(count * WORKER_SLOTS, false);
				const runs: number[] = [];
				for (let i = 0; i < samples(context, 3, 1); i++) runs.push(await once(FAN_OUT, true));
				return runs;
			} finally {
				await host.close();
			}
		};
		// Three workers first, then 12c on them, then one of the survivors alone: the workers start once, side by side
		// (each start is seconds of CPU), instead of one and then two more.
		const three = await makespan(3, "pi-workflows", false);
		const warmed = new Set(workers);
		// 12c waits out the default stall time and restarts a worker: in the full run only (`--quick` is for a fast look).
		const recovery = context.quick ? [] : [await recoveryRow(context, redis.url, workers, more)];
		if (context.quick) context.log("row 12c: in the full run only (it waits out the default --stalled-ms)");
		// SIGKILL: they are idle and the queue is empty (12c's run ended), so nothing is lost, and a BullMQ worker's
		// graceful close waits out its blocking read.
		for (const extra of workers.splice(1)) {
			extra.child.kill("SIGKILL");
			await extra.exited;
		}
		// The one left filled its slots in the three's warm-up, unless 12c's kills took all three.
		const one = await makespan(1, "pi-workflows", warmed.has(workers[0] as CliProcess));
		const ratio = summarize(one.map((ms, i) => ms / (three[i] ?? median(three))));
		context.log(`row 12b: one worker ${formatNumber(median(one))} ms, three ${formatNumber(median(three))} ms`);
		const ideal = (workersCount: number) => Math.ceil(FAN_OUT / (workersCount * WORKER_SLOTS)) * CHILD_MS;
		return [
			{
				id: "12a",
				title: "Queue: overhead per `agent()` call through Redis, 1,000 quick jobs (32 at once), over the local runner",
				unit: "µs/call",
				values: { "pi-workflows": overhead.extra },
				ratios: false,
				notes: [
					`local instant runner: ${formatNumber(overhead.local)} µs/call; through Redis: ${formatNumber(overhead.queued)} µs/call (a worker in the same process answers at once)`,
				],
			},
			{
				id: "12b",
				title: `Queue: makespan of ${FAN_OUT} children of ${CHILD_MS} ms, one worker ÷ three (${WORKER_SLOTS} slots each, real pi sessions)`,
				unit: "×",
				values: { "pi-workflows": ratio },
				ratios: false,
				notes: [
					`one worker: ${formatNumber(median(one))} ms (ideal ${ideal(1)}); three: ${formatNumber(median(three))} ms (ideal ${ideal(3)}); the ideal ratio is ${formatNumber(ideal(1) / ideal(3))}`,
					`per job, median ms (one worker / three): ${phaseText(phases.get(1) ?? [], phases.get(3) ?? [])}`,
				],
			},
			...recovery,
		];
	} finally {
		// With their job folders: 12c's last victim has no next worker on the machine to remove its folders.
		await killAll(workers);
		await redis.stop();
		rmSync(project, { recursive: true, force: true });
	}
}

/** Where one job's time went, from BullMQ's own timestamps and the host's: ms. */
interface Phases {
	/**
	 * A slot free → a worker took it: from the later of its queueing and the last finish on the same worker before
	 * the take (all 24 are queued at once, so their wait for a slot is not the queue's latency).
	 */
	pickUp: number;
	/** Taken → finished on the worker, less the child's fixed sleep: the session's set-up and teardown. */
	setUp: number;
	/** Finished on the worker → its result in the host's run. */
	back: number;
}

async function jobPhases(host: ReturnType<typeof createQueueHost>, runId: string, taken: Map<string, number>) {
	const jobs = (await host.queue.getJobs(["completed"])).filter((job) => job.data.runId === runId);
	const freed = (job: (typeof jobs)[number]) =>
		Math.max(
			job.timestamp,
			...jobs
				.filter(
					(other) =>
						other.processedBy === job.processedBy && (other.finishedOn ?? Infinity) <= (job.processedOn ?? 0),
				)
				.map((other) => other.finishedOn ?? 0),
		);
	return jobs.flatMap((job): Phases[] => {
		const back = taken.get(job.data.request.key);
		if (!job.processedOn || !job.finishedOn || back === undefined) return [];
		return [
			{
				pickUp: job.processedOn - freed(job),
				setUp: job.finishedOn - job.processedOn - CHILD_MS,
				back: back - job.finishedOn,
			},
		];
	});
}

function phaseText(one: Phases[], three: Phases[]): string {
	const of = (list: Phases[], name: keyof Phases) => formatNumber(median(list.map((phase) => phase[name])));
	return (["pickUp", "setUp", "back"] as const)
		.map((name) => `${name} ${of(one, name)} / ${of(three, name)}`)
		.join(", ");
}

async function measureOverhead(
	context: BenchContext,
	url: string,
): Promise<{ extra: ReturnType<typeof summarize>; local: number; queued: number }> {
	const connection = new Redis(url, { maxRetriesPerRequest: null });
	const worker = new Worker<QueueJobData, QueueJobReturn>(
		"bench-overhead",
		async (job) => ({
			worker: "bench",
			result: { id: job.id ?? "", type: job.data.request.agentType, status: "completed", result: "ok" },
		}),
		{ connection, concurrency: CONCURRENCY },
	);
	const host = createQueueHost({ redis: url, queueName: "bench-overhead" });
	try {
		let run = 0;
		const queued = (n = CALLS) =>
			timed(host.runner({ runId: `wf-bench-o-${run++}-${Date.now()}`, prepare: planner }), MANY, { n }, CONCURRENCY);
		const local = (n = CALLS) => timed(instantRunner(), MANY, { n }, CONCURRENCY);
		// Warm-up: a fifth of a sample compiles the code paths as well as a whole one.
		await queued(CALLS / 5);
		await local(CALLS / 5);
		const localRuns: number[] = [];
		const queuedRuns: number[] = [];
		for (let i = 0; i < samples(context, 3, 1); i++) {
			localRuns.push(await local());
			queuedRuns.push(await queued());
		}
		const localPerCall = (median(localRuns) / CALLS) * 1000;
		const queuedPerCall = (median(queuedRuns) / CALLS) * 1000;
		context.log(
			`row 12a: local ${formatNumber(localPerCall)} µs/call, through Redis ${formatNumber(queuedPerCall)} µs/call`,
		);
		return {
			extra: summarize(queuedRuns.map((ms, i) => ((ms - (localRuns[i] ?? median(localRuns))) / CALLS) * 1000)),
			local: localPerCall,
			queued: queuedPerCall,
		};
	} finally {
		await host.close();
		await worker.close();
		connection.disconnect();
	}
}

/**
 * Row 12c: samples of `measureRecovery`, three live workers before each (`more` starts what the kill took). Two in a
 * full run (three before issue 34's second cut of the bench's own time): each costs the default stall time, a child
 * and a worker's start, and the answer is that fixed wait more than anything that varies.
 */
async function recoveryRow(
	context: BenchContext,
	url: string,
	workers: CliProcess[],
	more: (count: number) => Promise<void>,
): Promise<RowResult> {
	const recoveries: Recovery[] = [];
	for (let i = 0; i < samples(context, 2, 1); i++) {
		await more(3);
		recoveries.push(await measureRecovery(url, workers));
	}
	const answered = summarize(recoveries.map((sample) => sample.answeredMs / 1000));
	const restarted = median(recoveries.map((sample) => sample.restartedMs / 1000));
	context.log(
		`row 12c: answered ${formatNumber(answered.median)} s after the kill, restarted after ${formatNumber(restarted)} s`,
	);
	return {
		id: "12c",
		title: `Queue: a worker killed with SIGKILL → its children (${RECOVERY_CHILD_MS} ms each) answered by the others`,
		unit: "s",
		values: { "pi-workflows": answered },
		ratios: false,
		notes: [
			`--stalled-ms ${DEFAULT_STALLED_MS} (the default); restarted elsewhere ${formatNumber(restarted)} s after the kill (median), then ${RECOVERY_CHILD_MS} ms of child; ${formatNumber(median(recoveries.map((sample) => sample.lost)))} children lost per kill`,
		],
	};
}

interface Recovery {
	/** From the kill to the last of the dead worker's children answered on the host. */
	answeredMs: number;
	/** From the kill to the last of them started again on another worker. */
	restartedMs: number;
	lost: number;
}

/** Runs six children on the workers, kills the one running most of them once all run, and times their answers. */
async function measureRecovery(url: string, workers: CliProcess[]): Promise<Recovery> {
	const host = createQueueHost({ redis: url });
	const answeredAt = new Map<string, number>();
	const inner = host.runner({ runId: `wf-bench-kill-${Date.now()}`, prepare: planner, cwd: process.cwd() });
	const runner: WorkflowAgentRunner = async (request, context) => {
		const result: WorkflowAgentResult = await inner(request, context);
		answeredAt.set(request.key, Date.now());
		return result;
	};
	try {
		const run = runWorkflowScript(FIXED, {
			agentRunner: runner,
			args: { n: RECOVERY_CHILDREN, ms: RECOVERY_CHILD_MS },
			concurrency: RECOVERY_CHILDREN,
		});
		let active: Job[] = [];
		while (active.length < RECOVERY_CHILDREN) {
			await new Promise((resolve) => setTimeout(resolve, 10));
			active = await host.queue.getJobs(["active"]);
		}
		const busiest = [...new Set(active.map((job) => job.processedBy))]
			.map((name) => ({ name, jobs: active.filter((job) => job.processedBy === name) }))
			.sort((a, b) => b.jobs.length - a.jobs.length)[0];
		const victim = workers.findIndex((worker) => worker.stderr().includes(`worker ${busiest?.name} takes jobs`));
		const dead = workers.splice(victim, 1)[0];
		if (!dead || !busiest) throw new Error("row 12c: no worker runs the children");
		const killedAt = Date.now();
		dead.child.kill("SIGKILL");
		const result = await run;
		if (result.status !== "completed") throw new Error(`the run ${result.status}: ${result.error?.message}`);
		const lost = await Promise.all(busiest.jobs.map((job) => Job.fromId(host.queue, job.id ?? "")));
		const keys = busiest.jobs.map((job) => job.data.request.key);
		return {
			answeredMs: Math.max(...keys.map((key) => (answeredAt.get(key) ?? Number.NaN) - killedAt)),
			restartedMs: Math.max(...lost.map((job) => (job?.processedOn ?? Number.NaN) - killedAt)),
			lost: keys.length,
		};
	} finally {
		await host.close();
	}
}
