/**
 * One run started by the `workflow` tool, whether the call waits for it or it goes to the background: the durable
 * record, its own abort controller (so a background run outlives the tool call's Esc), the tracker and the widget,
 * and the outcome once its record is written.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ChildControls } from "../../children/controls.ts";
import type { DurableOutcome, DurableRun, DurableSource } from "../../host/durable-run.ts";
import type { LiveRun } from "../../host/registry.ts";
import {
	planInBackground,
	type RunPlanOptions,
	settlePlan,
	slowMarkRecorder,
	startsPlan,
} from "../../host/run-plan.ts";
import { durableRunOptions, finishDurableRun } from "../../host/start-run.ts";
import {
	createWorkflowProgressTracker,
	type WorkflowProgressEnvelope,
	type WorkflowProgressOutcome,
} from "../../progress/index.ts";
import { createWorkflowProgressUi, type WorkflowProgressUiOptions } from "../../progress/ui.ts";
import type { WorkflowRunOptions, WorkflowRunResult } from "../../runtime/core/types.ts";
import { runWorkflowScript } from "../../runtime/run/run.ts";
import type { RunAnnouncer } from "./lifecycle.ts";
import type { PendingQuestions } from "./questions.ts";

/** How a tool run ended. */
export interface ToolRunOutcome extends WorkflowProgressOutcome {
	result: WorkflowRunResult;
	saved: DurableOutcome;
}

/** A run in progress. */
export interface ToolRun {
	/** Resolves with the run id once its record exists (undefined when it could not be made or the script never started). */
	recorded: Promise<string | undefined>;
	/** Resolves once the run ended and its record is written; rejects only for our own bugs. */
	finished: Promise<ToolRunOutcome>;
	/** Stops the run (children aborted); `finished` still resolves, as stopped. A string or Error reason is shown. */
	stop(reason?: unknown): void;
	/** The registry entry for the run, once it has an id. */
	live(id: string, background: boolean): LiveRun;
	/** The run's `meta.name` once the script started ("workflow" before). */
	readonly name: string;
}

/** What a tool run is made of. */
export interface ToolRunSetup {
	source: string;
	/** Run options except the signal, the journal and progress, which the tool run owns. */
	options: Omit<WorkflowRunOptions, "signal" | "journal" | "onProgress">;
	durable: DurableRun;
	/** The script and args as a resume would start from them. */
	record: DurableSource;
	/** The run's running children, for steer, skip and restart. Default: none (no per-child control). */
	controls?: ChildControls;
	ctx: ExtensionContext;
	ui: WorkflowProgressUiOptions;
	/** The run's open `ask()` questions, answered through the registry. Default: none. */
	questions?: PendingQuestions;
	/** Tells other extensions how the run goes (`pi.events`). Default: nobody. */
	announcer?: RunAnnouncer;
	/**
	 * How the run's plan is made in the background (progress against it, time left), and how long the run's end
	 * waits for a plan still being made (`graceMs`, default `PLAN_GRACE_MS`). Default: no plan.
	 */
	plan?: Pick<RunPlanOptions, "dry" | "estimate"> & { graceMs?: number };
	/** A call or run over this multiple of its history's median is marked slow. Default: `DEFAULT_SLOW_MULTIPLE` (5). */
	slowMultiple?: number;
}

/** Starts the run at once. */
export function startToolRun(setup: ToolRunSetup): ToolRun {
	const { durable } = setup;
	const controller = new AbortController();
	const tracker = createWorkflowProgressTracker(
		setup.slowMultiple !== undefined ? { slowMultiple: setup.slowMultiple } : {},
	);
	const ui = createWorkflowProgressUi(setup.ctx, setup.ui);
	let name = durable.name ?? "workflow";
	const startedAt = Date.now();
	const recordSlow = slowMarkRecorder(durable);
	const planning = new AbortController();
	let plan: Promise<unknown> | undefined;
	const startPlan = () =>
		setup.plan &&
		planInBackground({
			dry: setup.plan.dry,
			estimate: setup.plan.estimate,
			durable,
			source: setup.record,
			onForecast: (forecastPlan, timing) => {
				tracker.forecastWith(forecastPlan, timing);
				ui.update(tracker.getEnvelope());
			},
			signal: planning.signal,
		});

	const finished = (async (): Promise<ToolRunOutcome> => {
		let result: WorkflowRunResult;
		try {
			result = await runWorkflowScript(setup.source, {
				...setup.options,
				signal: controller.signal,
				...durableRunOptions(durable, setup.record, (event) => {
					if (event.type === "run_start") name = event.meta.name;
					// The plan is made beside the run once its first child started: that child does not wait for it.
					if (startsPlan(event) && !plan) plan = startPlan();
					tracker.updateFromProgressEvent(event);
					const envelope = tracker.getEnvelope();
					recordSlow(envelope);
					ui.update(envelope);
					setup.announcer?.event(event);
				}),
			});
		} catch (error) {
			// Only our own bugs reach here: runWorkflowScript resolves for every script fault.
			planning.abort();
			await durable.abandon();
			ui.update(tracker.error(error).envelope);
			ui.dispose();
			throw error;
		}
		// A stopped run stops its plan; another gives it a little time, so the record keeps it.
		await settlePlan(plan, planning, controller.signal.aborted, setup.plan?.graceMs);
		const outcome = tracker.complete(result);
		const saved = await finishDurableRun(durable, result, outcome.envelope);
		setup.announcer?.ended(result);
		try {
			ui.update(outcome.envelope);
			ui.dispose();
		} catch {
			// A UI that fails now (a session gone, a host's half-made UI) must not cost the run its outcome and message.
		}
		return { ...outcome, result, saved };
	})();

	const stop = (reason?: unknown) => controller.abort(reason);
	return {
		get name() {
			return name;
		},
		recorded: durable.recorded,
		finished,
		stop,
		live: (id, background) => ({
			id,
			// Read when shown: a resume is listed before its script has started and named itself.
			get name() {
				return name;
			},
			background,
			startedAt,
			envelope: (): WorkflowProgressEnvelope => tracker.getEnvelope(),
			...(setup.controls ? { children: setup.controls } : {}),
			...(setup.questions ? { questions: setup.questions } : {}),
			stop,
			settled: finished.then(
				() => undefined,
				() => undefined,
			),
		}),
	};
}
