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
	for (const file of changes.files) out.push(`  ${file.path}: ${file.touches.map(touchText).join(", then ")}`);
	for (const call of changes.calls) {
		for (const file of branchOnlyFiles(call, changes)) {
			const lines = counts(file).slice(1) || "binary";
			out.push(`  ${file.path}: ${call.name} on branch ${call.worktree?.branch} (${lines})`);
		}
	}
	out.push("", "By call:");
	if (changes.calls.length === 0) out.push("  (no call ran a tool)");
	for (const call of changes.calls) {
		out.push(`  ${call.name}${call.agentType ? ` (${call.agentType})` : ""}`);
		for (const entry of call.entries) out.push(`    ${entryText(entry)}`);
		if (call.worktree) {
			out.push(`    branch ${call.worktree.branch} at ${call.worktree.commit.slice(0, 12)}:`);
			for (const line of call.worktree.stat.split("\n")) out.push(`      ${line.trim()}`);
		}
	}
	out.push(...scriptsText(changes));
	if (changes.dropped > 0)
		out.push("", `The event log dropped ${changes.dropped} events at its bound: the ledger may miss some.`);
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
	const path = entry.path !== undefined ? ` ${entry.path}` : "";
	return `${entry.tool}${path}${counts(entry)}${failed}${attempt}`;
}

/** `#1 docs (edit +2 -1)`, `#3 iso (write +2, on branch workflows/…/iso)`. */
export function touchText(touch: FileTouch): string {
	return `${touch.by} (${touch.tool}${counts(touch)}${touch.branch ? `, on branch ${touch.branch}` : ""})`;
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
