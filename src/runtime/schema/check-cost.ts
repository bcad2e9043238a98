/**
 * Whether checking one value against one schema is cheap enough to run on the host's thread, decided before it
 * runs: the fast path's time bound. The schema worker bounds a check by stopping it at its deadline; the host
 * cannot stop a running check, so it bounds the work instead, and only for schemas where the work can be counted.
 *
 * Why the count is a bound: a schema without references (`$ref` and kin) is a tree of at most
 * `SCHEMA_LIMITS.maxSubschemas` subschemas, so ajv applies each subschema at most once to each value it reaches,
 * and the values one subschema reaches all sit at the same depth of the answer, so their subtrees do not overlap.
 * Every pattern runs on RE2, whose time on a string is at most its length times the program's size (the lazy DFA
 * builds at most one state per character, each in time linear in the program; the fallbacks are linear too), and
 * `uniqueItems` is linear (ajv.ts). `costWithin` walks the schema and the value the way ajv will and adds up, per
 * keyword, a bound of what ajv does for it (and of the errors it can push: one per step at most), stopping as soon as
 * the sum passes the budget (the count itself walks no more of the answer than it has paid for, and the host has
 * walked the whole answer once already, to copy it as JSON data). Keywords whose cost it does not know (`format`, whose regexes are V8's,
 * `unevaluated*`, references) make a schema `hostCheckable` false: its checks stay in the worker.
 */

/** Keywords whose work `costWithin` counts; any other keyword keeps the schema's checks in the worker. */
const COUNTED = new Set([
	"$schema",
	"$id",
	"$comment",
	"title",
	"description",
	"default",
	"examples",
	"deprecated",
	"readOnly",
	"writeOnly",
	"$defs",
	"definitions",
	"type",
	"enum",
	"const",
	"multipleOf",
	"minimum",
	"maximum",
	"exclusiveMinimum",
	"exclusiveMaximum",
	"minLength",
	"maxLength",
	"pattern",
	"items",
	"prefixItems",
	"additionalItems",
	"contains",
	"minContains",
	"maxContains",
	"minItems",
	"maxItems",
	"uniqueItems",
	"properties",
	"patternProperties",
	"additionalProperties",
	"propertyNames",
	"required",
	"minProperties",
	"maxProperties",
	"dependencies",
	"dependentRequired",
	"dependentSchemas",
	"allOf",
	"anyOf",
	"oneOf",
	"not",
	"if",
	"then",
	"else",
]);
/** Keywords whose value is one subschema, applied to the same value. */
const SAME_VALUE = ["not", "if", "then", "else"] as const;
/** Keywords whose value is a list of subschemas, each applied to the same value. */
const SAME_VALUE_LISTS = ["allOf", "anyOf", "oneOf"] as const;

type Schema = Record<string, unknown>;

/**
 * Whether every subschema of `schema` (a checked copy: plain JSON, within the limits) uses only keywords whose
 * cost `costWithin` counts. `$defs` may hold any schema: without references nothing applies it.
 */
export function hostCheckable(schema: unknown): boolean {
	if (typeof schema === "boolean") return true;
	if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return false;
	for (const [keyword, value] of Object.entries(schema)) {
		if (!COUNTED.has(keyword)) return false;
		if (!subschemasOf(keyword, value).every(hostCheckable)) return false;
	}
	return true;
}

/** The subschemas under `keyword` (`$defs` excluded: nothing applies them without references). */
function subschemasOf(keyword: string, value: unknown): unknown[] {
	switch (keyword) {
		case "items":
			return Array.isArray(value) ? value : [value];
		case "prefixItems":
		case "allOf":
		case "anyOf":
		case "oneOf":
			return Array.isArray(value) ? value : [];
		case "properties":
		case "patternProperties":
		case "dependentSchemas":
			return isObject(value) ? Object.values(value) : [];
		case "dependencies":
			return isObject(value) ? Object.values(value).filter((item) => !Array.isArray(item)) : [];
		case "additionalItems":
		case "contains":
		case "additionalProperties":
		case "propertyNames":
		case "not":
		case "if":
		case "then":
		case "else":
			return [value];
		default:
			return [];
	}
}

/**
 * Whether checking `value` against `schema` (for which `hostCheckable` holds) takes at most `budget` steps; each
 * pattern's cost per character is `programSize(pattern)`. Runs in time proportional to the smaller of the two.
 */
export function costWithin(
	schema: unknown,
	value: unknown,
	budget: number,
	programSize: (pattern: string) => number,
): boolean {
	const meter = new Meter(budget, programSize);
	try {
		meter.visit(schema, value);
		return true;
	} catch (error) {
		if (error === OVER) return false;
		throw error;
	}
}

const OVER = Symbol("over budget");
/**
 * Steps one character costs per instruction of a pattern's program: building a lazy DFA state is the dearest step a
 * check takes (measured at up to about ten times an ordinary one).
 */
const PATTERN_STEP = 10;

class Meter {
	#left: number;
	readonly #programSize: (pattern: string) => number;
	/** Sizes of the answer's objects and arrays, each counted once. */
	readonly #sizes = new WeakMap<object, number>();

