/**
 * `pi-workflows run <file|name>` and `pi-workflows resume <runId> [file]`: a durable run (a record in the run store,
 * so it can be listed and resumed, as the `workflow` tool's runs can) with children as pi sessions. Progress goes
 * to stderr, the result as JSON to stdout; the exit code is 0 completed, 1 failed, 130 stopped. Ctrl-C stops the
 * children and says how to resume.
 */

import { errorMessage, isWorkflowError, stripLocation, WorkflowError } from "../errors.ts";
import type { DurableSource } from "../host/durable-run.ts";
import { type DurableRunnerHooks, type DurableStart, startDurableRun } from "../host/start-run.ts";
import { checkRedisUrl } from "../queue/redis-url.ts";
import { MAX_TIMEOUT_MS } from "../runtime/agent/options.ts";
import type { WorkflowMeta } from "../runtime/core/types.ts";
import { validateArgs } from "../runtime/meta/read.ts";
import { prepareWorkflow } from "../runtime/run/script-check.ts";
import {
	dollarsFlag,
	type FlagSpec,
	flagValue,
	integerFlag,
	numberAboveFlag,
	type ParsedArgs,
	parseArgs,
	usageError,
} from "./args.ts";
import { checkCeilingGrant, grantCliCeiling, grantedCliCeiling } from "./ceiling.ts";
import type { CliContext } from "./context.ts";
import { backgroundDry, dryRun, warnOverCap } from "./dry-run.ts";
import { execute, type RunFlags } from "./execute.ts";
import { readAnswers, readArgs, readScript } from "./inputs.ts";
import { tooOldForPi } from "./own-node.ts";
import type { PiSetup, RunProvenance } from "./pi-host.ts";
import { cliPerson, cliScript } from "./provenance.ts";
import { allowedTools, grantedCliTools } from "./tools.ts";

const RUN_FLAGS: readonly FlagSpec[] = [
	{ name: "args", value: true },
	{ name: "model", value: true },
	{ name: "concurrency", value: true },
	{ name: "timeout", value: true },
	{ name: "max-cost", value: true },
	{ name: "max-provider-wait", value: true },
	{ name: "slow-multiple", value: true },
	{ name: "extension", short: "e", value: true, repeat: true },
	{ name: "json" },
	{ name: "allow-tools", value: true, repeat: true },
	{ name: "grant" },
	{ name: "model-tiers", value: true },
	{ name: "redis", value: true },
	{ name: "redis-unreachable-ms", value: true },
	{ name: "placement-wait-ms", value: true },
	{ name: "approve", short: "a" },
	{ name: "no-approve", short: "na" },
	{ name: "dry-run" },
	{ name: "answers", value: true },
	{ name: "no-frame" },
	{ name: "no-sandboxed-bash" },
	{ name: "no-continue-interrupted" },
];

/** Children running at once unless `--concurrency` says otherwise: the extension's default too. */
const DEFAULT_CONCURRENCY = 4;

export async function runCommand(argv: readonly string[], ctx: CliContext): Promise<number> {
	const args = parseArgs(argv, RUN_FLAGS, "run");
	const [target, extra] = args.positionals;
	if (target === undefined || extra !== undefined) {
		throw usageError("`run` takes one workflow: pi-workflows run <file|name> [options]");
	}
	const flags = runFlags(args);
	const script = readScript(target, ctx, flags.approve === true);
	const givenArgs = flagValue(args, "args");
	const answers = flagValue(args, "answers");
	if (args.flags.has("dry-run")) {
		const parsed = givenArgs !== undefined ? readArgs(givenArgs, ctx.cwd) : undefined;
		await checkBeforeStart({ script: script.source, filename: script.filename, args: parsed }, true);
		return dryRun(
			{
				script,
				...(parsed !== undefined ? { args: parsed } : {}),
				...(answers !== undefined ? { answers: readAnswers(answers, ctx.cwd) } : {}),
			},
			flags,
			ctx,
		);
	}
	if (answers !== undefined) throw usageError("--answers answers a dry run's questions: give it with --dry-run");
	const grantCeiling = args.flags.has("grant");
	if (grantCeiling) checkCeilingGrant({ script: script.source, ...script }, flags.maxCostUsd);
	const start = await startDurableRun({
		cwd: ctx.cwd,
		runsRoot: runsRoot(ctx),
		script: () => script,
		...(givenArgs !== undefined ? { args: readArgs(givenArgs, ctx.cwd) } : {}),
	});
	const provenance = { script: cliScript(target, script.filename), person: cliPerson("run", argv, ctx) };
	return runStarted(start, framed(flags, provenance), ctx, { fresh: true, grantCeiling });
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
	if (args.flags.has("dry-run") || args.flags.has("answers")) {
		throw usageError(
			"`resume` has no --dry-run: a dry run is of a script, not of a run. Try the script: pi-workflows run <file> --dry-run",
		);
	}
	if (args.flags.has("grant")) {
		throw usageError(
			"--grant grants a ceiling to a workflow's text, not to a run: give it to `pi-workflows run <name>`",
		);
	}
	const flags = runFlags(args);
	const script = file !== undefined ? readScript(file, ctx) : undefined;
	const givenArgs = flagValue(args, "args");
	const parsedArgs = givenArgs !== undefined ? readArgs(givenArgs, ctx.cwd) : undefined;
	const start = await startDurableRun({
		cwd: ctx.cwd,
		runsRoot: runsRoot(ctx),
		resume: runId,
		script: () => script,
		...(parsedArgs !== undefined ? { args: parsedArgs } : {}),
	});
	const provenance: RunProvenance = {
		script:
			file !== undefined
				? cliScript(file, start.source.filename)
				: { kind: "resumed", runId, file: start.source.filename },
		person: cliPerson("resume", argv, ctx),
	};
	return runStarted(start, framed(flags, provenance), ctx);
}

