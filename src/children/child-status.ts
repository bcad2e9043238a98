/**
 * How a child's session ended, mapped to the child's status: the caller's stop, `max_turns`, the last reply's stop
 * reason (a provider error may be a limit to wait out), a missing structured output and an empty answer. Pure.
 */
import type { AssistantMessage } from "@earendil-works/pi-ai";
import type { WorkflowProviderLimit, WorkflowProviderStop } from "../runtime/core/types.ts";
import { providerLimitOf } from "./provider-limit.ts";
import { providerStopOf } from "./provider-stop.ts";
import { STRUCTURED_OUTPUT_TOOL_NAME } from "./structured-output.ts";
import type { TurnLimitState } from "./turn-limit.ts";

/** What decides a child's status once its session has ended. */
export interface SessionEnding {
	/** Why the child's signal stopped it, when it did. */
	stoppedBy?: string;
	/** Where the child stands against its type's `max_turns`, when it has one. */
	turnLimit?: { state: TurnLimitState; maxTurns: number };
	/** The session's last assistant message. */
	last?: AssistantMessage;
	/** The call's structured output: asked for and `submitted`, asked for and `missing`, or not asked for. */
	schema?: "submitted" | "missing";
	/** The child's last reply has text. */
	answered: boolean;
}

/** The child's status, and the warnings its ending adds (in order). */
export interface ChildStatus {
	status: "completed" | "failed" | "stopped";
	error?: string;
	providerLimit?: WorkflowProviderLimit;
	providerStop?: WorkflowProviderStop;
	warnings: string[];
}

/** The status `ending` gives the child; `now` is the clock for a provider limit's reset time. */
export function childStatus(ending: SessionEnding, now = Date.now()): ChildStatus {
	const { turnLimit, last } = ending;
	const warnings: string[] = [];
	if (ending.stoppedBy !== undefined) return { status: "stopped", error: ending.stoppedBy, warnings };
	if (turnLimit?.state === "exceeded") {
		const error = `stopped after max_turns (${turnLimit.maxTurns}) and the grace turns without a final answer`;
		return { status: "failed", error, warnings };
	}
	if (turnLimit?.state === "steered")
		warnings.push(`reached max_turns (${turnLimit.maxTurns}) and was told to wrap up`);
	if (last?.stopReason === "error") {
		// A rate limit, an overload or a usage limit (after pi's own retries): the run waits instead of failing it.
		const limit = providerLimitOf(last, now);
		// Quota, credit or a refused key: the run stops instead of failing every other child on that provider.
		const stop = limit ? undefined : providerStopOf(last);
		return {
			status: "failed",
			error: last.errorMessage || "provider error",
			...(limit ? { providerLimit: limit } : {}),
			...(stop ? { providerStop: stop } : {}),
			warnings,
		};
	}
	if (last?.stopReason === "aborted") return { status: "stopped", error: last.errorMessage || "aborted", warnings };
	if (last?.stopReason === "length") warnings.push("the answer was cut off at the model's output limit");
	if (ending.schema === "missing") {
		// Still an answer: the runtime looks for JSON in the text and retries the call with feedback.
		warnings.push(`the child did not call ${STRUCTURED_OUTPUT_TOOL_NAME}`);
		return { status: "completed", warnings };
	}
	if (ending.schema === undefined && !ending.answered) return { status: "failed", error: "empty answer", warnings };
	return { status: "completed", warnings };
}