	constructor(budget: number, programSize: (pattern: string) => number) {
		this.#left = budget;
		this.#programSize = programSize;
	}

	#spend(steps: number): void {
		this.#left -= steps;
		if (this.#left < 0) throw OVER;
	}

	/** One application of `schema` to `value`, and what it applies further. */
	visit(schema: unknown, value: unknown): void {
		if (!isObject(schema)) {
			this.#spend(1);
			return;
		}
		this.#spend(1 + Object.keys(schema).length);
		if (schema.enum !== undefined || schema.const !== undefined) this.#equality(schema, value);
		if (typeof value === "string") this.#string(schema, value);
		else if (Array.isArray(value)) this.#array(schema, value);
		else if (isObject(value)) this.#object(schema, value);
		for (const keyword of SAME_VALUE) if (schema[keyword] !== undefined) this.visit(schema[keyword], value);
		for (const keyword of SAME_VALUE_LISTS) {
			const list = schema[keyword];
			if (Array.isArray(list)) for (const item of list) this.visit(item, value);
		}
		const dependent = [schema.dependentSchemas, schema.dependencies];
		for (const map of dependent) {
			if (!isObject(map)) continue;
			for (const item of Object.values(map)) {
				if (Array.isArray(item)) this.#spend(item.length + 1);
				else this.visit(item, value);
			}
		}
		if (isObject(schema.dependentRequired)) {
			for (const names of Object.values(schema.dependentRequired)) this.#spend(lengthOf(names) + 1);
		}
	}

	/** Deep equality against each allowed value: both sides' keys, at most, per comparison. */
	#equality(schema: Schema, value: unknown): void {
		const allowed = Array.isArray(schema.enum) ? [...schema.enum] : [];
		if (schema.const !== undefined) allowed.push(schema.const);
		const own = this.#size(value);
		for (const option of allowed) this.#spend(own + this.#size(option));
	}

	#string(schema: Schema, value: string): void {
		// Length in code points (minLength, maxLength), then each character through RE2's program.
		if (schema.minLength !== undefined || schema.maxLength !== undefined) this.#spend(value.length);
		if (typeof schema.pattern === "string") this.#match(schema.pattern, value);
	}

	#match(pattern: string, text: string): void {
		this.#spend(PATTERN_STEP * (text.length + 1) * Math.max(1, this.#programSize(pattern)));
	}

	#array(schema: Schema, value: unknown[]): void {
		this.#spend(value.length);
		// stableJson of every item, and a Map of them.
		if (schema.uniqueItems === true) this.#spend(2 * this.#size(value));
		const { items, prefixItems, additionalItems, contains } = schema;
		const tuple = Array.isArray(prefixItems) ? prefixItems : Array.isArray(items) ? items : undefined;
		const rest = Array.isArray(prefixItems) ? items : Array.isArray(items) ? additionalItems : items;
		for (const [index, item] of value.entries()) {
			if (tuple && index < tuple.length) this.visit(tuple[index], item);
			else if (rest !== undefined) this.visit(rest, item);
			if (contains !== undefined) this.visit(contains, item);
		}
	}

	#object(schema: Schema, value: Schema): void {
		const keys = Object.keys(value);
		const properties = isObject(schema.properties) ? schema.properties : {};
		const patterns = isObject(schema.patternProperties) ? Object.entries(schema.patternProperties) : [];
		const declared = Object.keys(properties).length;
		this.#spend(keys.length + declared + lengthOf(schema.required));
		for (const key of keys) {
			const item = value[key];
			if (Object.hasOwn(properties, key)) this.visit(properties[key], item);
			for (const [pattern, sub] of patterns) {
				this.#match(pattern, key);
				this.visit(sub, item);
			}
			if (schema.additionalProperties !== undefined) {
				// ajv compares each key with every declared name and pattern before it counts as additional.
				this.#spend(declared);
				for (const [pattern] of patterns) this.#match(pattern, key);
				this.visit(schema.additionalProperties, item);
			}
			if (schema.propertyNames !== undefined) this.visit(schema.propertyNames, key);
		}
	}

	/**
	 * The answer's size in steps: one per value, plus the characters of its strings and keys. Counted once, and paid
	 * for while it is counted (one step per member), so a huge answer stops the count early.
	 */
	#size(value: unknown): number {
		if (typeof value === "string") return value.length + 1;
		if (typeof value !== "object" || value === null) return 1;
		const known = this.#sizes.get(value);
		if (known !== undefined) return known;
		let size = 1;
		if (Array.isArray(value)) {
			this.#spend(value.length);
			for (const item of value) size += this.#size(item);
		} else {
			const keys = Object.keys(value);
			this.#spend(keys.length);
			for (const key of keys) size += key.length + 1 + this.#size((value as Schema)[key]);
		}
		this.#sizes.set(value, size);
		return size;
	}
}

function isObject(value: unknown): value is Schema {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function lengthOf(value: unknown): number {
	return Array.isArray(value) ? value.length : 0;
}