/** The flags with the run's provenance, unless `--no-frame` turned the children's frame off. */
function framed(flags: RunFlags, provenance: RunProvenance): RunFlags {
	return flags.noFrame ? flags : { ...flags, provenance };
}

function runsRoot(ctx: CliContext): string {
	return `${ctx.agentDir}/workflow-runs`;
}

/**
 * Checks the script as the run would, loads pi, and runs; a run that never started lets go of its record. A new run
 * (`fresh`) given no `--max-cost` is capped by the dollar ceiling granted to its text, if any; capped, it is estimated
 * first, and warned about when over its cap. A resume is neither: it keeps the record's cap, and its dry run would
 * count again the calls the run already made. `grantCeiling` (`--grant`): `--max-cost` is granted to the saved
 * workflow's text as its dollar ceiling.
 */
async function runStarted(
	start: DurableStart,
	given: RunFlags,
	ctx: CliContext,
	{ fresh = false, grantCeiling = false } = {},
): Promise<number> {
	try {
		await checkBeforeStart(start.source);
		const { script, filename, args } = start.source;
		const input = { script: { source: script, filename }, ...(args !== undefined ? { args } : {}) };
		let flags = given;
		// A saved workflow's tools and ceiling follow its grants (bound to its text); --allow-tools grants tools to this
		// text, and --grant the cap. Read and granted here, where pi's trust in the project (whose grants file it is) is known.
		const pi = await setUp(given, ctx, start.runner, (projectTrusted) => {
			const places = { ...ctx, projectTrusted };
			if (grantCeiling && given.maxCostUsd !== undefined) grantCliCeiling(start.source, given.maxCostUsd, places);
			const ceiling = fresh && given.maxCostUsd === undefined ? grantedCliCeiling(start.source, places) : undefined;
			if (ceiling !== undefined) flags = { ...given, maxCostUsd: ceiling };
			return grantedCliTools(start.source, given.allowTools, places);
		});
		try {
			const { maxCostUsd } = flags;
			const planned =
				fresh && maxCostUsd !== undefined ? await warnOverCap(input, { ...flags, maxCostUsd }, ctx) : undefined;
			// The run's plan is made beside it, from a dry run with the options `--dry-run` would use.
			return await execute(start, flags, pi, ctx, planned, () => backgroundDry(input, flags, ctx));
		} finally {
			await pi.close?.();
		}
	} catch (error) {
		// A run that went ahead let go of its lock itself; one that never started must not keep it.
		await start.abandon();
		throw error;
	}
}

/**
 * The header, syntax, static pass and args, checked as the run would check them before its first agent, but before pi loads: a
 * script that cannot start is a mistake in what was given (exit 2, one line with its line:column), not a failed run.
 */
export async function checkBeforeStart(
	source: Pick<DurableSource, "script" | "filename" | "args">,
	dryRunning = false,
): Promise<void> {
	let meta: WorkflowMeta;
	try {
		meta = prepareWorkflow(source.script, { filename: source.filename }).meta;
	} catch (error) {
		if (!isWorkflowError(error) || !error.location) throw error;
		const { line, column } = error.location;
		throw new WorkflowError(error.code, `${source.filename}:${line}:${column}: ${stripLocation(error.message)}`);
	}
	// A dry run without args samples them from the schema: only args that were given are checked here.
	if (source.args !== undefined || !dryRunning) await validateArgs(meta, source.args);
}

