/**
 * Estimates read from a project's run store, for the two moments a front end has one to show: before the first child
 * starts (`estimatePlannedRun`: a dry run's planned calls, the text and whether it is over the cap), and the question
 * before a large fan-out (`fanOutEstimate`: the agents about to start, labels unknown yet since a `parallel()` item
 * is a function until it runs; the rest of the run from this workflow's earlier complete runs, next to what it spent
 * so far; and the cap). Also the dry run's estimate (`estimateDryPlan`), the dry run a capped run makes first to have
 * one (`estimateBeforeRun`), and the cap question's "about $Z more to finish" (`withEstimateMore`).
 */
import { errorMessage } from "../errors.ts";
import { type CostHistory, createRunStore, readCostHistory } from "../runs/index.ts";
import { usdText } from "../runtime/core/cost.ts";
import type { WorkflowCostCapInfo, WorkflowFanOutInfo } from "../runtime/core/types.ts";
import {
	dryRunWorkflowScript,
	fencedBashSite,
	type WorkflowDryRunOptions,
	type WorkflowDryRunPlan,
} from "../runtime/index.ts";
import type { CostCapAsk } from "./cost-cap.ts";
import {
	basesText,
	type EstimateSources,
	estimateCalls,
	estimateOverCap,
	estimateText,
	forkCostText,
	middleHalf,
	type PlannedCalls,
	tokensRangeText,
	usdRangeText,
	type WorkflowEstimate,
} from "./estimate.ts";

/** Where an estimate's history is read from, and what it is priced with. */
export interface EstimateStoreOptions extends Omit<EstimateSources, "history" | "workflow"> {
	/** The project, and where run records live (`<agentDir>/workflow-runs`). */
	cwd: string;
	runsRoot: string;
	/** The run asking, left out of the history. */
	runId?: string;
}

/** What `estimatePlannedRun` gives a front end to show before the first child starts. */
export interface PlannedRunEstimate {
	estimate: WorkflowEstimate;
	/** `estimateText`: the total, each phase, the bases. */
	text: string;
	/** "estimated $A–$B, over the cap $C" (or "which may go over"); absent when it fits or there is no cap. */
	overCap?: string;
}

/**
 * The estimate of a run about to start, from the project's earlier runs: `calls` are a dry run's planned calls
 * (each `{ phase?, label, agentType, model?, … }`, one per `agent()` call; other fields such as `index` are ignored)
 * or calls grouped with a `count`. `workflow` is the script's `meta.name`; `capUsd` the run's `maxCostUsd`.
 */
export async function estimatePlannedRun(
	calls: readonly PlannedCalls[],
	options: EstimateStoreOptions & { workflow?: string; capUsd?: number },
): Promise<PlannedRunEstimate> {
	return plannedFrom(calls, await historyOf(options), options);
}

function historyOf(options: EstimateStoreOptions): Promise<CostHistory> {
	const store = createRunStore({ cwd: options.cwd, root: options.runsRoot });
	return readCostHistory(store, options.runId !== undefined ? { exclude: options.runId } : {});
}

function plannedFrom(
	calls: readonly PlannedCalls[],
	history: CostHistory,
	options: EstimateStoreOptions & { workflow?: string; capUsd?: number },
): PlannedRunEstimate {
	const { cwd: _cwd, runsRoot: _root, runId: _run, capUsd, ...sources } = options;
	const estimate = estimateCalls(calls, { ...sources, history });
	const overCap =
		estimate.total.unestimated < estimate.total.calls ? estimateOverCap(estimate.total.usd, capUsd) : undefined;
	return { estimate, text: estimateText(estimate), ...(overCap ? { overCap } : {}) };
}

/** How many of this workflow's newest complete runs a plan that could not see its fan-out goes by. */
const FLOOR_HISTORY_RUNS = 5;

/**
 * The estimate of what a dry run planned: its calls, priced for the workflow it ran (`plan.workflow`). When a fenced
 * `bash` left its counts floors, this workflow's newest complete runs say what the whole run made and cost, and the
 * cap is checked against the larger of the two.
 */
