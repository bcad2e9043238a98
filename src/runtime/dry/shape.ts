/**
 * The shape of a value a dry run returned: its types and structure, not its made-up contents, so a person sees what
 * the script hands back (`{ merged: string[2], conflicts: [] }`) without mistaking samples for results.
 */
import type { JsonValue } from "../core/json.ts";

/** Longest shape text; a deeper or wider value is cut with "…". */
const MAX_SHAPE_CHARS = 400;
/** Object keys shown per level. */
const MAX_KEYS = 12;

export function valueShape(value: JsonValue): string {
	const text = shape(value, 0);
	return text.length > MAX_SHAPE_CHARS ? `${text.slice(0, MAX_SHAPE_CHARS - 1)}…` : text;
}

function shape(value: JsonValue, depth: number): string {
	if (value === null) return "null";
	if (Array.isArray(value)) {
		if (value.length === 0) return "[]";
		const first = value[0] as JsonValue;
		return first !== null && typeof first === "object" && depth < 4
			? `${shape(first, depth + 1)}[${value.length}]`
			: `${typeof first === "object" ? "array" : typeof first}[${value.length}]`;
	}
	if (typeof value === "object") {
		if (depth >= 4) return "{…}";
		const keys = Object.keys(value);
		const shown = keys.slice(0, MAX_KEYS).map((key) => `${key}: ${shape(value[key] as JsonValue, depth + 1)}`);
		if (keys.length > MAX_KEYS) shown.push("…");
		return shown.length === 0 ? "{}" : `{ ${shown.join(", ")} }`;
	}
	return typeof value;
}
