/**
 * Which conversation a child starts from: fresh, or a copy of the parent session's (`context: "fork"`, by its call
 * or its agent file's `context:`). The call's word wins over the file's; a child that must fork where the runner has
 * no parent conversation (a queue worker, the command line) is an author error before any session.
 */
import type { AgentTypeConfig } from "../agents/agent-types.ts";
import { forkUnavailableError } from "../errors.ts";
import { NO_PARENT_CONVERSATION } from "../runtime/core/parent-conversation.ts";
import type { WorkflowAgentRequest, WorkflowParentConversation } from "../runtime/core/types.ts";

/** What the runner knows of the parent session: its conversation, or why there is none. */
export interface ForkSource {
	parentConversation?: WorkflowParentConversation;
	/** Why there is no parent conversation, for the error. Default: `NO_PARENT_CONVERSATION`. */
	noParentConversation?: string;
}

/** The entries the child's session starts with: the parent conversation's when it forks, else undefined. */
export function forkedEntries(
	request: Pick<WorkflowAgentRequest, "context" | "label">,
	type: AgentTypeConfig,
	source: ForkSource,
): readonly Readonly<Record<string, unknown>>[] | undefined {
	const wanted = request.context ?? type.context ?? "fresh";
	if (wanted === "fresh") return undefined;
	const parent = source.parentConversation;
	if (parent) return parent.entries;
	if (wanted === "fork-or-fresh") return undefined;
	const asker =
		request.context === "fork"
			? `\`${request.label}\``
			: `agent type \`${type.name}\`${type.path ? ` (${type.path})` : ""}, with \`context: fork\`,`;
	throw forkUnavailableError(asker, source.noParentConversation ?? NO_PARENT_CONVERSATION);
}

/** The session file's lines after its header for a forked child: the parent's entries, one JSON line each. */
export function forkedLines(entries: readonly Readonly<Record<string, unknown>>[] | undefined): string {
	return entries ? entries.map((entry) => `${JSON.stringify(entry)}\n`).join("") : "";
}
