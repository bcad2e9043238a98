/**
 * The checks a script-supplied JSON Schema passes on the host before any compiling: plain JSON, size and
 * complexity limits, patterns without lookaround or backreferences, and references that stay inside the schema.
 * Synchronous and linear in the schema's size, so the header can be checked at parse time. Whether RE2 compiles
 * each pattern is checked in the schema worker (`checkSchemaPatterns`).
 */
import { WorkflowError } from "../../errors.ts";
import { checkJsonData } from "../../sandbox/index.ts";
import { stableJson } from "../core/json.ts";
import type { JsonSchema } from "../core/types.ts";
import { describeType } from "./issues.ts";
import { loadRe2 } from "./lazy-deps.ts";

/** The limits every script-supplied schema must stay within. */
export const SCHEMA_LIMITS = {
	/** UTF-8 bytes of the schema as JSON. */
	maxBytes: 64 * 1024,
	/** Schemas in all: the root, each property's schema, each `items`, `allOf` member, `$defs` entry… */
	maxSubschemas: 128,
	/** Nesting of JSON objects and arrays, counting data in `const`, `enum` and `default` too. */
	maxDepth: 32,
	/** Characters of one `pattern` or `patternProperties` key. */
	maxPatternLength: 1000,
} as const;

/** The JSON Schema drafts we compile: draft-07 unless `$schema` names 2020-12. */
export type SchemaDialect = "draft-07" | "2020-12";

/** A schema that passed: a private copy in the author's key order, its contents as sorted-key JSON, its dialect. */
export interface CheckedSchema {
	copy: JsonSchema;
	key: string;
	dialect: SchemaDialect;
}

const DRAFT_2020 = /^https:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
const DRAFT_07 = /^http:\/\/json-schema\.org\/draft-07\/schema#?$/;

/** Keywords whose value is one schema. */
const SCHEMA_KEYWORDS = new Set([
	"additionalItems",
	"additionalProperties",
	"contains",
	"contentSchema",
	"else",
	"if",
	"not",
	"propertyNames",
	"then",
	"unevaluatedItems",
	"unevaluatedProperties",
]);
/** Keywords whose value is an array of schemas (`items` may also be one schema). */
const SCHEMA_LIST_KEYWORDS = new Set(["allOf", "anyOf", "oneOf", "prefixItems", "items"]);
/** Keywords whose value maps names to schemas (`dependencies` values may also be string lists). */
const SCHEMA_MAP_KEYWORDS = new Set([
	"$defs",
	"definitions",
	"dependencies",
	"dependentSchemas",
	"patternProperties",
	"properties",
]);
const BYTES_FIX = "Make the schema smaller: shorter descriptions, fewer properties, or one call per part";
const REF_KEYWORDS = ["$ref", "$dynamicRef", "$recursiveRef"] as const;

/**
 * Checks `schema` (named `name` in messages) and returns its copy and cache key. Throws `schema_invalid` naming the
 * path, the limit and its value, or what to write instead.
 */
export function checkSchema(schema: unknown, name: string): CheckedSchema {
	checkShape(schema, name);
	// One walk checks it is JSON data and copies it in the author's key order (errors follow it).
	const checked = checkJsonData(schema, name, true);
	if (!checked.ok) {
		throw new WorkflowError("schema_invalid", `\`${checked.path}\` must be plain JSON, found ${checked.found}`, {
			details: { path: checked.path },
		});
	}
	const copy = checked.value as JsonSchema;
	const key = stableJson(copy);
	const bytes = Buffer.byteLength(key, "utf8");
	if (bytes > SCHEMA_LIMITS.maxBytes) {
		throw limit(name, `\`${name}\` is ${bytes} bytes of JSON`, SCHEMA_LIMITS.maxBytes, BYTES_FIX);
	}
	if (typeof copy !== "object" || copy === null || Array.isArray(copy)) {
		throw new WorkflowError(
			"schema_invalid",
			`\`${name}\` must be a JSON Schema object, found ${describeType(copy)}`,
		);
	}
	const dialect = dialectOf(copy, name);
	walkSchemas(copy, name, checkPattern);
	return { copy, key, dialect };
}

/**
 * `checkSchema` for a schema the static pass read from a script's literal: plain JSON by construction, so it needs
 * neither the cache key nor the copy (two full walks of the schema), only the limits, the dialect and the patterns.
 */
export function checkLiteralSchema(schema: JsonSchema, name: string): void {
	checkShape(schema, name);
	const bytes = Buffer.byteLength(JSON.stringify(schema), "utf8");
	if (bytes > SCHEMA_LIMITS.maxBytes) {
		throw limit(name, `\`${name}\` is ${bytes} bytes of JSON`, SCHEMA_LIMITS.maxBytes, BYTES_FIX);
	}
	dialectOf(schema, name);
	walkSchemas(schema, name, checkPattern);
}

/**
 * Throws `schema_invalid` for the first pattern of a checked schema that RE2 cannot compile. Run in the schema
 * worker: compiling a thousand long patterns costs the host's thread hundreds of ms. `compile` throws RE2's error
 * for a pattern (the worker passes its cache's, which keeps the programs for ajv).
 */
