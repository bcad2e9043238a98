/**
 * Dollar costs in the runtime: adding them up, reading a runner's or a journal's as plain numbers, and the short
 * form errors use. The figures are the providers' (the runner reads them); nothing here prices anything.
 */

/**
 * What model replies cost in US dollars, as the provider reports them (pi: each assistant message's `usage.cost`).
 * A reply whose model has no known price is counted in `unpriced`, never as $0: `usd` is then a lower bound.
 */
export interface WorkflowCost {
	/** Dollars of the replies with a price: billed by the provider, or estimated from the model's catalog price. */
	usd: number;
	/** The part of `usd` the provider billed; the rest is a catalog estimate. Default: 0. */
	billedUsd?: number;
	/** Replies whose cost is unknown (the model has no price and the provider billed nothing). Default: 0. */
	unpriced?: number;
}

/** No cost yet. */
export function zeroCost(): WorkflowCost {
	return { usd: 0 };
}

/** `a` and `b` added up; either may be missing. */
export function addCost(a: WorkflowCost | undefined, b: WorkflowCost | undefined): WorkflowCost | undefined {
	if (!b) return a;
	// A first figure is kept to the same 1e-10 dollars as a sum, so one reply and a total of it are equal.
	if (!a) return addCost({ usd: 0 }, b);
	const sum: WorkflowCost = { usd: roundUsd(a.usd + b.usd) };
	const billed = roundUsd((a.billedUsd ?? 0) + (b.billedUsd ?? 0));
	const unpriced = (a.unpriced ?? 0) + (b.unpriced ?? 0);
	if (billed > 0) sum.billedUsd = billed;
	if (unpriced > 0) sum.unpriced = unpriced;
	return sum;
}

/** Sums are kept to 1e-10 dollars, so adding many small figures does not print as 0.30000000000000004. */
function roundUsd(usd: number): number {
	return Math.round(usd * 1e10) / 1e10;
}

/** Adds `b` into `into` in place (the census and the budget keep one running total each). */
export function addCostInto(into: WorkflowCost, b: WorkflowCost | undefined): void {
	if (!b) return;
	const sum = addCost(into, b) as WorkflowCost;
	into.usd = sum.usd;
	if (sum.billedUsd !== undefined) into.billedUsd = sum.billedUsd;
	if (sum.unpriced !== undefined) into.unpriced = sum.unpriced;
}

/**
 * A cost as plain numbers: negative or non-finite figures (a runner's, a hand-edited journal's) would corrupt the
 * budget, so they count as 0; undefined when `raw` is not an object with a number `usd` or `unpriced`.
 */
export function readCost(raw: unknown): WorkflowCost | undefined {
	if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined;
	const { usd, billedUsd, unpriced } = raw as Record<string, unknown>;
	if (typeof usd !== "number" && typeof unpriced !== "number") return undefined;
	const amount = (x: unknown) => (typeof x === "number" && Number.isFinite(x) && x > 0 ? x : 0);
	const cost: WorkflowCost = { usd: amount(usd) };
	const billed = Math.min(amount(billedUsd), cost.usd);
	if (billed > 0) cost.billedUsd = billed;
	const count = Math.floor(amount(unpriced));
	if (count > 0) cost.unpriced = count;
	return cost;
}

/** "$0.42", "$0.015", "<$0.0001": dollars for messages (a cap, what was spent), as progress shows them. */
export function usdText(usd: number): string {
	if (usd >= 0.1 || usd <= 0) return `$${Math.max(0, usd).toFixed(2)}`;
	if (usd >= 0.0001) return `$${Number(usd.toPrecision(2))}`;
	return "<$0.0001";
}

/** What a host is told before one `parallel()`/`pipeline()` call starts more agents than `fanOutThreshold`. */
export interface WorkflowFanOutInfo {
	kind: "parallel" | "pipeline";
	/** Items of the call. */
	items: number;
	/** Agents it may start: its items (times its stages, for `pipeline`). */
	agents: number;
	/** `meta.name` of the script that makes the call. */
	workflow: string;
	/** The phase the call is made in, when it is made in one. */
	phase?: string;
	/** Agent calls that ran so far in this run (completed or failed). */
	agentsRun: number;
	/** What the run spent so far. */
	spent: WorkflowCost;
	/** Average dollars per agent that ran, when there are some with a known price. */
	averageUsd?: number;
	/** The run's cap in dollars, when it has one. */
	costLimitUsd?: number;
	/**
	 * Tokens of the session's conversation each agent that forks (`context: "fork"`) reads before its task; given
	 * when the run has one and the script asks for forks. Default: absent.
	 */
	forkTokens?: number;
	/** Fires when the run is stopped: a dialog should close. */
	signal: AbortSignal;
}
