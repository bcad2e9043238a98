/**
 * Why a resumed call did not replay. A call replays only when its identity is byte for byte the recorded one, and
 * an edit that rewrote a prompt from memory changes it silently; so when a call misses the journal while recorded
 * calls stay unmatched, the run's log says so at once: the nearest unmatched recorded call (same label, else same
 * agent type and the most similar prompt) and what differs. One warning per missed call, a bounded number per run.
 * Journal lines the host could not read are said once at the start; a call that may have been one of them is
 * never blamed on another recorded call.
 */
import { hash } from "node:crypto";
import { callNumber } from "../../errors.ts";
import type { WorkflowAgentCallRef } from "../core/events.ts";
import type { WorkflowCallIdentity } from "../core/identity.ts";
import { stableJson } from "../core/json.ts";
import { emitLog, type RunContext } from "../core/run-context.ts";
import type { JsonSchema, WorkflowJournalEntry, WorkflowJournalSkippedLine } from "../core/types.ts";
import { schemaDifference, schemaOutline } from "./schema-outline.ts";

/** Characters of a prompt a journal line keeps, to say where an edited prompt differs. */
export const IDENTITY_PROMPT_CHARS = 200;

/** Warnings a run gives about missed replays before it only counts them; and misses it looks into at all. */
export const MISS_LIMITS = { warnings: 10, examined: 200 };

/** Unreadable journal lines a warning names before it only counts them. */
const SKIPPED_NAMED = 5;

/** Prompts at least this alike (shared start and end over the longer head) are "the same call, edited". */
const SIMILAR = 0.5;

/** What `identity` is made of, as `agent()` got it. */
export interface CallIdentityInput {
	prompt: string;
	agentType: string;
	schema?: JsonSchema;
	model?: string;
	thinking?: string;
	tools?: string[];
	isolation?: string;
	context?: string;
}

/** The identity parts a journal line records for a call. */
export function callIdentity(input: CallIdentityInput, index: number): WorkflowCallIdentity {
	return {
		prompt: digest(input.prompt),
		promptHead: input.prompt.slice(0, IDENTITY_PROMPT_CHARS),
		promptChars: input.prompt.length,
		agentType: input.agentType,
		...(input.schema !== undefined
			? { schema: digest(stableJson(input.schema)), schemaOutline: schemaOutline(input.schema) }
			: {}),
		...(input.model !== undefined ? { model: input.model } : {}),
		...(input.thinking !== undefined ? { thinking: input.thinking } : {}),
		...(input.tools !== undefined ? { tools: digest(stableJson(input.tools)) } : {}),
		...(input.isolation !== undefined ? { isolation: input.isolation } : {}),
		...(input.context !== undefined ? { context: input.context } : {}),
		index,
	};
}

/** What one run knows about its journal's entries: the keys its calls asked for and the entries already named. */
interface MissState {
	/** True when the journal held entries before the run's first call: a resume. */
	resumed: boolean;
	asked: Set<string>;
	named: Set<string>;
	warnings: number;
	examined: number;
}

const states = new WeakMap<RunContext, MissState>();

/** The run's state, made at its first lookup, when the journal holds only what earlier runs recorded. */
function stateOf(run: RunContext): MissState {
	let state = states.get(run);
	if (!state) {
		const resumed = listEntries(run).length > 0 || skippedLines(run).length > 0;
		state = { resumed, asked: new Set(), named: new Set(), warnings: 0, examined: 0 };
		states.set(run, state);
	}
	return state;
}

/** The journal's entries, or none when it cannot list them (or fails to). */
function listEntries(run: RunContext): readonly WorkflowJournalEntry[] {
	const journal = run.host.journal;
	if (typeof journal?.list !== "function") return [];
	try {
		const entries = journal.list();
		return Array.isArray(entries) ? entries : [];
	} catch {
		return [];
	}
}

/**
 * The lines the journal could not read whose calls have no entry (a line of a key recorded again since is not
 * missed); none when it cannot say (or fails to).
 */
function skippedLines(run: RunContext): readonly WorkflowJournalSkippedLine[] {
	const journal = run.host.journal;
	if (typeof journal?.skipped !== "function") return [];
	try {
		const lines = journal.skipped();
		if (!Array.isArray(lines)) return [];
		return lines.filter(
			(line) =>
				typeof line?.where === "string" &&
				typeof line.reason === "string" &&
				(typeof line.key !== "string" || journal.lookup(line.key) === undefined),
		);
	} catch {
		return [];
	}
}

