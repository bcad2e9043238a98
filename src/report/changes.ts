/**
 * A run's ledger of changes (docs/runs.md, "Changes"): what each call's child wrote, edited and ran, and what the
 * script's own `tool()` steps did, read from the event log (`child_tool` and `child_worktree` lines the pi runner
 * adds, the runtime's `tool_finished`/`tool_failed`), by call and by file; and the scripts the sessions ran, by
 * sha256, with a diff when a resume ran an edited one.
 */

import { callNumber } from "../errors.ts";
import { readScriptVersion, scriptSha256 } from "../runs/script-versions.ts";
import type { RunRecord } from "../runs/types.ts";
import { type RunEventLog, readRunEvents } from "./event-log.ts";
import { unifiedDiff } from "./script-diff.ts";

/** Who did it: a call of the run, or the script itself (its `tool()` steps). */
export interface ChangeActor {
	/** `#3 fix auth` for a call (its index, as `/workflows` numbers children, and label), `the script` for `tool()` steps. */
	name: string;
	/** The call's 0-based index; absent for the script. */
	index?: number;
	label?: string;
	agentType?: string;
}

/** One tool run of the ledger. */
export interface ChangeEntry {
	session: number;
	/** Epoch ms it ended. */
	time: number;
	/** The call's attempt (absent for the script's steps). */
	attempt?: number;
	tool: string;
	/** The file it wrote, edited or read, as the tool was given it (relative to the child's folder when inside it). */
	path?: string;
	/** Lines added and removed, where the tool says (an edit's patch; a write's content counts as added). */
	added?: number;
	removed?: number;
	command?: string;
	exitCode?: number;
	durationMs?: number;
	isError?: boolean;
}

/** An isolated child's kept branch: `git diff --stat` against its base, and the files in it. */
export interface BranchChanges {
	branch: string;
	commit: string;
	stat: string;
	files: { path: string; added?: number; removed?: number }[];
}

/** What one call (or the script) did, in order. */
export interface CallChanges extends ChangeActor {
	entries: ChangeEntry[];
	worktree?: BranchChanges;
}

/** One file and who touched it, in order. */
export interface FileChanges {
	path: string;
	touches: FileTouch[];
}

/** One call's write or edit of a file. */
export interface FileTouch {
	by: string;
	tool: string;
	session: number;
	time: number;
	added?: number;
	removed?: number;
	/** The isolated child's branch the change went to (not the main working tree). */
	branch?: string;
}

/** The script one session ran. */
export interface SessionScript {
	session: number;
	sha256: string;
}

/** A run's ledger. */
export interface RunChanges {
	runId: string;
	/** False when the run has no event log (recorded before it existed): nothing is known. */
	found: boolean;
	calls: CallChanges[];
	files: FileChanges[];
	/** Every command run, in order, with who ran it. */
	commands: (ChangeEntry & { by: string })[];
	scripts: SessionScript[];
	/**
	 * A unified diff of the first script against the latest one that differs from it, when a resume ran an edited
	 * script and both texts are kept.
	 */
	scriptDiff?: string;
	/** Events the log's bound dropped (some lines of the ledger may be among them). */
	dropped: number;
	/** Lines of the event log skipped as unreadable, each named (`events.jsonl line 7: …`). */
	problems: string[];
}

/** Tools that change the file they are given. */
const WRITING_TOOLS: ReadonlySet<string> = new Set(["write", "edit"]);

/** The ledger of an opened record, from its event log (read here unless given). */
export async function changesOfRecord(record: RunRecord, given?: RunEventLog): Promise<RunChanges> {
	const log = given ?? (await readRunEvents(record.dir));
	const changes = foldChanges(record.id, log);
	const first = changes.scripts[0];
	// The latest script that differs from the first (a run edited back and forth still shows an edit).
	const last = changes.scripts.findLast((script) => script.sha256 !== first?.sha256);
	if (first && last) {
		const before = await scriptText(record, first.sha256);
		const after = await scriptText(record, last.sha256);
		if (before !== undefined && after !== undefined) changes.scriptDiff = unifiedDiff(before, after);
	}
	return changes;
}

