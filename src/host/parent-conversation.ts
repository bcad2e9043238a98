/**
 * The conversation a `context: "fork"` child starts from, cut from the parent session's branch (pi's session
 * entries, root first, as `sessionManager.getBranch()` gives them): everything before the assistant message that
 * called the `workflow` tool, so the child does not see a call that has no result yet. A command's run (no tool
 * call) takes the whole branch. pi-free: entries are read by shape.
 */
import type { WorkflowParentConversation } from "../runtime/core/types.ts";

/** The fields of a pi session entry read here. */
export interface BranchEntry {
	readonly type: string;
	readonly message?: { readonly role?: string; readonly content?: unknown };
	readonly content?: unknown;
	readonly summary?: unknown;
}

/** Characters per token in the rough count (the usual rule of thumb, as the faux provider counts too). */
const CHARS_PER_TOKEN = 4;

/**
 * The parent conversation of a run the `workflow` call `toolCallId` starts (or a command, without one); undefined
 * when the branch holds no message yet, so there is nothing to fork.
 */
export function parentConversationOf(
	branch: readonly BranchEntry[],
	toolCallId?: string,
): WorkflowParentConversation | undefined {
	const cut = toolCallId === undefined ? -1 : branch.findIndex((entry) => callsTool(entry, toolCallId));
	const entries = cut >= 0 ? branch.slice(0, cut) : [...branch];
	let messages = 0;
	let chars = 0;
	for (const entry of entries) {
		if (entry.type === "message" || entry.type === "custom_message") messages++;
		const text = entry.message?.content ?? entry.content ?? entry.summary;
		if (text !== undefined) chars += typeof text === "string" ? text.length : JSON.stringify(text).length;
	}
	if (messages === 0) return undefined;
	return {
		entries: entries as unknown as readonly Readonly<Record<string, unknown>>[],
		messages,
		tokens: Math.ceil(chars / CHARS_PER_TOKEN),
	};
}

/**
 * The branch of a context's session, or none when the context has no session manager (a host's or a test's minimal
 * context): such a run has no conversation to fork.
 */
export function branchOf(ctx: { sessionManager?: { getBranch(): readonly BranchEntry[] } }): readonly BranchEntry[] {
	return ctx.sessionManager?.getBranch() ?? [];
}

/** Whether `entry` is the assistant message holding tool call `id`. */
function callsTool(entry: BranchEntry, id: string): boolean {
	const content = entry.type === "message" && entry.message?.role === "assistant" ? entry.message.content : undefined;
	return (
		Array.isArray(content) &&
		content.some((part: { type?: unknown; id?: unknown }) => part?.type === "toolCall" && part.id === id)
	);
}
