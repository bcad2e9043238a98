/**
 * The ledger's lines of one child (docs/runs.md, "Changes"): every tool run pi reports on the child's session, as it
 * ends, read from the tool's own arguments and result (a file written or edited, with the lines its patch added and
 * removed; a command with its exit code and duration; any other tool by name), and an isolated child's
 * `git diff --stat`. What a command did inside the shell is not here: pi does not report it.
 */
import { isAbsolute, relative } from "node:path";
import type { AgentSession, AgentSessionEvent } from "@earendil-works/pi-coding-agent";
import { type DiffStat, diffStat } from "../worktree/index.ts";
import type { callRecorder } from "./child-record.ts";

type Note = ReturnType<typeof callRecorder>;

/** Characters of a command the ledger keeps (the conversation has all of it). */
const COMMAND_CHARS = 500;
/** Characters of a path the ledger keeps: a real one is far shorter; the bound is for a child that sends a novel. */
const PATH_CHARS = 1000;

/** The ledger's fields of one finished tool run: `{ tool, isError, durationMs?, path?, added?, removed?, command?, exitCode? }`. */
export function toolFields(
	toolName: string,
	args: unknown,
	result: unknown,
	isError: boolean,
	cwd: string,
): Record<string, unknown> {
	const input = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
	const fields: Record<string, unknown> = { tool: toolName, isError };
	if (typeof input.path === "string") fields.path = shownPath(input.path, cwd).slice(0, PATH_CHARS);
	if (toolName === "bash" && typeof input.command === "string") {
		fields.command = input.command.slice(0, COMMAND_CHARS);
		const exitCode = exitCodeOf(result);
		if (exitCode !== undefined) fields.exitCode = exitCode;
	}
	if (toolName === "edit" && !isError) Object.assign(fields, patchLines(result));
	if (toolName === "write" && !isError && typeof input.content === "string") fields.added = lineCount(input.content);
	return fields;
}

/**
 * Notes each tool run of `session` as it ends (`child_tool`); returns the unsubscribe. The tool's start time is
 * taken from its start event when pi gives no duration.
 */
export function watchTools(session: AgentSession, note: Note, attempt: number, cwd: string): () => void {
	const started = new Map<string, { time: number; args: unknown }>();
	return session.subscribe((event: AgentSessionEvent) => {
		if (event.type === "tool_execution_start") started.set(event.toolCallId, { time: Date.now(), args: event.args });
		if (event.type !== "tool_execution_end") return;
		const start = started.get(event.toolCallId);
		started.delete(event.toolCallId);
		const durationMs = event.durationMs ?? (start ? Date.now() - start.time : undefined);
		note("child_tool", {
			attempt,
			...toolFields(event.toolName, start?.args, event.result, event.isError, cwd),
			...(durationMs !== undefined ? { durationMs: Math.round(durationMs) } : {}),
		});
	});
}

/** Notes what an isolated child's branch holds against its base (`child_worktree`); a git failure costs the line only. */
export async function noteWorktreeStat(
	note: Note,
	worktree: { repo: string; base: string; branch: string },
	commit: string,
): Promise<void> {
	const stat: DiffStat | undefined = await diffStat(worktree.base, commit, { cwd: worktree.repo }).catch(
		() => undefined,
	);
	if (stat) note("child_worktree", { branch: worktree.branch, commit, stat: stat.text, files: stat.files });
}

/** A path as the ledger keeps it: relative to the child's folder when it is inside it, else as given. */
function shownPath(path: string, cwd: string): string {
	if (!isAbsolute(path)) return path;
	const inside = relative(cwd, path);
	return inside && !inside.startsWith("..") && !isAbsolute(inside) ? inside : path;
}

/** A bash result's exit code: pi's structured result has it; a non-zero one is also in its text. */
function exitCodeOf(result: unknown): number | undefined {
	const value = result as { structuredContent?: { exit_code?: unknown }; content?: unknown } | undefined;
	const code = value?.structuredContent?.exit_code;
	if (typeof code === "number") return code;
	const text = Array.isArray(value?.content)
		? value.content.map((part: { text?: unknown }) => (typeof part.text === "string" ? part.text : "")).join("")
		: "";
	const match = /Command exited with code (\d+)/.exec(text);
	return match ? Number(match[1]) : undefined;
}

/** Lines added and removed by the edit tool's unified patch (its result's `details.patch`). */
function patchLines(result: unknown): { added?: number; removed?: number } {
	const patch = (result as { details?: { patch?: unknown } } | undefined)?.details?.patch;
	if (typeof patch !== "string") return {};
	let added = 0;
	let removed = 0;
	for (const line of patch.split("\n")) {
		if (line.startsWith("+") && !line.startsWith("+++")) added++;
		else if (line.startsWith("-") && !line.startsWith("---")) removed++;
	}
	return { added, removed };
}

function lineCount(text: string): number {
	if (text === "") return 0;
	return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}
