/**
 * A replay test's bookkeeping of the recorded journal (which entries the script asked for, which a divergence
 * names) and the words for each divergence: for an agent call, the resume's own miss explanation (nearest
 * recorded call, prompt difference, options, order); for tool and ask lines, which keep only a label, the nearest
 * by label.
 */

import { callNumber } from "../errors.ts";
import type { ToolRef, WorkflowAgentCallRef } from "../runtime/core/events.ts";
import type { WorkflowAgentRequest, WorkflowJournalEntry, WorkflowQuestion } from "../runtime/core/types.ts";
import { callIdentity, differences, nearestEntry, readIdentity, similarity } from "../runtime/index.ts";

/** A call of the script the recorded run has no answer for. */
export interface ReplayDivergence {
	kind: "agent" | "tool" | "ask";
	/** 0-based order among the script's calls of its kind (the explanation's `#` counts from 1). */
	index: number;
	/** The call's label (a question's text for `ask()`). */
	label: string;
	key: string;
	/** The recorded call it most likely is (same label, else the most similar), unmade by the script. */
	nearest?: { key: string; label?: string; index?: number };
	/** What differs from `nearest`, in words (for an agent call: the prompt around its first difference, options, order). */
	differences: string[];
	/** One sentence: the call, the nearest recorded call, what differs, and how it was answered. */
	explanation: string;
}

type CallKind = ReplayDivergence["kind"];

/** Labels at least this alike are "the same call, edited" (as the resume's own miss explanation counts prompts). */
const SIMILAR = 0.5;

/** The kind of call a journal line answered. */
export function kindOf(entry: WorkflowJournalEntry): CallKind {
	return entry.kind === "tool" ? "tool" : entry.kind === "answer" ? "ask" : "agent";
}

/** The recorded journal, and what the test made of it. */
export class Recorded {
	readonly #entries: Map<string, WorkflowJournalEntry>;
	readonly #asked = new Set<string>();
	readonly #named = new Set<string>();

	constructor(entries: readonly WorkflowJournalEntry[]) {
		// The last line of a key wins, as when the journal is loaded for a resume.
		this.#entries = new Map(entries.map((entry) => [entry.key, entry]));
	}

	lookup(key: string): WorkflowJournalEntry | undefined {
		this.#asked.add(key);
		return this.#entries.get(key);
	}

	get(key: string): WorkflowJournalEntry | undefined {
		return this.#entries.get(key);
	}

