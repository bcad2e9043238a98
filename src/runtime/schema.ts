/**
 * JSON Schema compilation (ajv, cached) with readable validation errors, and the lenient reading of a JSON object
 * out of an agent's text answer. Dialect: draft-07 unless the schema's `$schema` names draft 2020-12.
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";
import { WorkflowError } from "../errors.ts";
import type { JsonSchema } from "./types.ts";

/** One validation failure: where (`args.items[0].title`) and what ("must be string, found number"). */
export interface SchemaIssue {
	/** The value's path as the author would write it, starting at the validated value's name. */
	path: string;
	message: string;
	/** ajv's keyword and params, for programs. */
	keyword: string;
	params: Record<string, unknown>;
	/** The value's JSON pointer ("" for the root). */
	pointer: string;
}

/** The outcome of validating a value; `errors` joins the issues into one readable line. */
export type SchemaValidation = { ok: true; value: unknown } | { ok: false; errors: string; issues: SchemaIssue[] };

/** Options of `CompiledSchema.validate`. */
export interface SchemaValidateOptions {
	/** Name of the validated value in messages (`output.title`). Default: "output". */
	root?: string;
}

/** A compiled validator; the same schema contents always give back the same instance. */
export interface CompiledSchema {
	/** The private deep copy that was compiled, so later changes to the caller's object cannot affect it. */
	readonly schema: JsonSchema;
	/** Checks `value`; never throws for an invalid value. */
	validate(value: unknown, options?: SchemaValidateOptions): SchemaValidation;
}

/** Options of `compileJsonSchema`. */
export interface CompileSchemaOptions {
	/** How the schema is named in error messages. Default: "schema". */
	name?: string;
	/**
	 * The schema is one of this package's own, known to be valid: it is not checked against JSON Schema's
	 * meta-schema, whose first use costs tens of ms (the first run of a process paid it for the header). Default: false.
	 */
	trusted?: boolean;
}

/** Compiled validators kept. Evicted ones are also removed from ajv, so memory stays bounded. */
const CACHE_SIZE = 256;
/** Issues rendered into one message; the rest are counted. */
const MAX_ISSUES = 10;
const DRAFT_2020 = /^https:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
const DRAFT_07 = /^http:\/\/json-schema\.org\/draft-07\/schema#?$/;

/** Compiles any JSON Schema (cached by contents); throws `schema_invalid` with ajv's message when it is not valid. */
export function compileJsonSchema(schema: unknown, options: CompileSchemaOptions = {}): CompiledSchema {
	const name = options.name ?? "schema";
	const key = stableJson(schema, name);
	const cached = cache.get(key);
	if (cached) {
		// Re-insert so the map's order stays least-recently-used first.
		cache.delete(key);
		cache.set(key, cached);
		return cached.compiled;
	}
	// A copy in the author's key order (errors follow it); safe to stringify once stableJson has accepted it.
	const copy = JSON.parse(JSON.stringify(schema)) as JsonSchema;
	if (typeof copy !== "object" || copy === null || Array.isArray(copy)) {
		throw new WorkflowError(
			"schema_invalid",
			`\`${name}\` must be a JSON Schema object, found ${describeType(copy)}`,
		);
	}
	const ajv = options.trusted ? trustedAjv() : ajvFor(copy, name);
	// Checked against the meta-schema first, so the reasons carry paths like `args.properties.n.type`.
	if (!options.trusted && !ajv.validateSchema(copy)) {
		// The meta-schema reports one mistake several ways (enum, type, anyOf); the first says it best.
		const issues = toIssues(ajv.errors ?? [], copy, name).filter(
			(issue, index, all) => all.findIndex((other) => other.path === issue.path) === index,
		);
		throw new WorkflowError("schema_invalid", `\`${name}\` is not a valid JSON Schema: ${formatIssues(issues)}`, {
			details: { errors: issues },
		});
	}
	let validateFn: ValidateFunction;
	try {
		validateFn = ajv.compile(copy);
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		throw new WorkflowError("schema_invalid", `\`${name}\` is not a valid JSON Schema: ${reason}`, {
			details: { reason },
		});
	}
	const compiled: CompiledSchema = {
		schema: copy,
		validate(value, validateOptions = {}) {
			if (validateFn(value)) return { ok: true, value };
			const issues = toIssues(validateFn.errors ?? [], value, validateOptions.root ?? "output");
			return { ok: false, errors: formatIssues(issues), issues };
		},
	};
	cache.set(key, { compiled, ajv });
	if (cache.size > CACHE_SIZE) evictOldest();
	return compiled;
}