export function checkSchemaPatterns(
	schema: JsonSchema,
	name: string,
	compile: (pattern: string) => unknown = compileRe2,
): void {
	walkSchemas(schema, name, (pattern, path) => compilePattern(pattern, path, compile));
}

function dialectOf(schema: JsonSchema, name: string): SchemaDialect {
	const dialect = schema.$schema;
	if (dialect === undefined || (typeof dialect === "string" && DRAFT_07.test(dialect))) return "draft-07";
	if (typeof dialect === "string" && DRAFT_2020.test(dialect)) return "2020-12";
	throw new WorkflowError(
		"schema_invalid",
		`\`${name}.$schema\` ${JSON.stringify(dialect)} is not supported. Leave \`$schema\` out (draft-07) or use "https://json-schema.org/draft/2020-12/schema"`,
	);
}

function limit(path: string, what: string, value: number, fix: string): WorkflowError {
	return new WorkflowError("schema_invalid", `${what} (limit: ${value}). ${fix}`, { details: { limit: value, path } });
}

/**
 * Iterative, so a schema nested thousands deep is refused before anything recursive reads it; and it stops as soon
 * as the schema is surely over the byte limit, so a megabyte schema costs the host no more than a small one.
 */
function checkShape(schema: unknown, name: string): void {
	const stack: ShapeEntry[] = [{ value: schema, depth: 1 }];
	// A lower bound of the JSON's size: every character of a string or key is at least one byte.
	let bytes = 0;
	for (let entry = stack.pop(); entry; entry = stack.pop()) {
		const { value, depth } = entry;
		bytes += typeof value === "string" ? value.length + 2 : 1;
		// A separator per member, counted before the members are pushed, so a huge array is refused unread.
		if (Array.isArray(value)) bytes += value.length;
		if (bytes > SCHEMA_LIMITS.maxBytes) {
			throw limit(
				name,
				`\`${name}\` is more than ${SCHEMA_LIMITS.maxBytes} bytes of JSON`,
				SCHEMA_LIMITS.maxBytes,
				BYTES_FIX,
			);
		}
		if (typeof value !== "object" || value === null || isAncestor(entry.parent, value)) continue;
		if (depth > SCHEMA_LIMITS.maxDepth) {
			const path = shapePath(entry, name);
			throw limit(
				path,
				`\`${path}\` is nested more than ${SCHEMA_LIMITS.maxDepth} levels deep`,
				SCHEMA_LIMITS.maxDepth,
				"Flatten the schema, or name a repeated part in `$defs` and point to it with `$ref`",
			);
		}
		// Only plain objects and arrays are walked; checkJsonData names anything else.
		const proto = Object.getPrototypeOf(value);
		if (Array.isArray(value)) {
			for (let index = 0; index < value.length; index++) {
				stack.push({ value: value[index], depth: depth + 1, parent: entry, index });
			}
		} else if (proto === Object.prototype || proto === null) {
			for (const key of Object.keys(value)) {
				bytes += key.length + 3;
				stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, parent: entry, key });
			}
		}
	}
}

/** A value checkShape walks, and where it is: a member `key` or an item `index` of its parent. */
interface ShapeEntry {
	value: unknown;
	depth: number;
	parent?: ShapeEntry;
	key?: string;
	index?: number;
}

/** `name.a[2].b`: made only for an error, since most schemas have none (a path per value was most of the walk). */
function shapePath(entry: ShapeEntry, name: string): string {
	if (!entry.parent) return name;
	const outer = shapePath(entry.parent, name);
	return entry.key !== undefined ? member(outer, entry.key) : `${outer}[${entry.index}]`;
}

/** A cycle is left for checkJsonData to name; the walk only must not go round it. */
function isAncestor(entry: { value: unknown; parent?: unknown } | undefined, value: object): boolean {
	for (let at = entry; at; at = at.parent as typeof entry) if (at.value === value) return true;
	return false;
}

