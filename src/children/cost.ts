/**
 * What a child's replies cost, from pi-ai's own figure on each assistant message (`usage.cost.total`, billed when
 * `totalFromProvider`, else the catalog estimate). A model whose catalog price is all zero and whose reply was not
 * billed has no known price: that reply is counted as unpriced, never as $0 (pi cannot tell free from unknown).
 */
import type { Api, AssistantMessage, Model } from "@earendil-works/pi-ai";
import type { AgentSession } from "@earendil-works/pi-coding-agent";
import { addCost, type WorkflowCost } from "../runtime/core/cost.ts";

/** True when the model has a catalog price: any of its per-token rates is above zero. */
export function hasPrice(model: Pick<Model<Api>, "cost">): boolean {
	const { input, output, cacheRead, cacheWrite } = model.cost ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
	return [input, output, cacheRead, cacheWrite].some((rate) => typeof rate === "number" && rate > 0);
}

/** What one reply cost, or undefined for a message that is not a model reply. */
export function replyCost(message: unknown, priced: boolean): WorkflowCost | undefined {
	if (message === null || typeof message !== "object") return undefined;
	const reply = message as Partial<AssistantMessage>;
	if (reply.role !== "assistant") return undefined;
	const cost = reply.usage?.cost;
	const total = typeof cost?.total === "number" && Number.isFinite(cost.total) && cost.total > 0 ? cost.total : 0;
	if (cost?.totalFromProvider === true) return { usd: total, ...(total > 0 ? { billedUsd: total } : {}) };
	return priced ? { usd: total } : { usd: 0, unpriced: 1 };
}

/**
 * Every model reply of a session, from its raw entries: replies pi hid from the conversation (a failed attempt it
 * retried) cost money too. The first `skip` entries (a continued child's earlier conversation, paid for by the
 * session that made it) are not counted. Undefined when the session has no reply.
 */
export function sessionCost(
	session: AgentSession,
	model: Pick<Model<Api>, "cost">,
	skip = 0,
): WorkflowCost | undefined {
	const priced = hasPrice(model);
	let total: WorkflowCost | undefined;
	for (const entry of session.sessionManager.getEntries().slice(skip)) {
		if (entry.type === "message") total = addCost(total, replyCost(entry.message, priced));
	}
	return total;
}

/** A session's tokens as pi counts them (`getSessionStats`), but for the first `skip` entries: see `sessionCost`. */
export function sessionTokens(
	session: AgentSession,
	skip: number,
): { input: number; output: number; cacheRead: number; cacheWrite: number } {
	const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
	const add = (usage: Partial<typeof tokens> | undefined) => {
		if (!usage) return;
		for (const field of ["input", "output", "cacheRead", "cacheWrite"] as const) tokens[field] += usage[field] ?? 0;
	};
	for (const entry of session.sessionManager.getEntries().slice(skip)) {
		if (entry.type === "usage" || ((entry.type === "branch_summary" || entry.type === "compaction") && entry.usage)) {
			add(entry.usage as Partial<typeof tokens>);
		}
		if (entry.type !== "message") continue;
		const message = entry.message as { role: string; usage?: Partial<typeof tokens> };
		if (message.role === "assistant" || message.role === "toolResult") add(message.usage);
	}
	return tokens;
}
