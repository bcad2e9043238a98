/**
 * The report's "Changes" section: the run's ledger by file (which calls wrote or edited it, in order) and by call
 * (every tool its child ran, an isolated child's `git diff --stat`), then the scripts its sessions ran with the diff
 * of an edited one. Every string is a script's, a child's or a tool's, so all of it goes through `esc`.
 */
import { branchOnlyFiles, type RunChanges } from "./changes.ts";
import { entryText, pathText } from "./changes-text.ts";
import { clip, esc } from "./escape.ts";

/** Rows of each table the page lists; the rest are counted. */
const ROWS = 2000;
/** Characters of a line (a command, a path) the page shows. */
const LINE_CHARS = 500;

/** The section; "" when the ledger is unknown or empty and the run ran one script. */
export function changesSection(changes: RunChanges | undefined): string {
	if (!changes?.found) return "";
	const empty = changes.calls.length === 0;
	const scripts = scriptsHtml(changes);
	if (empty && !scripts) return "";
	const fileRow = (path: string, touches: string[]) =>
		`<tr><td><code>${esc(clip(pathText(path), LINE_CHARS))}</code></td><td>${touches.join(" → ")}</td></tr>`;
	const touchHtml = (by: string, what: string) => `${esc(clip(by, LINE_CHARS))} <span class="sub">${esc(what)}</span>`;
	const rows = changes.files.slice(0, ROWS).map((file) =>
		fileRow(
			file.path,
			file.touches.map((touch) =>
				touchHtml(touch.by, `${touch.tool}${lines(touch)}${touch.branch ? ` on branch ${touch.branch}` : ""}`),
			),
		),
	);
	for (const call of changes.calls) {
		for (const file of branchOnlyFiles(call, changes))
			rows.push(fileRow(file.path, [touchHtml(call.name, `on branch ${call.worktree?.branch}${lines(file)}`)]));
	}
	const byFile = rows.join("");
	const byCall = changes.calls
		.slice(0, ROWS)
		.map((call) => {
			const items = call.entries
				.slice(0, ROWS)
				.map((entry) => `<li><code>${esc(clip(entryText(entry), LINE_CHARS))}</code></li>`);
			if (call.entries.length > ROWS) items.push(`<li>… ${call.entries.length - ROWS} more</li>`);
			const branch = call.worktree
				? `<div>branch <code>${esc(call.worktree.branch)}</code>:</div><pre class="diff">${esc(call.worktree.stat)}</pre>`
				: "";
			return `<tr><td>${esc(clip(call.name, LINE_CHARS))}</td><td><ul>${items.join("")}</ul>${branch}</td></tr>`;
		})
		.join("");
	const more = (count: number, what: string) =>
		count > ROWS ? `<p class="sub">… ${count - ROWS} more ${what}</p>` : "";
	return `<h2 id="changes">Changes</h2><p class="sub">What each call's child wrote, edited and ran, and the script's own tool() steps, as pi reported its tools (not what a command did inside the shell).${changes.dropped > 0 ? ` The event log dropped ${changes.dropped} events at its bound: some may be missing.` : ""}</p>
<h3>By file</h3>${byFile ? `<table id="changes-files"><tr><th>file</th><th>calls, in order</th></tr>${byFile}</table>${more(changes.files.length, "files")}` : `<p class="sub">No file written or edited through a tool.</p>`}
<h3>By call</h3>${byCall ? `<table id="changes-calls"><tr><th>call</th><th>what it touched and ran</th></tr>${byCall}</table>${more(changes.calls.length, "calls")}` : `<p class="sub">No call ran a tool.</p>`}
${scripts}`;
}

function scriptsHtml(changes: RunChanges): string {
	if (new Set(changes.scripts.map((script) => script.sha256)).size < 2) return "";
	const rows = changes.scripts
		.map((script) => `<tr><td>${script.session}</td><td><code>${esc(script.sha256)}</code></td></tr>`)
		.join("");
	const diff = changes.scriptDiff
		? `<pre class="diff" id="script-diff">${esc(changes.scriptDiff)}</pre>`
		: `<p class="sub">The earlier script's text is not kept.</p>`;
	return `<h3>Scripts</h3><p class="sub">A resume ran an edited script: the sha256 each session ran, and what changed.</p><table id="changes-scripts"><tr><th>session</th><th>sha256</th></tr>${rows}</table>${diff}`;
}

function lines(touch: { added?: number; removed?: number }): string {
	return `${touch.added !== undefined ? ` +${touch.added}` : ""}${touch.removed !== undefined ? ` -${touch.removed}` : ""}`;
}