/** `path.key`, or `path["odd key"]` when the key is not an identifier. */
function member(path: string, key: string): string {
	return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** Visits every subschema (not data under `const`, `enum`, `default`…), counting them and checking each one. */
function walkSchemas(root: JsonSchema, name: string, visitPattern: (pattern: string, path: string) => void): void {
	// Parallel stacks of subschemas and their paths, and one subschema's children in two lists used again for the
	// next: no pair, entry list or array of children made per subschema.
	const schemas: unknown[] = [root];
	const paths: string[] = [name];
	const childSchemas: unknown[] = [];
	const childPaths: string[] = [];
	let count = 0;
	while (schemas.length > 0) {
		const schema = schemas.pop();
		const path = paths.pop() as string;
		if (++count > SCHEMA_LIMITS.maxSubschemas) {
			throw limit(
				path,
				`\`${name}\` has more than ${SCHEMA_LIMITS.maxSubschemas} subschemas (the last counted is \`${path}\`)`,
				SCHEMA_LIMITS.maxSubschemas,
				"Split the answer over several calls, or name a repeated part in `$defs` and point to it with `$ref`",
			);
		}
		if (typeof schema !== "object" || schema === null || Array.isArray(schema)) continue;
		const object = schema as Record<string, unknown>;
		if (typeof object.pattern === "string") visitPattern(object.pattern, member(path, "pattern"));
		for (const keyword of REF_KEYWORDS) {
			if (typeof object[keyword] === "string") checkRef(object[keyword] as string, member(path, keyword));
		}
		childSchemas.length = 0;
		childPaths.length = 0;
		// A path is made only for a keyword that holds subschemas: most keywords (`type`, `required`…) hold none.
		for (const keyword of Object.keys(object)) {
			const value = object[keyword];
			if (SCHEMA_KEYWORDS.has(keyword)) {
				childSchemas.push(value);
				childPaths.push(member(path, keyword));
			} else if (SCHEMA_LIST_KEYWORDS.has(keyword)) {
				const at = member(path, keyword);
				if (!Array.isArray(value)) {
					childSchemas.push(value);
					childPaths.push(at);
				} else {
					for (let index = 0; index < value.length; index++) {
						childSchemas.push(value[index]);
						childPaths.push(`${at}[${index}]`);
					}
				}
			} else if (SCHEMA_MAP_KEYWORDS.has(keyword) && typeof value === "object" && value !== null) {
				const at = member(path, keyword);
				const entries = value as Record<string, unknown>;
				for (const entryName of Object.keys(entries)) {
					const item = entries[entryName];
					const entryPath = member(at, entryName);
					if (keyword === "patternProperties") visitPattern(entryName, entryPath);
					// `dependencies` may list property names instead of a schema.
					if (!Array.isArray(item)) {
						childSchemas.push(item);
						childPaths.push(entryPath);
					}
				}
			}
		}
		// Reversed onto the stack, so subschemas are visited (and counted) in the order they are written.
		for (let index = childSchemas.length - 1; index >= 0; index--) {
			schemas.push(childSchemas[index]);
			paths.push(childPaths[index] as string);
		}
	}
}

/** A pattern must be short and free of what only a backtracking engine can match: lookaround, backreferences. */
function checkPattern(pattern: string, path: string): void {
	if (pattern.length > SCHEMA_LIMITS.maxPatternLength) {
		throw limit(
			path,
			`\`${path}\` is a pattern of ${pattern.length} characters`,
			SCHEMA_LIMITS.maxPatternLength,
			"Use a shorter pattern, or `enum` for a list of exact values",
		);
	}
	const unsupported = backtrackingSyntax(pattern);
	if (unsupported) throw patternError(pattern, path, unsupported);
}

function compileRe2(pattern: string): unknown {
	const RE2JS = loadRe2();
	return RE2JS.compile(RE2JS.translateRegExp(pattern));
}

/** A pattern must be in the syntax RE2 matches in linear time. */
function compilePattern(pattern: string, path: string, compile: (pattern: string) => unknown): void {
	try {
		compile(pattern);
	} catch (error) {
		throw patternError(
			pattern,
			path,
			error instanceof Error ? error.message.replace(/^error parsing regexp: /, "") : String(error),
		);
	}
}

function patternError(pattern: string, path: string, reason: string): WorkflowError {
	return new WorkflowError(
		"schema_invalid",
		`\`${path}\` ${JSON.stringify(pattern)} is not a pattern the linear-time regex engine (RE2) accepts: ${reason}. ` +
			"Lookaround and backreferences are not available: match the parts with separate `pattern`s under `allOf`, or check the value in the script",
		{ details: { path, pattern, reason } },
	);
}

/**
 * Lookaround or a backreference, named, when the pattern has one: RE2 refuses lookaround with a vaguer message,
 * and its JS-syntax translation would quietly turn `\k<name>` into plain text.
 */
function backtrackingSyntax(pattern: string): string | undefined {
	let inClass = false;
	for (let index = 0; index < pattern.length; index++) {
		const char = pattern[index];
		if (char === "[") inClass = true;
		else if (char === "]") inClass = false;
		else if (char === "\\") {
			const next = pattern[index + 1] ?? "";
			if (/[1-9]/.test(next) || (next === "k" && pattern[index + 2] === "<")) {
				return `backreference \`\\${next === "k" ? "k<" : next}\``;
			}
			index++;
		} else if (char === "(" && !inClass) {
			const group = /^\(\?<?[=!]/.exec(pattern.slice(index, index + 4))?.[0];
			if (group) return `lookaround \`${group}\``;
		}
	}
	return undefined;
}

/** References resolve inside the schema only: nothing is ever fetched. */
function checkRef(ref: string, path: string): void {
	if (ref.startsWith("#")) return;
	throw new WorkflowError(
		"schema_invalid",
		`\`${path}\` ${JSON.stringify(ref)} points outside the schema; only references within it are supported (\`#\`, \`#/$defs/…\`, \`#/definitions/…\`). Copy the referenced schema into \`$defs\``,
		{ details: { path, ref } },
	);
}
