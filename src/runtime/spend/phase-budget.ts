/**
 * Budgets of phases: `phase(name, { budget: { agentCalls, tokens, costUsd } })`. The options check (shared with the
 * static pass), and the counters of each phase a call counts against: its own and the ones enclosing it, across a
 * nested `workflow()` too. A phase's counters are per name within its script, for the whole run; declaring its
 * budget again sets new limits and keeps what was counted.
 */
import { closestName } from "../../authoring/index.ts";
import { WorkflowError } from "../../errors.ts";
import { costCapError } from "../core/budget.ts";
import { addCostInto, usdText } from "../core/cost.ts";
import type { JsonValue, WorkflowCost, WorkflowTokenUsage } from "../core/types.ts";

/** What a phase may spend; each field is optional. */
export interface PhaseBudgetLimits {
	/** `agent()` calls made in the phase (replayed ones included). */
	agentCalls?: number;
	/** Tokens its children spend (replayed calls count what they spent when they ran, as for the run's budget). */
	tokens?: number;
	/** US dollars its children spend (replayed calls cost nothing). */
	costUsd?: number;
}

/** The options of `phase(name, options, fn?)` after checking. */
export interface PhaseOptions {
	budget?: PhaseBudgetLimits;
}

const OPTION_KEYS = ["budget"] as const;
const BUDGET_KEYS = ["agentCalls", "tokens", "costUsd"] as const;
/** Names other tools (and the run's own options) use for the same limits. */
const FOREIGN: Readonly<Record<string, string>> = {
	maxAgentCalls: "agentCalls",
	agents: "agentCalls",
	calls: "agentCalls",
	maxTokens: "tokens",
	cost: "costUsd",
	usd: "costUsd",
	maxCostUsd: "costUsd",
	maxCost: "costUsd",
	costUSD: "costUsd",
};

function invalid(message: string, details?: Record<string, unknown>): WorkflowError {
	return new WorkflowError("phase_options_invalid", message, details ? { details } : {});
}

function describe(value: JsonValue): string {
	return Array.isArray(value) ? "an array" : JSON.stringify(value);
}

/**
 * Checks `phase()` options (null when omitted). A `null` value counts as not given, which is also how the static
 * pass passes a value it cannot know (only names are checked then).
 */
export function checkPhaseOptions(raw: JsonValue): PhaseOptions {
	if (raw === null) return {};
	if (typeof raw !== "object" || Array.isArray(raw)) {
		throw invalid(
			`\`phase(name, options, fn?)\` options must be an object such as \`{ budget: { costUsd: 0.5 } }\`, got ${describe(raw)}. To run code inside the phase, pass a function: \`phase(name, () => agent(…))\``,
		);
	}
	unknownKeys(raw, OPTION_KEYS, "option", "`phase()` option");
	// pi-dynamic-workflows gives a phase's token budget as a number: `phase(name, { budget: 2000 })`.
	const budget = typeof raw.budget === "number" ? { tokens: raw.budget } : raw.budget;
	if (budget === undefined || budget === null) return {};
	if (typeof budget !== "object" || Array.isArray(budget)) {
		throw invalid(
			`\`phase()\` option \`budget\` must be an object of ${BUDGET_KEYS.join(", ")}, got ${describe(budget)}`,
		);
	}
	unknownKeys(budget, BUDGET_KEYS, "budget", "`phase()` budget field");
	const limits: PhaseBudgetLimits = {};
	const agentCalls = limit(budget, "agentCalls", true);
	if (agentCalls !== undefined) limits.agentCalls = agentCalls;
	const tokens = limit(budget, "tokens", false);
	if (tokens !== undefined) limits.tokens = tokens;
	const costUsd = limit(budget, "costUsd", false);
	if (costUsd !== undefined) limits.costUsd = costUsd;
	return { budget: limits };
}

