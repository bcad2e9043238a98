/**
 * `pi-workflows run <file|name>` and `pi-workflows resume <runId> [file]`: a durable run (a record in the run store,
 * so it can be listed and resumed, as the `workflow` tool's runs can) with children as pi sessions. Progress goes
 * to stderr, the result as JSON to stdout; the exit code is 0 completed, 1 failed, 130 stopped. Ctrl-C stops the
 * children and says how to resume.
 */

import { isWorkflowError, stripLocation, WorkflowError } from "../errors.ts";
import { createWorkflowProgressTracker, formatWorkflowProgress } from "../progress/index.ts";
import { createRunStore } from "../runs/index.ts";
import { MAX_TIMEOUT_MS } from "../runtime/agent-options.ts";
import { parseWorkflowSource, validateArgs } from "../runtime/meta.ts";
import { runWorkflowScript } from "../runtime/run.ts";
import type { WorkflowMeta, WorkflowRunResult } from "../runtime/types.ts";
import { DurableRun, type DurableSource } from "../tool/durable-run.ts";
import { createWorkflowResolver } from "../tool/script-source.ts";
import { type FlagSpec, flagValue, integerFlag, type ParsedArgs, parseArgs, usageError } from "./args.ts";
import type { CliContext } from "./context.ts";
import { readArgs, readScript } from "./inputs.ts";
import type { PiSetup } from "./pi-host.ts";
import { createProgressView } from "./progress-view.ts";

export const RUN_FLAGS: readonly FlagSpec[] = [
	{ name: "args", value: true },
	{ name: "model", value: true },
	{ name: "concurrency", value: true },
	{ name: "timeout", value: true },
	{ name: "extension", short: "e", value: true, repeat: true },
	{ name: "json" },
];

/** Children running at once unless `--concurrency` says otherwise: the extension's default too. */
const DEFAULT_CONCURRENCY = 4;
/** The exit code of a stopped run, as for a command ended by Ctrl-C. */
export const EXIT_STOPPED = 130;
/** Characters of the final progress text the run's snapshot keeps (what `/workflows` shows), as the tool keeps. */
const PROGRESS_CHARS = 16 * 1024;
/** The Node that pi-coding-agent 1.6 declares in its `engines`. */
const PI_NODE = "22.19";

export async function runCommand(argv: readonly string[], ctx: CliContext): Promise<number> {
	const args = parseArgs(argv, RUN_FLAGS, "run");
	const [target, extra] = args.positionals;
	if (target === undefined || extra !== undefined) {
		throw usageError("`run` takes one workflow: pi-workflows run <file|name> [options]");
	}
	const flags = runFlags(args);
	const script = readScript(target, { cwd: ctx.cwd, agentDir: ctx.agentDir });
	const givenArgs = flagValue(args, "args");
	const source: DurableSource = {
		script: script.source,
		filename: script.filename,
		...(givenArgs !== undefined ? { args: readArgs(givenArgs, ctx.cwd) } : {}),
	};
	await checkBeforeStart(source);
	const pi = await setUp(flags, ctx);
	const store = createRunStore({ cwd: ctx.cwd, root: `${ctx.agentDir}/workflow-runs` });
	return execute(source, DurableRun.fresh(store, source), flags, pi, ctx);
}

export async function resumeCommand(argv: readonly string[], ctx: CliContext): Promise<number> {
	const args = parseArgs(argv, RUN_FLAGS, "resume");
	const [runId, file, extra] = args.positionals;
	if (runId === undefined || extra !== undefined) {
		throw usageError(
			"`resume` takes a run id and, to resume with an edited script, its file: pi-workflows resume <runId> [file]",
		);
	}
	// Everything the command line can get wrong is checked before the run's lock is taken.
	const flags = runFlags(args);
	const script = file !== undefined ? readScript(file, { cwd: ctx.cwd, agentDir: ctx.agentDir }) : undefined;
	const givenArgs = flagValue(args, "args");
	const parsedArgs = givenArgs !== undefined ? readArgs(givenArgs, ctx.cwd) : undefined;
	const store = createRunStore({ cwd: ctx.cwd, root: `${ctx.agentDir}/workflow-runs` });
	const durable = await DurableRun.resume(store, runId);
	try {
		const original = durable.original as DurableSource;
		const runArgs = parsedArgs !== undefined ? parsedArgs : original.args;
		const source: DurableSource = {
			script: script?.source ?? original.script,
			filename: script?.filename ?? original.filename,
			...(runArgs !== undefined ? { args: runArgs } : {}),
		};
		await checkBeforeStart(source);
		const pi = await setUp(flags, ctx);
		return await execute(source, durable, flags, pi, ctx);
	} catch (error) {
		// A run that went ahead let go of its lock itself; one that never started must not keep it.
		await durable.abandon();
		throw error;
	}
}

/**
 * The header, syntax and args, checked as the run would check them before its first agent, but before pi loads: a
 * script that cannot start is a mistake in what was given (exit 2, one line with its line:column), not a failed run.
 */
async function checkBeforeStart(source: DurableSource): Promise<void> {
	let meta: WorkflowMeta;
	try {
		meta = parseWorkflowSource(source.script, { filename: source.filename }).meta;
	} catch (error) {
		if (!isWorkflowError(error) || !error.location) throw error;
		const { line, column } = error.location;
		throw new WorkflowError(error.code, `${source.filename}:${line}:${column}: ${stripLocation(error.message)}`);
	}
	await validateArgs(meta, source.args);
}

