/**
 * What a faking runner answers a corpus script: an object that satisfies the call's JSON Schema when it passes one
 * (the smallest plausible value: required and listed properties filled, one item per list unless the schema asks for
 * more), text otherwise. Deterministic: the same request gives the same answer.
 */
import type { WorkflowAgentRequest } from "../../src/runtime/index.ts";
import type { FakeAnswer } from "../helpers/fake-runner.ts";

type Schema = Record<string, unknown>;

/** The answer to one request: structured output for a schema, text for a plain call. */
export function plausibleAnswer(request: WorkflowAgentRequest): FakeAnswer {
	if (request.schema !== undefined) return { structured: valueFor(request.schema as Schema, request.label, 0) };
	return `Done: ${request.label}. Summary of the work on ${request.label}, with the findings listed above.`;
}

/** A value that satisfies `schema` (the subset of JSON Schema the corpus scripts use). */
export function valueFor(schema: Schema | boolean | undefined, hint: string, depth: number): unknown {
	if (schema === undefined || typeof schema === "boolean") return hint;
	if (depth > 12) return null;
	if ("const" in schema) return schema.const;
	if (Array.isArray(schema.enum)) return schema.enum[0];
	for (const key of ["anyOf", "oneOf"] as const) {
		const options = schema[key];
		if (Array.isArray(options) && options.length > 0) {
			return valueFor({ ...withoutKey(schema, key), ...(options[0] as Schema) }, hint, depth + 1);
		}
	}
	if (Array.isArray(schema.allOf)) {
		const merged = (schema.allOf as Schema[]).reduce<Schema>(
			(all, part) => mergeSchemas(all, part),
			withoutKey(schema, "allOf"),
		);
		return valueFor(merged, hint, depth + 1);
	}
	const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== "null") ?? schema.type[0]) : schema.type;
	switch (type ?? inferType(schema)) {
		case "object":
			return objectFor(schema, depth);
		case "array":
			return arrayFor(schema, hint, depth);
		case "string":
			return stringFor(schema, hint);
		case "integer":
			return numberFor(schema, true);
		case "number":
			return numberFor(schema, false);
		case "boolean":
			return true;
		case "null":
			return null;
		default:
			return hint;
	}
}

function inferType(schema: Schema): string | undefined {
	if (schema.properties !== undefined || schema.required !== undefined) return "object";
	if (schema.items !== undefined) return "array";
	return undefined;
}

function objectFor(schema: Schema, depth: number): Record<string, unknown> {
	const properties = (schema.properties ?? {}) as Record<string, Schema>;
	const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
	const out: Record<string, unknown> = {};
	for (const name of new Set([...Object.keys(properties), ...required])) {
		out[name] = valueFor(properties[name] ?? { type: "string" }, name, depth + 1);
	}
	return out;
}

function arrayFor(schema: Schema, hint: string, depth: number): unknown[] {
	const min = typeof schema.minItems === "number" ? schema.minItems : 1;
	const max = typeof schema.maxItems === "number" ? schema.maxItems : Math.max(min, 1);
	const count = Math.min(Math.max(min, 1), max);
	const items = Array.isArray(schema.prefixItems) ? (schema.prefixItems as Schema[]) : undefined;
	return Array.from({ length: count }, (_, i) => {
		const value = valueFor(
			items?.[i] ?? (schema.items as Schema | undefined) ?? { type: "string" },
			`${hint}-${i + 1}`,
			depth + 1,
		);
		return typeof value === "string" && count > 1 ? `${value}` : value;
	});
}

function stringFor(schema: Schema, hint: string): string {
	const format = schema.format;
	let text =
		format === "uri" || format === "url"
			? `https://example.com/${hint}`
			: format === "date-time"
				? "2026-01-01T00:00:00Z"
				: format === "date"
					? "2026-01-01"
					: /url|href|link/i.test(hint)
						? `https://example.com/${encodeURIComponent(hint)}`
						: hint;
	if (typeof schema.pattern === "string") {
		const pattern = new RegExp(schema.pattern, "u");
		text =
			[text, text.toLowerCase().replace(/[^a-z0-9-]/g, "-"), "a", "A1", "abc", "2026-01-01", "x-1"].find((c) =>
				pattern.test(c),
			) ?? text;
	}
	const minLength = typeof schema.minLength === "number" ? schema.minLength : 0;
	while (text.length < minLength) text += ` ${hint}`;
	if (typeof schema.maxLength === "number") text = text.slice(0, schema.maxLength);
	return text;
}

function numberFor(schema: Schema, integer: boolean): number {
	const min =
		typeof schema.minimum === "number"
			? schema.minimum
			: typeof schema.exclusiveMinimum === "number"
				? schema.exclusiveMinimum + (integer ? 1 : 0.5)
				: undefined;
	const max = typeof schema.maximum === "number" ? schema.maximum : undefined;
	const value = min ?? (max !== undefined ? Math.min(1, max) : 1);
	return integer ? Math.ceil(value) : value;
}

function withoutKey(schema: Schema, key: string): Schema {
	const { [key]: _dropped, ...rest } = schema;
	return rest;
}

function mergeSchemas(a: Schema, b: Schema): Schema {
	const properties = { ...((a.properties as Schema) ?? {}), ...((b.properties as Schema) ?? {}) };
	const required = [...((a.required as string[]) ?? []), ...((b.required as string[]) ?? [])];
	return { ...a, ...b, properties, required };
}
