/**
 * `eval --dry-run`: how many runs the eval makes and what they may cost, per arm and in all, starting nothing. Each
 * arm's script is dry-run once per case (the real sandbox, every agent answered without a model) and its planned
 * calls priced as `run --dry-run` prices them (`estimateDryPlan`: this workflow's earlier runs, the project's, or the
 * catalog), then times the trials.
 */
import { errorMessage } from "../errors.ts";
import { type EstimateStoreOptions, estimateDryPlan } from "../host/run-estimate.ts";
import type { JsonValue } from "../runtime/core/types.ts";
import { dryRunWorkflowScript, type WorkflowDryRunOptions } from "../runtime/index.ts";
import type { EvalArm, EvalSpec, ScriptFile } from "./spec.ts";
import { trialArgs } from "./trials.ts";

/** One arm's share of the eval, or the whole eval's. */
export interface EvalDryPart {
	runs: number;
	/** `agent()` calls the runs would make. */
	calls: number;
	/** Estimated dollars; calls with no basis (no history, no price) are left out, so it is a lower bound then. */
	usd: { low: number; high: number };
	unestimated: number;
}

export interface EvalDryRun {
	arms: Record<string, EvalDryPart>;
	/** What grading every trial may cost (`runs`: the grades); absent without a grader. */
	grading?: EvalDryPart;
	/** The arms' runs, and every call and dollar of the arms and the grading together. */
	total: EvalDryPart;
	/** Cases whose dry run failed in an arm, with why: a real run would fail there too. */
	problems: string[];
}

export interface EvalDryOptions {
	cwd: string;
	/** What a dry run of `arm` is given beyond its script and args (agent types, models, tools). */
	dryOptions: (arm: EvalArm) => WorkflowDryRunOptions;
	/** Where earlier runs are read from and what models cost. */
	estimate: EstimateStoreOptions;
	/** The grader's script, dry-run once per case: what grading may cost. Default: none. */
	grader?: ScriptFile;
}

export async function dryRunEval(
	spec: EvalSpec,
	scripts: Record<string, ScriptFile>,
	options: EvalDryOptions,
): Promise<EvalDryRun> {
	const arms: Record<string, EvalDryPart> = {};
	const problems: string[] = [];
	for (const [name, arm] of Object.entries(spec.arms)) {
		const part = emptyPart();
		for (const evalCase of spec.cases) {
			const args = trialArgs(evalCase, arm.args);
			const where = `arm ${name}, case ${evalCase.id}`;
			const one = await dryPart(
				scripts[name] as ScriptFile,
				args,
				options.dryOptions(arm),
				where,
				options,
				problems,
			);
			addPart(part, one, spec.trials);
		}
		arms[name] = part;
	}
	// The grader grades every trial of every arm; dry-run once per case on a completed run's shape.
	let grading: EvalDryPart | undefined;
	if (options.grader) {
		grading = emptyPart();
		const armCount = Object.keys(spec.arms).length;
		for (const evalCase of spec.cases) {
			const args = {
				case: evalCase,
				output: null,
				status: "completed",
				error: null,
				costUsd: 0,
				durationMs: 0,
				runId: null,
			};
			const where = `the grader, case ${evalCase.id}`;
			const one = await dryPart(
				options.grader,
				args as unknown as JsonValue,
				options.dryOptions({ workflow: options.grader.filename }),
				where,
				options,
				problems,
			);
			addPart(grading, one, spec.trials * armCount);
		}
	}
	const total = emptyPart();
	for (const part of Object.values(arms)) addPart(total, part, 1);
	if (grading) addPart(total, { ...grading, runs: 0 }, 1);
	return { arms, ...(grading ? { grading } : {}), total, problems };
}

/** One dry run of `script` with `args`, priced: the part of one trial (or one grade). */
async function dryPart(
	script: ScriptFile,
	args: JsonValue | undefined,
	dryOptions: WorkflowDryRunOptions,
	where: string,
	options: EvalDryOptions,
	problems: string[],
): Promise<EvalDryPart> {
	const { plan } = await dryRunWorkflowScript(script.source, {
		...dryOptions,
		filename: script.filename,
		cwd: options.cwd,
		...(args !== undefined ? { args } : {}),
	});
	if (plan.status !== "completed") problems.push(`${where}: the dry run ${plan.status}: ${plan.error?.message ?? ""}`);
	const planned = await estimateDryPlan(plan, options.estimate).catch((error: unknown) => {
		problems.push(`${where}: no estimate (${errorMessage(error)})`);
		return undefined;
	});
	const total = planned?.estimate.total;
	return {
		runs: 1,
		calls: plan.calls.length,
		usd: { low: total?.usd.low ?? 0, high: total?.usd.high ?? 0 },
		unestimated: total?.unestimated ?? plan.calls.length,
	};
}

function addPart(into: EvalDryPart, part: EvalDryPart, times: number): void {
	into.runs += part.runs * times;
	into.calls += part.calls * times;
	into.usd.low += part.usd.low * times;
	into.usd.high += part.usd.high * times;
	into.unestimated += part.unestimated * times;
}

/** The dry run as a person reads it. */
export function evalDryRunText(spec: EvalSpec, dry: EvalDryRun): string {
	const armNames = Object.keys(spec.arms);
	const lines = [
		`Eval ${spec.name}: ${spec.cases.length} cases × ${armNames.length} arms × ${spec.trials} trials = ${dry.total.runs} runs (dry run: nothing started)`,
		...armNames.map((name) => `  ${name}: ${partText(dry.arms[name] ?? emptyPart())}`),
	];
	if (dry.grading)
		lines.push(`  grading (${spec.grader}): ${partText(dry.grading).replace(/^(\d+) runs/, "$1 grades")}`);
	lines.push(`  in all: ${partText(dry.total)}`);
	if (spec.maxCostUsd !== undefined && dry.total.usd.high > spec.maxCostUsd) {
		lines.push(
			`Warning: the estimate is over the eval's cap of $${spec.maxCostUsd}: the eval stops there, resumable`,
		);
	}
	for (const problem of dry.problems) lines.push(`Warning: ${problem}`);
	return lines.join("\n");
}

function partText(part: EvalDryPart): string {
	const [low, high] = [usd4(part.usd.low), usd4(part.usd.high)];
	const usd = low === high ? low : `${low}–${high}`;
	const unknown = part.unestimated > 0 ? ` (${part.unestimated} calls with no price or history left out)` : "";
	return `${part.runs} runs, ${part.calls} agent calls, estimated ${usd}${unknown}`;
}

function usd4(value: number): string {
	return `$${value.toFixed(value < 1 ? 4 : 2)}`;
}

function emptyPart(): EvalDryPart {
	return { runs: 0, calls: 0, usd: { low: 0, high: 0 }, unestimated: 0 };
}
