/**
 * What a failed parse most likely means, in the words of the mistake a model makes when it writes a workflow
 * script: TypeScript syntax, a Markdown fence, a backtick that ends a template prompt early, `await` in a callback
 * that is not `async`. Reads the source around acorn's position; acorn's own message stays when nothing matches
 * better, with the token it stopped at.
 */

/** A parse error explained: the message, what to write instead, and the 0-based offset it is about. */
export interface SyntaxExplanation {
	message: string;
	fix: string;
	offset: number;
}

/** acorn's error as thrown: the message (with its " (line:column)"), and the offset. */
export interface ParseFailure {
	message: string;
	pos: number;
}

const FENCE_LINE = /^[ \t]*```/;
const TS = "TypeScript is not run here: workflow scripts are plain JavaScript.";

/**
 * A script wrapped in a Markdown code fence: its first line is ```` ``` ```` (or ```` ```js ````). Such a script
 * can even parse (backticks make templates), so this is asked before parsing.
 */
export function markdownFence(source: string): SyntaxExplanation | undefined {
	const first = /^\s*/.exec(source)?.[0].length ?? 0;
	if (!source.startsWith("```", first)) return undefined;
	return {
		message: "The script is wrapped in a Markdown code fence (```)",
		fix: "Remove the ``` lines: pass only the JavaScript, starting with `export const meta = {…}`",
		offset: first,
	};
}

/** Explains `failure`, a parse error of `source`. */
export function explainSyntaxError(source: string, failure: ParseFailure): SyntaxExplanation {
	const acorn = failure.message.replace(/ \(\d+:\d+\)$/, "");
	const at = failure.pos;
	const explained =
		typeScript(source, acorn, at) ?? backtick(source, acorn, at) ?? awaitOutsideAsync(source, acorn, at);
	if (explained) return explained;
	return { ...plain(source, acorn, at), offset: at };
}

function typeScript(source: string, acorn: string, at: number): SyntaxExplanation | undefined {
	const line = lineAround(source, at);
	const rest = source.slice(at, at + 80);
	const before = source.slice(Math.max(0, at - 80), at);
	if (acorn.includes("'enum'")) {
		return {
			message: `\`enum\` is TypeScript. ${TS}`,
			fix: 'Use a plain object: `const Level = { Low: "low", High: "high" }`',
			offset: at,
		};
	}
	if (/^\s*(export\s+)?(declare\s+)?interface\s+[A-Za-z_$]/.test(line) && acorn.includes("'interface'")) {
		return {
			message: `\`interface\` is TypeScript. ${TS}`,
			fix: "Delete the interface; describe the shape of an agent's answer with `{ schema }` instead",
			offset: at,
		};
	}
	if (/^\s*(export\s+)?(declare\s+)?type\s+[A-Za-z_$][\w$]*\s*(<[^>]*>)?\s*=/.test(line)) {
		return {
			message: `A \`type\` alias is TypeScript. ${TS}`,
			fix: "Delete the type; describe the shape of an agent's answer with `{ schema }` instead",
			offset: at,
		};
	}
	if (/^(as|satisfies)\s+[\w${[(]/.test(rest) && /[\w$)\]}'"`]\s*$/.test(before)) {
		const word = rest.startsWith("as") ? "as" : "satisfies";
		return {
			message: `\`${word}\` casts are TypeScript. ${TS}`,
			fix: `Delete \`${word} …\` and keep the value`,
			offset: at,
		};
	}
	if (/^!\s*[.;,)\]}[]/.test(rest) && /[\w$)\]]$/.test(before)) {
		return {
			message: `The non-null assertion \`!\` is TypeScript. ${TS}`,
			fix: "Delete the `!`; check for null with `if (!x) …` or `x?.field` where the value can be missing",
			offset: at,
		};
	}
	if (/^\??\s*:/.test(rest) && /[\w$)\]]\??\s*$/.test(before)) {
		return {
			message: `Type annotations (\`: type\`) are TypeScript. ${TS}`,
			fix: "Delete the annotation: write `const x = …`, `(a, b) => …`, `function f(a) {…}`",
			offset: at,
		};
	}
	if (rest.startsWith("<") && /\bfunction\s*\*?\s*[\w$]*\s*$/.test(before)) {
		return {
			message: `Type parameters (\`<T>\`) are TypeScript. ${TS}`,
			fix: "Delete the `<…>` after the function name",
			offset: at,
		};
	}
	if (/\b(private|public|protected|readonly|declare|abstract)\s+$/.test(before)) {
		const word = /(\w+)\s+$/.exec(before)?.[1];
		return { message: `\`${word}\` is TypeScript. ${TS}`, fix: `Delete \`${word}\``, offset: at };
	}
	return undefined;
}