/** "2 journal lines" ("1 journal line"). */
function linesCount(lines: readonly unknown[]): string {
	return `${lines.length} journal line${lines.length === 1 ? "" : "s"}`;
}

/** Where the first few lines are (`path:line`, with why when `why`), then how many more. */
function linesList(lines: readonly WorkflowJournalSkippedLine[], why: boolean): string {
	const named = lines.slice(0, SKIPPED_NAMED).map((line) => (why ? `${line.where}: ${line.reason}` : line.where));
	const more = lines.length > SKIPPED_NAMED ? `${why ? ";" : ","} and ${lines.length - SKIPPED_NAMED} more` : "";
	return `${named.join(why ? "; " : ", ")}${more}`;
}

/** Once, as a resume starts: the journal lines it could not read, whose calls run again. */
export function warnSkippedLines(run: RunContext): void {
	const lines = skippedLines(run);
	if (lines.length === 0) return;
	const one = lines.length === 1;
	emitLog(run, {
		level: "warn",
		message: `Resume: ${linesCount(lines)} could not be read: ${linesList(lines, true)}. The call${one ? " it recorded runs" : "s they recorded run"} again and ${one ? "is" : "are"} recorded anew; a bad line still in the file can be fixed or deleted by hand.`,
	});
}

/** Notes that a call asked the journal for `key` (hit or miss): its entry, if any, is matched from now on. */
export function noteLookup(run: RunContext, key: string): void {
	if (run.host.journal) stateOf(run).asked.add(key);
}

/**
 * A call missed the journal: when a recorded call of its scope is still unmatched and near it, warns in the run's
 * log which one and what differs. Needs a journal that can `list()` its entries; silent for a fresh run.
 */
export function explainMiss(run: RunContext, ref: WorkflowAgentCallRef, identity: WorkflowCallIdentity): void {
	if (!run.host.journal) return;
	const state = stateOf(run);
	if (!state.resumed || state.warnings >= MISS_LIMITS.warnings || state.examined >= MISS_LIMITS.examined) return;
	state.examined++;
	const unreadable = unreadableExplanation(run, ref.key);
	if (unreadable) {
		state.warnings++;
		warnMiss(run, ref, state, unreadable);
		return;
	}
	const scope = scopeOf(ref.key);
	const unmatched = listEntries(run).filter(
		(entry) =>
			typeof entry?.key === "string" &&
			!state.asked.has(entry.key) &&
			!state.named.has(entry.key) &&
			scopeOf(entry.key) === scope,
	);
	const nearest = nearestEntry(unmatched, ref, identity);
	if (!nearest) return;
	state.named.add(nearest.key);
	state.warnings++;
	const recorded = readIdentity(nearest.identity);
	const name = `\`${nearest.label ?? "?"}\`${recorded ? ` (${callNumber(recorded.index)} then)` : ""}`;
	const why = recorded
		? `${differences(recorded, identity).join("; ")}`
		: "the journal is from an older version that did not record what a call was made of, so what differs is unknown";
	warnMiss(
		run,
		ref,
		state,
		`the nearest recorded call not matched so far, ${name}, ${why}. A call replays only when its prompt, agent type, schema, model, thinking, tools and isolation are byte for byte the recorded ones.`,
	);
}

/**
 * Why `key` missed when that may be an unreadable line: its own (the line's key is this call's), or any whose key
 * is lost. Undefined when every such line names another call.
 */
function unreadableExplanation(run: RunContext, key: string): string | undefined {
	const lines = skippedLines(run);
	const own = lines.find((line) => line.key === key);
	if (own) return `its journal line, ${own.where}, could not be read (${own.reason}).`;
	const unknown = lines.filter((line) => line.key === undefined);
	if (unknown.length === 0) return undefined;
	return `${linesCount(unknown)} could not be read (${linesList(unknown, false)}); this call may have been ${unknown.length === 1 ? "that line" : "one of them"}.`;
}

function warnMiss(run: RunContext, ref: WorkflowAgentCallRef, state: MissState, why: string): void {
	const more =
		state.warnings === MISS_LIMITS.warnings
			? ` Further misses are not listed (at most ${MISS_LIMITS.warnings}).`
			: "";
	emitLog(run, {
		level: "warn",
		message: `Resume: \`${ref.label}\` (${callNumber(ref.index)}) runs again instead of replaying: ${why}${more}`,
		...(ref.phase ? { phase: ref.phase } : {}),
	});
}

