/**
 * Where a child's earlier conversation comes from, as pi session entries, when it does not start from its prompt:
 *
 * - a continued child (`agent()` option `resume`): the conversation of the call it continues, read from that call's
 *   last kept file in the run's folder (a resume reopens the file of a call the journal replayed) or, in a run with
 *   no folder, from what the runner remembered of it. The child's session starts holding them, so its prompt is the
 *   next user turn.
 * - an interrupted child (issue 47): when an attempt starts for a call whose earlier attempt (a resume's earlier
 *   session, a stall retry, a provider wait) left a conversation that did not end in an answer, the new attempt
 *   starts from a copy of it, its unfinished last turn dropped, and is told it was interrupted; the tool calls of the
 *   dropped turn are named, since they may have run (a file may already be edited). That conversation is found by its
 *   file's header (`callKey`): the call's identity, not its attempt.
 */
import { join } from "node:path";
import { callNumber, errorMessage, WorkflowError } from "../errors.ts";
import {
	type CallConversationFiles,
	conversationCwd,
	conversationsByCall,
	labelSlug,
	readConversationLines,
} from "../runs/index.ts";
import type { WorkflowAgentRequest, WorkflowContinuation } from "../runtime/core/types.ts";
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
	const what = `call ${callNumber(continues.index)} \`${continues.label}\``;
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

/** Characters of a dropped tool call's arguments the message quotes. */
const ARGS_CHARS = 160;

/** Where a continued child goes on from: the kept lines, its finished turns, the tool calls it had started. */
export interface Interruption {
	/** The earlier conversation up to its last finished turn, one session entry a line. */
	lines: string[];
	/** Finished turns (model replies whose tool calls all have results) in `lines`. */
	turns: number;
	/** The tool calls of the dropped turn whose results were never recorded, as `name {args}`. */
	started: string[];
	/** The tool calls of the dropped turn that ran (their results were dropped with it). */
	ran: string[];
	/** Tokens the kept replies took (input, cache and output), which going on from them does not pay again. */
	savedTokens: number;
	/** The earlier conversation's file, relative to the run's folder. */
	from: string;
	/** Where the earlier session worked (its header's `cwd`): an isolated child's worktree, which it goes on in. */
	cwd?: string;
}

/** The newest conversation file of each call in a run's folder, found once, then kept up to date by the runner. */
export class CallConversations {
	readonly #runFolder: RunFolderSource | undefined;
	/** Files this runner made, newest per call: they win over what the folder said when it was read. */
	readonly #made = new Map<string, string>();
	#found: Promise<CallConversationFiles> | undefined;

	constructor(runFolder: RunFolderSource | undefined) {
		this.#runFolder = runFolder;
	}

	/** The call `key`'s session now keeps its conversation in `path`. */
	made(key: string, path: string): void {
		this.#made.set(key, path);
	}

	/**
	 * Where the call's interrupted child goes on from; undefined when it has no earlier conversation, or that one
	 * answered, or it has no finished turn. `warn` hears why a conversation the run kept is not used.
	 */
	async interrupted(
		call: Pick<WorkflowAgentRequest, "key" | "index" | "label">,
		warn: (warning: string) => void,
	): Promise<Interruption | undefined> {
		const dir = await this.#runFolder?.();
		if (!dir) return undefined;
		this.#found ??= conversationsByCall(dir).catch(() => ({ byKey: new Map<string, string>(), unread: [] }));
		const found = await this.#found;
		// A file whose header could not be read (a link put in its place) is known only by its name: the call's
		// index and label then, so reading it says why it is refused. (A readable file with no `callKey` is from a run
		// made before keys were written: not taken by its name, which another call may have had then.)
		const stem = `${String(call.index).padStart(3, "0")}-${labelSlug(call.label)}-`;
		const byKey = this.#made.get(call.key) ?? found.byKey.get(call.key);
		const from = byKey ?? found.unread.findLast((file) => file.path.startsWith(`children/${stem}`))?.path;
		if (!from) return undefined;
		try {
			const read = await readConversationLines(dir, from);
			if (!read || (!byKey && !("refused" in read))) return undefined;
			if ("refused" in read) {
				warn(`the conversation of its interrupted attempt, ${join(dir, from)}, ${read.refused}: it started afresh`);
				return undefined;
			}
			const cut = lastFinishedTurn(read.lines);
			if (!cut) return undefined;
			const cwd = await conversationCwd(dir, from);
			return { ...cut, from, ...(cwd ? { cwd } : {}) };
		} catch (error) {
			warn(
				`the conversation of its interrupted attempt could not be read (${errorMessage(error)}): it started afresh`,
			);
			return undefined;
		}
	}
}