function backtick(source: string, acorn: string, at: number): SyntaxExplanation | undefined {
	const lineStart = lastLineBreak(source, at);
	const line = lineAround(source, at);
	// A fence line inside a template prompt: its first backtick closed the template.
	if (FENCE_LINE.test(line) || (acorn === "Unexpected token" && FENCE_LINE.test(lineAround(source, lineStart - 1)))) {
		return {
			message: "A Markdown fence (```) inside a template literal ends the template at its first backtick",
			fix: "Escape each backtick of the fence as \\` (\\`\\`\\`), or leave the fence out of the prompt",
			offset: at,
		};
	}
	const previous = /`\s*$/.test(source.slice(Math.max(0, at - 40), at));
	if (acorn === "Unexpected token" && (previous || source[at] === "`")) {
		return {
			message: "A backtick inside a template literal ends the template early",
			fix: "Escape backticks inside the prompt as \\` (write \\`src/index.ts\\`), or quote with ' instead",
			offset: at,
		};
	}
	if (acorn === "Unterminated template") {
		return {
			message: "A template literal (`…`) is never closed",
			fix: "Close it with a backtick; escape backticks inside it as \\`, and end every substitution with `}`",
			offset: at,
		};
	}
	return undefined;
}

function awaitOutsideAsync(source: string, acorn: string, at: number): SyntaxExplanation | undefined {
	if (!acorn.includes("'await'")) return undefined;
	// `var await = 1` uses the word as a name, which is a different mistake.
	if (!/^await\s*[^\s=;,):}\]]/.test(source.slice(at, at + 40))) return undefined;
	return {
		message: "`await` is used inside a function that is not `async`",
		fix: "Mark that function `async` (`async (item) => { … }`) and await what it returns, e.g. `await Promise.all(items.map(async (item) => …))`; or write `await parallel(items.map((item) => () => agent(…)))`. `forEach` cannot wait for an `async` callback: loop with `for (const item of items)` and `await` instead",
		offset: at,
	};
}

/** acorn's message with the token it stopped at, and a fix for the common kinds. */
function plain(source: string, acorn: string, at: number): { message: string; fix: string } {
	if (acorn === "Unexpected token") {
		const token = /^\s*([\w$]{1,20}|\S)/.exec(source.slice(at, at + 40))?.[1];
		if (token === undefined) {
			return {
				message: "The script ends in the middle of a statement",
				fix: "Close every `(`, `[`, `{` and string that is still open",
			};
		}
		return {
			message: `Unexpected \`${token}\``,
			fix: "Look for a missing or extra bracket, comma, operator or quote just before it",
		};
	}
	if (acorn === "Unterminated string constant") {
		return {
			message: "A string is not closed on its line",
			fix: "Close the quote on the same line, or use a template literal (`…`) for text over several lines",
		};
	}
	return { message: acorn, fix: "" };
}

function lastLineBreak(source: string, at: number): number {
	let index = at;
	while (index > 0 && !isBreak(source[index - 1])) index--;
	return index;
}

function lineAround(source: string, at: number): string {
	const start = lastLineBreak(source, Math.max(0, at));
	let end = Math.max(start, at);
	while (end < source.length && !isBreak(source[end])) end++;
	return source.slice(start, end);
}

function isBreak(char: string | undefined): boolean {
	return char === "\n" || char === "\r" || char === "\u2028" || char === "\u2029";
}
