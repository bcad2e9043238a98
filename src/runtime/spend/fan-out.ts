/**
 * Asking a person before one `parallel()`/`pipeline()` call starts many agents: the host's `confirmFanOut`, asked
 * once per run (nested workflows share the answer). A yes holds for the rest of the run; a no makes this call and
 * every later large one throw `fanout_declined`, which stops the run unless the script catches it.
 */
import { errorMessage, WorkflowError } from "../../errors.ts";
import { untilAborted } from "../core/abort-watch.ts";
import type { Budget } from "../core/budget.ts";
import type { Census } from "../core/census.ts";
import { usdText } from "../core/cost.ts";
import type { WorkflowFanOutInfo } from "../core/types.ts";

/** What the gate reads of a run (not the whole run context, which holds the gate). */
export interface FanOutRun {
	signal: AbortSignal;
	census: Pick<Census, "counts">;
	budget: Pick<Budget, "costSpent" | "costLimitUsd">;
}

/** One `parallel()`/`pipeline()` call as the gate sees it. */
export type FanOutCall = Pick<WorkflowFanOutInfo, "kind" | "items" | "agents" | "workflow" | "phase">;

/** Default: agents one call may start before the person is asked. */
export const DEFAULT_FAN_OUT_THRESHOLD = 25;

/** The run's one question and its answer. */
export class FanOutGate {
	/** Above this many agents in one call, ask (0: never). */
	readonly threshold: number;
	readonly #confirm: ((info: WorkflowFanOutInfo) => Promise<boolean>) | undefined;
	#answer: Promise<{ yes: boolean; why?: string }> | undefined;
	/** Tokens each forked agent reads first, once the run knows its script forks and has a conversation to fork. */
	forkTokens: number | undefined;

	constructor(confirm: ((info: WorkflowFanOutInfo) => Promise<boolean>) | undefined, threshold: number | undefined) {
		this.#confirm = confirm;
		this.threshold = confirm ? (threshold ?? DEFAULT_FAN_OUT_THRESHOLD) : 0;
	}

	/** Resolves when the call may start its `agents`; rejects with `fanout_declined` (or the run's abort reason). */
	async pass(run: FanOutRun, call: FanOutCall): Promise<null> {
		const confirm = this.#confirm;
		if (!confirm || this.threshold === 0 || call.agents <= this.threshold) return null;
		if (run.signal.aborted) throw run.signal.reason;
		this.#answer ??= ask(confirm, info(run, call, this.forkTokens));
		const answer = await untilAborted(this.#answer, run.signal);
		if (answer.yes) return null;
		throw declined(call, answer.why);
	}
}

function info(run: FanOutRun, call: FanOutCall, forkTokens: number | undefined): WorkflowFanOutInfo {
	const { counts } = run.census;
	const agentsRun = Math.max(0, counts.completed + counts.failed - (counts.replayed ?? 0));
	const spent = run.budget.costSpent;
	const limit = run.budget.costLimitUsd;
	return {
		...call,
		agentsRun,
		spent,
		...(agentsRun > 0 && spent.usd > 0 ? { averageUsd: spent.usd / agentsRun } : {}),
		...(limit !== undefined ? { costLimitUsd: limit } : {}),
		...(forkTokens !== undefined ? { forkTokens } : {}),
		signal: run.signal,
	};
}

/** The host's answer; a dialog that fails is a no, so a broken prompt never starts many agents unasked. */
async function ask(
	confirm: (info: WorkflowFanOutInfo) => Promise<boolean>,
	question: WorkflowFanOutInfo,
): Promise<{ yes: boolean; why?: string }> {
	try {
		return { yes: (await confirm(question)) === true };
	} catch (error) {
		return { yes: false, why: `the question could not be asked (${errorMessage(error)})` };
	}
}

function declined(
	call: { kind: WorkflowFanOutInfo["kind"]; items: number; agents: number },
	why: string | undefined,
): WorkflowError {
	const what =
		call.kind === "pipeline"
			? `\`pipeline()\` with ${call.items} items (up to ${call.agents} agents)`
			: `\`parallel()\` with ${call.items} items`;
	return new WorkflowError(
		"fanout_declined",
		`Not started: ${what}. ${why ? `It needs a yes from the person running the workflow, and ${why}` : "The person running the workflow declined to start that many agents at once"}; the run stops here with its finished calls saved. Split the work into smaller calls, or resume the run and answer yes`,
		{ details: { kind: call.kind, items: call.items, agents: call.agents } },
	);
}

/** "$0.42 over 6 agents (about $0.07 each)": what a run spent so far, for a host's question. */
export function spentSoFar(info: WorkflowFanOutInfo): string {
	if (info.agentsRun === 0) return "no agent has run yet";
	const unknown = info.spent.unpriced ? " + unknown" : "";
	const each = info.averageUsd !== undefined ? ` (about ${usdText(info.averageUsd)} each)` : "";
	return `${usdText(info.spent.usd)}${unknown} over ${info.agentsRun} agent${info.agentsRun === 1 ? "" : "s"}${each}`;
}
