/**
 * Real `pi-workflows worker` processes (the CLI from src/, on Node's type stripping) and CLI hosts, for the queue
 * tests: children on pi-ai's faux provider loaded with `-e test/fixtures/faux-queue-extension.ts`, each child's start
 * logged to `$PWF_QUEUE_LOG` as `<pid>\t<task>`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sweepDeadScratch } from "../../src/queue/job-place.ts";
import type { WorkflowAgentRequest } from "../../src/runtime/core/types.ts";
import { childEnv, ROOT } from "./package.ts";

export const QUEUE_FAUX = join(ROOT, "test", "fixtures", "faux-queue-extension.ts");
const MAIN = join(ROOT, "src", "cli", "main.ts");

/** A spawned CLI process: its output so far, and its end. */
export interface CliProcess {
	child: ChildProcess;
	pid: number;
	stdout(): string;
	stderr(): string;
	exited: Promise<number | null>;
}

/** Spawns `pi-workflows <args>` from src/ in `cwd`. */
export function spawnCli(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): CliProcess {
	const child = spawn(process.execPath, [MAIN, ...args], {
		cwd: options.cwd,
		env: childEnv(options.env),
		stdio: ["ignore", "pipe", "pipe"],
	});
	let out = "";
	let err = "";
	child.stdout?.on("data", (chunk) => {
		out += chunk;
	});
	child.stderr?.on("data", (chunk) => {
		err += chunk;
	});
	const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
	return { child, pid: child.pid ?? 0, stdout: () => out, stderr: () => err, exited };
}

/** Waits until `test` is true (polling every 50 ms), or throws after `timeoutMs` with `what`. */
export async function waitFor(test: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
	const until = Date.now() + timeoutMs;
	while (!(await test())) {
		if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

/**
 * Ends processes with SIGKILL (workers, hosts) and removes the job folders the dead workers leave, as the next worker
 * on the machine would: a test's last worker has no next one.
 */
export async function killAll(processes: Iterable<CliProcess | undefined>): Promise<void> {
	const list = [...processes].filter((running) => running !== undefined);
	for (const running of list) running.child.kill("SIGKILL");
	await Promise.all(list.map((running) => running.exited));
	await sweepDeadScratch();
}

/** Starts a worker and waits until it takes jobs. */
export async function startWorker(options: {
	redis: string;
	name: string;
	cwd: string;
	env: NodeJS.ProcessEnv;
	concurrency?: number;
	/** `--stalled-ms`. Default: 2000, so the tests' killed workers lose their jobs soon. */
	stalledMs?: number;
	/** `--labels`, as gpu,region=eu. Default: none. */
	labels?: string;
	/** `--labels-file`. Default: none. */
	labelsFile?: string;
}): Promise<CliProcess> {
	const worker = spawnCli(
		[
			"worker",
			"--redis",
			options.redis,
			"-e",
			QUEUE_FAUX,
			"--name",
			options.name,
			"--concurrency",
			String(options.concurrency ?? 2),
			"--stalled-ms",
			String(options.stalledMs ?? 2000),
			...(options.labels ? ["--labels", options.labels] : []),
			...(options.labelsFile ? ["--labels-file", options.labelsFile] : []),
		],
		{ cwd: options.cwd, env: options.env },
	);
	let code: number | null | undefined;
	worker.exited.then((c) => {
		code = c;
	});
	await waitFor(() => {
		if (code !== undefined) throw new Error(`worker ${options.name} exited (${code}): ${worker.stderr()}`);
		return worker.stderr().includes("takes jobs from");
	}, `worker ${options.name} to start`);
	return worker;
}

/** The children started so far: `[pid, task]` per start, in order. */
export function childStarts(log: string): Array<[number, string]> {
	if (!existsSync(log)) return [];
	return readFileSync(log, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((line) => {
			const [pid, task] = line.split("\t");
			return [Number(pid), task ?? ""];
		});
}

/** A general-purpose child's request as a host hands it to the queue, named `key` and run in `cwd`; `more` adds to it. */
export function agentRequest(
	key: string,
	prompt: string,
	cwd: string,
	more: Partial<WorkflowAgentRequest> = {},
): WorkflowAgentRequest {
	return {
		key,
		index: 0,
		attempt: 1,
		prompt,
		agentType: "general-purpose",
		label: key,
		description: key,
		cwd,
		...more,
	};
}
