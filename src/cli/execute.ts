/**
 * One CLI run from start to end: the script with the pi runner, its durable record, progress on stderr, the result
 * on stdout, and Ctrl-C (the first stops the children and saves the run, a second quits at once). Resolves with the
 * exit code: 0 completed, 1 failed, 130 stopped.
 */

import { capToResume, dollarsArgument, recordedCostBudget, recordRaises } from "../host/cost-cap.ts";
import type { ModelPrice } from "../host/estimate.ts";
import { type PlannedRunEstimate, withEstimateMore } from "../host/run-estimate.ts";
import { planInBackground, settlePlan, slowMarkRecorder, startsPlan } from "../host/run-plan.ts";
import { createWorkflowResolver } from "../host/script-source.ts";
import type { DurableStart } from "../host/start-run.ts";
import { createWorkflowProgressTracker, type WorkflowProgressTracker } from "../progress/index.ts";
import { visibleJson, visibleText } from "../progress/visible-text.ts";
import type { WorkflowRunResult } from "../runtime/core/types.ts";
import type { WorkflowDryRunOptions } from "../runtime/index.ts";
import { runWorkflowScript } from "../runtime/run/run.ts";
import { createTerminalAsk } from "./ask.ts";
import type { CliContext } from "./context.ts";
import { createTerminalCostCap } from "./cost-cap.ts";
import type { PiSetup, RunProvenance } from "./pi-host.ts";
import { createProgressView } from "./progress-view.ts";

/** The flags of `run` and `resume`, checked before anything is loaded or locked. */
export interface RunFlags {
	concurrency: number;
	timeoutMs?: number;
	/** `--max-cost`: the run's cap in US dollars. */
	maxCostUsd?: number;
	/** The run's total wait for provider limits before it stops. Default: the runtime's (30 min). */
	maxProviderWaitMs?: number;
	/** `--slow-multiple`: a call or run past this multiple of its usual duration is marked slow. Default: the setting, else 5. */
	slowMultiple?: number;
	model?: string;
	/** `--model-tiers small=provider/id,big=provider/id`: the models `agent()` option `tier` names. */
	modelTiers?: string;
	extensions: string[];
	json: boolean;
	/** `--allow-tools`: the pi built-ins `tool()` may call. Default: none. */
	allowTools: string[];
	/** `--redis <url>`: the children go to workers through the queue there. Default: none (they run here). */
	redis?: string;
	/** `--redis-unreachable-ms`: how long Redis may stay unreachable before the waiting children fail. Default: 60000. */
	redisUnreachableMs?: number;
	/**
	 * `--placement-wait-ms`: how long a queued child waits for a live worker with every label it requires before it
	 * fails with placement_unsatisfiable; a call's `placement.waitMs` wins. Default: 60000.
	 */
	placementWaitMs?: number;
	/** `--approve` (true) or `--no-approve` (false): trust the project or not for this run, as pi's `-a`/`-na`. */
	approve?: boolean;
	/** `--no-frame`: children get no provenance frame. Default: they do. */
	noFrame?: boolean;
	/** `--no-sandboxed-bash`: a dry run fences `tool("bash")` instead of running it in a read-only sandbox. */
	noSandboxedBash?: boolean;
	/** `--no-continue-interrupted`: every interrupted child starts afresh rather than from its finished turns. */
	noContinueInterrupted?: boolean;
	/** Who the run's children speak for (the frame's input); absent with `--no-frame`. */
	provenance?: RunProvenance;
}

/** The exit code of a stopped run, as for a command ended by Ctrl-C. */
const EXIT_STOPPED = 130;

/** How a CLI run's dry run for its plan is set up: its options, and the catalog's prices for the estimate. */
export type CliPlanSetup = () => Promise<{
	dry: WorkflowDryRunOptions;
	priceOf?: (model: string) => ModelPrice | undefined;
}>;

/** The run's plan and timing history, made in the background and handed to the tracker as each is ready. */
function planCliRun(
	start: DurableStart,
	setUpPlan: CliPlanSetup,
	ctx: CliContext,
	tracker: WorkflowProgressTracker,
	signal: AbortSignal,
): Promise<unknown> {
	let priceOf: ((model: string) => ModelPrice | undefined) | undefined;
	return planInBackground({
		durable: start.durable,
		source: start.source,
		dry: async () => {
			const found = await setUpPlan();
			priceOf = found.priceOf;
			return found.dry;
		},
		estimate: { cwd: ctx.cwd, runsRoot: `${ctx.agentDir}/workflow-runs`, priceOf: (model) => priceOf?.(model) },
		onForecast: (plan, timing) => tracker.forecastWith(plan, timing),
		signal,
	});
}

/**
 * `planned`: the estimate made before the run (`--max-cost`), for the cap question's "about $Z more to finish".
 * `setUpPlan`: how the run's plan is made in the background (progress against it, time left); absent, no plan.
 */