interface Part {
	type?: string;
	id?: string;
	name?: string;
	arguments?: unknown;
}

interface Message {
	role?: string;
	usage?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
	stopReason?: string;
	toolCallId?: string;
	content?: unknown;
}

/**
 * `lines` cut after their last finished turn, with the tool calls of the turn dropped after it; undefined when no
 * turn finished, or the conversation ended in an answer (nothing was interrupted).
 */
export function lastFinishedTurn(lines: readonly string[]): Omit<Interruption, "from"> | undefined {
	let keep = 0;
	let turns = 0;
	let answered = false;
	/** Tokens of every reply so far, and of those up to the last finished turn. */
	let tokens = 0;
	let savedTokens = 0;
	let open: { calls: Part[]; waiting: Set<string> } | undefined;
	for (const [index, line] of lines.entries()) {
		const message = messageOf(line);
		if (message?.role === "assistant") {
			const usage = message.usage ?? {};
			tokens += (usage.input ?? 0) + (usage.output ?? 0) + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0);
			const calls = Array.isArray(message.content)
				? (message.content as Part[]).filter((part) => part?.type === "toolCall")
				: [];
			const unfinished = message.stopReason === "aborted" || message.stopReason === "error";
			open =
				calls.length > 0 && !unfinished
					? { calls, waiting: new Set(calls.map((call) => call.id ?? "")) }
					: undefined;
			answered = false;
			if (unfinished || calls.length > 0) continue;
			turns++;
			keep = index + 1;
			savedTokens = tokens;
			answered = true;
		} else if (message?.role === "toolResult" && open) {
			open.waiting.delete(message.toolCallId ?? "");
			if (open.waiting.size > 0) continue;
			turns++;
			keep = index + 1;
			savedTokens = tokens;
			open = undefined;
		}
	}
	if (turns === 0 || answered) return undefined;
	const dropped = open?.calls ?? [];
	const unrecorded = (call: Part) => open?.waiting.has(call.id ?? "") === true;
	return {
		lines: lines.slice(0, keep),
		turns,
		started: dropped.filter(unrecorded).map(describeCall),
		ran: dropped.filter((call) => !unrecorded(call)).map(describeCall),
		savedTokens,
	};
}

function messageOf(line: string): Message | undefined {
	try {
		const entry = JSON.parse(line) as { type?: string; message?: Message };
		return entry.type === "message" ? entry.message : undefined;
	} catch {
		return undefined;
	}
}

function describeCall(call: Part): string {
	const args = JSON.stringify(call.arguments ?? {});
	return `\`${call.name ?? "tool"}\` ${args.length > ARGS_CHARS ? `${args.slice(0, ARGS_CHARS)}…` : args}`;
}

/** The user message an interrupted child goes on with. */
export function interruptedMessage(interruption: Pick<Interruption, "turns" | "started" | "ran">): string {
	const { turns, started, ran } = interruption;
	const done = `This task was interrupted after ${turns} finished ${turns === 1 ? "turn" : "turns"} (the session running it stopped), and you are going on with it in a new session.`;
	const calls =
		started.length > 0
			? ` These tool calls were started in the interrupted turn, but their results were not recorded, so they may or may not have run: ${started.join("; ")}. Check what they did (a file may already be changed) before doing them again.`
			: "";
	const before =
		ran.length > 0
			? ` These tool calls of the interrupted turn ran, but their results were dropped with it: ${ran.join("; ")}.`
			: "";
	return `${done}${calls}${before} Go on from where you stopped: do not redo the finished work above.`;
}

/** The break a continued attempt's result and record carry: "continued after an interruption at turn 4 (…)". */
export function continuedWarning(interruption: Pick<Interruption, "turns" | "from" | "savedTokens">): string {
	const { turns, from, savedTokens } = interruption;
	return `continued after an interruption at turn ${turns + 1}: its ${turns} finished ${turns === 1 ? "turn" : "turns"} (${from}, ${savedTokens.toLocaleString("en-US")} tokens) were not run again`;
}