/** Compiles the schema of an `agent()` call: a JSON Schema whose root is `type: "object"`. Throws `schema_invalid`. */
export function compileAgentSchema(schema: unknown): CompiledSchema {
	if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
		throw new WorkflowError(
			"schema_invalid",
			`\`schema\` must be a JSON Schema object with \`type: "object"\`, found ${describeType(schema)}`,
		);
	}
	const type = (schema as { type?: unknown }).type;
	if (type !== "object") {
		const found = type === undefined ? "no `type`" : `\`type: ${JSON.stringify(type)}\``;
		throw new WorkflowError(
			"schema_invalid",
			`\`schema\` must have \`type: "object"\` at its root, found ${found}. Wrap other values in an object property`,
		);
	}
	return compileJsonSchema(schema);
}

/** Joins issues into one line: "`args.target` must be string; `args` must have required property 'target'". */
export function formatIssues(issues: readonly SchemaIssue[]): string {
	const shown = issues.slice(0, MAX_ISSUES).map((issue) => `\`${issue.path}\` ${issue.message}`);
	const more = issues.length - shown.length;
	return more > 0 ? `${shown.join("; ")}; and ${more} more` : shown.join("; ");
}

/**
 * Reads a JSON object out of an agent's text: the whole text, else a ```json (or plain ```) fenced block, else the
 * first balanced `{…}` in surrounding prose that parses. Returns undefined when there is none.
 */
export function parseStructuredText(text: string): unknown | undefined {
	return parseBare(text.trim(), true) ?? parseFenced(text) ?? parseFirstObject(text);
}

// ---- compilation helpers ----

interface CacheEntry {
	compiled: CompiledSchema;
	ajv: Ajv;
}

// ajv-formats is CommonJS: under NodeNext its default import is `module.exports`, whose `default` is the plugin.
const addFormats = ajvFormats.default;
const cache = new Map<string, CacheEntry>();
let draft07: Ajv | undefined;
let draft2020: Ajv | undefined;
let trusted: Ajv | undefined;

function ajvOptions(): Options {
	// strictSchema catches misspelled keywords ("requried"); the type/tuple hints would only log, so they are off.
	// addUsedSchema: false keeps `$id`s out of the shared registry, so two schemas may reuse one `$id`.
	return { allErrors: true, strictSchema: true, strictTypes: false, strictTuples: false, addUsedSchema: false };
}

function ajvFor(schema: JsonSchema, name: string): Ajv {
	const dialect = schema.$schema;
	if (dialect === undefined || (typeof dialect === "string" && DRAFT_07.test(dialect))) {
		draft07 ??= addFormats(new Ajv(ajvOptions()));
		return draft07;
	}
	if (typeof dialect === "string" && DRAFT_2020.test(dialect)) {
		draft2020 ??= addFormats(new Ajv2020(ajvOptions()));
		return draft2020;
	}
	throw new WorkflowError(
		"schema_invalid",
		`\`${name}.$schema\` ${JSON.stringify(dialect)} is not supported. Leave \`$schema\` out (draft-07) or use "https://json-schema.org/draft/2020-12/schema"`,
	);
}

/** Draft-07 without meta-schema checks or formats, for our own schemas. */
function trustedAjv(): Ajv {
	trusted ??= new Ajv({ ...ajvOptions(), validateSchema: false });
	return trusted;
}

function evictOldest(): void {
	const oldest = cache.keys().next();
	if (oldest.done) return;
	const entry = cache.get(oldest.value);
	cache.delete(oldest.value);
	entry?.ajv.removeSchema(entry.compiled.schema);
}

/** JSON with sorted keys, the cache key; rejects values a schema cannot contain (functions, cycles, NaN…). */
function stableJson(value: unknown, path: string, seen: Set<object> = new Set()): string {
	if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
	if (typeof value === "number" && Number.isFinite(value)) return JSON.stringify(value);
	if (typeof value === "object" && !seen.has(value)) {
		const proto = Object.getPrototypeOf(value);
		if (Array.isArray(value) || proto === Object.prototype || proto === null) {
			seen.add(value);
			const text = Array.isArray(value)
				? `[${value.map((item, index) => stableJson(item, `${path}[${index}]`, seen)).join(",")}]`
				: `{${Object.keys(value)
						.sort()
						.map(
							(key) =>
								`${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key], `${path}.${key}`, seen)}`,
						)
						.join(",")}}`;
			seen.delete(value);
			return text;
		}
	}
	const found = typeof value === "object" && value !== null && seen.has(value) ? "a cycle" : describeType(value);
	throw new WorkflowError("schema_invalid", `\`${path}\` must be plain JSON, found ${found}`, { details: { path } });
}

function describeType(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "an array";
	if (typeof value === "number" && !Number.isFinite(value)) return String(value);
	if (typeof value === "object") {
		const name = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor?.name;
		return name && name !== "Object" ? `a ${name}` : "an object";
	}
	return typeof value === "undefined" ? "undefined" : `a ${typeof value}`;
}

// ---- error rendering ----

