/**
 * One trial as `pi-workflows run` runs a workflow: a fresh durable run in the run store (so `runs`, `report` and
 * `resume` know it), the script with the arm's runner and concurrency, the run's cap what is left of the eval's,
 * and its outcome recorded. The runner comes from the host (`setUp`): the CLI's is pi's, set up for the arm's model
 * and recording into this run; a host API caller's is its own.
 */
import { createWorkflowResolver } from "../host/script-source.ts";
import { type DurableRunnerHooks, startDurableRun } from "../host/start-run.ts";
import { createWorkflowProgressTracker } from "../progress/index.ts";
import type { WorkflowAgentRunner, WorkflowTool } from "../runtime/core/types.ts";
import { runWorkflowScript } from "../runtime/index.ts";
import type { RunTrial, TrialRequest, TrialRun } from "./evaluate.ts";

/** What a trial's run is given by the host. */
export interface TrialRunnerSetup {
	runner: WorkflowAgentRunner;
	/** Enabled agent types, so an unknown one fails at once. Default: the runtime's. */
	agentTypes?: string[];
	/** What the script's `tool()` may call. Default: none. */
	tools?: Record<string, WorkflowTool>;
	/** Ends what the runner holds, once the trial's run ended. */
	close?: () => Promise<void>;
}

/** The runner of one trial; `hooks` record its children into the trial's run (conversations, worktrees, log). */
export type SetUpTrialRunner = (request: TrialRequest, hooks: DurableRunnerHooks) => Promise<TrialRunnerSetup>;

export interface RecordedTrialOptions {
	/** The project: its runs are listed apart from other projects'. */
	cwd: string;
	/** pi's agent directory: the run store (`workflow-runs`) and saved workflows are there. */
	agentDir: string;
	setUp: SetUpTrialRunner;
}

/** Children running at once in a trial whose arm names no `concurrency`: `run`'s default. */
const TRIAL_CONCURRENCY = 4;

export function recordedTrials(options: RecordedTrialOptions): RunTrial {
	return (request) => recordedTrial(request, options);
}

async function recordedTrial(request: TrialRequest, options: RecordedTrialOptions): Promise<TrialRun> {
	const start = await startDurableRun({
		cwd: options.cwd,
		runsRoot: `${options.agentDir}/workflow-runs`,
		script: () => request.script,
		...(request.args !== undefined ? { args: request.args } : {}),
	});
	try {
		const setup = await options.setUp(request, start.runner);
		const tracker = createWorkflowProgressTracker();
		try {
			const result = await runWorkflowScript(start.source.script, {
				agentRunner: setup.runner,
				filename: start.source.filename,
				cwd: options.cwd,
				concurrency: request.arm.concurrency ?? TRIAL_CONCURRENCY,
				resolveWorkflow: createWorkflowResolver({ agentDir: options.agentDir }),
				signal: request.signal,
				...(setup.agentTypes ? { agentTypes: setup.agentTypes } : {}),
				...(setup.tools ? { tools: setup.tools } : {}),
				...(start.source.args !== undefined ? { args: start.source.args } : {}),
				...(request.maxCostUsd !== undefined ? { budget: { costUsd: Math.max(request.maxCostUsd, 0) } } : {}),
				...start.runOptions((event) => tracker.updateFromProgressEvent(event)),
			});
			const saved = await start.finish(result, tracker.complete(result).envelope);
			return { ...(saved.runId !== undefined ? { runId: saved.runId } : {}), result };
		} finally {
			await setup.close?.();
		}
	} catch (error) {
		// A run that never started must not keep its record's lock.
		await start.abandon();
		throw error;
	}
}
