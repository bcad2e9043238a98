/**
 * A call's answer in the run's journal: whether an entry can stand in for the call (replay) and writing one once the
 * call has its value, before the script sees it.
 */
import { callNumber, errorMessage } from "../../errors.ts";
import { readCost } from "../core/cost.ts";
import type { WorkflowAgentCallRef } from "../core/events.ts";
import { assertJsonValue } from "../core/json.ts";
import { emitLog, type RunContext } from "../core/run-context.ts";
import type { JsonValue, WorkflowCallIdentity, WorkflowJournalEntry } from "../core/types.ts";
import type { CompiledSchema } from "../schema/session.ts";
import type { PhaseBudget } from "../spend/phase-budget.ts";
import { readTranscripts, readUsage } from "./attempt.ts";
import { preview } from "./preview.ts";
import { noteLookup } from "./replay-miss.ts";

/**
 * The journal's entry for `key`, when it can stand in for the call: a JSON value that fits the boundary (an object
 * for a schema call). Anything else, from a journal edited by hand, is ignored and the call runs.
 */
export function replayable(run: RunContext, key: string, hasSchema: boolean): WorkflowJournalEntry | undefined {
	noteLookup(run, key);
	const entry = run.host.journal?.lookup(key);
	try {
		if (entry === undefined || entry === null || typeof entry !== "object") return undefined;
		// A person's answer to `ask()` is never an agent's value, even under a key that (by hand-editing) matches.
		if (entry.kind !== undefined) return undefined;
		const value = assertJsonValue(entry.value, "journal value");
		if (hasSchema && (value === null || typeof value !== "object" || Array.isArray(value))) return undefined;
		if (Buffer.byteLength(JSON.stringify(value)) > run.limits.maxValueBytes) return undefined;
		const usage = readUsage(entry.usage);
		const cost = readCost(entry.cost);
		return {
			key,
			value,
			...(usage ? { usage } : {}),
			...(cost ? { cost } : {}),
			...(typeof entry.model === "string" ? { model: entry.model } : {}),
			...(typeof entry.agentId === "string" ? { agentId: entry.agentId } : {}),
			...readTranscripts(entry.transcripts),
		};
	} catch {
		return undefined;
	}
}

/** What a log line says of a recorded answer that breaks its call's schema (`data` of its warning): a host reads it. */
export interface ReplaySchemaMiss {
	replaySchemaMiss: { key: string; errors: string };
}

/**
 * `entry` when its value passes the call's `schema` (checked in the schema worker, as an answer is): an agent never
 * returns one that does not, so a journal edited by hand (or a cassette) cannot hand one to the script. Else
 * undefined, with a warning saying what in the answer broke which part of the schema: the call runs again.
 */
export async function fitsSchema(
	run: RunContext,
	ref: WorkflowAgentCallRef,
	entry: WorkflowJournalEntry | undefined,
	schema: CompiledSchema | undefined,
): Promise<WorkflowJournalEntry | undefined> {
	if (!entry || !schema) return entry;
	let errors: string;
	try {
		const checked = await schema.validate(entry.value);
		if (checked.ok) return entry;
		errors = checked.errors;
	} catch (error) {
		errors = `it could not be checked (${errorMessage(error)})`;
	}
	const data: ReplaySchemaMiss = { replaySchemaMiss: { key: ref.key, errors } };
	emitLog(run, {
		level: "warn",
		message: `Resume: \`${ref.label}\` (${callNumber(ref.index)}) runs again instead of replaying: its recorded answer breaks its schema: ${errors}`,
		data: data as unknown as JsonValue,
		...(ref.phase ? { phase: ref.phase } : {}),
	});
	return undefined;
}

/**
 * A call the journal holds, with no runner call: counted and charged tokens as in the run that made it (so token
 * budgets move as they did), but it costs no dollars; its event says what it cost when it ran (saved).
 */
export function replay(
	run: RunContext,
	ref: WorkflowAgentCallRef,
	entry: WorkflowJournalEntry,
	budgets: readonly PhaseBudget[],
): JsonValue {
	run.census.replayed(entry.usage, entry.cost);
	if (entry.usage) run.budget.spendTokens(entry.usage.total);
	for (const budget of budgets) budget.spend(entry.usage, undefined);
	run.emit({
		type: "agent_finished",
		...ref,
		...(entry.agentId ? { agentId: entry.agentId } : {}),
		resultPreview: preview(entry.value),
		...(entry.usage ? { usage: entry.usage } : {}),
		...(entry.cost ? { cost: entry.cost } : {}),
		...(entry.model ? { model: entry.model } : {}),
		durationMs: 0,
		attempts: 0,
		cached: true,
		// The conversation of the run that recorded it: a replayed call still links what its child did.
		...(entry.transcripts ? { transcripts: entry.transcripts } : {}),
	});
	return entry.value;
}

/** Records a finished call. A journal that cannot write costs durability, not the answer: the run goes on, warned. */
export async function journal(
	run: RunContext,
	ref: WorkflowAgentCallRef,
	value: JsonValue,
	spent: Pick<WorkflowJournalEntry, "usage" | "cost" | "model" | "agentId" | "transcripts">,
	identity: WorkflowCallIdentity | undefined,
): Promise<void> {
	if (!run.host.journal) return;
	try {
		await run.host.journal.record({
			key: ref.key,
			value,
			...(spent.usage ? { usage: spent.usage } : {}),
			...(spent.cost ? { cost: spent.cost } : {}),
			...(spent.model ? { model: spent.model } : {}),
			...(spent.agentId !== undefined ? { agentId: String(spent.agentId) } : {}),
			label: ref.label,
			agentType: ref.agentType,
			...(ref.phase ? { phase: ref.phase } : {}),
			...(identity ? { identity } : {}),
			...(spent.transcripts ? { transcripts: spent.transcripts } : {}),
		});
	} catch (error) {
		emitLog(run, {
			level: "warn",
			message: `Could not journal the answer of \`${ref.label}\` (${errorMessage(error)}); a resume will run this call again`,
			...(ref.phase ? { phase: ref.phase } : {}),
		});
	}
}
