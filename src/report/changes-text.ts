/**
 * The ledger as text (`pi-workflows runs <runId> --changes`, `/workflows` → a run → Changes, `workflow_runs`
 * "changes"): by file, who touched it in what order; by call, what it touched and ran; the scripts each session ran.
 */
import { branchOnlyFiles, type ChangeEntry, type FileTouch, type RunChanges } from "./changes.ts";

/** The whole ledger as text. */
export function changesText(changes: RunChanges): string {
	if (!changes.found)
		return `Run ${changes.runId} has no event log (it was recorded before the log existed): no ledger of changes.`;
	const out = [`Changes of run ${changes.runId} (tools pi reported; not what a command did inside the shell)`];
	out.push("", "By file:");
	if (changes.files.length === 0) out.push("  (no file written or edited through a tool)");
	for (const file of changes.files)
		out.push(`  ${pathText(file.path)}: ${file.touches.map(touchText).join(", then ")}`);
	for (const call of changes.calls) {
		for (const file of branchOnlyFiles(call, changes)) {
			const lines = counts(file).slice(1) || "binary";
			out.push(`  ${pathText(file.path)}: ${nameText(call.name)} on branch ${call.worktree?.branch} (${lines})`);
		}
	}
	out.push("", "By call:");
	if (changes.calls.length === 0) out.push("  (no call ran a tool)");
	for (const call of changes.calls) {
		out.push(`  ${nameText(call.name)}${call.agentType ? ` (${call.agentType})` : ""}`);
		for (const entry of call.entries) out.push(`    ${entryText(entry)}`);
		if (call.worktree) {
			out.push(`    branch ${call.worktree.branch} at ${call.worktree.commit.slice(0, 12)}:`);
			for (const line of call.worktree.stat.split("\n")) out.push(`      ${line.trim()}`);
		}
	}
	out.push(...scriptsText(changes));
	if (changes.dropped > 0)
		out.push("", `The event log dropped ${changes.dropped} events at its bound: the ledger may miss some.`);
	if (changes.problems.length > 0) out.push("", "Skipped, unreadable:", ...changes.problems.map((p) => `  ${p}`));
	return out.join("\n");
}

/** One tool run on a line: `edit src/a.ts +3 -1`, `$ npm test · exit 1 · 1.2s`, `read notes.txt`. */
export function entryText(entry: ChangeEntry): string {
	const failed = entry.isError && entry.command === undefined ? " (failed)" : "";
	const attempt = entry.attempt !== undefined && entry.attempt > 1 ? ` [attempt ${entry.attempt}]` : "";
	if (entry.command !== undefined) {
		const exit = entry.exitCode !== undefined ? ` · exit ${entry.exitCode}` : entry.isError ? " · failed" : "";
		const took = entry.durationMs !== undefined ? ` · ${(entry.durationMs / 1000).toFixed(1)}s` : "";
		return `$ ${entry.command.replace(/\s+/g, " ")}${exit}${took}${attempt}`;
	}
	const path = entry.path !== undefined ? ` ${pathText(entry.path)}` : "";
	return `${entry.tool}${path}${counts(entry)}${failed}${attempt}`;
}

/** `#1 docs (edit +2 -1)`, `#3 iso (write +2, on branch workflows/…/iso)`. */
export function touchText(touch: FileTouch): string {
	return `${nameText(touch.by)} (${touch.tool}${counts(touch)}${touch.branch ? `, on branch ${touch.branch}` : ""})`;
}

function scriptsText(changes: RunChanges): string[] {
	if (changes.scripts.length === 0) return [];
	const out = ["", "Scripts (sha256 by session):"];
	for (const script of changes.scripts) out.push(`  session ${script.session}: ${script.sha256}`);
	if (new Set(changes.scripts.map((script) => script.sha256)).size > 1) {
		out.push(
			changes.scriptDiff
				? "A resume ran an edited script:"
				: "A resume ran an edited script (its earlier text is not kept).",
		);
		if (changes.scriptDiff) out.push(changes.scriptDiff);
	}
	return out;
}

function counts(lines: { added?: number; removed?: number }): string {
	const added = lines.added !== undefined ? ` +${lines.added}` : "";
	const removed = lines.removed !== undefined ? ` -${lines.removed}` : "";
	return `${added}${removed}`;
}

/** Characters that end a line or drive a terminal: controls (C0, DEL, C1), format characters, line separators. */
const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/u;
const UNSAFE_OR_QUOTING = /[\\"\p{Cc}\p{Cf}\u2028\u2029]/gu;
const SHORT_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\", '"': '\\"' };

/**
 * A file's path as every view of the ledger shows it: as it is, or, when it holds a character that would end the
 * line or drive a terminal, quoted with those escaped (`"notes.txt\n  src/auth.ts…"`), so a file name cannot write
 * a ledger line of its own.
 */
export function pathText(path: string): string {
	return UNSAFE.test(path) ? `"${path.replace(UNSAFE_OR_QUOTING, escapeChar)}"` : path;
}

/** A call's name (its label is the script's) on one line: its unsafe characters escaped, unquoted. */
function nameText(name: string): string {
	return UNSAFE.test(name) ? name.replace(new RegExp(UNSAFE.source, "gu"), escapeChar) : name;
}

function escapeChar(char: string): string {
	const short = SHORT_ESCAPES[char];
	if (short) return short;
	const code = char.codePointAt(0) ?? 0;
	return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
}
