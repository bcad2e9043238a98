/**
 * `pi-workflows run <file|name> --dry-run`: the script in the real sandbox with every agent answered without a
 * model, and the plan of what a real run would do printed (text, or the plan's data with `--json`). It needs no
 * credentials and no model, opens no session, makes no worktree, and records nothing: a dry run is never in
 * `pi-workflows runs` and never resumed. Exit codes as a run's: 0 completed, 1 failed, 130 stopped.
 */
import { errorMessage } from "../errors.ts";
import {
	type BeforeRunEstimate,
	estimateBeforeRun,
	estimateDryPlan,
	type PlannedRunEstimate,
	planWithEstimateText,
} from "../host/run-estimate.ts";
import { createWorkflowResolver } from "../host/script-source.ts";
import { visibleJson, visibleText } from "../progress/visible-text.ts";
import {
	dryRunPlanText,
	dryRunWorkflowScript,
	type JsonValue,
	type WorkflowDryRunOptions,
	type WorkflowDryRunPlan,
} from "../runtime/index.ts";
import type { CliContext } from "./context.ts";
import type { RunFlags } from "./execute.ts";
import type { CliScript } from "./inputs.ts";
import type { DryPiSetup } from "./pi-host.ts";
import { CLI_TOOL_NAMES } from "./tools.ts";

/** What `--dry-run` adds to the run's flags. */
export interface DryRunInput {
	script: CliScript;
	args?: JsonValue;
	/** `--answers`: by question text, or in order. */
	answers?: Record<string, string> | string[];
}

/** The exit code of a stopped run, as for a command ended by Ctrl-C. */
const EXIT_STOPPED = 130;

/**
 * The dry run, its plan printed with the estimate after it: per phase and in all, as a range, with its basis (this
 * workflow's earlier runs, the project's, or pi-ai's built-in catalog price; no credentials needed). With `--json`,
 * the plan's data and `estimate: { estimate, text, overCap? }`.
 */
export async function dryRun(input: DryRunInput, flags: RunFlags, ctx: CliContext): Promise<number> {
	const pi = await dryPi(flags, ctx);
	const { plan } = await dryRunWorkflowScript(input.script.source, dryOptions(input, flags, ctx, pi));
	plan.warnings.push(...unlentTools(plan, flags.allowTools));
	const planned = await estimateDryPlan(plan, {
		cwd: ctx.cwd,
		runsRoot: `${ctx.agentDir}/workflow-runs`,
		...(pi ? { priceOf: pi.priceOf } : {}),
		...(flags.maxCostUsd !== undefined ? { capUsd: flags.maxCostUsd } : {}),
	}).catch((error: unknown) => {
		ctx.stderr.write(`Note: no estimate: the run store could not be read (${errorMessage(error)})\n`);
		return undefined;
	});
	// The script's words (phases, questions, warnings, keys, its error) shown as every CLI view shows them.
	ctx.stdout.write(
		flags.json
			? `${visibleJson(JSON.stringify(planned ? { ...plan, estimate: planned } : plan, null, 2))}\n`
			: `${visibleText(planWithEstimateText(dryRunPlanText(plan), planned))}\n`,
	);
	return plan.status === "completed" ? 0 : plan.status === "stopped" ? EXIT_STOPPED : 1;
}

/**
 * Before a real run with `--max-cost`: a dry run of the same script and args (no model, nothing recorded, the run's
 * own timeout) and its estimate; a warning on stderr when it is over the cap, a note when there is no estimate.
 * The estimate is kept for the cap question's "about $Z more to finish".
 */
