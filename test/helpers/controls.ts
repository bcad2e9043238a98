/**
 * For tests that a script's text reaches a terminal visible: the string it writes to erase the line and put another
 * question there, ask the terminal to type into stdin and ring, and what of it could still drive a terminal.
 */

/** Erases the line, returns to its start, writes a harmless question; then asks the terminal for its cursor, and rings. */
export const HOSTILE = "\x1b[2K\rApply a harmless typo fix? \x1b[6n\x07";

/** `HOSTILE` as a JavaScript string literal, for a script's source. */
export const HOSTILE_LITERAL = JSON.stringify(HOSTILE);

/** `HOSTILE` as the views show it, squeezed onto one line (CR is white space) and as a block (CR shown). */
export const HOSTILE_LINE = "^[[2K Apply a harmless typo fix? ^[[6n^G";
export const HOSTILE_BLOCK = "^[[2K^MApply a harmless typo fix? ^[[6n^G";

/** The ESC, BEL and CR characters in `text`: none may come from a script. */
export function controlsIn(text: string): string[] {
	return [...text].filter((char) => char === "\x1b" || char === "\x07" || char === "\r");
}

/**
 * `text` less the escapes pi draws with, so what is left is the text's own: a theme's colours (ESC [ … m) and the
 * prompt marks around a message (ESC ] 133 ; A BEL and the like).
 */
export function unpainted(text: string): string {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: removing pi's own escapes is the point
	return text.replace(/\x1b\[[0-9;]*m|\x1b\]133;[A-D]\x07/g, "");
}
