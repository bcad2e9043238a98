/**
 * A run's children's conversations as people find them (pi-free: `pi-workflows runs <runId>` uses it too): each
 * file in the run's `children/` folder, named by the event log (the call's label, its attempt and session, how it
 * ended) when the run has one, by its file name otherwise.
 */
import { join } from "node:path";
import { callNumber } from "../errors.ts";
import type { EventLogLine, RunRecord } from "../runs/index.ts";

/** One conversation file of a run, with what the event log says of it. */
export interface ChildConversation {
	/** The call's index and label (from the file name when the event log does not say). */
	index: number;
	label: string;
	/** Absolute path of the pi session file. */
	file: string;
	/** The run's folder, which `path` is relative to. */
	dir: string;
	/** Relative to the run's folder, as events carry it. */
	path: string;
	/** Which of the call's sessions, from 1. */
	n: number;
	bytes: number;
	/** The run session (1 the first run, 2 the first resume…) it belongs to, when the log says. */
	session?: number;
	/** `provider/id` of the model the session ran on, when the log says. */
	model?: string;
	/** How the call ended, when the log says: completed, failed, or superseded (a later session of it took over). */
	outcome?: "completed" | "failed" | "superseded";
	/** Why the file is not read: a link or not a regular file now ("is now a link (to /x)"). */
	refused?: string;
}

/** The run's conversations, by call index then session. */
export async function childConversations(record: RunRecord): Promise<ChildConversation[]> {
	const files = await record.conversations();
	if (files.length === 0) return [];
	const log = await record.readEventLog().catch(() => undefined);
	const opened = new Map<string, EventLogLine>();
	const ended = new Map<string, "completed" | "failed" | "superseded">();
	for (const event of log?.events ?? []) {
		if (event.type === "child_transcript" && typeof event.path === "string") opened.set(event.path, event);
		if ((event.type === "agent_finished" && event.cached !== true) || event.type === "agent_failed") {
			const paths = Array.isArray(event.transcripts) ? event.transcripts.filter((p) => typeof p === "string") : [];
			paths.forEach((path, i) => {
				const last = i === paths.length - 1;
				ended.set(path, !last ? "superseded" : event.type === "agent_finished" ? "completed" : "failed");
			});
		}
	}
	return files.map((file) => {
		const line = opened.get(file.path);
		const outcome = ended.get(file.path);
		return {
			index: file.index,
			label: typeof line?.label === "string" ? line.label : file.slug,
			file: join(record.dir, file.path),
			dir: record.dir,
			path: file.path,
			n: file.n,
			bytes: file.bytes,
			...(line ? { session: line.session } : {}),
			...(typeof line?.model === "string" ? { model: line.model } : {}),
			...(outcome ? { outcome } : {}),
			...(file.refused ? { refused: file.refused } : {}),
		};
	});
}

/**
 * One line for a conversation: `#2 scan cli (session 2) · failed · faux/faux-1 · resume 1 · 4.1 KB`, or in place of
 * its size why it is not read (`refused: is now a link (to /x)`).
 */
export function conversationLabel(conversation: ChildConversation): string {
	const nth = conversation.n > 1 ? ` (session ${conversation.n})` : "";
	const parts = [`${callNumber(conversation.index)} ${conversation.label}${nth}`];
	if (conversation.outcome) parts.push(conversation.outcome);
	if (conversation.model) parts.push(conversation.model);
	if (conversation.session !== undefined) {
		parts.push(conversation.session === 1 ? "first run" : `resume ${conversation.session - 1}`);
	}
	parts.push(conversation.refused ? `refused: ${conversation.refused}` : sizeText(conversation.bytes));
	return parts.join(" · ");
}

/** The list for text: each conversation's line and its file, or that the run kept none. */
export function conversationsText(conversations: readonly ChildConversation[]): string {
	if (conversations.length === 0) return "Children's conversations: none kept (a run recorded before they were).";
	const lines = conversations.map((c) => `  ${conversationLabel(c)}\n    ${c.file}`);
	return `Children's conversations (pi session files; \`pi --fork <file>\` opens a copy in pi):\n${lines.join("\n")}`;
}

/** "812 B", "4.1 KB", "2.3 MB". */
function sizeText(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
	return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
