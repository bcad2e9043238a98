/**
 * The arguments of a saved workflow's slash command, read against its `meta.args` schema: JSON
 * (`/review-and-fix {"target":"src"}`) or `key=value` pairs, each value converted by its property's type (numbers,
 * booleans, comma lists for arrays); the usage line built from the schema; completions for the word being typed;
 * and the required properties still missing. The schema's own checks (enums, ranges) stay the run's: this only
 * turns words into the JSON the script is given.
 */
import { WorkflowError } from "../errors.ts";
import type { JsonSchema, JsonValue, WorkflowMeta } from "../runtime/core/types.ts";

/** One property of `meta.args` as a command shows it. */
export interface CommandArg {
	name: string;
	required: boolean;
	/** "string", "integer", "a,b,…", "low|medium|high", …. */
	type: string;
	description?: string;
	default?: JsonValue;
	enum?: JsonValue[];
}

/** One completion: `value` replaces everything typed after the command name. */
export interface ArgCompletion {
	value: string;
	label: string;
	description?: string;
}

type Schema = Record<string, unknown>;

/** The properties of `meta.args` when it is an object schema, required ones first. */
export function commandArgs(schema: JsonSchema | undefined): CommandArg[] {
	const root = asSchema(schema);
	const properties = asSchema(root?.properties);
	if (!properties) return [];
	const required = new Set(
		Array.isArray(root?.required) ? root.required.filter((key) => typeof key === "string") : [],
	);
	const args = Object.entries(properties).map(([name, value]): CommandArg => {
		const property = asSchema(value) ?? {};
		return {
			name,
			required: required.has(name),
			type: typeLabel(property),
			...(typeof property.description === "string" ? { description: property.description } : {}),
			...(property.default !== undefined ? { default: property.default as JsonValue } : {}),
			...(Array.isArray(property.enum) ? { enum: property.enum as JsonValue[] } : {}),
		};
	});
	return [...args.filter((arg) => arg.required), ...args.filter((arg) => !arg.required)];
}

/** `/name target=<string> [maxFixes=<integer>] …`, then one line per argument that says more. */
export function commandUsage(command: string, meta: WorkflowMeta): string {
	const args = commandArgs(meta.args);
	if (args.length === 0) return `Usage: /${command} [JSON args]`;
	const words = args.map((arg) => (arg.required ? `${arg.name}=<${arg.type}>` : `[${arg.name}=<${arg.type}>]`));
	const lines = [`Usage: /${command} ${words.join(" ")}`, `   or: /${command} {JSON args}`];
	for (const arg of args) {
		const facts = [
			arg.required ? "required" : undefined,
			arg.description,
			arg.default !== undefined ? `default ${JSON.stringify(arg.default)}` : undefined,
		].filter((fact) => fact !== undefined);
		if (facts.length > 0) lines.push(`  ${arg.name}: ${facts.join("; ")}`);
	}
	return lines.join("\n");
}

/** `--dry-run` among a command's words (outside JSON strings): whether it was there, and the text without it. */
export function takeDryRunFlag(text: string): { dryRun: boolean; text: string } {
	const flag = /(^|\s)--dry-run(?=\s|$)/;
	return flag.test(text) ? { dryRun: true, text: text.replace(flag, "$1").trim() } : { dryRun: false, text };
}

/**
 * The args `text` gives: `{}` when empty, JSON when it starts with `{` or `[`, else `key=value` words (quote a value
 * with spaces: `focus="a b"`). Throws `args_invalid` naming the word and ending with the usage.
 */
export function parseCommandArgs(text: string, command: string, meta: WorkflowMeta): JsonValue {
	const trimmed = text.trim();
	const fail = (problem: string): never => {
		throw new WorkflowError("args_invalid", `/${command}: ${problem}\n${commandUsage(command, meta)}`, {
			details: { command, text },
		});
	};
	if (trimmed === "") return {};
	if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
		try {
			return JSON.parse(trimmed) as JsonValue;
		} catch (error) {
			return fail(`the arguments are not JSON (${(error as Error).message})`);
		}
	}
	const root = asSchema(meta.args);
	const properties = asSchema(root?.properties) ?? {};
	const known = Object.keys(properties);
	const closed = root?.additionalProperties === false;
	const args: Record<string, JsonValue> = {};
	for (const word of splitWords(trimmed, fail)) {
		const eq = word.indexOf("=");
		const key = eq > 0 ? word.slice(0, eq) : word;
		const property = asSchema(properties[key]);
		if (!property && closed) {
			fail(`\`${key}\` is not an argument of this workflow; it takes ${known.map((k) => `\`${k}\``).join(", ")}`);
		}
		if (Object.hasOwn(args, key)) fail(`\`${key}\` was given twice; give it once`);
		if (eq <= 0) {
			// A bare word is a flag: only a boolean argument may be written without `=value`.
			if (property && schemaTypes(property).includes("boolean")) {
				args[key] = true;
				continue;
			}
			fail(`\`${word}\` needs a value: write ${key}=<${property ? typeLabel(property) : "value"}>`);
		}
		args[key] = coerceArgValue(word.slice(eq + 1), property, (problem) => fail(`\`${key}\`: ${problem}`));
	}
	return args;
}

