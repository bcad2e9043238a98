/**
 * `context: "fork"`: a child that starts from the session's conversation (the host's `parentConversation`). Where
 * there is none, `fork` is an author error before the child starts and `fork-or-fresh` starts it fresh, said once
 * in the run's log. A call that gives no `context` leaves it to its agent file (the runner reads `context:` there).
 */
import { forkUnavailableError } from "../../errors.ts";
import type { WorkflowAgentCallRef } from "../core/events.ts";
import { NO_PARENT_CONVERSATION } from "../core/parent-conversation.ts";
import { emitLog, type RunContext } from "../core/run-context.ts";
import type { WorkflowAgentRequest } from "../core/types.ts";
import type { AgentCallOptions } from "./options.ts";

/** Runs that already said their `fork-or-fresh` children start fresh. */
const saidFresh = new WeakSet<RunContext>();

/**
 * Throws `fork_unavailable` for a call that must fork where the run has no parent conversation; for
 * `fork-or-fresh` there, says once that such children start fresh.
 */
export function checkFork(run: RunContext, ref: WorkflowAgentCallRef, options: AgentCallOptions): void {
	if (run.host.parentConversation) return;
	if (options.context === "fork") throw forkUnavailableError(`\`${ref.label}\``, NO_PARENT_CONVERSATION);
	if (options.context !== "fork-or-fresh" || saidFresh.has(run)) return;
	saidFresh.add(run);
	emitLog(run, {
		level: "info",
		message: `\`${ref.label}\`: ${NO_PARENT_CONVERSATION}; children with \`context: "fork-or-fresh"\` start fresh`,
		...(ref.phase ? { phase: ref.phase } : {}),
	});
}

/** What the runner is told: `fork` only where there is a conversation to fork; absent leaves it to the agent file. */
export function requestContext(run: RunContext, options: AgentCallOptions): WorkflowAgentRequest["context"] {
	if (options.context === undefined) return undefined;
	if (options.context === "fresh") return "fresh";
	return run.host.parentConversation ? "fork" : "fresh";
}