function toIssues(errors: readonly ErrorObject[], value: unknown, root: string): SchemaIssue[] {
	const issues: SchemaIssue[] = [];
	const seen = new Set<string>();
	for (const error of errors) {
		const { path, data } = resolvePointer(error.instancePath, value, root);
		const params = error.params as Record<string, unknown>;
		const message = describeError(error, data);
		const issue = { path, message, keyword: error.keyword, params, pointer: error.instancePath };
		const id = `${issue.path}\u0000${issue.message}`;
		if (seen.has(id)) continue;
		seen.add(id);
		issues.push(issue);
	}
	return issues;
}

/** Turns "/items/0/title" into "output.items[0].title", walking the data so array indexes are told from keys. */
function resolvePointer(pointer: string, value: unknown, root: string): { path: string; data: unknown } {
	let path = root;
	let data = value;
	if (pointer === "") return { path, data };
	for (const raw of pointer.slice(1).split("/")) {
		const segment = raw.replace(/~1/g, "/").replace(/~0/g, "~");
		if (Array.isArray(data)) {
			path += `[${segment}]`;
			data = data[Number(segment)];
		} else {
			path += /^[A-Za-z_$][\w$]*$/.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
			data = typeof data === "object" && data !== null ? (data as Record<string, unknown>)[segment] : undefined;
		}
	}
	return { path, data };
}

function describeError(error: ErrorObject, data: unknown): string {
	const message = error.message ?? `must pass "${error.keyword}"`;
	const params = error.params as Record<string, unknown>;
	switch (error.keyword) {
		case "type":
			return `${message}, found ${jsonType(data)}`;
		case "additionalProperties":
			return `${message}: \`${String(params.additionalProperty)}\``;
		case "enum":
			return `${message}: ${preview(params.allowedValues)}`;
		case "const":
			return `${message}: ${preview(params.allowedValue)}`;
		default:
			return message;
	}
}

function jsonType(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "array";
	return typeof value;
}

function preview(value: unknown): string {
	const text = JSON.stringify(value) ?? String(value);
	return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

// ---- structured text ----

/** Characters the prose scan may visit in all, so an answer full of unclosed `{` costs bounded time. */
const SCAN_BUDGET = 4_000_000;

function isPlainObject(value: unknown): boolean {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseBare(text: string, unwrapString: boolean): unknown | undefined {
	if (!/^[{"]/.test(text)) return undefined;
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return undefined;
	}
	// Some models double-encode: the answer is a JSON string that holds the object.
	if (typeof value === "string" && unwrapString) return parseBare(value.trim(), false);
	return isPlainObject(value) ? value : undefined;
}

function parseFenced(text: string): unknown | undefined {
	const blocks = fencedBlocks(text);
	// A block tagged json wins over an untagged one, whatever their order.
	const ordered = [
		...blocks.filter((block) => /^(json|jsonc|json5)$/i.test(block.tag)),
		...blocks.filter((block) => block.tag === ""),
	];
	for (const block of ordered) {
		const value = parseBare(block.content.trim(), false);
		if (value !== undefined) return value;
	}
	return undefined;
}

/** Markdown fences, found line by line (a regex here could backtrack badly on a long answer full of backticks). */
function fencedBlocks(text: string): { tag: string; content: string }[] {
	const blocks: { tag: string; content: string }[] = [];
	let open: { tag: string; lines: string[] } | undefined;
	for (const line of text.split(/\r?\n/)) {
		const trimmed = line.trim();
		if (!open) {
			if (trimmed.startsWith("```")) open = { tag: trimmed.slice(3).trim().split(/\s/)[0] ?? "", lines: [] };
		} else if (trimmed.endsWith("```")) {
			open.lines.push(trimmed.slice(0, -3));
			blocks.push({ tag: open.tag, content: open.lines.join("\n") });
			open = undefined;
		} else {
			open.lines.push(line);
		}
	}
	return blocks;
}

function parseFirstObject(text: string): unknown | undefined {
	let budget = SCAN_BUDGET;
	for (let start = text.indexOf("{"); start !== -1 && budget > 0; start = text.indexOf("{", start + 1)) {
		const end = balancedEnd(text, start, budget);
		budget -= (end === -1 ? Math.min(text.length, start + budget) : end + 1) - start;
		const value = end === -1 ? undefined : parseBare(text.slice(start, end + 1), false);
		if (value !== undefined) return value;
	}
	return undefined;
}

/** Index of the `}` closing the `{` at `start`, skipping braces in JSON strings; -1 if it does not close within `limit`. */
function balancedEnd(text: string, start: number, limit: number): number {
	let depth = 0;
	let inString = false;
	const stop = Math.min(text.length, start + limit);
	for (let index = start; index < stop; index++) {
		const char = text[index];
		if (inString) {
			if (char === "\\") index++;
			else if (char === '"') inString = false;
		} else if (char === '"') inString = true;
		else if (char === "{") depth++;
		else if (char === "}" && --depth === 0) return index;
	}
	return -1;
}