/** One `key=value` value as its property's type wants it; `fail` says why it cannot be. */
export function coerceArgValue(
	value: string,
	property: Schema | undefined,
	fail: (problem: string) => never,
): JsonValue {
	const types = property ? schemaTypes(property) : [];
	if (types.includes("array")) {
		const items = asSchema(property?.items);
		if (value === "") return [];
		return value.split(",").map((item) => coerceArgValue(item.trim(), items, fail));
	}
	if (types.includes("integer") || types.includes("number")) {
		const number = Number(value);
		if (value.trim() !== "" && Number.isFinite(number)) {
			if (types.includes("number") || Number.isInteger(number)) return number;
			if (!types.includes("string")) fail(`${value} is not a whole number`);
		} else if (!types.includes("string")) {
			fail(`${JSON.stringify(value)} is not a number`);
		}
	}
	if (types.includes("boolean")) {
		if (value === "true") return true;
		if (value === "false") return false;
		if (!types.includes("string")) fail(`${JSON.stringify(value)} is not true or false`);
	}
	if (types.includes("object") || types.includes("null")) {
		try {
			return JSON.parse(value) as JsonValue;
		} catch {
			if (!types.includes("string")) fail(`${JSON.stringify(value)} is not JSON`);
		}
	}
	if (types.length === 0) {
		// No type to go by: a JSON-looking value is taken as JSON (numbers, booleans, lists), anything else as text.
		try {
			return JSON.parse(value) as JsonValue;
		} catch {
			return value;
		}
	}
	return value;
}

/** Required properties `args` lacks (only when it is an object: other values are the schema's to judge). */
export function missingArgs(args: JsonValue, meta: WorkflowMeta): CommandArg[] {
	if (args === null || typeof args !== "object" || Array.isArray(args)) return [];
	return commandArgs(meta.args).filter((arg) => arg.required && !Object.hasOwn(args, arg.name));
}

/** Completions for the last word of `typed`: argument names not given yet, or the values an enum or boolean allows. */
export function argCompletions(typed: string, meta: WorkflowMeta): ArgCompletion[] | null {
	if (typed.trimStart().startsWith("{") || typed.trimStart().startsWith("[")) return null;
	const args = commandArgs(meta.args);
	const cut = Math.max(typed.lastIndexOf(" "), -1) + 1;
	const before = typed.slice(0, cut);
	const word = typed.slice(cut);
	const eq = word.indexOf("=");
	let items: ArgCompletion[];
	if (eq > 0) {
		const arg = args.find((candidate) => candidate.name === word.slice(0, eq));
		const values = arg?.enum ?? (arg?.type === "boolean" ? [true, false] : []);
		items = values
			.map((value) => (typeof value === "string" ? value : JSON.stringify(value)))
			.filter((value) => value.startsWith(word.slice(eq + 1)))
			.map((value) => ({ value: `${before}${arg?.name}=${value}`, label: value }));
	} else {
		const given = new Set(before.split(/\s+/).map((w) => w.split("=")[0]));
		items = args
			.filter((arg) => !given.has(arg.name) && arg.name.startsWith(word))
			.map((arg) => ({
				value: `${before}${arg.name}=`,
				label: `${arg.name}=`,
				description: [arg.required ? "required" : undefined, arg.type, arg.description]
					.filter((part) => part !== undefined)
					.join(", "),
			}));
	}
	return items.length > 0 ? items : null;
}

/** The words of `text`, split on spaces; a value in `"…"` or `'…'` keeps its spaces (`key="a b"`). */
function splitWords(text: string, fail: (problem: string) => never): string[] {
	const words: string[] = [];
	let word = "";
	let quote: string | undefined;
	let started = false;
	for (const char of text) {
		if (quote) {
			if (char === quote) quote = undefined;
			else word += char;
		} else if ((char === '"' || char === "'") && (word === "" || word.endsWith("="))) {
			// A quote opens only where a value starts (`key="a b"`): inside one (`limits={"a":1}`) it is text.
			quote = char;
			started = true;
		} else if (/\s/.test(char)) {
			if (started) words.push(word);
			word = "";
			started = false;
		} else {
			word += char;
			started = true;
		}
	}
	if (quote) fail(`a ${quote} is not closed`);
	if (started) words.push(word);
	return words;
}

function typeLabel(property: Schema): string {
	if (Array.isArray(property.enum)) {
		return property.enum.map((value) => (typeof value === "string" ? value : JSON.stringify(value))).join("|");
	}
	const types = schemaTypes(property);
	if (types.includes("array")) {
		const items = asSchema(property.items);
		return `${items ? typeLabel(items) : "value"},…`;
	}
	return types.length > 0 ? types.join("|") : "value";
}

function schemaTypes(property: Schema): string[] {
	if (typeof property.type === "string") return [property.type];
	if (Array.isArray(property.type)) return property.type.filter((type) => typeof type === "string");
	return [];
}

function asSchema(value: unknown): Schema | undefined {
	return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Schema) : undefined;
}
