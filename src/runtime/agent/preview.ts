/** Short one-line previews of prompts and answers for progress events. */
import type { JsonValue } from "../core/types.ts";

/** Characters of a preview of a prompt or an answer. */
export const PREVIEW_CHARS = 200;
/** Characters of a text read for a preview: a prompt may be megabytes, and a preview needs only its start. */
const PREVIEW_SCAN = 16 * 1024;

/** An answer as a one-line preview. */
export function preview(value: JsonValue): string {
	return shorten(typeof value === "string" ? value : JSON.stringify(value), PREVIEW_CHARS);
}

/** `text` on one line, cut to `max` characters with an ellipsis. */
export function shorten(text: string, max: number): string {
	// Collapsing whitespace in all of a multi-megabyte prompt blocked the host's event loop for seconds.
	const flat = text.slice(0, PREVIEW_SCAN).replace(/\s+/g, " ").trim();
	return flat.length <= max && text.length <= PREVIEW_SCAN ? flat : `${flat.slice(0, max - 1)}…`;
}
