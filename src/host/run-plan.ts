/**
 * A real run's plan, made beside it: the dry run of the same script and args, started once the run has begun (it
 * never delays the first child), turned into `plan.json` in the run's folder and into what the tracker measures
 * progress against; and the project's timing history for time left and slow marks. A dry run that fails, stops or
 * takes longer than its bound leaves the run without a plan, which then goes on as before. A resume reads the plan
 * its run already has. Also the slow marks a run's envelopes carry, written to its event log once each.
 */
import type { WorkflowProgressEnvelope } from "../progress/envelope.ts";
import type { ProgressPlan, ProgressTiming } from "../progress/forecast.ts";
import {
	createRunStore,
	type PlannedCallGroup,
	type PlannedPhase,
	type RunPlanFile,
	readPlanFile,
	readTimingHistory,
	writePlanFile,
} from "../runs/index.ts";
import { dryRunWorkflowScript, type WorkflowDryRunOptions, type WorkflowDryRunPlan } from "../runtime/index.ts";
import type { DurableRun, DurableSource } from "./durable-run.ts";
import type { WorkflowEstimate } from "./estimate.ts";
import { type EstimateStoreOptions, estimateDryPlan } from "./run-estimate.ts";

/** Default: the longest a run's background dry run may take before the run goes on without a plan. */
export const PLAN_TIMEOUT_MS = 60_000;
/**
 * The longest one sandboxed `bash` command of the plan's dry run may take: listing commands (`git ls-files`, `git diff
 * --name-only`) answer well within it, and a long one (a test suite) is cut rather than run a second time beside the
 * real run's: the plan then takes the script's path for a failed command, often no plan at all.
 */
export const PLAN_BASH_TIMEOUT_MS = 10_000;
/** Default: how long a run that ended waits for a plan still being made, before it ends without one. */
export const PLAN_GRACE_MS = 5_000;

/**
 * When a run's plan is started: at its first child (the first `agent_started`), so the dry run's parse and static
 * pass on the host's thread never come before the first child starts; a run that starts no child needs no plan.
 */
export function startsPlan(event: { type: string }): boolean {
	return event.type === "agent_started";
}

/**
 * Lets a plan still being made when its run ended finish within `graceMs`, then stops it (the run ends without a
 * plan); a stopped run stops it at once. Never rejects.
 */
export async function settlePlan(
	plan: Promise<unknown> | undefined,
	planning: AbortController,
	stopped: boolean,
	graceMs = PLAN_GRACE_MS,
): Promise<void> {
	if (!plan) return;
	if (!stopped) {
		let timer: NodeJS.Timeout | undefined;
		const grace = new Promise<void>((resolve) => {
			timer = setTimeout(resolve, graceMs);
		});
		await Promise.race([plan.catch(() => undefined), grace]);
		clearTimeout(timer);
	}
	planning.abort();
	await plan.catch(() => undefined);
}

/** What `planInBackground` takes. */
export interface RunPlanOptions {
	durable: DurableRun;
	source: DurableSource;
	/** The dry run's options as the front end makes them (its agent types, models, tools); undefined: no plan. */
	dry: () => Promise<WorkflowDryRunOptions | undefined>;
	/** Where the estimate's history is read and what prices it. */
	estimate: Omit<EstimateStoreOptions, "runId">;
	/** Gets the plan and the timing history, each as soon as it is ready (the other undefined). */
	onForecast: (plan: ProgressPlan | undefined, timing: ProgressTiming | undefined) => void;
	/** Stops the dry run: the run ended first. */
	signal?: AbortSignal;
	/** Default: `PLAN_TIMEOUT_MS`. */
	timeoutMs?: number;
}

/**
 * Reads the timing history and makes (or, on a resume, reads) the plan, handing each to `onForecast`. Resolves with
 * the plan once it is written (undefined when there is none); never rejects: a plan is a help, not the run.
 */
export async function planInBackground(options: RunPlanOptions): Promise<RunPlanFile | undefined> {
	const store = createRunStore({ cwd: options.estimate.cwd, root: options.estimate.runsRoot });
	const timing = readTimingHistory(store, exclude(options.durable))
		.then((history) => options.onForecast(undefined, history))
		.catch(() => undefined);
	const plan = runPlan(options)
		.then((file) => {
			if (file) options.onForecast(progressPlan(file), undefined);
			return file;
		})
		.catch(() => undefined);
	await timing;
	return plan;
}

function exclude(durable: DurableRun): { exclude?: string } {
	return durable.runId !== undefined ? { exclude: durable.runId } : {};
}

