/**
 * The pi side of an eval's trials: each trial's children as pi sessions set up as `pi-workflows run` sets them up
 * (the arm's model and tiers over `--model`), recording into the trial's run; and the runner a model-graded grader's
 * `agent()` calls get (recorded in no run: grading is not a run of the workflow).
 */
import type { SetUpTrialRunner } from "../../eval/recorded-trial.ts";
import type { WorkflowAgentRunner } from "../../runtime/core/types.ts";
import type { CliContext } from "../context.ts";
import type { PiSetup, PiSetupOptions } from "../pi-host.ts";
import { cliPerson } from "../provenance.ts";

/** What every trial shares: the command line's pi options; an arm's `model`/`modelTiers` replace the flags'. */
export interface TrialPiOptions {
	extensions: readonly string[];
	model?: string;
	approve?: boolean;
	argv: readonly string[];
}

export function piTrialRunner(options: TrialPiOptions, ctx: CliContext): SetUpTrialRunner {
	// pi is set up for every trial: what it warns about (an agent file skipped, a model's warning) is said once.
	const warned = new Set<string>();
	return async (request, hooks) => {
		const model = request.arm.model ?? options.model;
		const pi = await setUp(options, ctx, {
			...hooks,
			...(model !== undefined ? { model } : {}),
			...(request.arm.modelTiers !== undefined ? { modelTiers: request.arm.modelTiers } : {}),
			provenance: {
				script: { kind: "file", path: request.script.filename },
				person: cliPerson("eval", options.argv, ctx),
			},
		});
		for (const warning of pi.warnings.filter((text) => !warned.has(text))) {
			warned.add(warning);
			ctx.stderr.write(`Warning: ${warning}\n`);
		}
		return {
			runner: pi.runner,
			agentTypes: pi.agentTypes,
			...(pi.tools ? { tools: pi.tools } : {}),
			...(pi.close ? { close: pi.close } : {}),
		};
	};
}

/**
 * The runner a grader's `agent()` calls run on: the command line's model, recorded in no run. pi is set up at the
 * first such call, so a code grader (and `--regrade` with one) needs no pi and no model.
 */
export function graderRunner(
	options: TrialPiOptions,
	ctx: CliContext,
): { runner: WorkflowAgentRunner; close(): Promise<void> } {
	let pi: Promise<PiSetup> | undefined;
	const setUpOnce = () => {
		pi ??= setUp(options, ctx, options.model !== undefined ? { model: options.model } : {});
		return pi;
	};
	return {
		runner: async (request, context) => (await setUpOnce()).runner(request, context),
		close: async () => {
			await (await pi?.catch(() => undefined))?.close?.();
		},
	};
}

async function setUp(options: TrialPiOptions, ctx: CliContext, more: Partial<PiSetupOptions>): Promise<PiSetup> {
	const host = await import("../pi-host.ts");
	const pi = await host.setUpPi({
		cwd: ctx.cwd,
		agentDir: ctx.agentDir,
		extensions: options.extensions,
		...(options.approve !== undefined ? { approve: options.approve } : {}),
		...more,
		onNote: (text) => ctx.stderr.write(`Note: ${text}\n`),
	});
	return pi;
}
