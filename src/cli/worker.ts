/**
 * `pi-workflows worker --redis <url>`: takes a run's children from the queue at <url> and runs each as a pi
 * session on this machine's pi (auth, models, tools). The flags are checked here; pi loads only once they pass.
 */
import { join, resolve } from "node:path";
import { checkRedisUrl } from "../queue/redis-url.ts";
import { labelProblem } from "../runtime/core/placement.ts";
import { type FlagSpec, flagValue, integerFlag, parseArgs, usageError } from "./args.ts";
import type { CliContext } from "./context.ts";
import { newEnoughForPi, tooOldForPi } from "./own-node.ts";

const WORKER_FLAGS: readonly FlagSpec[] = [
	{ name: "redis", value: true },
	{ name: "concurrency", value: true },
	{ name: "extension", short: "e", value: true, repeat: true },
	{ name: "repo", value: true },
	{ name: "name", value: true },
	{ name: "stalled-ms", value: true },
	{ name: "cache", value: true },
	{ name: "labels", value: true },
	{ name: "labels-file", value: true },
];

/** Children a worker runs at once unless `--concurrency` says otherwise. */
const DEFAULT_WORKER_CONCURRENCY = 2;

export async function workerCommand(argv: readonly string[], ctx: CliContext): Promise<number> {
	const args = parseArgs(argv, WORKER_FLAGS, "worker");
	if (args.positionals.length > 0) {
		throw usageError("`worker` takes no file: pi-workflows worker --redis <url> [options]");
	}
	const redis = flagValue(args, "redis");
	if (redis === undefined) throw usageError("`worker` needs --redis <url>: the Redis the hosts queue children on");
	const bad = checkRedisUrl(redis);
	if (bad) throw usageError(`--redis: ${bad}`);
	const concurrency = integerFlag(args, "concurrency", 1, 64) ?? DEFAULT_WORKER_CONCURRENCY;
	const stalledMs = integerFlag(args, "stalled-ms", 1000, 3_600_000);
	const name = flagValue(args, "name");
	const repo = flagValue(args, "repo");
	const cache = flagValue(args, "cache");
	const labels = labelsFlag(flagValue(args, "labels"));
	const labelsFile = flagValue(args, "labels-file");
	if (cache !== undefined && repo === undefined)
		throw usageError("--cache is where --repo's clone lives: give --repo too");
	// pi needs a newer Node than the bin: say what to run before the import fails on a name pi's code uses.
	if (!newEnoughForPi(process.versions.node)) throw usageError(tooOldForPi("worker"));
	const { runWorker } = await import("./pi-host.ts");
	return await runWorker({
		cwd: ctx.cwd,
		agentDir: ctx.agentDir,
		redis,
		concurrency,
		extensions: args.flags.get("extension") ?? [],
		stderr: ctx.stderr,
		...(name !== undefined ? { name } : {}),
		...(stalledMs !== undefined ? { stalledMs } : {}),
		...(labels.length > 0 ? { labels } : {}),
		...(labelsFile !== undefined ? { labelsFile } : {}),
		...(repo !== undefined
			? {
					repo: {
						url: repo,
						cacheDir: resolve(
							ctx.cwd,
							cache ?? join(ctx.agentDir, "workflow-worker", folderName(name ?? "default")),
						),
					},
				}
			: {}),
	});
}

/** `--labels gpu,region=eu`: each one a label, or the command line is wrong. */
function labelsFlag(value: string | undefined): string[] {
	if (value === undefined) return [];
	const labels = value
		.split(",")
		.map((label) => label.trim())
		.filter(Boolean);
	const problem = labels.map(labelProblem).find((found) => found !== undefined);
	if (problem !== undefined) throw usageError(`--labels: ${problem}; give them as gpu,region=eu`);
	return labels;
}

const WORKERS_FLAGS: readonly FlagSpec[] = [{ name: "redis", value: true }, { name: "json" }];

/** `pi-workflows workers --redis <url>`: the live workers, by their heartbeats. Needs no pi. */
export async function workersCommand(argv: readonly string[], ctx: CliContext): Promise<number> {
	const args = parseArgs(argv, WORKERS_FLAGS, "workers");
	if (args.positionals.length > 0) throw usageError("`workers` takes no file: pi-workflows workers --redis <url>");
	const redis = flagValue(args, "redis");
	if (redis === undefined) throw usageError("`workers` needs --redis <url>: the Redis the workers take jobs from");
	const bad = checkRedisUrl(redis);
	if (bad) throw usageError(`--redis: ${bad}`);
	// ioredis loads with this command, not with every command.
	const { listWorkers } = await import("../queue/worker-list.ts");
	const listed = await listWorkers(redis);
	ctx.stdout.write(`${args.flags.has("json") ? JSON.stringify(listed.workers, null, 2) : listed.text}\n`);
	return 0;
}

/** A worker's name as a folder name. */
function folderName(name: string): string {
	return name.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 80) || "default";
}
