/**
 * `pi-workflows worker`'s pi side: pi set up as its own command line does (auth.json, models.json, settings,
 * discovered extensions plus each `-e`, whose providers reach the children), then a queue worker until SIGINT or
 * SIGTERM: the first stops taking jobs and lets the running children finish, a second quits at once, removing its
 * children's scratch folders (its jobs go to other workers once BullMQ sees them stalled).
 */
import { resolve } from "node:path";
import { createAgentSessionServices } from "@earendil-works/pi-coding-agent";
import { WorkflowError } from "../errors.ts";
import { canonicalLabels } from "../runtime/core/placement.ts";
import { prepareClone } from "../worktree/index.ts";
import { removeOwnScratch, type WorkerRepo } from "./job-place.ts";
import { startQueueWorker } from "./job-runner.ts";
import { safeUrl } from "./redis-url.ts";
import { labelsIn } from "./worker-labels.ts";

/** What the command line asked of the worker. */
export interface WorkerCommandOptions {
	cwd: string;
	agentDir: string;
	redis: string;
	concurrency: number;
	extensions: readonly string[];
	name?: string;
	/** `--repo` and `--cache`: children work in worktrees of the run's commit from a clone kept in `cacheDir`. */
	repo?: WorkerRepo;
	/** `--stalled-ms`: how soon a dead worker's jobs go to others (see `QueueWorkerOptions.stalledMs`). Default: 5000. */
	stalledMs?: number;
	/** `--labels`: what this worker has; the `workflows.worker.labels` setting adds to them. Default: none. */
	labels?: readonly string[];
	/** `--labels-file`: more labels, read again at every heartbeat. Default: none. */
	labelsFile?: string;
	stderr: NodeJS.WritableStream;
}

/** Runs the worker until a signal ends it; resolves with the exit code. */
export async function runWorker(options: WorkerCommandOptions): Promise<number> {
	const services = await createAgentSessionServices({
		cwd: options.cwd,
		agentDir: options.agentDir,
		resourceLoaderOptions: { additionalExtensionPaths: options.extensions.map((path) => resolve(options.cwd, path)) },
	});
	const failed = services.resourceLoader.getExtensions().errors[0];
	if (failed) {
		throw new WorkflowError(
			"cli_usage",
			`Extension ${failed.path} did not load: ${failed.error}. Fix it, or leave it out`,
		);
	}
	const say = (line: string) => options.stderr.write(`${line}\n`);
	const labels = [...(options.labels ?? []), ...settingLabels(services.settingsManager.getSettings(), say)];
	if (options.repo) {
		// At start, so a URL this machine cannot read fails here rather than in every child.
		say(`worker: cloning or fetching ${options.repo.url} into ${options.repo.cacheDir}…`);
		await prepareClone({ repoUrl: options.repo.url, cacheDir: options.repo.cacheDir });
	}
	const worker = await startQueueWorker({
		redis: options.redis,
		concurrency: options.concurrency,
		modelRuntime: services.modelRuntime,
		agentDir: options.agentDir,
		...(options.name ? { name: options.name } : {}),
		...(options.repo ? { repo: options.repo } : {}),
		...(options.stalledMs ? { stalledMs: options.stalledMs } : {}),
		labels,
		...(options.labelsFile ? { labelsFile: resolve(options.cwd, options.labelsFile) } : {}),
		log: (line) => say(`worker: ${line}`),
	});
	const where = options.repo
		? `Children work in worktrees of their run's commit from ${options.repo.url} and push what they change as workflows/<runId>/<label>.`
		: "Without --repo its children work in empty scratch folders without edit/write: they answer, read what their prompt gives and run commands here.";
	const has = labels.length > 0 ? ` Labels: ${canonicalLabels(labels).join(", ")}.` : "";
	const file = options.labelsFile ? ` More labels are read from ${options.labelsFile} every second.` : "";
	say(
		`worker ${worker.name} takes jobs from ${safeUrl(options.redis)}, ${options.concurrency} at a time.${has}${file} ${where}`,
	);
	return await new Promise<number>((done) => {
		let closing = false;
		const stop = () => {
			if (closing) {
				say("worker: quitting now; its running jobs go to other workers once BullMQ sees them stalled");
				// Its children's folders go with it (their conversations are in Redis for the next worker).
				void removeOwnScratch().finally(() => done(130));
				return;
			}
			closing = true;
			say("worker: taking no new jobs; waiting for the running children (again to quit at once)…");
			worker.close().then(
				() => done(0),
				() => done(1),
			);
		};
		process.on("SIGINT", stop);
		process.on("SIGTERM", stop);
	});
}

/** The `workflows.worker.labels` setting: a list or a comma list of labels; a bad one is said and left out. */
function settingLabels(settings: unknown, say: (line: string) => void): string[] {
	const value = (settings as { workflows?: { worker?: { labels?: unknown } } } | undefined)?.workflows?.worker?.labels;
	if (value === undefined) return [];
	const text = Array.isArray(value) ? value.join(",") : typeof value === "string" ? value : undefined;
	if (text === undefined) {
		say("worker: the workflows.worker.labels setting must be a list of labels; ignoring it");
		return [];
	}
	const read = labelsIn(text);
	for (const problem of read.problems) say(`worker: the workflows.worker.labels setting: ${problem}; ignoring it`);
	return read.labels;
}
