/**
 * A schema's outline, kept in a journal line beside its hash so a resume or a replay test can say how an edited
 * schema differs from the recorded one: its top-level properties (each by a hash of its own schema) and `required`.
 * Bounded, since a line keeps it for every schema call; what lies deeper is said as "elsewhere".
 */
import { hash } from "node:crypto";
import { stableJson } from "../core/json.ts";
import type { JsonSchema, JsonValue } from "../core/types.ts";

/** Top-level properties an outline keeps; past it, differences among the rest are not named. */
const OUTLINE_PROPERTIES = 50;
/** Property names longer than this are cut in the outline. */
const NAME_CHARS = 80;

/** What a journal line keeps of a call's schema. */
export interface SchemaOutline {
	/** Top-level property name → 8 hex digits of its schema's hash. */
	properties: Record<string, string>;
	/** `required`, sorted. */
	required: string[];
}

/** The outline of `schema`. */
export function schemaOutline(schema: JsonSchema): SchemaOutline {
	const properties: Record<string, string> = {};
	const given = schema.properties;
	if (isObject(given)) {
		for (const name of Object.keys(given).sort().slice(0, OUTLINE_PROPERTIES)) {
			properties[name.slice(0, NAME_CHARS)] = hash("sha256", stableJson(given[name] ?? null)).slice(0, 8);
		}
	}
	const required = Array.isArray(schema.required)
		? schema.required
				.filter((name): name is string => typeof name === "string")
				.slice(0, OUTLINE_PROPERTIES)
				.map((name) => name.slice(0, NAME_CHARS))
				.sort()
		: [];
	return { properties, required };
}

/**
 * "its schema differs: property `tags` added, `why` removed, `score` changed; `required` was [score] and is
 * [score, tags]", from two outlines; without the recorded one (a journal from an older version), only that it differs.
 */
export function schemaDifference(then: unknown, now: SchemaOutline | undefined): string {
	if (!isOutline(then) || !now) return "its schema differs (the journal line keeps no outline of it to say how)";
	const names = (list: string[]) => list.map((name) => `\`${name}\``);
	const added = Object.keys(now.properties).filter((name) => !(name in then.properties));
	const removed = Object.keys(then.properties).filter((name) => !(name in now.properties));
	const changed = Object.keys(now.properties).filter(
		(name) => name in then.properties && then.properties[name] !== now.properties[name],
	);
	const parts: string[] = [];
	const props = [
		...(added.length ? [`${names(added).join(", ")} added`] : []),
		...(removed.length ? [`${names(removed).join(", ")} removed`] : []),
		...(changed.length ? [`${names(changed).join(", ")} changed`] : []),
	];
	if (props.length)
		parts.push(`propert${added.length + removed.length + changed.length === 1 ? "y" : "ies"} ${props.join(", ")}`);
	if (then.required.join("\u0000") !== now.required.join("\u0000")) {
		parts.push(`\`required\` was [${then.required.join(", ")}] and is [${now.required.join(", ")}]`);
	}
	if (parts.length === 0) return "its schema differs outside its top-level properties and `required`";
	return `its schema differs: ${parts.join("; ")}`;
}

function isOutline(value: unknown): value is SchemaOutline {
	if (!isObject(value as JsonValue)) return false;
	const outline = value as { properties?: unknown; required?: unknown };
	return (
		isObject(outline.properties as JsonValue) &&
		Object.values(outline.properties as object).every((v) => typeof v === "string") &&
		Array.isArray(outline.required) &&
		outline.required.every((v) => typeof v === "string")
	);
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
	return value !== null && typeof value === "object" && !Array.isArray(value);
}
