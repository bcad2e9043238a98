/**
 * The answer of one `agent()` call made without a model: a dry run's, and a replay test's for a call its recorded run
 * does not have. A completed child that cost nothing, so the script goes on as it would.
 */
import type { WorkflowAgentRequest, WorkflowAgentResult } from "../core/types.ts";
import { sampleFromSchema } from "./sample.ts";

/** The id prefix of a child that never ran: reports and the plan tell made-up answers by it. */
export const DRY_CHILD_PREFIX = "dry-";

/** A completed result for `request`: a value its schema accepts, else a short text that names the call. */
export function dryAgentResult(request: WorkflowAgentRequest): WorkflowAgentResult {
	const base = {
		id: `${DRY_CHILD_PREFIX}${request.index}`,
		type: request.agentType,
		status: "completed" as const,
		usage: { input: 0, output: 0, total: 0 },
		toolUses: 0,
		durationMs: 0,
	};
	if (request.schema) {
		const value = sampleFromSchema(request.schema, { index: request.index, label: request.label });
		return { ...base, structuredOutput: value, result: JSON.stringify(value) };
	}
	return { ...base, result: `[dry run] answer of agent call #${request.index + 1} (${request.label})` };
}
