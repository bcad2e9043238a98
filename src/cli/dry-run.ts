/**
 * `pi-workflows run <file|name> --dry-run`: the script in the real sandbox with every agent answered without a
 * model, and the plan of what a real run would do printed (text, or the plan's data with `--json`). It needs no
 * credentials and no model, opens no session, makes no worktree, and records nothing: a dry run is never in
 * `pi-workflows runs` and never resumed. Exit codes as a run's: 0 completed, 1 failed, 130 stopped.
 */
import { errorMessage } from "../errors.ts";
import { createWorkflowResolver } from "../host/script-source.ts";
import { dryRunPlanText, dryRunWorkflowScript, type JsonValue, type WorkflowDryRunPlan } from "../runtime/index.ts";
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

export async function dryRun(input: DryRunInput, flags: RunFlags, ctx: CliContext): Promise<number> {
	const pi = await dryPi(flags, ctx);
	const { script } = input;
	const { plan } = await dryRunWorkflowScript(script.source, {
		filename: script.filename,
		cwd: ctx.cwd,
		concurrency: flags.concurrency,
		resolveWorkflow: createWorkflowResolver({ agentDir: ctx.agentDir }),
		fenceTools: CLI_TOOL_NAMES,
		...(pi ? { agentTypes: pi.agentTypes, modelOf: pi.modelOf, tools: pi.readTools } : {}),
		...(input.args !== undefined ? { args: input.args } : {}),
		...(input.answers !== undefined ? { answers: input.answers } : {}),
		...(flags.timeoutMs !== undefined ? { timeoutMs: flags.timeoutMs } : {}),
		...(flags.maxCostUsd !== undefined ? { budget: { costUsd: flags.maxCostUsd } } : {}),
	});
	plan.warnings.push(...unlentTools(plan, flags.allowTools));
	ctx.stdout.write(flags.json ? `${JSON.stringify(plan, null, 2)}\n` : `${dryRunPlanText(plan)}\n`);
	return plan.status === "completed" ? 0 : plan.status === "stopped" ? EXIT_STOPPED : 1;
}

/** pi's agent types, models and read-only tools; without pi the run goes on with none (and says so). */
async function dryPi(flags: RunFlags, ctx: CliContext): Promise<DryPiSetup | undefined> {
	let host: typeof import("./pi-host.ts");
	try {
		host = await import("./pi-host.ts");
	} catch (error) {
		ctx.stderr.write(
			`Note: pi did not load (${errorMessage(error)}): agent types are not checked and every tool() step is fenced\n`,
		);
		return undefined;
	}
	const pi = host.setUpDryPi({
		cwd: ctx.cwd,
		agentDir: ctx.agentDir,
		...(flags.model !== undefined ? { model: flags.model } : {}),
		...(flags.approve !== undefined ? { approve: flags.approve } : {}),
	});
	for (const warning of pi.warnings) ctx.stderr.write(`Warning: ${warning}\n`);
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
