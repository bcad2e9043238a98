/**
 * The one adapter between `check` and the authoring checks. It has the shape of the coming
 * `checkWorkflowScript(source, { filename, agentTypes })`; today it runs `checkWorkflowSource` (header, syntax,
 * meta), which stops at the first problem, and draws the code frame itself.
 */
import { stripLocation } from "../errors.ts";
import { checkWorkflowSource } from "../runtime/meta.ts";

/** One finding, at a 1-based line and column of the script when it has a place. */
export interface Diagnostic {
	code: string;
	severity: "error" | "warning";
	message: string;
	/** What to change, when the check knows more than its message says. */
	fix?: string;
	line?: number;
	column?: number;
	/** The lines around the place, with a caret under the column. */
	frame?: string;
}

/** What a check found; `ok` is false when any diagnostic is an error. */
export interface CheckResult {
	ok: boolean;
	diagnostics: Diagnostic[];
}

/** Checks a script as a run would before starting it. */
export function checkScript(
	source: string,
	options: { filename: string; agentTypes?: readonly string[] },
): CheckResult {
	const checked = checkWorkflowSource(source, { filename: options.filename });
	if (checked.ok) return { ok: true, diagnostics: [] };
	const { error } = checked;
	const diagnostic: Diagnostic = { code: error.code, severity: "error", message: stripLocation(error.message) };
	if (error.location) {
		diagnostic.line = error.location.line;
		diagnostic.column = error.location.column;
		diagnostic.frame = codeFrame(source, error.location.line, error.location.column);
	}
	return { ok: false, diagnostics: [diagnostic] };
}

/** Two lines before the place, its line, and a caret under the column. */
function codeFrame(source: string, line: number, column: number): string {
	const lines = source.split(/\r?\n/);
	const first = Math.max(1, line - 2);
	const width = String(line).length;
	const out: string[] = [];
	for (let n = first; n <= Math.min(line, lines.length); n++) {
		out.push(`${n === line ? ">" : " "} ${String(n).padStart(width)} | ${lines[n - 1] ?? ""}`);
	}
	// Tabs stay tabs under the line, so the caret lines up however wide the terminal draws them.
	const lead = [...(lines[line - 1] ?? "").slice(0, Math.max(0, column - 1))].map((c) => (c === "\t" ? c : " "));
	out.push(`  ${" ".repeat(width)} | ${lead.join("")}^`);
	return out.join("\n");
}