/** The flags of `run` and `resume`, checked before anything is loaded or locked. */
interface RunFlags {
	concurrency: number;
	timeoutMs?: number;
	model?: string;
	extensions: string[];
	json: boolean;
}

function runFlags(args: ParsedArgs): RunFlags {
	const timeoutMs = integerFlag(args, "timeout", 1, MAX_TIMEOUT_MS);
	const model = flagValue(args, "model");
	return {
		concurrency: integerFlag(args, "concurrency", 1, 64) ?? DEFAULT_CONCURRENCY,
		...(timeoutMs !== undefined ? { timeoutMs } : {}),
		...(model !== undefined ? { model } : {}),
		extensions: args.flags.get("extension") ?? [],
		json: args.flags.has("json"),
	};
}

/** Loads the pi half and sets pi up; says which package to install where pi is not. */
async function setUp(flags: RunFlags, ctx: CliContext): Promise<PiSetup> {
	let host: typeof import("./pi-host.ts");
	try {
		host = await import("./pi-host.ts");
	} catch (error) {
		throw piMissing(error);
	}
	const pi = await host.setUpPi({
		cwd: ctx.cwd,
		agentDir: ctx.agentDir,
		extensions: flags.extensions,
		...(flags.model !== undefined ? { model: flags.model } : {}),
	});
	for (const warning of pi.warnings) ctx.stderr.write(`Warning: ${warning}\n`);
	return pi;
}

function piMissing(error: unknown): Error {
	const code = (error as { code?: unknown }).code;
	const message = error instanceof Error ? error.message : String(error);
	if (code === "ERR_MODULE_NOT_FOUND" && /@earendil-works\/|typebox/.test(message)) {
		return usageError(
			"`run` starts its children as pi sessions, and pi is not installed here. Install it next to pi-workflows: npm install @earendil-works/pi-coding-agent",
		);
	}
	const major = Number(process.versions.node.split(".")[0]);
	if (major < 22) {
		return usageError(
			`\`run\` needs pi, which needs Node ${PI_NODE} or newer; this is Node ${process.versions.node}`,
		);
	}
	return error instanceof Error ? error : new Error(message);
}

async function execute(
	source: DurableSource,
	durable: DurableRun,
	flags: RunFlags,
	pi: PiSetup,
	ctx: CliContext,
): Promise<number> {
	const controller = new AbortController();
	const tracker = createWorkflowProgressTracker();
	const view = createProgressView(ctx.stderr);
	let runId: string | undefined;
	durable.recorded.then((id) => {
		runId = id;
	});
	const stop = () => {
		if (controller.signal.aborted) {
			// A second Ctrl-C: the person will not wait for the children to wind down.
			ctx.stderr.write(`\n${resumeHint(runId)}\n`);
			process.exit(EXIT_STOPPED);
		}
		view.message("Stopping: ending the children and saving the run (Ctrl-C again to quit at once)…");
		controller.abort("Stopped with Ctrl-C");
	};
	process.on("SIGINT", stop);
	process.on("SIGTERM", stop);
	let result: WorkflowRunResult;
	try {
		result = await runWorkflowScript(source.script, {
			agentRunner: pi.runner,
			filename: source.filename,
			cwd: ctx.cwd,
			concurrency: flags.concurrency,
			agentTypes: pi.agentTypes,
			resolveWorkflow: createWorkflowResolver({ agentDir: ctx.agentDir }),
			signal: controller.signal,
			journal: durable.journal,
			...(source.args !== undefined ? { args: source.args } : {}),
			...(flags.timeoutMs !== undefined ? { timeoutMs: flags.timeoutMs } : {}),
			onProgress: (event) => {
				if (event.type === "run_start") durable.started(event.meta, source);
				tracker.updateFromProgressEvent(event);
				view.update(event, tracker.getEnvelope());
			},
		});
	} catch (error) {
		// Only our own bugs reach here: runWorkflowScript resolves for every script fault.
		await durable.abandon();
		throw error;
	} finally {
		process.off("SIGINT", stop);
		process.off("SIGTERM", stop);
	}
	const { envelope } = tracker.complete(result);
	const text = formatWorkflowProgress(envelope);
	const saved = await durable.finish(
		result,
		text.length <= PROGRESS_CHARS ? text : `${text.slice(0, PROGRESS_CHARS - 1)}…`,
	);
	view.finish(envelope);
	runId = saved.runId;

	if (flags.json) ctx.stdout.write(`${JSON.stringify({ ...result, runId }, null, 2)}\n`);
	else if (result.value !== undefined || result.status === "completed") {
		ctx.stdout.write(`${JSON.stringify(result.value ?? null, null, 2)}\n`);
	}
	if (saved.problem) ctx.stderr.write(`Warning: the run could not be saved completely (${saved.problem})\n`);
	if (result.status !== "completed") {
		if (result.error) ctx.stderr.write(`Error (${result.error.code}): ${result.error.message}\n`);
		ctx.stderr.write(
			`${saved.saved > 0 ? resumeHint(runId) : "No agent result was saved: run the workflow again to retry."}\n`,
		);
	} else if (runId) {
		ctx.stderr.write(`Run ${runId}\n`);
	}
	return result.status === "completed" ? 0 : result.status === "stopped" ? EXIT_STOPPED : 1;
}

function resumeHint(runId: string | undefined): string {
	return runId
		? `Run ${runId} keeps its finished agents. Resume it: pi-workflows resume ${runId}`
		: "The run has no record yet: run the workflow again.";
}