function unknownKeys(object: Record<string, JsonValue>, known: readonly string[], kind: string, what: string): void {
	for (const name of Object.keys(object)) {
		if (known.includes(name)) continue;
		const budgetField = (BUDGET_KEYS as readonly string[]).includes(name)
			? name
			: Object.hasOwn(FOREIGN, name)
				? FOREIGN[name]
				: undefined;
		if (kind === "option" && budgetField !== undefined) {
			throw invalid(
				`Unknown \`phase()\` option \`${name}\`: limits go in \`budget\`. Write \`{ budget: { ${budgetField}: … } }\``,
				{ option: name },
			);
		}
		const meant = kind === "budget" && Object.hasOwn(FOREIGN, name) ? FOREIGN[name] : closestName(name, known);
		const hint = meant ? ` Did you mean \`${meant}\`?` : "";
		throw invalid(`Unknown ${what} \`${name}\`.${hint} Known: ${known.join(", ")}`, { [kind]: name });
	}
}

function limit(budget: Record<string, JsonValue>, name: string, integer: boolean): number | undefined {
	const value = budget[name];
	if (value === undefined || value === null) return undefined;
	if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
		throw invalid(
			`\`phase()\` budget \`${name}\` must be a positive ${integer ? "integer" : "number"}, got ${describe(value)}`,
			{ budget: name },
		);
	}
	return value;
}

/** One phase's limits and what its calls used. */
export class PhaseBudget {
	readonly name: string;
	limits: PhaseBudgetLimits;
	calls = 0;
	tokens = 0;
	readonly cost: WorkflowCost = { usd: 0 };

	constructor(name: string, limits: PhaseBudgetLimits) {
		this.name = name;
		this.limits = limits;
	}

	/** Throws `budget_exhausted` naming the phase when one more call would pass its `agentCalls`, or it spent its cap. */
	checkCall(): void {
		const { agentCalls } = this.limits;
		if (agentCalls !== undefined && this.calls >= agentCalls) {
			throw this.#exhausted(`${this.calls} of ${agentCalls} agent calls made`, "agentCalls", agentCalls, this.calls);
		}
		this.checkSpend();
	}

	/** Throws `budget_exhausted` naming the phase once its tokens or dollars are spent. */
	checkSpend(): void {
		const { tokens, costUsd } = this.limits;
		if (tokens !== undefined && this.tokens >= tokens) {
			throw this.#exhausted(`${this.tokens} of ${tokens} tokens spent`, "tokens", tokens, this.tokens);
		}
		if (costUsd !== undefined && this.cost.usd >= costUsd) {
			throw costCapError(
				`Phase \`${this.name}\` cost cap reached: ${usdText(this.cost.usd)} of ${usdText(costUsd)} spent`,
				{ cap: costUsd, cost: this.cost, raise: `Raise it in \`${this.#where("costUsd")}\``, phase: this.name },
			);
		}
	}

	spend(usage: WorkflowTokenUsage | undefined, cost: WorkflowCost | undefined): void {
		if (usage) this.tokens += usage.total;
		addCostInto(this.cost, cost);
	}

	#exhausted(spent: string, field: string, limit: number, used: number): WorkflowError {
		return new WorkflowError(
			"budget_exhausted",
			`Phase \`${this.name}\` budget exhausted: ${spent}. Raise it in \`${this.#where(field)}\``,
			{ details: { phase: this.name, field, limit, spent: used } },
		);
	}

	#where(field: string): string {
		return `phase(${JSON.stringify(this.name)}, { budget: { ${field} } })`;
	}
}

/** The phase budgets of one script, by phase name. */
export class PhaseBudgets {
	readonly #byName = new Map<string, PhaseBudget>();

	/** Sets (or replaces) the limits of phase `name`; what it counted so far stays. */
	set(name: string, limits: PhaseBudgetLimits): void {
		const known = this.#byName.get(name);
		if (known) known.limits = limits;
		else this.#byName.set(name, new PhaseBudget(name, limits));
	}

	get(name: string): PhaseBudget | undefined {
		return this.#byName.get(name);
	}

	/** The budgets of the phases named (a call's phase and the ones enclosing it), then `outer`'s. */
	chain(names: readonly string[], outer: readonly PhaseBudget[]): PhaseBudget[] {
		const found: PhaseBudget[] = [];
		for (const name of names) {
			const budget = this.#byName.get(name);
			if (budget && !found.includes(budget)) found.push(budget);
		}
		for (const budget of outer) if (!found.includes(budget)) found.push(budget);
		return found;
	}
}