	/** Recorded calls the script asked for (a divergence whose own key is recorded, e.g. an answer no longer among the choices, included). */
	get hits(): number {
		let count = 0;
		for (const key of this.#asked) if (this.#entries.has(key)) count++;
		return count;
	}

	/** Marks `key` as explained by a divergence: it is not reported again as unused. */
	name(key: string): void {
		this.#named.add(key);
	}

	/** Entries of `kind` in the nested-workflow `scope` that no call asked for and no divergence named yet. */
	unmatched(kind: CallKind, scope: string): WorkflowJournalEntry[] {
		return this.unused().filter((entry) => kindOf(entry) === kind && scopeOf(entry.key) === scope);
	}

	/** Entries no call asked for and no divergence named, in the order written. */
	unused(): WorkflowJournalEntry[] {
		return [...this.#entries.values()].filter((e) => !this.#asked.has(e.key) && !this.#named.has(e.key));
	}
}

/**
 * An `agent()` call with no recorded answer: the nearest recorded call and what differs, as a resume says it. With
 * `schemaErrors`, its own recorded answer was there but broke its schema (the runtime would not replay it).
 */
export function explainAgentMiss(
	recorded: Recorded,
	request: WorkflowAgentRequest,
	schemaErrors?: string,
): ReplayDivergence {
	// Its own key recorded, yet the call ran: the runtime found the answer unusable (its schema, its shape, its size).
	const own = recorded.get(request.key);
	if (own && kindOf(own) === "agent") {
		const why =
			schemaErrors !== undefined
				? `its recorded answer breaks its schema: ${schemaErrors}`
				: `its recorded answer is not one agent() could return here (${request.schema !== undefined ? "a schema call's answer is an object, " : ""}within the answer size limit)`;
		return divergence(recorded, {
			kind: "agent",
			index: request.index,
			label: request.label,
			key: request.key,
			nearest: own,
			nearestIndex: request.index,
			unusable: true,
			differences: [why],
			answered: "It was answered as in a dry run.",
		});
	}
	const identity = callIdentity(
		{
			prompt: request.prompt,
			agentType: request.agentType,
			...(request.schema !== undefined ? { schema: request.schema } : {}),
			...(request.model !== undefined ? { model: request.model } : {}),
			...(request.thinking !== undefined ? { thinking: request.thinking } : {}),
			...(request.tools !== undefined ? { tools: request.tools } : {}),
			...(request.isolation !== undefined ? { isolation: request.isolation } : {}),
		},
		request.index,
	);
	const ref: WorkflowAgentCallRef = {
		key: request.key,
		index: request.index,
		label: request.label,
		agentType: request.agentType,
	};
	const nearest = nearestEntry(recorded.unmatched("agent", scopeOf(request.key)), ref, identity);
	const then = nearest ? readIdentity(nearest.identity) : undefined;
	const diffs = !nearest
		? []
		: !then
			? ["the journal is from an older version that did not record what a call was made of: what differs is unknown"]
			: differences(then, identity);
	if (then && then.index !== identity.index) {
		diffs.push(
			`its order differs: it was agent call ${callNumber(then.index)} then and is ${callNumber(identity.index)} now`,
		);
	}
	return divergence(recorded, {
		kind: "agent",
		index: request.index,
		label: request.label,
		key: request.key,
		nearest,
		...(then ? { nearestIndex: then.index } : {}),
		differences: diffs,
		answered: "It was answered as in a dry run.",
	});
}

/** A `tool()` call with no recorded result. A tool line keeps its label only: the nearest is by label. */
export function explainToolMiss(recorded: Recorded, ref: ToolRef): ReplayDivergence {
	const nearest = nearestByLabel(recorded.unmatched("tool", scopeOf(ref.key)), ref.label);
	const diffs = !nearest
		? []
		: nearest.label === ref.label
			? ["its parameters, or how many times it is made, differ (a tool line keeps only its label)"]
			: [`its label was \`${nearest.label}\` and is \`${ref.label}\``];
	return divergence(recorded, {
		kind: "tool",
		index: ref.index,
		label: ref.label,
		key: ref.key,
		nearest,
		differences: diffs,
		answered: "The tool did not run: the script got a placeholder.",
	});
}

/** An `ask()` with no usable recorded answer: its recorded answer is no longer a choice, or the question changed. */
export function explainAskMiss(recorded: Recorded, question: WorkflowQuestion): ReplayDivergence {
	const own = recorded.get(question.key);
	const answered = `It was answered ${JSON.stringify(question.default ?? question.choices?.[0] ?? "")} (its default, else its first choice).`;
	if (own?.kind === "answer") {
		return divergence(recorded, {
			kind: "ask",
			index: question.index,
			label: question.question,
			key: question.key,
			nearest: own,
			differences: [
				`its recorded answer ${JSON.stringify(own.value)} is not among its choices now (${(question.choices ?? []).map((c) => JSON.stringify(c)).join(", ")})`,
			],
			answered,
		});
	}
	const nearest = nearestByLabel(recorded.unmatched("ask", scopeOf(question.key)), question.question);
	return divergence(recorded, {
		kind: "ask",
		index: question.index,
		label: question.question,
		key: question.key,
		nearest,
		differences: nearest ? [`its question or choices differ from the recorded \`${nearest.label ?? "?"}\``] : [],
		answered,
	});
}

interface DivergenceParts {
	kind: CallKind;
	index: number;
	label: string;
	key: string;
	nearest: WorkflowJournalEntry | undefined;
	nearestIndex?: number;
	differences: string[];
	/** How the script was answered instead, as a sentence. */
	answered: string;
	/** Its own recorded answer is there but could not be used (`nearest` is it). */
	unusable?: boolean;
}

function divergence(recorded: Recorded, parts: DivergenceParts): ReplayDivergence {
	const { kind, index, label, key, nearest } = parts;
	// Numbered from #1 in words, as every view numbers calls; `index` stays 0-based in the JSON.
	const call = `${kind}() ${callNumber(index)} \`${label}\``;
	let why: string;
	if (nearest && parts.unusable) {
		recorded.name(nearest.key);
		why = parts.differences.join("; ");
	} else if (nearest) {
		recorded.name(nearest.key);
		const at = parts.nearestIndex !== undefined ? ` (${callNumber(parts.nearestIndex)} then)` : "";
		why = `the nearest recorded call, \`${nearest.label ?? "?"}\`${at}, ${parts.differences.join("; ")}`;
	} else {
		why = `the recorded run made no ${kind}() call like it (a new call)`;
	}
	return {
		kind,
		index,
		label,
		key,
		...(nearest
			? {
					nearest: {
						key: nearest.key,
						...(nearest.label !== undefined ? { label: nearest.label } : {}),
						...(parts.nearestIndex !== undefined ? { index: parts.nearestIndex } : {}),
					},
				}
			: {}),
		differences: parts.differences,
		explanation: `${call} has no ${parts.unusable ? "usable " : ""}recorded answer: ${why}. ${parts.answered}`,
	};
}

/** The entry with the same label, else the one whose label is most like `label` (at least `SIMILAR`). */
function nearestByLabel(entries: WorkflowJournalEntry[], label: string): WorkflowJournalEntry | undefined {
	let best: { entry: WorkflowJournalEntry; score: number } | undefined;
	for (const entry of entries) {
		if (typeof entry.label !== "string") continue;
		// An ask line's label is its question cut short with "…": compare that much of the question.
		const written = entry.label.replace(/…$/, "");
		const score = entry.label === label ? 2 : similarity(written, label.slice(0, Math.max(written.length, 1)));
		if (score >= SIMILAR && (!best || score > best.score)) best = { entry, score };
	}
	return best?.entry;
}

/** The nested-workflow scope of a key: everything before its last "/" ("" at the top level). */
function scopeOf(key: string): string {
	const slash = key.lastIndexOf("/");
	return slash < 0 ? "" : key.slice(0, slash);
}