/** Same label first; then, among the same agent type, the most similar prompt (above `SIMILAR`); ties by index. */
export function nearestEntry(
	entries: WorkflowJournalEntry[],
	ref: WorkflowAgentCallRef,
	identity: WorkflowCallIdentity,
): WorkflowJournalEntry | undefined {
	let best: { entry: WorkflowJournalEntry; score: number; distance: number } | undefined;
	for (const entry of entries) {
		const recorded = readIdentity(entry.identity);
		const distance = recorded ? Math.abs(recorded.index - identity.index) : Number.MAX_SAFE_INTEGER;
		let score: number;
		if (entry.label !== undefined && entry.label === ref.label) score = 2;
		else if (!recorded) continue;
		else if (recorded.prompt === identity.prompt) score = 1.5;
		else if (recorded.agentType !== identity.agentType) continue;
		else score = similarity(recorded.promptHead, identity.promptHead);
		if (score < SIMILAR) continue;
		if (!best || score > best.score || (score === best.score && distance < best.distance)) {
			best = { entry, score, distance };
		}
	}
	return best?.entry;
}

/** What differs between a recorded call and this one, in words. */
export function differences(recorded: WorkflowCallIdentity, now: WorkflowCallIdentity): string[] {
	const out: string[] = [];
	if (recorded.prompt !== now.prompt) out.push(promptDifference(recorded, now));
	const named = (what: string, a: string | undefined, b: string | undefined) => {
		if (a !== b)
			out.push(
				`${what} was ${a === undefined ? "not set" : `\`${a}\``} and is ${b === undefined ? "not set" : `\`${b}\``}`,
			);
	};
	named("its agent type", recorded.agentType, now.agentType);
	if (recorded.schema !== now.schema) {
		out.push(
			now.schema === undefined
				? "it had a schema and has none"
				: recorded.schema === undefined
					? "it had no schema and has one"
					: schemaDifference(recorded.schemaOutline, now.schemaOutline),
		);
	}
	named("its model", recorded.model, now.model);
	named("its thinking", recorded.thinking, now.thinking);
	if (recorded.tools !== now.tools) out.push("its tools differ");
	named("its isolation", recorded.isolation, now.isolation);
	named("its context", recorded.context, now.context);
	// Same identity, and still no match: the script makes this call more times than the recorded run did.
	if (out.length === 0) out.push("is the same call, made once more than in the recorded run (its occurrence differs)");
	return out;
}

/** "has another prompt from character 57 (recorded: "…three notes", now: "…3 notes")". */
function promptDifference(recorded: WorkflowCallIdentity, now: WorkflowCallIdentity): string {
	const a = recorded.promptHead;
	const b = now.promptHead;
	let at = 0;
	while (at < a.length && at < b.length && a[at] === b[at]) at++;
	const lengths =
		recorded.promptChars !== now.promptChars
			? ` (${recorded.promptChars} characters then, ${now.promptChars} now)`
			: "";
	if (at >= Math.min(a.length, b.length) && a.length === b.length) {
		return `has another prompt after its first ${a.length} characters${lengths}`;
	}
	// From a little before the first difference (the start, when that is close) to a little after it.
	const start = at > 30 ? at - 20 : 0;
	const around = (text: string) =>
		JSON.stringify(`${start > 0 ? "…" : ""}${text.slice(start, at + 30)}${text.length > at + 30 ? "…" : ""}`);
	return `has another prompt from character ${at + 1}: recorded ${around(a)}, now ${around(b)}${lengths}`;
}

/** Shared start plus shared end over the longer text: 1 for equal texts, 0 for nothing in common at either end. */
export function similarity(a: string, b: string): number {
	const longest = Math.max(a.length, b.length);
	if (longest === 0) return 1;
	let start = 0;
	while (start < a.length && start < b.length && a[start] === b[start]) start++;
	let end = 0;
	while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
	return (start + end) / longest;
}

/** A journal line's identity when it has the shape this version writes (a hand-edited one is ignored). */
export function readIdentity(value: unknown): WorkflowCallIdentity | undefined {
	if (typeof value !== "object" || value === null) return undefined;
	const identity = value as Record<string, unknown>;
	const ok =
		typeof identity.prompt === "string" &&
		typeof identity.promptHead === "string" &&
		typeof identity.promptChars === "number" &&
		typeof identity.agentType === "string" &&
		typeof identity.index === "number";
	return ok ? (value as WorkflowCallIdentity) : undefined;
}

/** The nested-workflow scope of a key: everything before its last "/" ("" at the top level). */
function scopeOf(key: string): string {
	const slash = key.lastIndexOf("/");
	return slash < 0 ? "" : key.slice(0, slash);
}

function digest(text: string): string {
	return hash("sha256", text).slice(0, 16);
}
