/**
 * Validation failures as the author reads them: ajv's errors turned into paths written like code
 * (`output.items[0].title`) and one joined line. Pure; used on the host and in the schema worker.
 */
import type { ErrorObject } from "ajv";

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

/** Issues rendered into one message; the rest are counted. */
const MAX_ISSUES = 10;

/** Joins issues into one line: "`args.target` must be string; `args` must have required property 'target'". */
export function formatIssues(issues: readonly SchemaIssue[]): string {
	const shown = issues.slice(0, MAX_ISSUES).map((issue) => `\`${issue.path}\` ${issue.message}`);
	const more = issues.length - shown.length;
	return more > 0 ? `${shown.join("; ")}; and ${more} more` : shown.join("; ");
}

/** ajv's errors for `value` (named `root` in paths), one issue per distinct path and message. */
export function toIssues(errors: readonly ErrorObject[], value: unknown, root: string): SchemaIssue[] {
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

/** "a string", "an array", "null", "a Date": how a value that is not what was expected is named in messages. */
export function describeType(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "an array";
	if (typeof value === "number" && !Number.isFinite(value)) return String(value);
	if (typeof value === "object") {
		const name = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor?.name;
		return name && name !== "Object" ? `a ${name}` : "an object";
	}
	return typeof value === "undefined" ? "undefined" : `a ${typeof value}`;
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