async function runPlan(options: RunPlanOptions): Promise<RunPlanFile | undefined> {
	const { durable } = options;
	// A resume goes by the plan its run was given at the start: a dry run now would plan the calls it already made.
	if (durable.runId !== undefined) {
		const dir = await durable.runFolder();
		const kept = dir !== undefined ? await readPlanFile(dir) : undefined;
		if (kept) return kept;
	}
	const dry = await options.dry();
	if (!dry || options.signal?.aborted) return undefined;
	const timeoutMs = Math.min(dry.timeoutMs ?? Number.POSITIVE_INFINITY, options.timeoutMs ?? PLAN_TIMEOUT_MS);
	const { plan } = await dryRunWorkflowScript(options.source.script, {
		...dry,
		filename: options.source.filename,
		...(options.source.args !== undefined ? { args: options.source.args } : {}),
		timeoutMs,
		bashTimeoutMs: PLAN_BASH_TIMEOUT_MS,
		...(options.signal ? { signal: options.signal } : {}),
	});
	if (plan.status !== "completed") return undefined;
	const estimate = await estimateDryPlan(plan, {
		...options.estimate,
		...(durable.runId !== undefined ? { runId: durable.runId } : {}),
	}).catch(() => undefined);
	const file = planFile(plan, estimate?.estimate, Date.now());
	const dir = await durable.runFolder();
	if (dir !== undefined) await writePlanFile(dir, file).catch(() => undefined);
	return file;
}

/** `plan.json` from a completed dry run's plan and its estimate (pure). */
export function planFile(
	plan: WorkflowDryRunPlan,
	estimate: WorkflowEstimate | undefined,
	createdAt: number,
): RunPlanFile {
	const phases: PlannedPhase[] = [];
	for (const call of plan.calls) {
		let phase = phases.find((p) => p.phase === call.phase);
		if (!phase) {
			phase = { ...(call.phase !== undefined ? { phase: call.phase } : {}), calls: [], low: 0, high: 0 };
			phases.push(phase);
		}
		const group = phase.calls.find(
			(g) => g.label === call.label && g.agentType === call.agentType && g.model === call.model,
		);
		if (group) group.count++;
		else phase.calls.push(callGroup(call));
	}
	for (const phase of phases) {
		const count = phase.calls.reduce((sum, group) => sum + group.count, 0);
		const drawn = phase.phase !== undefined ? plan.draws?.phases[phase.phase] : undefined;
		phase.low = Math.min(count, drawn?.low ?? count);
		phase.high = Math.max(count, drawn?.high ?? count);
		const priced = estimate?.phases.find((p) => p.phase === phase.phase);
		if (priced && priced.unestimated < priced.calls) phase.usd = priced.usd;
	}
	const total = plan.calls.length;
	const priced = estimate && estimate.total.unestimated < estimate.total.calls ? estimate.total.usd : undefined;
	const bases = [...new Set((estimate?.groups ?? []).map((g) => g.basis.text).filter((text) => text !== ""))];
	return {
		version: 1,
		createdAt,
		workflow: plan.workflow,
		phases,
		total: {
			low: Math.min(total, plan.draws?.agentCalls.low ?? total),
			high: Math.max(total, plan.draws?.agentCalls.high ?? total),
			...(priced ? { usd: priced } : {}),
		},
		...(bases.length > 0 ? { basis: bases.join("; ") } : {}),
		...(plan.fencedBash ? { floors: true } : {}),
	};
}

function callGroup(call: WorkflowDryRunPlan["calls"][number]): PlannedCallGroup {
	return {
		...(call.phase !== undefined ? { phase: call.phase } : {}),
		label: call.label,
		agentType: call.agentType,
		...(call.model !== undefined ? { model: call.model } : {}),
		count: 1,
	};
}

/** What the tracker measures progress against, from `plan.json`. */
export function progressPlan(file: RunPlanFile): ProgressPlan {
	return { calls: file.phases.flatMap((phase) => phase.calls) };
}

/**
 * Writes each slow mark the run's envelopes carry to its event log once: `call_slow` for a call (with its label,
 * index and phase), `run_slow` for the run, each with how long it had taken and how long such usually takes.
 */
export function slowMarkRecorder(durable: Pick<DurableRun, "logEvent">): (envelope: WorkflowProgressEnvelope) => void {
	const marked = new Set<string>();
	let runMarked = false;
	return (envelope) => {
		for (const call of envelope.agentCalls) {
			if (!call.slow || marked.has(call.key)) continue;
			marked.add(call.key);
			durable.logEvent({
				type: "call_slow",
				time: envelope.updatedAt,
				key: call.key,
				index: call.index,
				label: call.label,
				...(call.phase !== undefined ? { phase: call.phase } : {}),
				elapsedMs: call.slow.elapsedMs,
				usualMs: call.slow.usualMs,
			});
		}
		const slow = envelope.forecast?.slow;
		if (slow && !runMarked) {
			runMarked = true;
			durable.logEvent({
				type: "run_slow",
				time: envelope.updatedAt,
				elapsedMs: slow.elapsedMs,
				usualMs: slow.usualMs,
			});
		}
	};
}
