/**
 * What the pi runner adds to a run's record beyond the runtime's events: lines for the event log about a call's
 * child (a stall retry, a person's restart, skip, pause or message, pi's own retry of a model request, each session
 * it opened), and its conversation kept as a pi session file in the run's folder. See docs/event-log.md.
 */
import { CURRENT_SESSION_VERSION } from "@earendil-works/pi-coding-agent";
import { errorMessage } from "../errors.ts";
import { createConversationFile } from "../runs/index.ts";
import type { WorkflowAgentRequest } from "../runtime/core/types.ts";
import { forkedLines } from "./fork.ts";

/** One line the runner adds to the event log; every one names its call. */
export interface ChildRecordEvent {
	type:
		| "child_transcript"
		| "child_stalled"
		| "child_restarted"
		| "child_skipped"
		| "child_paused"
		| "child_steered"
		| "child_model_retry"
		| "child_tool"
		| "child_worktree";
	/** Epoch ms. */
	time: number;
	key: string;
	index: number;
	label: string;
	agentType: string;
	phase?: string;
	[field: string]: unknown;
}

/** Takes the runner's lines: the run's event log (`DurableRun.logEvent`). */
export type ChildRecorder = (event: ChildRecordEvent) => void;

/** The run's folder, once its record exists (undefined when it could not be made): where conversations are kept. */
export type RunFolderSource = () => Promise<string | undefined>;

/** Characters of a person's message to a child the log keeps (its conversation has all of it). */
const MESSAGE_CHARS = 200;

/** A recorder bound to one call: `note("child_paused")`, `note("child_stalled", { silentMs })`. Never throws. */
export function callRecorder(
	record: ChildRecorder | undefined,
	request: WorkflowAgentRequest,
): (type: ChildRecordEvent["type"], fields?: Record<string, unknown>) => void {
	if (!record) return () => {};
	return (type, fields = {}) => {
		try {
			record({
				type,
				time: Date.now(),
				key: request.key,
				index: request.index,
				label: request.label,
				agentType: request.agentType,
				...(request.phase ? { phase: request.phase } : {}),
				...fields,
			});
		} catch {
			// The record is for later; a recorder that throws must not cost the child.
		}
	};
}

/** The fields of a `child_steered` line. */
export function steeredFields(text: string): Record<string, unknown> {
	return { message: text.slice(0, MESSAGE_CHARS), chars: text.length };
}

/** Where one session's conversation is kept: the file pi appends to, and its name for the record. */
export interface KeptConversation {
	/** Absolute path, for `SessionManager.open`. */
	file: string;
	/** Relative to the run's folder: what results and events carry. */
	path: string;
}

/**
 * Makes the file of a child session's conversation in the run's folder, with pi's session header (so pi's
 * `SessionManager.open` takes it and appends to it as it would to its own), then what the conversation starts from:
 * a forked child's copy of the parent conversation (`seed`) or a continued child's earlier conversation (`history`,
 * one entry a line); undefined when the run has no folder.
 * Throws when the file cannot be made (the caller warns and keeps the conversation in memory).
 */
export async function keepConversation(
	runFolder: RunFolderSource | undefined,
	request: WorkflowAgentRequest,
	session: { id: string; cwd: string; seed?: readonly Readonly<Record<string, unknown>>[] },
	history: readonly string[] = [],
): Promise<KeptConversation | undefined> {
	const dir = await runFolder?.();
	if (!dir) return undefined;
	const header = {
		type: "session",
		version: CURRENT_SESSION_VERSION,
		id: session.id,
		timestamp: new Date().toISOString(),
		cwd: session.cwd,
		// Which call the conversation is of: a resume finds an interrupted child's conversation by it.
		callKey: request.key,
	};
	// What pi reads back as the session's history when it opens the file: a continuation's past (which already holds
	// the fork its first call started from, if any), else a fork's copy — as openSession does for a child in memory.
	const start = history.length > 0 ? `${history.join("\n")}\n` : forkedLines(session.seed);
	const path = await createConversationFile(dir, request, `${JSON.stringify(header)}\n${start}`);
	return { file: `${dir}/${path}`, path };
}

/**
 * Puts a conversation kept elsewhere (a queue worker that died mid-child) in the run's folder `dir` as the call's
 * next file, whole (pi's header first, whose `callKey` is how the runner finds it): its path relative to `dir`.
 */
export async function restoreConversation(
	dir: string,
	request: Pick<WorkflowAgentRequest, "index" | "label">,
	text: string,
): Promise<string> {
	return createConversationFile(dir, request, text);
}

/** The warning of a child whose conversation could not be kept. */
export function notKeptWarning(error: unknown): string {
	return `the child's conversation could not be kept in the run's folder (${errorMessage(error)}); it ran without a record of it`;
}
