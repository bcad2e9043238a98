/**
 * JSON data on the host: the one check that a value is plain JSON data (the sandbox's own rule, `checkJsonData`,
 * made the workflow's coded error) and the one canonical JSON writer, for keys, hashes and equality.
 */
import { valueNotJsonError } from "../../errors.ts";
import { checkJsonData } from "../../sandbox/index.ts";

/** Plain JSON data: the only kind of value that crosses the sandbox boundary. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON Schema object (draft 2020-12 or 07 keywords as ajv accepts them). */
export type JsonSchema = { [key: string]: JsonValue };

/**
 * Throws `value_not_json` with the path of the first value that is not JSON data (`args.items[3].fn`); returns a copy
 * of it as plain data, so no Proxy trap, getter or later change by whoever handed it over can make it differ from
 * what was checked. For `args`, nested args, a runner's structured output and a journal's answer.
 */
export function assertJsonValue(value: unknown, path: string): JsonValue {
	const checked = checkJsonData(value, path, true);
	if (!checked.ok) throw valueNotJsonError(checked.path, checked.found);
	return checked.value;
}

/** A value's `stableJson` text, known already (a schema's cache key): `stableJson` writes it as it is. */
export class StableText {
	readonly text: string;

	constructor(text: string) {
		this.text = text;
	}
}

/** JSON with object keys sorted, so equal values hash equally whatever their key order. For checked JSON data. */
export function stableJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
	if (value instanceof StableText) return value.text;
	if (value !== null && typeof value === "object") {
		const entries = Object.entries(value)
			.filter(([, v]) => v !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
	}
	return JSON.stringify(value) ?? "null";
}
