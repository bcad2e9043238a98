/**
 * The copy of a call's schema that pi gets as the submit tool's `parameters`. pi checks every tool call against
 * its parameters on the host's thread, with backtracking regular expressions and a pairwise `uniqueItems`, before
 * our own check (in the schema worker) runs. So the copy keeps what pi checks cheaply and tells the model the rest
 * in `description` instead: `pattern`, `patternProperties`, `format` and `uniqueItems` are ours alone to enforce.
 */
import type { JsonSchema } from "../runtime/core/types.ts";

/** Keywords whose value is one schema, an array of schemas, or a map of names to schemas. */
const ONE = ["additionalItems", "additionalProperties", "contains", "else", "if", "not", "propertyNames", "then"];
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
const MAP = ["$defs", "definitions", "dependentSchemas", "properties"];

/** `schema` without the keywords pi would run slowly, each described in words instead. Depth is bounded by our limits. */
export function piParameters(schema: JsonSchema): JsonSchema {
	return strip(schema) as JsonSchema;
}

function strip(schema: unknown): unknown {
	if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
	const { pattern, patternProperties, format, uniqueItems, ...rest } = schema as Record<string, unknown>;
	const copy: Record<string, unknown> = { ...rest };
	for (const keyword of ONE) if (keyword in copy) copy[keyword] = strip(copy[keyword]);
	for (const keyword of LIST) {
		const value = copy[keyword];
		if (value !== undefined) copy[keyword] = Array.isArray(value) ? value.map(strip) : strip(value);
	}
	for (const keyword of MAP) {
		const value = copy[keyword];
		if (typeof value === "object" && value !== null && !Array.isArray(value)) {
			copy[keyword] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, strip(item)]));
		}
	}
	const notes: string[] = [];
	if (typeof pattern === "string") notes.push(`must match the regular expression /${pattern}/`);
	if (typeof format === "string") notes.push(`must be in the format "${format}"`);
	if (uniqueItems === true) notes.push("items must be unique");
	if (typeof patternProperties === "object" && patternProperties !== null) {
		const names = Object.keys(patternProperties).map((key) => `/${key}/`);
		notes.push(`properties whose names match ${names.join(", ")} are allowed too`);
		// Without the patterns pi would call those properties additional; our own check still applies it.
		delete copy.additionalProperties;
	}
	if (notes.length === 0) return copy;
	const described = typeof copy.description === "string" ? `${copy.description} ` : "";
	copy.description = `${described}(${notes.join("; ")})`;
	return copy;
}