export async function execute(
	start: DurableStart,
	flags: RunFlags,
	pi: PiSetup,
	ctx: CliContext,
	planned?: PlannedRunEstimate,
	setUpPlan?: CliPlanSetup,
): Promise<number> {
	const { durable, source } = start;
	const controller = new AbortController();
	// The slow mark's multiple: `--slow-multiple`, else the `workflows.slowMultiple` setting, else the tracker's 5.
	const slowMultiple = flags.slowMultiple ?? pi.slowMultiple;
	const tracker = createWorkflowProgressTracker(slowMultiple !== undefined ? { slowMultiple } : {});
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
	const ask = createTerminalAsk({ input: ctx.stdin, output: ctx.stderr, hold: () => view.hold(), onInterrupt: stop });
	// The cap is the run's: a resume without --max-cost keeps the record's and counts what earlier sessions spent.
	const budget = recordedCostBudget(durable, flags.maxCostUsd);
	const terminalCap = createTerminalCostCap(ctx.stdin, ask, (line) => ctx.stderr.write(`${line}\n`));
	const onCostCap =
		terminalCap &&
		withEstimateMore(terminalCap, {
			cwd: ctx.cwd,
			runsRoot: `${ctx.agentDir}/workflow-runs`,
			...(planned ? { planned } : {}),
		});
	const recordSlow = slowMarkRecorder(durable);
	const planning = new AbortController();
	let plan: Promise<unknown> | undefined;
	let result: WorkflowRunResult;
	try {
		result = await runWorkflowScript(source.script, {
			agentRunner: pi.runner,
			filename: source.filename,
			cwd: ctx.cwd,
			concurrency: flags.concurrency,
			agentTypes: pi.agentTypes,
			...(pi.agentTypesNote ? { agentTypesNote: pi.agentTypesNote } : {}),
			resolveWorkflow: createWorkflowResolver({ agentDir: ctx.agentDir }),
			signal: controller.signal,
			ask,
			...(onCostCap ? { onCostCap: recordRaises(durable, onCostCap) } : {}),
			...(pi.tools ? { tools: pi.tools } : {}),
			...(source.args !== undefined ? { args: source.args } : {}),
			...(flags.timeoutMs !== undefined ? { timeoutMs: flags.timeoutMs } : {}),
			...(Object.keys(budget).length > 0 ? { budget } : {}),
			...(flags.maxProviderWaitMs !== undefined ? { maxProviderWaitMs: flags.maxProviderWaitMs } : {}),
			...(flags.noContinueInterrupted ? { continueInterrupted: false } : {}),
			...start.runOptions((event) => {
				// The plan is made beside the run once its first child started: that child does not wait for it.
				if (startsPlan(event) && !plan && setUpPlan)
					plan = planCliRun(start, setUpPlan, ctx, tracker, planning.signal);
				tracker.updateFromProgressEvent(event);
				const envelope = tracker.getEnvelope();
				recordSlow(envelope);
				view.update(event, envelope);
			}),
		});
	} catch (error) {
		// Only our own bugs reach here: runWorkflowScript resolves for every script fault.
		await start.abandon();
		throw error;
	} finally {
		process.off("SIGINT", stop);
		process.off("SIGTERM", stop);
		// A stopped run stops its plan; another gives it a little time, so the record keeps it.
		await settlePlan(plan, planning, controller.signal.aborted);
	}
	const { envelope } = tracker.complete(result);
	const saved = await start.finish(result, envelope);
	view.finish(envelope);
	runId = saved.runId;

	// The same data to a program; nothing a terminal acts on (a value is the script's or a model's words).
	if (flags.json) ctx.stdout.write(`${visibleJson(JSON.stringify({ ...result, runId }, null, 2))}\n`);
	else if (result.value !== undefined || result.status === "completed") {
		ctx.stdout.write(`${visibleJson(JSON.stringify(result.value ?? null, null, 2))}\n`);
	}
	if (saved.problem) ctx.stderr.write(`Warning: the run could not be saved completely (${saved.problem})\n`);
	if (result.status !== "completed") {
		if (result.error) ctx.stderr.write(`Error (${result.error.code}): ${visibleText(result.error.message)}\n`);
		ctx.stderr.write(
			`${saved.saved > 0 || saved.unfinished ? resumeHint(runId, capToResume(result.error), saved.saved === 0 ? saved.unfinished : undefined) : "No agent result was saved: run the workflow again to retry."}\n`,
		);
	} else if (runId) {
		ctx.stderr.write(`Run ${runId}\n`);
	}
	return result.status === "completed" ? 0 : result.status === "stopped" ? EXIT_STOPPED : 1;
}

/** The command that resumes the run; after its cap, with the higher total it needs (the same one stops at once). */
/** How to resume; `unfinished` when the run kept no result, only the conversations of that many unfinished children. */
function resumeHint(runId: string | undefined, capUsd?: number, unfinished?: number): string {
	if (!runId) return "The run has no record yet: run the workflow again.";
	const head = unfinished
		? `Run ${runId} kept the conversation of ${unfinished === 1 ? "1 unfinished child" : `${unfinished} unfinished children`}, which a resume goes on from.`
		: `Run ${runId} keeps its finished agents.`;
	return capUsd === undefined
		? `${head} Resume it: pi-workflows resume ${runId}`
		: `${head} Resume it with a higher cap (the run's total): pi-workflows resume ${runId} --max-cost ${dollarsArgument(capUsd)}`;
}
