/**
 * `eval --dry-run`: how many runs the eval makes and what they may cost, per arm and in all, starting nothing. Each
 * arm's script is dry-run once per case (the real sandbox, every agent answered without a model) and its planned
 * calls priced as `run --dry-run` prices them (`estimateDryPlan`: this workflow's earlier runs, the project's, or the
 * catalog), then times the trials.
 */
import { errorMessage } from "../errors.ts";
import { type EstimateStoreOptions, estimateDryPlan } from "../host/run-estimate.ts";
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
}

export async function dryRunEval(
	spec: EvalSpec,
	scripts: Record<string, ScriptFile>,
	options: EvalDryOptions,
): Promise<EvalDryRun> {
	const arms: Record<string, EvalDryPart> = {};
	const problems: string[] = [];
	for (const [name, arm] of Object.entries(spec.arms)) {
		const script = scripts[name] as ScriptFile;
		const part = emptyPart();
		for (const evalCase of spec.cases) {
			const args = trialArgs(evalCase, arm.args);
			const { plan } = await dryRunWorkflowScript(script.source, {
				...options.dryOptions(arm),
				filename: script.filename,
				cwd: options.cwd,
				...(args !== undefined ? { args } : {}),
			});
			if (plan.status !== "completed") {
				problems.push(`arm ${name}, case ${evalCase.id}: the dry run ${plan.status}: ${plan.error?.message ?? ""}`);
			}
			const planned = await estimateDryPlan(plan, options.estimate).catch((error: unknown) => {
				problems.push(`arm ${name}, case ${evalCase.id}: no estimate (${errorMessage(error)})`);
				return undefined;
			});
			const total = planned?.estimate.total;
			part.runs += spec.trials;
			part.calls += plan.calls.length * spec.trials;
			part.usd.low += (total?.usd.low ?? 0) * spec.trials;
			part.usd.high += (total?.usd.high ?? 0) * spec.trials;
			part.unestimated += (total?.unestimated ?? plan.calls.length) * spec.trials;
		}
		arms[name] = part;
	}
	const total = emptyPart();
	for (const part of Object.values(arms)) {
		total.runs += part.runs;
		total.calls += part.calls;
		total.usd.low += part.usd.low;
		total.usd.high += part.usd.high;
		total.unestimated += part.unestimated;
	}
	return { arms, total, problems };
}

/** The dry run as a person reads it. */
export function evalDryRunText(spec: EvalSpec, dry: EvalDryRun): string {
	const armNames = Object.keys(spec.arms);
	const lines = [
		`Eval ${spec.name}: ${spec.cases.length} cases × ${armNames.length} arms × ${spec.trials} trials = ${dry.total.runs} runs (dry run: nothing started)`,
		...armNames.map((name) => `  ${name}: ${partText(dry.arms[name] ?? emptyPart())}`),
		`  in all: ${partText(dry.total)}`,
	];
	if (spec.grader !== undefined) lines.push(`Grading (${spec.grader}) is not estimated: a code grader costs nothing`);
	if (spec.maxCostUsd !== undefined && dry.total.usd.high > spec.maxCostUsd) {
		lines.push(
			`Warning: the estimate is over the eval's cap of $${spec.maxCostUsd}: the eval stops there, resumable`,
		);
	}
	for (const problem of dry.problems) lines.push(`Warning: ${problem}`);
	return lines.join("\n");
}

function partText(part: EvalDryPart): string {
	const usd = part.usd.low === part.usd.high ? usd4(part.usd.low) : `${usd4(part.usd.low)}–${usd4(part.usd.high)}`;
	const unknown = part.unestimated > 0 ? ` (${part.unestimated} calls with no price or history left out)` : "";
	return `${part.runs} runs, ${part.calls} agent calls, estimated ${usd}${unknown}`;
}

function usd4(value: number): string {
	return `$${value.toFixed(value < 1 ? 4 : 2)}`;
}

function emptyPart(): EvalDryPart {
	return { runs: 0, calls: 0, usd: { low: 0, high: 0 }, unestimated: 0 };
}
