/**
 * What a set of calls cost, said one way everywhere in the report (header, phase rows, `--text`): the known dollars,
 * then how many calls' cost is unknown (a model with no price answered them), as "$0.12", "$0.12 + unknown for 2
 * calls" or "unknown for 3 calls". Counting calls, not replies, keeps the figure in the unit the page shows.
 */
import { addCosts, formatUsd } from "../progress/cost-text.ts";
import type { WorkflowCost } from "../runtime/core/types.ts";
import type { ReportCall } from "./types.ts";

/** The calls' costs added up, and how many of them are (partly) of unknown price. */
export function spendOf(calls: readonly ReportCall[]): { cost: WorkflowCost; unknownCalls: number } {
	let cost = addCosts(undefined, undefined);
	let unknownCalls = 0;
	for (const call of calls) {
		cost = addCosts(cost, call.cost);
		if ((call.cost?.unpriced ?? 0) > 0) unknownCalls++;
	}
	return { cost, unknownCalls };
}

/** "$0.12", "$0.12 + unknown for 2 calls", "unknown for 3 calls". */
export function spendText(cost: WorkflowCost, unknownCalls: number): string {
	if (unknownCalls === 0) return formatUsd(cost.usd);
	const unknown = `unknown for ${unknownCalls} ${unknownCalls === 1 ? "call" : "calls"}`;
	return cost.usd > 0 ? `${formatUsd(cost.usd)} + ${unknown}` : unknown;
}