export async function estimateDryPlan(
	plan: WorkflowDryRunPlan,
	options: EstimateStoreOptions & { capUsd?: number },
): Promise<PlannedRunEstimate> {
	const calls = plan.calls.map(({ phase, label, agentType, model }) => ({
		...(phase !== undefined ? { phase } : {}),
		label,
		agentType,
		...(model !== undefined ? { model } : {}),
	}));
	const history = await historyOf(options);
	let planned = plannedFrom(calls, history, { ...options, workflow: plan.workflow });
	if (plan.fencedBash) planned = withEarlierRuns(planned, plan, history, options.capUsd);
	const forked = plan.calls.filter((call) => call.forks).length;
	if (plan.forkTokens === undefined || forked === 0) return planned;
	// Earlier runs' figures include what their forks read; a first run's catalog guess does not, so it is said apart.
	const forks = forkCostText(plan.forkTokens, forked, `the ${forked} forked calls`);
	return { ...planned, text: `${planned.text}\n${forks}` };
}

/**
 * "This workflow's last 5 runs made 18–24 agent calls and cost $0.40–$0.55 (the middle half): the plan's at least 2
 * could not see past the fenced `bash`." or, with no such run, that there is nothing to go by.
 */
function withEarlierRuns(
	planned: PlannedRunEstimate,
	plan: WorkflowDryRunPlan,
	history: CostHistory,
	capUsd: number | undefined,
): PlannedRunEstimate {
	const runs = history.runs.filter((run) => run.workflow === plan.workflow).slice(0, FLOOR_HISTORY_RUNS);
	const site = plan.fencedBash ? fencedBashSite(plan.fencedBash) : "";
	const floor = `the plan's at least ${plan.totals.agentCalls} could not see past the fenced \`bash\`${site}`;
	if (runs.length === 0) {
		return {
			...planned,
			text: `${planned.text}\nA floor: ${floor}, and no earlier complete run of \`${plan.workflow}\` says how many more.`,
		};
	}
	const counts = runs.map((run) => run.calls);
	const [fewest, most] = [Math.min(...counts), Math.max(...counts)];
	const totals = runs.flatMap((run) => (run.usd !== undefined ? [run.usd] : []));
	const usd = totals.length > 0 ? middleHalf(totals) : undefined;
	const made = `${fewest === most ? fewest : `${fewest}–${most}`} agent calls`;
	const cost = usd ? ` and cost ${usdRangeText(usd)} (the middle half)` : "";
	const line = `Earlier runs: this workflow's last ${runs.length === 1 ? "run" : `${runs.length} runs`} made ${made}${cost}: ${floor}.`;
	const overCap = planned.overCap ?? (usd ? estimateOverCap(usd, capUsd) : undefined);
	return { ...planned, text: `${planned.text}\n${line}`, ...(overCap ? { overCap } : {}) };
}

/** A dry run's plan text with its estimate after it, and the warning when the estimate is over the cap. */
export function planWithEstimateText(planText: string, planned: PlannedRunEstimate | undefined): string {
	if (!planned) return planText;
	const over = planned.overCap ? `\nWarning: ${planned.overCap}.` : "";
	return `${planText}\n\n${planned.text}${over}`;
}

/** What `estimateBeforeRun` found: the estimate, or why there is none. */
export interface BeforeRunEstimate {
	planned?: PlannedRunEstimate;
	/** Why the estimate was skipped (the dry run failed or stopped). */
	note?: string;
}

/**
 * The estimate of a real run about to start with a cap, from a dry run of the same script and args first (no model,
 * nothing recorded; `dry` carries the run's own limits, so a script that loops stops as the run would). A dry run that
 * does not complete gives no estimate, only a note saying why: its calls would be too few to go by.
 */
export async function estimateBeforeRun(
	source: string,
	dry: WorkflowDryRunOptions,
	options: EstimateStoreOptions & { capUsd: number },
): Promise<BeforeRunEstimate> {
	try {
		const { plan } = await dryRunWorkflowScript(source, dry);
		if (plan.status !== "completed") {
			const why = plan.error?.message ? `: ${plan.error.message}` : "";
			return { note: `no estimate before the run: its dry run ${plan.status}${why}` };
		}
		return { planned: await estimateDryPlan(plan, options) };
	} catch (error) {
		return { note: `no estimate before the run: its dry run could not run (${errorMessage(error)})` };
	}
}

/**
 * `ask` with the cap question's "about $Z more to finish" filled in: the top of the estimate made before the run
 * (`planned`) less what was spent, when there is one and it is not used up; else from this workflow's earlier
 * complete runs (the top of the middle half of their totals, less what was spent); else left unknown.
 */
