/**
 * What an uncaught engine error most likely means in a workflow, said next to the engine's own words: a null read
 * after a failed `agent()` (which gives `null`), a field read on a text answer, `JSON.parse` on free text, a value that
 * is not a function given to a built-in that calls it (`items.map(promise)`).
 *
 * A heuristic, at run time and from what the run recorded, not an analysis of the script: a null is blamed on a
 * call only when a call or slot gave the script `null` before the error, and a missing field on a text answer only
 * when some call answered text. A null from elsewhere after an unrelated failure is blamed wrongly; docs/authoring.md
 * lists these limits.
 */
import type { CallNote, Census } from "../core/census.ts";

/** The uncaught error as the sandbox reported it. */
export interface EngineError {
	name?: string;
	message: string;
	stack?: string;
	line?: number;
	column?: number;
}

/** The sentence to put before the engine's message, or undefined when nothing the run recorded explains it. */
export function hintFor(error: EngineError, census: Census, body: string, filename: string): string | undefined {
	if (error.name === "SyntaxError" && error.stack?.includes("at parse (native)")) return jsonHint(census);
	if (error.name !== "TypeError") return undefined;
	const read = /^cannot read property '(.+)' of (null|undefined)$/.exec(error.message);
	const subject = expressionAt(body, error.line, error.column);
	if (read?.[2] === "null" || error.message === "cannot convert to object") return nullHint(census, subject);
	// A built-in method that exists, called with something it had to call: its callback is what is not a function.
	const native = error.message === "not a function" ? /^\s*at ([\w$]+) \(native\)/.exec(error.stack ?? "") : null;
	if (native) return callbackHint(native[1] as string, subject);
	if (read || error.message === "not a function") return textHint(census, subject, filename);
	return undefined;
}

function nullHint(census: Census, subject: string | undefined): string | undefined {
	const latest = census.nulls.at(-1);
	if (!latest) return undefined;
	const others = census.nulls.length - 1;
	const also = others > 0 ? ` (${others} more gave \`null\` before it; see \`failures\`)` : "";
	const what = subject ? `\`${subject}\` is null` : "A value is null";
	const check = subject ?? "result";
	return `${what}, most likely because ${latest.what}${at(latest)} failed: ${latest.cause}${also}. A failed call gives \`null\`: check for null before reading its fields (\`if (!${check}) …\`)`;
}

function callbackHint(method: string, subject: string | undefined): string {
	const call = subject ?? `.${method}`;
	return `\`${call}()\` was given something that is not a function where it takes one. Pass a function: \`${call}((item) => …)\`; a call written there (\`agent(…)\` with no \`() =>\` before it) starts at once and gives a Promise, not a function`;
}

function textHint(census: Census, subject: string | undefined, filename: string): string | undefined {
	// A text answer is a string: only a field read on it (`answer.findings…`) can give this, never a bare name.
	if (!subject || !/[.[]/.test(subject)) return undefined;
	const latest = census.texts.at(-1);
	if (!latest) return undefined;
	const inFile = latest.filename === filename ? at(latest) : "";
	return `\`${subject}\` is not there: if it is read on an \`agent()\` answer, that answer is text (a string, such as the one ${latest.what}${inFile} gave), which has no fields. Pass \`{ schema: {…} }\` to \`agent()\` to get an object with the fields you read`;
}

function jsonHint(census: Census): string | undefined {
	const latest = census.texts.at(-1);
	if (!latest) return undefined;
	return `\`JSON.parse\` got text that is not JSON: an \`agent()\` answer without \`schema\` is free text (as ${latest.what}${at(latest)} gave). Pass \`{ schema: {…} }\` and use the object \`agent()\` gives back instead of parsing text`;
}

function at(note: CallNote): string {
	return note.line !== undefined ? ` (${note.line}:${note.column})` : "";
}

/**
 * The expression just before `line:column`, as written (`reviews[2]`, `r.findings`, `r.map`): QuickJS points at the
 * `.` or `[` of a read that failed, and at the `(` of a call of something that is not a function.
 */
export function expressionAt(body: string, line?: number, column?: number): string | undefined {
	if (line === undefined || column === undefined) return undefined;
	const text = lineOf(body, line);
	const end = column - 1;
	if (text === undefined || !".[(".includes(text[end] ?? " ")) return undefined;
	let start = end;
	let depth = 0;
	while (start > 0) {
		const c = text[start - 1] as string;
		if (c === "]" || c === ")") depth++;
		else if (c === "[" || c === "(") {
			if (depth === 0) break;
			depth--;
		} else if (depth === 0 && !/[\w$.?]/.test(c)) break;
		start--;
	}
	const subject = text.slice(start, end).replace(/\?$/, "");
	return /^[A-Za-z_$]/.test(subject) ? subject : undefined;
}

function lineOf(text: string, line: number): string | undefined {
	let at = 0;
	for (let i = 1; i < line; i++) {
		at = text.indexOf("\n", at) + 1;
		if (at === 0) return undefined;
	}
	const end = text.indexOf("\n", at);
	return text.slice(at, end === -1 ? undefined : end);
}