function runFlags(args: ParsedArgs): RunFlags {
	const timeoutMs = integerFlag(args, "timeout", 1, MAX_TIMEOUT_MS);
	const maxProviderWaitMs = integerFlag(args, "max-provider-wait", 0, MAX_TIMEOUT_MS);
	const model = flagValue(args, "model");
	const modelTiers = flagValue(args, "model-tiers");
	const maxCostUsd = dollarsFlag(args, "max-cost");
	const slowMultiple = numberAboveFlag(
		args,
		"slow-multiple",
		1,
		"a call or run that takes more than that many times its usual duration is marked slower than usual",
	);
	const redis = flagValue(args, "redis");
	const badRedis = redis !== undefined ? checkRedisUrl(redis) : undefined;
	if (badRedis) throw usageError(`--redis: ${badRedis}`);
	const redisUnreachableMs = integerFlag(args, "redis-unreachable-ms", 1000, MAX_TIMEOUT_MS);
	if (redisUnreachableMs !== undefined && redis === undefined) {
		throw usageError("--redis-unreachable-ms is how long the queue's Redis may stay unreachable: give --redis too");
	}
	const placementWaitMs = integerFlag(args, "placement-wait-ms", 0, MAX_TIMEOUT_MS);
	if (placementWaitMs !== undefined && redis === undefined) {
		throw usageError(
			"--placement-wait-ms is how long a queued child waits for a live worker with the labels it requires: give --redis too",
		);
	}
	const approve = args.flags.has("approve") ? true : args.flags.has("no-approve") ? false : undefined;
	if (args.flags.has("approve") && args.flags.has("no-approve")) {
		throw usageError("--approve and --no-approve contradict each other; give one");
	}
	return {
		...(approve !== undefined ? { approve } : {}),
		...(redis !== undefined ? { redis } : {}),
		...(redisUnreachableMs !== undefined ? { redisUnreachableMs } : {}),
		...(placementWaitMs !== undefined ? { placementWaitMs } : {}),
		concurrency: integerFlag(args, "concurrency", 1, 64) ?? DEFAULT_CONCURRENCY,
		...(timeoutMs !== undefined ? { timeoutMs } : {}),
		...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
		...(maxProviderWaitMs !== undefined ? { maxProviderWaitMs } : {}),
		...(slowMultiple !== undefined ? { slowMultiple } : {}),
		...(model !== undefined ? { model } : {}),
		...(modelTiers !== undefined ? { modelTiers } : {}),
		extensions: args.flags.get("extension") ?? [],
		json: args.flags.has("json"),
		allowTools: allowedTools(args.flags.get("allow-tools") ?? []),
		...(args.flags.has("no-frame") ? { noFrame: true } : {}),
		...(args.flags.has("no-sandboxed-bash") ? { noSandboxedBash: true } : {}),
		...(args.flags.has("no-continue-interrupted") ? { noContinueInterrupted: true } : {}),
	};
}

/** Loads the pi half and sets pi up; says which package to install where pi is not. */
async function setUp(
	flags: RunFlags,
	ctx: CliContext,
	durable: DurableRunnerHooks,
	lentTools: (projectTrusted: boolean) => readonly string[],
): Promise<PiSetup> {
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
		...durable,
		...(flags.model !== undefined ? { model: flags.model } : {}),
		...(flags.modelTiers !== undefined ? { modelTiers: flags.modelTiers } : {}),
		allowTools: flags.allowTools,
		lentTools,
		...(flags.redis !== undefined ? { redis: flags.redis } : {}),
		...(flags.redisUnreachableMs !== undefined ? { redisUnreachableMs: flags.redisUnreachableMs } : {}),
		...(flags.placementWaitMs !== undefined ? { placementWaitMs: flags.placementWaitMs } : {}),
		...(flags.approve !== undefined ? { approve: flags.approve } : {}),
		...(flags.provenance ? { provenance: flags.provenance } : {}),
		onNote: (text) => ctx.stderr.write(`Note: ${text}\n`),
	});
	for (const warning of pi.warnings) ctx.stderr.write(`Warning: ${warning}\n`);
	return pi;
}

function piMissing(error: unknown): Error {
	const code = (error as { code?: unknown }).code;
	const message = errorMessage(error);
	if (code === "ERR_MODULE_NOT_FOUND" && /@earendil-works\/|typebox/.test(message)) {
		return usageError(
			"`run` starts its children as pi sessions, and pi is not installed here. Install it next to pi-workflows: npm install @earendil-works/pi-coding-agent",
		);
	}
	const major = Number(process.versions.node.split(".")[0]);
	if (major < 22) {
		return usageError(tooOldForPi("run"));
	}
	return error instanceof Error ? error : new Error(message);
}
