/**
 * A plausible value for a JSON Schema, made without a model: what a dry run (and a replay test's divergence) hands a
 * schema `agent()` call. Deterministic for a seed and an index, and varied by index so the items of a fan-out differ
 * (enums cycle, numbers and strings carry the index) and code that dedupes or sorts them behaves as it will.
 */
import type { JsonSchema, JsonValue } from "../core/json.ts";

/** Where the value is made for: the call's key (the seed) and its 0-based index among like calls. */
export interface SampleSeed {
	/** Names the value's strings, e.g. the call's label. Default: none (property names and "text" are used). */
	label?: string;
	/** Varies enums, numbers and strings between calls. */
	index: number;
}

/** How deep nested objects and arrays are filled before an empty one is given. */
const MAX_DEPTH = 8;

/** Array length when the schema leaves it open: two, so a script that reads `[1]` or loops sees more than one. */
const OPEN_ARRAY_LENGTH = 2;

/** Values for the formats ajv-formats checks; index varies them where the format allows. */
const FORMAT_SAMPLES: Record<string, (index: number) => string> = {
	"date-time": (i) => `2026-01-${String((i % 28) + 1).padStart(2, "0")}T12:00:00Z`,
	date: (i) => `2026-01-${String((i % 28) + 1).padStart(2, "0")}`,
	time: (i) => `12:${String(i % 60).padStart(2, "0")}:00Z`,
	duration: (i) => `P${i + 1}D`,
	email: (i) => `person${i}@example.com`,
	"idn-email": (i) => `person${i}@example.com`,
	hostname: (i) => `host${i}.example.com`,
	"idn-hostname": (i) => `host${i}.example.com`,
	ipv4: (i) => `192.0.2.${(i % 254) + 1}`,
	ipv6: (i) => `2001:db8::${(i % 0xfffe) + 1}`,
	uri: (i) => `https://example.com/item/${i}`,
	"uri-reference": (i) => `/item/${i}`,
	iri: (i) => `https://example.com/item/${i}`,
	"iri-reference": (i) => `/item/${i}`,
	url: (i) => `https://example.com/item/${i}`,
	"uri-template": (i) => `https://example.com/item/{id${i}}`,
	uuid: (i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0").slice(-12)}`,
	"json-pointer": (i) => `/items/${i}`,
	"relative-json-pointer": (i) => `${i}/name`,
	regex: () => "^.*$",
	byte: () => "ZHJ5IHJ1bg==",
	int32: (i) => String(i),
	int64: (i) => String(i),
	float: (i) => String(i + 0.5),
	double: (i) => String(i + 0.5),
	password: (i) => `password-${i}`,
	binary: (i) => `binary-${i}`,
};

/**
 * A value `schema` accepts, as far as its keywords can be met without search: `type`, `enum`, `const`, `properties`
 * and `required`, `items`/`prefixItems` with their counts, string lengths and `format`, number ranges and
 * `multipleOf`, `anyOf`/`oneOf` (the index picks a branch), `allOf` (merged), local `$ref`s. A `pattern` is not
 * solved: callers check the value and say so when it does not validate.
 */
export function sampleFromSchema(schema: JsonSchema | boolean, seed: SampleSeed): JsonValue {
	return new Sampler(typeof schema === "object" ? schema : {}, seed).value(schema, "", 0);
}

class Sampler {
	readonly #root: JsonSchema;
	readonly #seed: SampleSeed;

	constructor(root: JsonSchema, seed: SampleSeed) {
		this.#root = root;
		this.#seed = seed;
	}

	value(schema: JsonSchema | JsonValue, name: string, depth: number): JsonValue {
		if (
			schema === true ||
			schema === undefined ||
			schema === null ||
			typeof schema !== "object" ||
			Array.isArray(schema)
		) {
			return this.#text(name, {});
		}
		const s = this.#resolve(schema);
		if ("const" in s) return s.const as JsonValue;
		if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[this.#seed.index % s.enum.length] as JsonValue;
		const branches = (Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined) as
			| JsonSchema[]
			| undefined;
		if (branches && branches.length > 0) {
			return this.value(
				{ ...withoutKeys(s, "oneOf", "anyOf"), ...this.#resolve(branches[this.#seed.index % branches.length]) },
				name,
				depth,
			);
		}
		if (Array.isArray(s.allOf) && s.allOf.length > 0)
			return this.value(
				mergeAll(s, s.allOf as JsonSchema[], (x) => this.#resolve(x)),
				name,
				depth,
			);
		switch (typeOf(s)) {
			case "object":
				return depth >= MAX_DEPTH ? {} : this.#object(s, depth);
			case "array":
				return depth >= MAX_DEPTH ? [] : this.#array(s, name, depth);
			case "integer":
				return this.#number(s, true);
			case "number":
				return this.#number(s, false);
			case "boolean":
				return this.#seed.index % 2 === 0;
			case "null":
				return null;
			default:
				return this.#text(name, s);
		}
	}

	#resolve(schema: JsonSchema): JsonSchema {
		let current = schema;
		for (let hops = 0; typeof current.$ref === "string" && hops < 32; hops++) {
			const target = pointer(this.#root, current.$ref);
			if (!target) break;
			current = { ...withoutKeys(current, "$ref"), ...target };
		}
		return current;
	}

	#object(s: JsonSchema, depth: number): JsonValue {
		const properties = isSchemaMap(s.properties) ? s.properties : {};
		const out: { [key: string]: JsonValue } = {};
		for (const [key, child] of Object.entries(properties)) out[key] = this.value(child, key, depth + 1);
		const required = Array.isArray(s.required) ? s.required.filter((k): k is string => typeof k === "string") : [];
		const extra = typeof s.additionalProperties === "object" ? (s.additionalProperties as JsonSchema) : {};
		for (const key of required) if (!(key in out)) out[key] = this.value(extra, key, depth + 1);
		return out;
	}

	#array(s: JsonSchema, name: string, depth: number): JsonValue {
		const prefix = Array.isArray(s.prefixItems)
			? (s.prefixItems as JsonSchema[])
			: Array.isArray(s.items)
				? (s.items as JsonSchema[])
				: [];
		const open = Array.isArray(s.items) ? s.additionalItems : s.items;
		const rest =
			open === false
				? undefined
				: typeof open === "object" && open !== null && !Array.isArray(open)
					? (open as JsonSchema)
					: {};
		const min = numberOr(s.minItems, 0);
		const max = numberOr(s.maxItems, Number.POSITIVE_INFINITY);
		const wanted = Math.min(max, Math.max(min, prefix.length, rest ? OPEN_ARRAY_LENGTH : 0));
		const out: JsonValue[] = [];
		for (let i = 0; i < wanted; i++) {
			const item = i < prefix.length ? prefix[i] : rest;
			if (!item) break;
			// Items differ from each other (uniqueItems, dedupe in the script): each gets its own index.
			out.push(
				new Sampler(this.#root, { ...this.#seed, index: this.#seed.index * wanted + i }).value(
					item,
					singular(name),
					depth + 1,
				),
			);
		}
		return out;
	}

	#number(s: JsonSchema, integer: boolean): number {
		const low = Math.max(
			numberOr(s.minimum, Number.NEGATIVE_INFINITY),
			numberOr(s.exclusiveMinimum, Number.NEGATIVE_INFINITY) + (integer ? 1 : 0.5),
		);
		const high = Math.min(
			numberOr(s.maximum, Number.POSITIVE_INFINITY),
			numberOr(s.exclusiveMaximum, Number.POSITIVE_INFINITY) - (integer ? 1 : 0.5),
		);
		const step = typeof s.multipleOf === "number" && s.multipleOf > 0 ? s.multipleOf : integer ? 1 : 0.5;
		const start = Number.isFinite(low)
			? Math.ceil(low / step) * step
			: Number.isFinite(high)
				? Math.min(0, Math.floor(high / step) * step)
				: 0;
		const offset = (this.#seed.index + 1) * step;
		const candidate = start + (Number.isFinite(low) ? this.#seed.index * step : offset);
		if (candidate <= high) return tidy(candidate);
		const span = Number.isFinite(high) ? Math.max(0, Math.floor((high - start) / step)) : 0;
		return tidy(start + (span > 0 ? (this.#seed.index % (span + 1)) * step : 0));
	}

	#text(name: string, s: JsonSchema): string {
		const format = typeof s.format === "string" ? FORMAT_SAMPLES[s.format] : undefined;
		let text = format ? format(this.#seed.index) : `${name || this.#seed.label || "text"} ${this.#seed.index + 1}`;
		const min = numberOr(s.minLength, 0);
		const max = numberOr(s.maxLength, Number.POSITIVE_INFINITY);
		if (text.length < min) text = text.padEnd(min, ".");
		if (text.length > max) text = text.slice(0, max);
		return text;
	}
}

function typeOf(s: JsonSchema): string | undefined {
	if (typeof s.type === "string") return s.type;
	if (Array.isArray(s.type)) {
		const types = s.type.filter((t): t is string => typeof t === "string");
		return types.find((t) => t !== "null") ?? types[0];
	}
	if (isSchemaMap(s.properties) || Array.isArray(s.required)) return "object";
	if ("items" in s || "prefixItems" in s) return "array";
	if ("minimum" in s || "maximum" in s || "multipleOf" in s) return "number";
	return undefined;
}

function mergeAll(base: JsonSchema, parts: JsonSchema[], resolve: (s: JsonSchema) => JsonSchema): JsonSchema {
	let merged: JsonSchema = withoutKeys(base, "allOf");
	for (const part of parts) {
		const p = resolve(part);
		const properties = {
			...(isSchemaMap(merged.properties) ? merged.properties : {}),
			...(isSchemaMap(p.properties) ? p.properties : {}),
		};
		const required = [
			...(Array.isArray(merged.required) ? merged.required : []),
			...(Array.isArray(p.required) ? p.required : []),
		];
		merged = { ...merged, ...p, properties, required };
	}
	return merged;
}

function pointer(root: JsonSchema, ref: string): JsonSchema | undefined {
	if (!ref.startsWith("#")) return undefined;
	let node: JsonValue = root;
	for (const raw of ref.slice(1).split("/").filter(Boolean)) {
		const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
		if (node === null || typeof node !== "object" || Array.isArray(node) || !(key in node)) return undefined;
		node = node[key];
	}
	return node !== null && typeof node === "object" && !Array.isArray(node) ? node : undefined;
}

function isSchemaMap(value: JsonValue | undefined): value is { [key: string]: JsonSchema } {
	return value !== null && typeof value === "object" && !Array.isArray(value);
}

function withoutKeys(s: JsonSchema, ...keys: string[]): JsonSchema {
	const copy = { ...s };
	for (const key of keys) delete copy[key];
	return copy;
}

function numberOr(value: JsonValue | undefined, fallback: number): number {
	return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

/** Avoids 0.30000000000000004 in a value a person reads. */
function tidy(n: number): number {
	return Number.isInteger(n) ? n : Number(n.toPrecision(12));
}

/** "findings" → "finding", for the text of an array's items. */
function singular(name: string): string {
	return name.endsWith("s") && name.length > 3 ? name.slice(0, -1) : name;
}