export async function warnOverCap(
	input: DryRunInput,
	flags: RunFlags & { maxCostUsd: number },
	ctx: CliContext,
): Promise<PlannedRunEstimate | undefined> {
	const pi = await dryPi(flags, ctx, true);
	const found: BeforeRunEstimate = await estimateBeforeRun(input.script.source, dryOptions(input, flags, ctx, pi), {
		cwd: ctx.cwd,
		runsRoot: `${ctx.agentDir}/workflow-runs`,
		capUsd: flags.maxCostUsd,
		...(pi ? { priceOf: pi.priceOf } : {}),
	});
	// The note carries the script's words (its error), the basis its name: shown as every CLI view shows them.
	if (found.note) ctx.stderr.write(`Note: ${visibleText(found.note)}\n`);
	if (found.planned?.overCap) {
		const basis = visibleText(found.planned.text.split("\n").at(-1) ?? "");
		ctx.stderr.write(
			`Warning: ${found.planned.overCap} (${basis}). The run starts; it stops at the cap${ctx.stdin?.isTTY ? " and asks for a higher one" : ", resumable"}.\n`,
		);
	}
	return found.planned;
}

function dryOptions(
	input: DryRunInput,
	flags: RunFlags,
	ctx: CliContext,
	pi: DryPiSetup | undefined,
): WorkflowDryRunOptions {
	const { script } = input;
	return {
		filename: script.filename,
		cwd: ctx.cwd,
		concurrency: flags.concurrency,
		resolveWorkflow: createWorkflowResolver({ agentDir: ctx.agentDir }),
		fenceTools: CLI_TOOL_NAMES,
		sandboxedBash: flags.noSandboxedBash !== true,
		planForks: true,
		...(pi ? { agentTypes: pi.agentTypes, modelOf: pi.modelOf, tools: pi.readTools } : {}),
		...(input.args !== undefined ? { args: input.args } : {}),
		...(input.answers !== undefined ? { answers: input.answers } : {}),
		...(flags.timeoutMs !== undefined ? { timeoutMs: flags.timeoutMs } : {}),
		...(flags.maxCostUsd !== undefined ? { budget: { costUsd: flags.maxCostUsd } } : {}),
	};
}

/**
 * pi's agent types, models, catalog prices and the read-only tools `--allow-tools` names; without pi the run goes on with none (and says so).
 * `quiet`: the run itself says what is wrong with pi, so the estimate before it does not say it too.
 */
async function dryPi(flags: RunFlags, ctx: CliContext, quiet = false): Promise<DryPiSetup | undefined> {
	let host: typeof import("./pi-host.ts");
	try {
		host = await import("./pi-host.ts");
	} catch (error) {
		if (quiet) return undefined;
		ctx.stderr.write(
			`Note: pi did not load (${errorMessage(error)}): agent types are not checked and every tool() step is fenced\n`,
		);
		return undefined;
	}
	const pi = host.setUpDryPi({
		cwd: ctx.cwd,
		agentDir: ctx.agentDir,
		allowTools: flags.allowTools,
		...(flags.model !== undefined ? { model: flags.model } : {}),
		...(flags.modelTiers !== undefined ? { modelTiers: flags.modelTiers } : {}),
		...(flags.approve !== undefined ? { approve: flags.approve } : {}),
	});
	if (!quiet) for (const warning of pi.warnings) ctx.stderr.write(`Warning: ${visibleText(warning)}\n`);
	return pi;
}

/** A real run lends `tool()` only what `--allow-tools` names: each other tool the script used would throw there. */
function unlentTools(plan: WorkflowDryRunPlan, allowed: readonly string[]): string[] {
	const used = [...new Set(plan.tools.map((step) => step.name))].filter((name) => !allowed.includes(name));
	return used.map(
		(name) =>
			`\`tool("${name}")\`: a real run from the command line lends no ${name} unless --allow-tools names it, and the step throws`,
	);
}

/**
 * The dry run a real run makes of itself in the background for its plan (progress against it, time left), with the
 * options `--dry-run` would use and pi's setup read quietly (the run itself says what is wrong with pi); the
 * estimate's prices are the catalog's.
 */
export async function backgroundDry(
	input: DryRunInput,
	flags: RunFlags,
	ctx: CliContext,
): Promise<{ dry: WorkflowDryRunOptions; priceOf?: DryPiSetup["priceOf"] }> {
	const pi = await dryPi(flags, ctx, true);
	return { dry: dryOptions(input, flags, ctx, pi), ...(pi ? { priceOf: pi.priceOf } : {}) };
}
