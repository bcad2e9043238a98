/**
 * The question a person is asked in pi's TUI before one `parallel()`/`pipeline()` call starts many agents: how
 * many, what the run spent so far and per agent, what that many more would cost at that rate, and the estimate from
 * earlier runs (src/host/run-estimate.ts) when there is one.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { catalogPrice } from "../children/model.ts";
import { forkCostText } from "../host/estimate.ts";
import { type EstimateStoreOptions, fanOutEstimate } from "../host/run-estimate.ts";
import { visibleUi } from "../pi/runs/visible-ui.ts";
import type { WorkflowFanOutInfo } from "../runtime/core/types.ts";
import { spentSoFar, usdText } from "../runtime/index.ts";

/** Title and text of the dialog; `estimate` is `fanOutEstimate`'s sentences, when there are any. */
export function fanOutQuestion(info: WorkflowFanOutInfo, estimate?: string): { title: string; message: string } {
	const what =
		info.kind === "pipeline"
			? `pipeline() with ${info.items} items (up to ${info.agents} agents)`
			: `parallel() with ${info.items} items`;
	const rate =
		info.averageUsd !== undefined
			? ` At that rate ${info.agents} more cost about ${usdText(info.averageUsd * info.agents)}.`
			: "";
	const earlier = estimate ? ` ${estimate}` : "";
	const forks =
		info.forkTokens !== undefined ? ` ${forkCostText(info.forkTokens, info.agents, `these ${info.agents}`)}` : "";
	const cap = info.costLimitUsd !== undefined ? ` The run's cap is ${usdText(info.costLimitUsd)}.` : "";
	return {
		title: `Workflow ${info.workflow}: start ${info.agents} agents?`,
		message: `It is about to start ${what}. So far: ${spentSoFar(info)}.${rate}${earlier}${forks}${cap} Yes goes on (you are not asked again in this run); No stops the workflow here, with its finished calls saved.`,
	};
}

/** Where the question's estimate is read from: the project's runs, less the run asking. */
export type FanOutEstimateSource = Omit<EstimateStoreOptions, "priceOf">;

/**
 * `confirmFanOut` for a run started in pi's TUI; undefined elsewhere (print, JSON and RPC modes never ask). With
 * `estimate`, the question carries what the agents are expected to cost, priced from pi's model registry when the
 * project has no history; an estimate that cannot be read leaves the question as it was.
 */
export function tuiFanOutConfirm(
	ctx: ExtensionContext,
	estimate?: () => FanOutEstimateSource,
): ((info: WorkflowFanOutInfo) => Promise<boolean>) | undefined {
	if (ctx.mode !== "tui" || !ctx.hasUI) return undefined;
	return async (info) => {
		const source = estimate?.();
		const priceOf = (model: string) => catalogPrice(ctx.modelRegistry, model);
		const text = source ? await fanOutEstimate(info, { ...source, priceOf }).catch(() => undefined) : undefined;
		const { title, message } = fanOutQuestion(info, text);
		// The title names the script's workflow as it wrote it.
		return visibleUi(ctx.ui).confirm(title, message, { signal: info.signal });
	};
}

/** The model children run on when nothing else names one: the session's child model, else its own model. */
export function sessionChildModel(ctx: ExtensionContext, childModel: string | undefined): string | undefined {
	if (childModel?.includes("/")) return childModel;
	return ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : undefined;
}
