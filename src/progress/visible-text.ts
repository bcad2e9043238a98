/**
 * Text a script, a model or a child wrote, made safe to show on a terminal: the one rule every view applies where
 * its text leaves for a person (the CLI, pi's widget, dialogs and messages, `report --text`). Records keep the
 * exact text; only what is shown changes.
 */

/**
 * C0 controls but tab and newline, DEL, C1 controls, and the marks that reorder text (bidi embeddings, overrides,
 * isolates and the invisible direction marks): what lets a string move the cursor, erase a line, ask the terminal
 * to type into stdin, or show itself in another order than it reads.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every hidden control shown as itself: `^[` for ESC and `^A`…`^_`, `^?` (the caret notation of
 * `cat -v`), `\u009b` or `\u202e` for the others. Tabs and newlines stay; callers that show one line squeeze
 * whitespace themselves. What it returns has nothing left to show, so applying it twice changes nothing.
 */
export function visibleText(text: string): string {
	return text.replace(HIDDEN, (char) => {
		const code = char.charCodeAt(0);
		if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
		if (code === 0x7f) return "^?";
		return `\\u${code.toString(16).padStart(4, "0")}`;
	});
}

/**
 * JSON text with the controls `JSON.stringify` leaves raw (DEL, C1, the marks that reorder text) written as `\u`
 * escapes: the same data to a program, nothing a terminal acts on. They can only occur inside strings.
 */
export function visibleJson(json: string): string {
	return json.replace(
		/[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
		(char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
	);
}
