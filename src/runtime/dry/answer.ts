/**
 * The answer of one `agent()` call made without a model: a dry run's, and a replay test's for a call its recorded run
 * does not have. A completed child that cost nothing, so the script goes on as it would.
 */
import type { WorkflowAgentRequest, WorkflowAgentResult } from "../core/types.ts";
import { sampleFromSchema } from "./sample.ts";

/** The id prefix of a child that never ran: reports and the plan tell made-up answers by it. */
export const DRY_CHILD_PREFIX = "dry-";

/**
 * One set of stand-in answers: how long open arrays are, and how far enums (and numbers, strings) are turned from
 * the first draw's, so each enum value comes up in some draw.
 */
export interface DryDraw {
	arrays: "fewest" | "typical" | "most";
	shift: number;
}

/** The first draw, and the only one of a replay test: a couple of items per open array. */
export const TYPICAL_DRAW: DryDraw = { arrays: "typical", shift: 0 };

/** A completed result for `request`: a value its schema accepts, else a short text that names the call. */
export function dryAgentResult(request: WorkflowAgentRequest, draw: DryDraw = TYPICAL_DRAW): WorkflowAgentResult {
	const base = {
		id: `${DRY_CHILD_PREFIX}${request.index}`,
		type: request.agentType,
		status: "completed" as const,
		usage: { input: 0, output: 0, total: 0 },
		toolUses: 0,
		durationMs: 0,
	};
	if (request.schema) {
		const value = sampleFromSchema(request.schema, {
			index: seedOf(request.key) + draw.shift,
			label: request.label,
			arrays: draw.arrays,
		});
		return { ...base, structuredOutput: value, result: JSON.stringify(value) };
	}
	return { ...base, result: `[dry run] answer of agent call #${request.index + 1} (${request.label})` };
}

/** How many sample indices a key is spread over: enough that the calls of a fan-out rarely get the same answer. */
const SEED_SPREAD = 10_000;

/**
 * The sample index for a call: a hash of its key (FNV-1a), not its index, which nested workflows running side by
 * side take in the order they reach `agent()`. The same call gets the same answer in every run, and the calls of a
 * fan-out (whose keys differ) get different ones.
 */
export function seedOf(key: string): number {
	let hash = 0x811c9dc5;
	for (let i = 0; i < key.length; i++) {
		hash ^= key.charCodeAt(i);
		hash = Math.imul(hash, 0x01000193);
	}
	return (hash >>> 0) % SEED_SPREAD;
}
