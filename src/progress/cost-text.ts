/**
 * Costs in progress: adding them up as calls change, and their text. A reply with no known price makes a cost
 * unknown, never $0: "$0.42", "$0.42 + unknown", "unknown". The figures are the runner's; nothing here prices.
 */
import type { WorkflowCost } from "../runtime/core/types.ts";

/** `a + sign × b`, kept to 1e-10 dollars so many small figures add up without float noise. */
export function addCosts(a: WorkflowCost | undefined, b: WorkflowCost | undefined, sign: 1 | -1 = 1): WorkflowCost {
	const round = (x: number) => Math.max(0, Math.round(x * 1e10) / 1e10);
	const usd = round((a?.usd ?? 0) + sign * (b?.usd ?? 0));
	const billed = round((a?.billedUsd ?? 0) + sign * (b?.billedUsd ?? 0));
	const unpriced = Math.max(0, (a?.unpriced ?? 0) + sign * (b?.unpriced ?? 0));
	return { usd, ...(billed > 0 ? { billedUsd: billed } : {}), ...(unpriced > 0 ? { unpriced } : {}) };
}

/** True when there is anything to say: dollars spent, or replies of unknown price. */
export function hasCost(cost: WorkflowCost | undefined): cost is WorkflowCost {
	return cost !== undefined && (cost.usd > 0 || (cost.unpriced ?? 0) > 0);
}

/**
 * True when replayed calls saved dollars worth a word. A saving of only unknown price is left out rather than said
 * as "saved unknown", which reads as if nothing was known about the replay at all.
 */
export function hasSaving(cost: WorkflowCost | undefined): cost is WorkflowCost {
	return cost !== undefined && cost.usd > 0;
}

/** "$12.30", "$0.42", "$0.015", "$0.0015", "<$0.0001", "$0.00": cents from a dime up, two digits below. */
export function formatUsd(usd: number): string {
	if (usd >= 0.1 || usd <= 0) return `$${Math.max(0, usd).toFixed(2)}`;
	if (usd >= 0.0001) return `$${Number(usd.toPrecision(2))}`;
	return "<$0.0001";
}

/** "$0.42", "$0.42 + unknown" (some replies had no price), "unknown" (none had). */
export function formatCost(cost: WorkflowCost): string {
	const unknown = (cost.unpriced ?? 0) > 0;
	if (unknown && cost.usd <= 0) return "unknown";
	return unknown ? `${formatUsd(cost.usd)} + unknown` : formatUsd(cost.usd);
}

/** How the dollars were reached: "billed by the provider", "estimated from catalog prices", or both. */
export function costSource(cost: WorkflowCost): string {
	const billed = cost.billedUsd ?? 0;
	if (cost.usd <= 0) return "";
	if (billed <= 0) return "estimated from catalog prices";
	if (billed >= cost.usd) return "billed by the provider";
	return `${formatUsd(billed)} billed, ${formatUsd(cost.usd - billed)} estimated`;
}
