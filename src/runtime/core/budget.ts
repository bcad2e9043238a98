/**
 * Counters and limits of one run (shared with nested workflows): agent calls, tokens, dollars and log entries.
 * `charge…` and `checkSpend` either count or throw the coded error that names the limit and how to raise it.
 */
import { WorkflowError } from "../../errors.ts";
import { addCostInto } from "./cost.ts";
import type { WorkflowCost } from "./types.ts";

/** What the script sees as `budget` (a snapshot; the guest reads it through getters). */
export interface BudgetSnapshot {
	agentCalls: { used: number; limit: number; remaining: number };
	logs: { used: number; limit: number; dropped: number };
	tokens: { total: number | null; spent: number; remaining: number | null };
	/**
	 * Dollars of this run's children with a known price (replays cost nothing; earlier sessions of a resumed run
	 * count in `spent`); `unpriced` counts replies without one.
	 */
	cost: { limit: number | null; spent: number; remaining: number | null; unpriced: number };
}

export interface BudgetOptions {
	maxAgentCalls: number;
	maxLogEntries: number;
	/** Token total; undefined means no total. */
	tokens?: number;
	/** Dollar cap of the whole run; undefined means no cap. */
	costUsd?: number;
	/** Dollars earlier sessions of the run spent: they count against the cap. Default: 0. */
	priorCostUsd?: number;
}

/** The run's budget: one object, owned by the run, passed to nested workflows. */
export class Budget {
	#agentCalls = 0;
	#tokensSpent = 0;
	readonly #cost: WorkflowCost = { usd: 0 };
	readonly #unpricedWarned = new Set<string>();
	#logs = 0;
	readonly #options: BudgetOptions;
	/** The dollar cap: the option's until a person raises it. */
	#costCap: number | undefined;
	readonly #priorUsd: number;
	readonly #listeners = new Set<() => void>();

	constructor(options: BudgetOptions) {
		this.#options = options;
		this.#costCap = options.costUsd;
		this.#priorUsd = options.priorCostUsd ?? 0;
	}

	/** Counts one `agent()` call, or throws `agent_cap_reached` / `budget_exhausted`. */
	chargeAgentCall(): void {
		const { maxAgentCalls } = this.#options;
		if (this.#agentCalls >= maxAgentCalls) {
			throw new WorkflowError(
				"agent_cap_reached",
				`Agent call limit reached (${maxAgentCalls}). A loop that calls \`agent()\` per item can run past it: bound the loop (\`items.slice(0, n)\`, or stop when \`budget.agentCalls.remaining\` is 0), or raise it with \`budget.maxAgentCalls\``,
				{ details: { limit: maxAgentCalls } },
			);
		}
		this.checkSpend();
		this.#agentCalls++;
		this.#changed();
	}

	/**
	 * Throws `budget_exhausted` once the tokens are spent. Called when a call is made and again when its child is
	 * about to start, so calls that waited in the queue while the run spent its tokens do not start. The dollar cap
	 * is not an error the script sees: the run's cost-cap gate (spend/cost-cap.ts) parks or stops the run at it.
	 */
	checkSpend(): void {
		const { tokens } = this.#options;
		if (tokens !== undefined && this.#tokensSpent >= tokens) {
			throw new WorkflowError(
				"budget_exhausted",
				`Token budget exhausted: ${this.#tokensSpent} of ${tokens} tokens spent. Raise it with \`budget.tokens\``,
				{ details: { limit: tokens, spent: this.#tokensSpent } },
			);
		}
	}

	/** True once the run spent its dollar cap (earlier sessions included). */
	get costCapReached(): boolean {
		return this.#costCap !== undefined && this.totalCostUsd >= this.#costCap;
	}

	/** A person raised the cap: children may start again until the run spends this much in all. */
	raiseCostCap(usd: number): void {
		this.#costCap = usd;
		this.#changed();
	}

	/** Dollars the run spent in all: earlier sessions and this one. */
	get totalCostUsd(): number {
		return this.#priorUsd + this.#cost.usd;
	}

	/** Adds what a child's replies cost. */
	spendCost(cost: WorkflowCost | undefined): void {
		if (!cost || (cost.usd <= 0 && !cost.unpriced)) return;
		addCostInto(this.#cost, cost);
		this.#changed();
	}

	/** True the first time `model` is named here: the run warns once per model it cannot price. */
	firstUnpriced(model: string): boolean {
		if (this.#unpricedWarned.has(model)) return false;
		this.#unpricedWarned.add(model);
		return true;
	}

	/** The run's cap in dollars (as raised), if any. */
	get costLimitUsd(): number | undefined {
		return this.#costCap;
	}

	/** What the run's children spent so far in this session (a copy). */
	get costSpent(): WorkflowCost {
		return { ...this.#cost };
	}

	/** Adds the tokens a child reported. */
	spendTokens(count: number): void {
		if (!Number.isFinite(count) || count <= 0) return;
		this.#tokensSpent += count;
		this.#changed();
	}

	/** Counts a log entry. Progress keeps the newest `maxLogEntries`; older ones are dropped and counted. */
	countLog(): void {
		this.#logs++;
		this.#changed();
	}

	/** Calls `listener` after every change of the snapshot; returns the function that stops it. */
	onChange(listener: () => void): () => void {
		const entry = () => listener();
		this.#listeners.add(entry);
		return () => this.#listeners.delete(entry);
	}

	get droppedLogs(): number {
		return Math.max(0, this.#logs - this.#options.maxLogEntries);
	}

	get agentCallsUsed(): number {
		return this.#agentCalls;
	}

	get tokensSpent(): number {
		return this.#tokensSpent;
	}

	#changed(): void {
		for (const listener of this.#listeners) listener();
	}

	snapshot(): BudgetSnapshot {
		const { maxAgentCalls, maxLogEntries, tokens } = this.#options;
		return {
			agentCalls: {
				used: this.#agentCalls,
				limit: maxAgentCalls,
				remaining: Math.max(0, maxAgentCalls - this.#agentCalls),
			},
			logs: { used: Math.min(this.#logs, maxLogEntries), limit: maxLogEntries, dropped: this.droppedLogs },
			tokens: {
				total: tokens ?? null,
				spent: this.#tokensSpent,
				remaining: tokens === undefined ? null : Math.max(0, tokens - this.#tokensSpent),
			},
			cost: {
				limit: this.#costCap ?? null,
				spent: this.totalCostUsd,
				remaining: this.#costCap === undefined ? null : Math.max(0, this.#costCap - this.totalCostUsd),
				unpriced: this.#cost.unpriced ?? 0,
			},
		};
	}
}

/**
 * `budget_exhausted` for a dollar cap: what was spent, that running children finish, how to raise the cap, that a
 * resume replays for free, and what was not counted because its price is unknown.
 */
export function costCapError(
	what: string,
	facts: { cap: number; cost: WorkflowCost; raise: string; phase?: string },
): WorkflowError {
	const unknown = facts.cost.unpriced
		? ` (not counting ${facts.cost.unpriced} ${facts.cost.unpriced === 1 ? "reply" : "replies"} of models with no known price)`
		: "";
	return new WorkflowError(
		"budget_exhausted",
		`${what}${unknown}, so no new agent starts; children already running finish. ${facts.raise} and resume the run: its finished calls replay at no cost`,
		{
			details: {
				limit: facts.cap,
				spent: facts.cost.usd,
				unit: "usd",
				...(facts.phase !== undefined ? { phase: facts.phase } : {}),
			},
		},
	);
}
