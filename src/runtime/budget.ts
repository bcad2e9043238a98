/**
 * Counters and limits of one run (shared with nested workflows): agent calls, tokens and log entries.
 * `charge…` either counts or throws the coded error that names the limit and how to raise it.
 */
import { WorkflowError } from "../errors.ts";

/** What the script sees as `budget` (a snapshot; the guest reads it through getters). */
export interface BudgetSnapshot {
	agentCalls: { used: number; limit: number; remaining: number };
	logs: { used: number; limit: number; dropped: number };
	tokens: { total: number | null; spent: number; remaining: number | null };
}

export interface BudgetOptions {
	maxAgentCalls: number;
	maxLogEntries: number;
	/** Token total; undefined means no total. */
	tokens?: number;
}

/** The run's budget: one object, owned by the run, passed to nested workflows. */
export class Budget {
	#agentCalls = 0;
	#tokensSpent = 0;
	#logs = 0;
	readonly #options: BudgetOptions;
	readonly #listeners = new Set<() => void>();

	constructor(options: BudgetOptions) {
		this.#options = options;
	}

	/** Counts one `agent()` call, or throws `agent_cap_reached` / `budget_exhausted`. */
	chargeAgentCall(): void {
		const { maxAgentCalls, tokens } = this.#options;
		if (this.#agentCalls >= maxAgentCalls) {
			throw new WorkflowError(
				"agent_cap_reached",
				`Agent call limit reached (${maxAgentCalls}). A loop that calls \`agent()\` per item can run past it: bound the loop (\`items.slice(0, n)\`, or stop when \`budget.agentCalls.remaining\` is 0), or raise it with \`budget.maxAgentCalls\``,
				{ details: { limit: maxAgentCalls } },
			);
		}
		if (tokens !== undefined && this.#tokensSpent >= tokens) {
			throw new WorkflowError(
				"budget_exhausted",
				`Token budget exhausted: ${this.#tokensSpent} of ${tokens} tokens spent. Raise it with \`budget.tokens\``,
				{ details: { limit: tokens, spent: this.#tokensSpent } },
			);
		}
		this.#agentCalls++;
		this.#changed();
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
		};
	}
}
