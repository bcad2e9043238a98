/**
 * The failure census and agent counts of a run: every null the script received is recorded with its cause,
 * and the final status follows from them (a run where every agent failed is not "completed"): `assembleRunResult`
 * turns what a run ended with into its result.
 */
import { isAbsolute, relative } from "node:path";
import { runResultError, WorkflowError } from "../../errors.ts";
import { addCostInto } from "./cost.ts";
import type {
	JsonValue,
	WorkflowAgentCounts,
	WorkflowCost,
	WorkflowCutOff,
	WorkflowFailure,
	WorkflowFallback,
	WorkflowMeta,
	WorkflowNameMatch,
	WorkflowRunResult,
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
/** In the every-agent-failed message: causes named (the rest are counted), call sites per cause, a cause's length. */
const CAUSES_SHOWN = 3;
const SITES_SHOWN = 3;
const CAUSE_CHARS = 200;

/** Counts and failures of one run, shared with its nested workflows. */
export class Census {
	readonly failures: WorkflowFailure[] = [];
	/** Calls a fallback model answered because the model before it met a provider limit. */
	readonly fallbacks: WorkflowFallback[] = [];
	/** Names read as others (a Claude Code model name, a tier, a plugin-scoped agent type), one entry per pair. */
	readonly matches: WorkflowNameMatch[] = [];
	readonly counts: WorkflowAgentCounts = { calls: 0, started: 0, completed: 0, failed: 0, skipped: 0 };
	readonly usage: WorkflowTokenUsage = { input: 0, output: 0, total: 0 };
	/** `tool()` steps: made, replayed from the record, that reported an error, that threw. */
	readonly tools: WorkflowToolCounts = { calls: 0, replayed: 0, errors: 0, failed: 0 };
	/** What this run's children cost. */
	readonly cost: WorkflowCost = { usd: 0 };
	/** What replayed calls cost when they ran; undefined until one is replayed. */
	replayedCost: WorkflowCost | undefined;
	/** Tokens continued children did not pay again; see `continued`. */
	continuedTokens = 0;
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

	/**
	 * A call the journal answered: started and completed, and counted apart so a resume can say what ran. Its tokens
	 * count as in the run that made it; its cost was saved (it adds to `replayedCost`, not to what this run spent).
	 */
	replayed(usage: WorkflowTokenUsage | undefined, cost: WorkflowCost | undefined): void {
		this.started();
		this.completed(usage);
		this.counts.replayed = (this.counts.replayed ?? 0) + 1;
		this.replayedCost ??= { usd: 0 };
		addCostInto(this.replayedCost, cost);
	}

	/** A child that went on from an interrupted attempt's finished turns, which took `savedTokens`. */
	continued(savedTokens: number): void {
		this.counts.continued = (this.counts.continued ?? 0) + 1;
		this.continuedTokens += savedTokens;
	}

	/** A name one call used as another; true the first time this pair is seen (the caller says so once). */
	match(entry: Omit<WorkflowNameMatch, "calls">): boolean {
		const same = this.matches.find(
			(m) => m.kind === entry.kind && m.written === entry.written && m.resolved === entry.resolved,
		);
		if (same) {
			same.calls++;
			return false;
		}
		this.matches.push({ ...entry, calls: 1 });
		return true;
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

	/**
	 * An `agent()` call refused before it was queued for the script's own fault or a limit (it threw into the script;
	 * no failure entry). One a provider's refusal stopped is a skipped failure instead (`failed`), as queued ones are.
	 */
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

	/**
	 * The error of a run in which every agent failed: each cause (most common first) with how many calls it took and
	 * where they were made (`line:column` in `filename`, the top-level script; `file:line:column` in another, its path
	 * relative to `cwd`), so the message says why without reading `failures`. Bounded: three causes of 200
	 * characters, three places each.
	 */
	everyAgentFailedError(filename: string, cwd: string): WorkflowError {
		const { failed, skipped, calls } = this.counts;
		const groups = new Map<string, { count: number; sites: string[]; first?: { line: number; column: number } }>();
		for (const failure of this.failures) {
			if (failure.kind !== "agent") continue;
			const cause = causeText(failure.cause);
			const group = groups.get(cause) ?? { count: 0, sites: [] };
			group.count++;
			if (failure.line !== undefined && failure.column !== undefined) {
				const file = failure.filename === filename ? "" : `${shortPath(failure.filename, cwd)}:`;
				const site = `${file}${failure.line}:${failure.column}`;
				if (!group.sites.includes(site)) group.sites.push(site);
				if (failure.filename === filename) group.first ??= { line: failure.line, column: failure.column };
			}
			groups.set(cause, group);
		}
		const total = [...groups.values()].reduce((sum, group) => sum + group.count, 0);
		const causes = [...groups.entries()]
			.map(([cause, group]) => ({ cause, ...group }))
			.sort((a, b) => b.count - a.count);
		const refused = total < calls ? " that were not refused" : "";
		const subject =
			total === 1
				? `The only \`agent()\` call${refused} failed`
				: `${total === 2 ? "Both" : `All ${total}`} \`agent()\` calls${refused} failed`;
		// Whether the message leaves something out that `failures` holds.
		let cut = causes.some((group) => group.sites.length > SITES_SHOWN || group.cause.endsWith("…"));
		const [only] = causes;
		let message: string;
		let location: { line: number; column: number } | undefined;
		if (!only) {
			// Not reached: a failed or skipped call always has its entry; said plainly all the same.
			message = `Every \`agent()\` call failed (${failed + skipped} of ${calls})`;
		} else if (causes.length === 1) {
			// One cause at one place in this file: the place is the error's position, said at the end as everywhere.
			location = only.sites.length === 1 ? only.first : undefined;
			const where = location || only.sites.length === 0 ? "" : ` at ${places(only.sites)}`;
			message = `${subject}${where}: ${only.cause}`;
		} else {
			const shown = causes.slice(0, CAUSES_SHOWN).map((group) => {
				const where = group.sites.length > 0 ? ` at ${places(group.sites)}` : "";
				return `${group.count}${where}: ${group.cause}`;
			});
			const hidden = causes.slice(CAUSES_SHOWN).reduce((sum, group) => sum + group.count, 0);
			const more = hidden > 0 ? `; and ${hidden} more with ${causes.length - CAUSES_SHOWN} other cause(s)` : "";
			cut ||= hidden > 0;
			message = `${subject}: ${shown.join("; ")}${more}`;
		}
		return new WorkflowError("agents_failed", cut ? `${message}. Each call's cause is in \`failures\`` : message, {
			...(location ? { location } : {}),
			details: {
				failed,
				skipped,
				calls,
				causes: causes
					.slice(0, CAUSES_SHOWN)
					.map((group) => ({ cause: group.cause, count: group.count, sites: group.sites.slice(0, SITES_SHOWN) })),
			},
		});
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

/** Everything a run's result is made of, once the script ended and the run stopped waiting. */
export interface RunFacts {
	/** The header, once read. */
	meta?: WorkflowMeta;
	/** What the script returned, when it returned within the cap. */
	value?: JsonValue;
	/** Why the script failed or was stopped, or that it returned before its calls ended. */
	error?: WorkflowError;
	/** Runner calls that had not settled when the run stopped waiting for them. */
	pending: number;
	census: Census;
	droppedLogs: number;
	cutOff: WorkflowCutOff[];
	providerWaits?: { count: number; totalMs: number };
	/** The top-level script's file and the run's folder, for the every-agent-failed message. */
	filename: string;
	cwd: string;
	durationMs: number;
}

/** The run's result: its status, its value when it still counts, the error with what was abandoned, and the tallies. */
export function assembleRunResult(facts: RunFacts): WorkflowRunResult {
	const { census, value, pending } = facts;
	let error = facts.error;
	if (!error && pending > 0) {
		error = new WorkflowError("internal", `${pending} agent runner call(s) ignored abort and were abandoned`);
	}
	if (!error && census.everyAgentFailed) error = census.everyAgentFailedError(facts.filename, facts.cwd);
	// Runner calls still running, and child attempts runners let go, are counted whatever else went wrong: a script
	// that failed or left work running may also have left these. (Abandoned attempts alone do not fail a run: their
	// calls ended like any stopped child's, and the census or the log says what was let go.)
	const abandoned = pending + census.abandonedAttempts;
	if (error && abandoned > 0) {
		error = new WorkflowError(error.code, error.message, {
			...(error.location ? { location: error.location } : {}),
			...(error.scriptStack ? { scriptStack: error.scriptStack } : {}),
			details: { ...error.details, abandoned },
		});
	}
	// A person who declined a large fan-out stopped the run, as Esc would have; a provider limit that outlasted the
	// run's wait bound stops it too: nothing failed, it can resume.
	const stoppedBy =
		error?.code === "cancelled" ||
		error?.code === "fanout_declined" ||
		error?.code === "provider_limit" ||
		error?.code === "cost_cap";
	const status: WorkflowRunResult["status"] = !error ? "completed" : stoppedBy ? "stopped" : "failed";
	// A run failed only because every agent failed, or because it returned before its calls ended, still returns
	// what the script built.
	const keepValue = value !== undefined && (!error || error.code === "agents_failed" || error.code === "not_awaited");
	return {
		status,
		...(keepValue ? { value } : {}),
		...(error ? { error: runResultError(error) } : {}),
		...(facts.meta ? { meta: facts.meta } : {}),
		failures: census.failures,
		counts: census.counts,
		...(census.tools.calls > 0 ? { tools: census.tools } : {}),
		usage: census.usage,
		cost: census.cost,
		...(census.replayedCost ? { replayedCost: census.replayedCost } : {}),
		...(census.counts.continued ? { continuedTokens: census.continuedTokens } : {}),
		droppedLogs: facts.droppedLogs,
		...(facts.cutOff.length > 0 ? { cutOff: facts.cutOff } : {}),
		...(census.fallbacks.length > 0 ? { fallbacks: census.fallbacks } : {}),
		...(census.matches.length > 0 ? { matches: census.matches } : {}),
		...(facts.providerWaits ? { providerWaits: facts.providerWaits } : {}),
		durationMs: facts.durationMs,
	};
}

/** A cause on one line, cut to `CAUSE_CHARS`, without a closing period (the message adds its own punctuation). */
function causeText(cause: string): string {
	const line = cause.replace(/\s+/g, " ").trim().replace(/\.$/, "");
	return line.length > CAUSE_CHARS ? `${line.slice(0, CAUSE_CHARS - 1)}…` : line;
}

/** "4:30", "4:30, 5:2 and 7:12", "4:30, 5:2, 7:12 and 2 more places". */
function places(sites: string[]): string {
	if (sites.length === 1) return sites[0] as string;
	if (sites.length <= SITES_SHOWN) return `${sites.slice(0, -1).join(", ")} and ${sites.at(-1)}`;
	return `${sites.slice(0, SITES_SHOWN).join(", ")} and ${sites.length - SITES_SHOWN} more places`;
}

/** A nested workflow's file as a person wrote it: relative to the run's cwd when inside it. */
function shortPath(file: string | undefined, cwd: string): string {
	if (file === undefined || !isAbsolute(file)) return file ?? "";
	const inside = relative(cwd, file);
	return inside.startsWith("..") || isAbsolute(inside) ? file : inside;
}
