/**
 * The forms acorn (reading the script as a module) and QuickJS (running the body as a classic script) read
 * differently: `<!--` and `-->` at the start of a line open HTML-like comments in a script only, and QuickJS does
 * not count a `//` comment's closing U+2028/U+2029 as a line break. Each is refused so both read one program.
 */
import type { Options, Token } from "acorn";
import { WorkflowError } from "../../errors.ts";
import { loadAcorn } from "./acorn.ts";

/** Watches one parse for the forms; hand `options` to acorn, then ask `found()`. */
export interface GoalWatch {
	options: Pick<Options, "onToken" | "onComment">;
	/** The first form seen that starts at or before `limit` (a parse error's offset), as a `syntax_error`. */
	found(limit?: number): WorkflowError | undefined;
}

const LINE_BREAK = /[\n\r\u2028\u2029]/;

/** Undefined when the source holds none of the characters the forms need: the usual case costs one scan. */
export function watchScriptGoal(source: string): GoalWatch | undefined {
	const html = source.includes("<!--") || source.includes("-->");
	const lineSeparators = source.includes("\u2028") || source.includes("\u2029");
	if (!html && !lineSeparators) return undefined;
	let first: { at: number; message: string } | undefined;
	const note = (at: number, message: string) => {
		if (!first || at < first.at) first = { at, message };
	};
	let previousEnd: number | undefined;
	const { getLineInfo, tokTypes } = loadAcorn();
	const onToken = (token: Token) => {
		if (
			token.type === tokTypes.relational &&
			token.end === token.start + 1 &&
			source.startsWith("<!--", token.start)
		) {
			note(token.start, HTML_OPEN);
		}
		// Only a `--` first on its line (comments aside) opens a comment in QuickJS, the start of the text included.
		if (token.type === tokTypes.incDec && source.startsWith("-->", token.start)) {
			const lineStart = previousEnd === undefined || LINE_BREAK.test(source.slice(previousEnd, token.start));
			if (lineStart) note(token.start, HTML_CLOSE);
		}
		previousEnd = token.end;
	};
	const onComment = (block: boolean, _text: string, start: number, end: number) => {
		const ender = source[end];
		const hashbang = start === 0 && source.startsWith("#!");
		if (!block && !hashbang && (ender === "\u2028" || ender === "\u2029")) note(start, LINE_SEPARATOR);
	};
	return {
		options: { ...(html ? { onToken } : {}), ...(lineSeparators ? { onComment } : {}) },
		found(limit = Number.POSITIVE_INFINITY) {
			if (!first || first.at > limit) return undefined;
			const { line, column } = getLineInfo(source, first.at);
			return new WorkflowError("syntax_error", first.message, { location: { line, column: column + 1 } });
		},
	};
}

const HTML_OPEN =
	"`<!--` starts an HTML-like comment in the engine that runs workflows, so it would run other code than was checked. Put a space after `<` (`a < !--b`), or write `//` for a comment";
const HTML_CLOSE =
	"`-->` at the start of a line is an HTML-like comment in the engine that runs workflows. Write `//` for a comment";
const LINE_SEPARATOR =
	"This `//` comment ends at a U+2028/U+2029 line separator, which the engine that runs workflows does not count as a line break. End the comment with a newline";