export function withEstimateMore(
	ask: CostCapAsk,
	options: EstimateStoreOptions & { planned?: PlannedRunEstimate },
): CostCapAsk {
	return async (info) => {
		if (info.estimateMoreUsd !== undefined) return ask(info);
		const more = await estimateMore(info, options).catch(() => undefined);
		return ask(more !== undefined ? { ...info, estimateMoreUsd: more } : info);
	};
}

async function estimateMore(
	info: WorkflowCostCapInfo,
	options: EstimateStoreOptions & { planned?: PlannedRunEstimate },
): Promise<number | undefined> {
	const { planned } = options;
	if (planned && planned.estimate.total.unestimated < planned.estimate.total.calls) {
		const left = planned.estimate.total.usd.high - info.spentUsd;
		if (left > 0) return left;
	}
	const store = createRunStore({ cwd: options.cwd, root: options.runsRoot });
	const history = await readCostHistory(store, options.runId !== undefined ? { exclude: options.runId } : {});
	const totals = history.runs.flatMap((run) =>
		run.workflow === info.workflow && run.usd !== undefined ? [run.usd] : [],
	);
	if (totals.length === 0) return undefined;
	const left = middleHalf(totals).high - info.spentUsd;
	return left > 0 ? left : undefined;
}

/** The estimate's sentences for `info`, from the project's run store; undefined when there is no basis. */
export async function fanOutEstimate(
	info: WorkflowFanOutInfo,
	options: EstimateStoreOptions,
): Promise<string | undefined> {
	const { cwd, runsRoot, runId, ...sources } = options;
	const store = createRunStore({ cwd, root: runsRoot });
	const history = await readCostHistory(store, runId !== undefined ? { exclude: runId } : {});
	return fanOutEstimateText(info, { ...sources, history });
}

/**
 * "These 30 agents: estimated $0.40–$0.55, 150.0k–190.0k tokens (12 earlier calls of workflow `wide` (outside
 * phases)). Earlier runs of `wide` cost $1.00–$1.20 in all (the middle half of 4 runs): about $0.95–$1.15 more after
 * the $0.05 spent so far." and, past the cap, "Estimated $1.00–$1.30 with the $0.05 spent so far, over the cap $1.00."
 * Undefined when nothing is known to estimate from.
 */
export function fanOutEstimateText(
	info: WorkflowFanOutInfo,
	sources: Omit<EstimateSources, "workflow">,
): string | undefined {
	const estimate = estimateCalls(
		[{ ...(info.phase !== undefined ? { phase: info.phase } : {}), count: info.agents }],
		{
			...sources,
			workflow: info.workflow,
		},
	);
	const { total } = estimate;
	const sentences: string[] = [];
	if (total.unestimated < total.calls) {
		sentences.push(
			`These ${info.agents} agents: estimated ${usdRangeText(total.usd)}, ${tokensRangeText(total.tokens)} (${basesText(estimate.groups)}).`,
		);
	}
	const rest = restOfRun(info, sources);
	if (rest) sentences.push(rest);
	if (total.unestimated < total.calls) {
		const over = estimateOverCap(total.usd, info.costLimitUsd, info.spent.usd);
		if (over) sentences.push(`${over.charAt(0).toUpperCase()}${over.slice(1)}.`);
	}
	return sentences.length > 0 ? sentences.join(" ") : undefined;
}

/** What this workflow's earlier complete runs cost in all, and so about what is left after what this run spent. */
function restOfRun(info: WorkflowFanOutInfo, sources: Omit<EstimateSources, "workflow">): string | undefined {
	const totals = sources.history.runs.flatMap((run) =>
		run.workflow === info.workflow && run.usd !== undefined ? [run.usd] : [],
	);
	if (totals.length === 0) return undefined;
	const whole = middleHalf(totals);
	const spent = info.spent.usd;
	const left = { low: Math.max(0, whole.low - spent), high: Math.max(0, whole.high - spent) };
	const runs = `${totals.length} run${totals.length === 1 ? "" : "s"}`;
	return `Earlier runs of \`${info.workflow}\` cost ${usdRangeText(whole)} in all (the middle half of ${runs}): about ${usdRangeText(left)} more after the ${usdText(spent)} spent so far.`;
}