/** The ledger from a run's event log (undefined: the run has none). */
export function foldChanges(runId: string, log: RunEventLog | undefined): RunChanges {
	const changes: RunChanges = {
		runId,
		found: log !== undefined,
		calls: [],
		files: [],
		commands: [],
		scripts: [],
		dropped: log?.dropped ?? 0,
		problems: log?.problems ?? [],
	};
	const calls = new Map<string, CallChanges>();
	const files = new Map<string, FileChanges>();
	const callOf = (actor: ChangeActor): CallChanges => {
		const known = calls.get(actor.name);
		if (known) return known;
		const call: CallChanges = { ...actor, entries: [] };
		calls.set(actor.name, call);
		return call;
	};
	for (const line of log?.events ?? []) {
		const event = line as unknown as Record<string, unknown> & { type: string; time: number; session: number };
		if (event.type === "run_start" && typeof event.scriptSha256 === "string")
			changes.scripts.push({ session: event.session, sha256: event.scriptSha256 });
		const actor = actorOf(event);
		if (!actor) continue;
		if (event.type === "child_worktree") {
			callOf(actor).worktree = worktreeOf(event);
			continue;
		}
		const entry = entryOf(event);
		if (!entry) continue;
		callOf(actor).entries.push(entry);
		if (entry.command !== undefined) changes.commands.push({ ...entry, by: actor.name });
		if (entry.path !== undefined && WRITING_TOOLS.has(entry.tool) && !entry.isError) {
			const file = files.get(entry.path) ?? { path: entry.path, touches: [] };
			files.set(entry.path, file);
			file.touches.push({
				by: actor.name,
				tool: entry.tool,
				session: entry.session,
				time: entry.time,
				...lines(entry),
			});
		}
	}
	changes.calls = [...calls.values()].sort((a, b) => (a.index ?? -1) - (b.index ?? -1));
	changes.files = [...files.values()].sort((a, b) => a.path.localeCompare(b.path));
	onBranches(changes);
	return changes;
}

/** The calls that changed `path` (as the ledger names it, or ending in it), in the order they did. */
export function whoChanged(changes: RunChanges, path: string): string[] {
	const named = (candidate: string) => candidate === path || candidate.endsWith(`/${path}`);
	const matches = changes.files.filter((file) => named(file.path));
	const names = matches.flatMap((file) =>
		file.touches.map((touch) => (touch.branch ? `${touch.by} (branch ${touch.branch})` : touch.by)),
	);
	for (const call of changes.calls) {
		if (call.worktree?.files.some((file) => named(file.path)))
			names.push(`${call.name} (branch ${call.worktree.branch})`);
	}
	return [...new Set(names)];
}

/** Files only an isolated child's branch names (git saw them, no tool of the child reported them). */
export function branchOnlyFiles(call: CallChanges, changes: RunChanges): BranchChanges["files"] {
	const touched = new Set(
		changes.files.filter((file) => file.touches.some((touch) => touch.by === call.name)).map((file) => file.path),
	);
	return (call.worktree?.files ?? []).filter((file) => !touched.has(file.path));
}

/** An isolated child's writes went to its branch: its touches say which. */
function onBranches(changes: RunChanges): void {
	const branches = new Map(
		changes.calls.flatMap((call) => (call.worktree ? [[call.name, call.worktree.branch]] : [])),
	);
	for (const file of changes.files) {
		for (const touch of file.touches) {
			const branch = branches.get(touch.by);
			if (branch) touch.branch = branch;
		}
	}
}

function actorOf(event: Record<string, unknown>): ChangeActor | undefined {
	if (event.type === "tool_finished" || event.type === "tool_failed") {
		if (event.cached === true) return undefined;
		return { name: "the script" };
	}
	if (event.type !== "child_tool" && event.type !== "child_worktree") return undefined;
	if (typeof event.index !== "number" || typeof event.label !== "string") return undefined;
	return {
		name: `${callNumber(event.index)} ${event.label}`,
		index: event.index,
		label: event.label,
		...(typeof event.agentType === "string" ? { agentType: event.agentType } : {}),
	};
}

function entryOf(event: Record<string, unknown> & { time: number; session: number }): ChangeEntry | undefined {
	const tool = event.type === "child_tool" ? event.tool : event.name;
	if (typeof tool !== "string") return undefined;
	const entry: ChangeEntry = { session: event.session, time: event.time, tool };
	for (const field of ["path", "command"] as const) if (typeof event[field] === "string") entry[field] = event[field];
	for (const field of ["attempt", "added", "removed", "exitCode", "durationMs"] as const)
		if (typeof event[field] === "number") entry[field] = event[field];
	if (event.type === "tool_failed") entry.isError = true;
	else if (typeof event.isError === "boolean") entry.isError = event.isError;
	return entry;
}

function worktreeOf(event: Record<string, unknown>): BranchChanges {
	return {
		branch: String(event.branch ?? ""),
		commit: String(event.commit ?? ""),
		stat: String(event.stat ?? ""),
		files: Array.isArray(event.files) ? (event.files as BranchChanges["files"]) : [],
	};
}

function lines(entry: ChangeEntry): { added?: number; removed?: number } {
	return {
		...(entry.added !== undefined ? { added: entry.added } : {}),
		...(entry.removed !== undefined ? { removed: entry.removed } : {}),
	};
}

/** The text of the script with `sha256`: the record's current one, or one a resume kept. */
async function scriptText(record: RunRecord, sha256: string): Promise<string | undefined> {
	const current = await record.readScript().catch(() => undefined);
	if (current !== undefined && scriptSha256(current) === sha256) return current;
	if (scriptSha256(record.info.script) === sha256) return record.info.script;
	return readScriptVersion(record.dir, sha256).catch(() => undefined);
}
