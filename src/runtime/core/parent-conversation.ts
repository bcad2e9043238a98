/** The session's conversation a forked child starts from (a leaf of the runtime's types: it imports nothing). */

/**
 * What a host lends a run for `context: "fork"`: the parent session's conversation up to the `workflow` call. The
 * runtime reads only its size (the fan-out question, the dry run's estimate); the runner seeds each forked child's
 * session with its entries.
 */
export interface WorkflowParentConversation {
	/** pi's session entries on the conversation's branch, root first, as its session file holds them. */
	entries: readonly Readonly<Record<string, unknown>>[];
	/** Messages among them. */
	messages: number;
	/** Rough size in tokens (characters / 4): what each forked child reads before its task. */
	tokens: number;
}

/** Why a run has no parent conversation, for `fork_unavailable` when the host does not say. */
export const NO_PARENT_CONVERSATION =
	"this run has no parent conversation (it runs from the command line, on a queue worker, or from a command in a session with no messages yet)";
