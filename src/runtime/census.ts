/**
 * The failure census and agent counts of a run: every null the script received is recorded with its cause,
 * and the final status follows from them (a run where every agent failed is not "completed").
 */
import { addCostInto } from "./spend/cost.ts";
import type {
	WorkflowAgentCounts,
	WorkflowCost,
	WorkflowFailure,
	WorkflowFallback,
	WorkflowTokenUsage,
	WorkflowToolCounts,
} from "./types.ts";

/** A value a call gave the script that often ends in a TypeError later: `null` (it failed) or text (no schema). */
export interface CallNote {
	/** `agent \`label\`` or `` `parallel()` item 2 ``. */
	what: string;
	filename?: string;
	line?: number;
	column?: number;
	/** Why it failed, for a null. */
	cause?: string;
}

/** Notes kept of each kind: the latest ones are the likely causes. */
const NOTES_KEPT = 20;

/** Counts and failures of one run, shared with its nested workflows. */
export class Census {
	readonly failures: WorkflowFailure[] = [];
	/** Calls a fallback model answered because the model before it met a provider limit. */
	readonly fallbacks: WorkflowFallback[] = [];
	readonly counts: WorkflowAgentCounts = { calls: 0, started: 0, completed: 0, failed: 0, skipped: 0 };
	readonly usage: WorkflowTokenUsage = { input: 0, output: 0, total: 0 };
	/** `tool()` steps: made, replayed from the record, that reported an error, that threw. */
	readonly tools: WorkflowToolCounts = { calls: 0, replayed: 0, errors: 0, failed: 0 };
	/** What this run's children cost. */
	readonly cost: WorkflowCost = { usd: 0 };
	/** What replayed calls cost when they ran; undefined until one is replayed. */
	replayedCost: WorkflowCost | undefined;
	/** Calls the journal answered (counted in `completed` too). */
	replays = 0;
	#refused = 0;
	#abandoned = 0;
	/** Calls that gave the script null, and calls that answered text, latest last (for script-error hints). */
	readonly nulls: CallNote[] = [];
	readonly texts: CallNote[] = [];

	call(): void {
		this.counts.calls++;
	}

	started(): void {
		this.counts.started++;
	}

	completed(usage?: WorkflowTokenUsage, cost?: WorkflowCost): void {
		this.counts.completed++;
		this.addUsage(usage);
		addCostInto(this.cost, cost);
	}

	/** A call the journal answered: its tokens count as in the run that made it; its cost was saved. */
	replayed(usage: WorkflowTokenUsage | undefined, cost: WorkflowCost | undefined): void {
		this.counts.completed++;
		this.replays++;
		this.addUsage(usage);
		this.replayedCost ??= { usd: 0 };
		addCostInto(this.replayedCost, cost);
	}

	/** A call a fallback model answered. */
	fallback(entry: WorkflowFallback): void {
		this.fallbacks.push(entry);
	}

	/** An `agent()` call that resolved to null or threw. `skipped` when it never reached the runner. */
	failed(
		failure: WorkflowFailure,
		options: { skipped: boolean; usage?: WorkflowTokenUsage; cost?: WorkflowCost },
	): void {
		if (options.skipped) this.counts.skipped++;
		else this.counts.failed++;
		this.failures.push(failure);
		this.addUsage(options.usage);
		addCostInto(this.cost, options.cost);
	}

	/** An `agent()` call refused before it was queued (it threw into the script; no failure entry). */
	refused(): void {
		this.counts.skipped++;
		this.#refused++;
	}

	/** Child attempts a runner let go because they did not stop when asked (they may still be running). */
	abandoned(count: number): void {
		this.#abandoned += count;
	}

	/** How many child attempts runners abandoned; the run counts them in `error.details.abandoned`. */
	get abandonedAttempts(): number {
		return this.#abandoned;
	}

	/** A `parallel`/`pipeline` slot that became null. */
	slotFailed(failure: WorkflowFailure): void {
		this.failures.push(failure);
	}

	/** True when agents ran and none of them gave an answer. Refused calls are the script's to handle, not failures. */
	get everyAgentFailed(): boolean {
		const { completed, failed, skipped } = this.counts;
		return completed === 0 && failed + skipped - this.#refused > 0;
	}

	/** Keeps `note` among the latest of its kind. */
	note(kind: "null" | "text", note: CallNote): void {
		const list = kind === "null" ? this.nulls : this.texts;
		list.push(note);
		if (list.length > NOTES_KEPT) list.shift();
	}

	private addUsage(usage: WorkflowTokenUsage | undefined): void {
		if (!usage) return;
		this.usage.input += usage.input;
		this.usage.output += usage.output;
		this.usage.total += usage.total;
	}
}
