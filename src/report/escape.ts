/** Text from scripts and models made safe inside HTML: every string the report shows goes through here. */

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** `text` as HTML text or a quoted attribute value: never markup. */
export function esc(text: unknown): string {
	return String(text ?? "").replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

/** JSON for a `<script type="application/json">` element: no `</script>`, no `<!--`, no line separators. */
export function scriptJson(value: unknown): string {
	return JSON.stringify(value)
		.replace(/</g, "\\u003c")
		.replace(/>/g, "\\u003e")
		.replace(/\u2028/g, "\\u2028")
		.replace(/\u2029/g, "\\u2029");
}

/** `text` cut to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
	return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
