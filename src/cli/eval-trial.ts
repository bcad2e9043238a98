/**
 * One eval trial as `pi-workflows run` runs a workflow: a fresh durable run in the run store (so `runs`, `report`
 * and `resume` know it), children as pi sessions set up for the arm's model, nothing on stdout; and the pi runner a
 * model-graded grader's `agent()` calls get (recorded nowhere: grading is not a run of the workflow).
 */

import type { RunTrial, TrialRequest, TrialRun } from "../eval/index.ts";
import { createWorkflowResolver } from "../host/script-source.ts";
import { startDurableRun } from "../host/start-run.ts";
import { createWorkflowProgressTracker } from "../progress/index.ts";
import type { WorkflowAgentRunner } from "../runtime/core/types.ts";
import { runWorkflowScript } from "../runtime/run/run.ts";
import type { CliContext } from "./context.ts";
import type { PiSetup, PiSetupOptions } from "./pi-host.ts";
import { cliPerson } from "./provenance.ts";

/** What every trial shares: the command line's pi options; an arm's `model`/`modelTiers` replace the flags'. */
export interface TrialPiOptions {
	extensions: readonly string[];
	model?: string;
	approve?: boolean;
	argv: readonly string[];
}

/** Children running at once in a trial whose arm names no `concurrency`: `run`'s default. */
const TRIAL_CONCURRENCY = 4;

export function createCliTrialRunner(options: TrialPiOptions, ctx: CliContext): RunTrial {
	return (request) => runTrial(request, options, ctx);
}

async function runTrial(request: TrialRequest, options: TrialPiOptions, ctx: CliContext): Promise<TrialRun> {
	const start = await startDurableRun({
		cwd: ctx.cwd,
		runsRoot: `${ctx.agentDir}/workflow-runs`,
		script: () => request.script,
		...(request.args !== undefined ? { args: request.args } : {}),
	});
	try {
		const { arm } = request;
		const model = arm.model ?? options.model;
		const pi = await setUp(options, ctx, {
			...start.runner,
			...(model !== undefined ? { model } : {}),
			...(arm.modelTiers !== undefined ? { modelTiers: arm.modelTiers } : {}),
			provenance: {
				script: { kind: "file", path: request.script.filename },
				person: cliPerson("eval", options.argv, ctx),
			},
		});
		const tracker = createWorkflowProgressTracker();
		try {
			const result = await runWorkflowScript(start.source.script, {
				agentRunner: pi.runner,
				filename: start.source.filename,
				cwd: ctx.cwd,
				concurrency: arm.concurrency ?? TRIAL_CONCURRENCY,
				agentTypes: pi.agentTypes,
				resolveWorkflow: createWorkflowResolver({ agentDir: ctx.agentDir }),
				signal: request.signal,
				...(pi.tools ? { tools: pi.tools } : {}),
				...(start.source.args !== undefined ? { args: start.source.args } : {}),
				...(request.maxCostUsd !== undefined ? { budget: { costUsd: Math.max(request.maxCostUsd, 0) } } : {}),
				...start.runOptions((event) => tracker.updateFromProgressEvent(event)),
			});
			const saved = await start.finish(result, tracker.complete(result).envelope);
			return { ...(saved.runId !== undefined ? { runId: saved.runId } : {}), result };
		} finally {
			await pi.close?.();
		}
	} catch (error) {
		await start.abandon();
		throw error;
	}
}

/** The runner a grader's `agent()` calls run on: the command line's model, recorded in no run. */
export async function graderRunner(
	options: TrialPiOptions,
	ctx: CliContext,
): Promise<{ runner: WorkflowAgentRunner; close(): Promise<void> }> {
	const pi = await setUp(options, ctx, options.model !== undefined ? { model: options.model } : {});
	return { runner: pi.runner, close: async () => pi.close?.() };
}

async function setUp(options: TrialPiOptions, ctx: CliContext, more: Partial<PiSetupOptions>): Promise<PiSetup> {
	const host = await import("./pi-host.ts");
	return host.setUpPi({
		cwd: ctx.cwd,
		agentDir: ctx.agentDir,
		extensions: options.extensions,
		...(options.approve !== undefined ? { approve: options.approve } : {}),
		...more,
		onNote: (text) => ctx.stderr.write(`Note: ${text}\n`),
	});
}
