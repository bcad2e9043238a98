/**
 * A continued child (`agent()` option `resume`): the conversation of the call it continues, as pi session entries,
 * read from that call's last kept file in the run's folder (a resume reopens the file of a call the journal
 * replayed) or, in a run with no folder, from what the runner remembered of it. The child's session starts holding
 * them, so its prompt is the next user turn.
 */
import { join } from "node:path";
import { WorkflowError } from "../errors.ts";
import { readConversationLines } from "../runs/index.ts";
import type { WorkflowContinuation } from "../runtime/core/types.ts";
import type { RunFolderSource } from "./child-record.ts";

/** Answered conversations a runner with no run folder keeps in memory, the newest; an older one cannot be continued. */
export const REMEMBERED_CONVERSATIONS = 64;

/** What a runner with no run folder remembers of its answered children's conversations, by call key. */
export class RememberedConversations {
	readonly #byKey = new Map<string, string[]>();

	/** The entries (pi session entries, one JSON line each) of the call `key`'s child that answered. */
	remember(key: string, entries: readonly unknown[]): void {
		this.#byKey.delete(key);
		this.#byKey.set(
			key,
			entries.map((entry) => JSON.stringify(entry)),
		);
		for (const oldest of this.#byKey.keys()) {
			if (this.#byKey.size <= REMEMBERED_CONVERSATIONS) break;
			this.#byKey.delete(oldest);
		}
	}

	recall(key: string): string[] | undefined {
		return this.#byKey.get(key);
	}
}

/**
 * The session entries, one JSON line each, a continuation of `continues` starts from. Throws `resume_unavailable`,
 * naming the file, when its kept conversation is gone; or when a run with no folder no longer remembers it.
 */
export async function earlierConversation(
	continues: WorkflowContinuation,
	runFolder: RunFolderSource | undefined,
	remembered: RememberedConversations,
): Promise<string[]> {
	const what = `call #${continues.index} \`${continues.label}\``;
	const last = continues.transcripts?.at(-1);
	const dir = last ? await runFolder?.() : undefined;
	if (last && dir) {
		const read = await readConversationLines(dir, last);
		const file = join(dir, last);
		if (read && "refused" in read) throw refusedConversation(continues, what, file, read);
		if (read && read.lines.length > 0) return read.lines;
		throw new WorkflowError(
			"resume_unavailable",
			`\`agent()\` option \`resume: ${JSON.stringify(continues.label)}\`: the conversation of ${what} was kept in ${file}, which is gone or empty, and a continued child starts from it. Restore the file, or start the run afresh rather than resuming it`,
			{ details: { resume: continues.label, call: continues.index, file } },
		);
	}
	const kept = remembered.recall(continues.key);
	if (kept) return kept;
	throw new WorkflowError(
		"resume_unavailable",
		`\`agent()\` option \`resume: ${JSON.stringify(continues.label)}\`: the conversation of ${what} was not kept (this run has no folder for conversations, and only the last ${REMEMBERED_CONVERSATIONS} are kept in memory). Continue it sooner after it answers, or run the workflow as a recorded run`,
		{ details: { resume: continues.label, call: continues.index } },
	);
}

/** A kept conversation the run will not hand a provider: a link, not a file, or lines that are not a conversation. */
function refusedConversation(
	continues: WorkflowContinuation,
	what: string,
	file: string,
	refused: { refused: string; link: boolean },
): WorkflowError {
	const head = `\`agent()\` option \`resume: ${JSON.stringify(continues.label)}\`: the conversation of ${what} was kept in ${file}, which ${refused.refused}`;
	const message = refused.link
		? `${head}: a continued child reads only the files the run kept in its children/ folder, so the link was not followed. Put the kept file back in its place, or start the run afresh rather than resuming it`
		: `${head}. Restore the file, or start the run afresh rather than resuming it`;
	return new WorkflowError("resume_unavailable", message, {
		details: { resume: continues.label, call: continues.index, file },
	});
}
