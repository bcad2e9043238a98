/** One finding of the static pass, and the code frame that shows it in the author's file. */
import type { WorkflowErrorCode } from "../errors.ts";

/** A problem found before anything runs: what, where (1-based line:column in the author's file) and what to do. */
export interface WorkflowDiagnostic {
	code: WorkflowErrorCode;
	/** `error` fails a run before it starts; `warning` is reported and the run goes on. */
	severity: "error" | "warning";
	/** What is wrong, naming the construct. */
	message: string;
	/** What to write instead. */
	fix: string;
	line: number;
	column: number;
	/** The line with a caret under the column, and a line of context either side. */
	frame: string;
}

/** Widest slice of a line a frame shows; a minified script's one line must not fill the screen. */
const FRAME_WIDTH = 100;

/** Builds a diagnostic at `offset` (a 0-based index into `source`) or at an explicit 1-based position. */
export function diagnosticAt(
	source: string,
	where: number | { line: number; column: number },
	code: WorkflowErrorCode,
	message: string,
	fix: string,
	severity: WorkflowDiagnostic["severity"] = "error",
): WorkflowDiagnostic {
	const { line, column } = typeof where === "number" ? positionOf(source, where) : where;
	return { code, severity, message, fix, line, column, frame: codeFrame(source, line, column) };
}

/** The 1-based line:column of a 0-based offset; lines end at \n, \r\n, \r, U+2028 and U+2029 as in acorn. */
export function positionOf(source: string, offset: number): { line: number; column: number } {
	const breaks = /\r\n?|[\n\u2028\u2029]/g;
	let line = 1;
	let lineStart = 0;
	for (let match = breaks.exec(source); match && match.index < offset; match = breaks.exec(source)) {
		line++;
		lineStart = match.index + match[0].length;
	}
	return { line, column: offset - lineStart + 1 };
}

/**
 * ```
 *   2 | const found = agent("Review");
 * > 3 | log(found.length);
 *     |     ^
 * ```
 */
export function codeFrame(source: string, line: number, column: number): string {
	const lines = source.split(/\r\n?|[\n\u2028\u2029]/);
	const first = Math.max(1, line - 1);
	const last = Math.min(lines.length, line + 1);
	const width = String(last).length;
	// Long lines are cut to a window around the column, the same window on every line so the caret lines up.
	const from = Math.max(0, column - 1 - Math.floor(FRAME_WIDTH / 2));
	const cut = (text: string) => {
		const slice = text.slice(from, from + FRAME_WIDTH);
		return (from > 0 ? "…" : "") + slice + (text.length > from + FRAME_WIDTH ? "…" : "");
	};
	const out: string[] = [];
	for (let n = first; n <= last; n++) {
		const text = cut((lines[n - 1] ?? "").replace(/\t/g, " "));
		out.push(`${n === line ? ">" : " "} ${String(n).padStart(width)} | ${text}`.trimEnd());
		if (n === line) {
			const pad = " ".repeat(column - 1 - from + (from > 0 ? 1 : 0));
			out.push(`  ${" ".repeat(width)} | ${pad}^`);
		}
	}
	return out.join("\n");
}

/** `line:column message. fix`, one line per diagnostic: what a person reads in a failed run or a check. */
export function formatDiagnostic(diagnostic: WorkflowDiagnostic): string {
	return `${diagnostic.line}:${diagnostic.column} ${sentence(diagnostic.message, diagnostic.fix)}`;
}

/** The message and its fix as one text. */
export function sentence(message: string, fix: string): string {
	if (fix === "") return message;
	return `${message}${/[.?!]$/.test(message) ? "" : "."} ${fix}`;
}
