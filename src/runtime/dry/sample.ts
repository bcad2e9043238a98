/**
 * A plausible value for a JSON Schema, made without a model: what a dry run (and a replay test's divergence) hands a
 * schema `agent()` call. Deterministic for a seed and an index, and varied by index so the items of a fan-out differ
 * (enums cycle, numbers and strings carry the index) and code that dedupes or sorts them behaves as it will.
 */
import { schemaUnsampleableError } from "../../errors.ts";
import type { JsonSchema, JsonValue } from "../core/json.ts";
import { PatternSampler } from "./pattern.ts";

/** Where the value is made for: the call's key (the seed) and its 0-based index among like calls. */
export interface SampleSeed {
	/** Names the value's strings, e.g. the call's label. Default: none (property names and "text" are used). */
	label?: string;
	/** Varies enums, numbers and strings between calls. */
	index: number;
	/**
	 * How long open arrays are: `typical` (a couple of items), `fewest` (the least the schema allows) or `most` (a
	 * long list), so a dry run can draw its stand-ins more than once. Default: typical.
	 */
	arrays?: "fewest" | "typical" | "most";
}

/**
 * What one sample may be, so that no schema a script writes can fill the host's memory or hold its event loop: a
 * sample is made on the host thread, in the dry run's and a replay test's answers and in sampled `meta.args`.
 */
export const SAMPLE_LIMITS = {
	/** Values (objects, arrays, strings, numbers…) in one sample: `minItems` nested 200×200×200 is refused. */
	values: 10_000,
	/** Items one array may be made with: a `minItems` over it is refused at once. */
	items: 1_000,
	/** Characters in all the sample's strings, and bytes of its JSON: the 8 MiB bound of an answer. */
	chars: 8 * 1024 * 1024,
	/** How deep required properties and items may nest: a required `$ref` to itself has no finite value. */
	depth: 64,
	/** Characters made while meeting patterns, kept or not: bounds the time patterns take (well under a second). */
	patternWork: 4 * 1024 * 1024,
};

/** How deep optional properties and open arrays' items are filled; below it only what the schema requires. */
const OPTIONAL_DEPTH = 8;

/** Array length when the schema leaves it open: two, so a script that reads `[1]` or loops sees more than one. */
const OPEN_ARRAY_LENGTH = 2;
/** Items of an open array in a `most` draw: a long list, still far below `SAMPLE_LIMITS`. */
const LONG_ARRAY_LENGTH = 8;

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
 * and `required`, `items`/`prefixItems` with their counts, string lengths, `format` and `pattern` (see pattern.ts),
 * number ranges and `multipleOf`, `anyOf`/`oneOf` (the index picks a branch), `allOf` (merged), local `$ref`s.
 * Small: optional properties only while the sample is cheap and never into a `$ref` already being filled, counts at
 * their minimum, all within `SAMPLE_LIMITS`. Throws `schema_unsampleable` naming the keyword and the schema path
 * when the schema asks for more than that, or for a `pattern` it could not meet.
 */
export function sampleFromSchema(schema: JsonSchema | boolean, seed: SampleSeed): JsonValue {
	const value = new Sampler(typeof schema === "object" ? schema : {}, seed, {
		values: 0,
		chars: 0,
		patternWork: 0,
		patterns: new Map(),
	}).value(schema, {
		name: "",
		depth: 0,
		path: "#",
		via: "required",
		refs: [],
	});
	// The characters are counted as they are made; the JSON around them (keys, quotes, escapes) only here.
	if (Buffer.byteLength(JSON.stringify(value)) > SAMPLE_LIMITS.chars) {
		throw unsampleable("minLength", "#", `makes a sample of more than ${SAMPLE_LIMITS.chars} bytes of JSON`);
	}
	return value;
}

/** Where in the schema a value is being made. */
interface Place {
	/** The property it is for: names its text. */
	name: string;
	depth: number;
	/** The JSON pointer of its schema, for messages: `#/properties/items/items`. */
	path: string;
	/** The keyword that led here (`required`, `anyOf`…): the one to blame when it nests past the limit. */
	via: string;
	/** The `$ref`s being filled around it: an optional property into one of them is left out. */
	refs: readonly string[];
}

/** What the sample holds so far, shared by every part of it. */
interface Spent {
	values: number;
	chars: number;
	/** Characters made while meeting patterns (`SAMPLE_LIMITS.patternWork`). */
	patternWork: number;
	/** Each pattern's sampler, read once for the whole sample; undefined for one it cannot read. */
	patterns: Map<string, PatternSampler | undefined>;
}

class Sampler {
	readonly #root: JsonSchema;
	readonly #seed: SampleSeed;
	readonly #spent: Spent;

	constructor(root: JsonSchema, seed: SampleSeed, spent: Spent) {
		this.#root = root;
		this.#seed = seed;
		this.#spent = spent;
	}

	value(schema: JsonSchema | JsonValue, at: Place): JsonValue {
		if (
			schema === true ||
			schema === undefined ||
			schema === null ||
			typeof schema !== "object" ||
			Array.isArray(schema)
		) {
			return this.#text({}, at);
		}
		const { schema: s, refs, path } = this.#resolve(schema, at);
		const here: Place = { ...at, path, refs: [...at.refs, ...refs] };
		// Only what is required (or a branch into itself) gets this deep or this big: arrays refuse their own counts.
		if (here.depth > SAMPLE_LIMITS.depth) {
			throw unsampleable(
				at.via,
				here.path,
				`nests deeper than ${SAMPLE_LIMITS.depth} levels`,
				"end the nesting with an optional property or another branch",
			);
		}
		if (++this.#spent.values > SAMPLE_LIMITS.values) {
			throw unsampleable(
				"required",
				here.path,
				`makes a sample of more than ${SAMPLE_LIMITS.values} values`,
				"make a property on the way optional",
			);
		}
		if ("const" in s) return s.const as JsonValue;
		if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[this.#seed.index % s.enum.length] as JsonValue;
		const branches = (Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined) as
			| JsonSchema[]
			| undefined;
		// A branch or a merge is the same value again, one level down: a branch into itself meets the depth limit.
		if (branches && branches.length > 0) {
			this.#spent.values--;
			const pick = this.#seed.index % branches.length;
			const branch = this.#resolve(branches[pick] as JsonSchema, here);
			return this.value(
				{ ...withoutKeys(s, "oneOf", "anyOf"), ...branch.schema },
				{
					...here,
					depth: here.depth + 1,
					via: Array.isArray(s.oneOf) ? "oneOf" : "anyOf",
					refs: [...here.refs, ...branch.refs],
				},
			);
		}
		if (Array.isArray(s.allOf) && s.allOf.length > 0) {
			this.#spent.values--;
			return this.value(
				mergeAll(s, s.allOf as JsonSchema[], (x) => this.#resolve(x, here).schema),
				{ ...here, depth: here.depth + 1, via: "allOf" },
			);
		}
		switch (typeOf(s)) {
			case "object":
				return this.#object(s, here);
			case "array":
				return this.#array(s, here);
			case "integer":
				return this.#number(s, true);
			case "number":
				return this.#number(s, false);
			case "boolean":
				return this.#seed.index % 2 === 0;
			case "null":
				return null;
			default:
				return this.#text(s, here);
		}
	}

	/** `schema` with its `$ref`s followed: the schema, the refs taken, and the path of where it ended. */
	#resolve(schema: JsonSchema, at: Place): { schema: JsonSchema; refs: string[]; path: string } {
		let current = schema;
		const refs: string[] = [];
		let path = at.path;
		for (let hops = 0; typeof current.$ref === "string" && hops < 32; hops++) {
			const ref = current.$ref;
			const target = pointer(this.#root, ref);
			if (!target) break;
			refs.push(ref);
			path = ref;
			current = { ...withoutKeys(current, "$ref"), ...target };
		}
		return { schema: current, refs, path };
	}

	/** Whether more than the schema requires may go in: shallow, and the sample still small. */
	#roomForOptional(at: Place): boolean {
		return (
			at.depth < OPTIONAL_DEPTH &&
			this.#spent.values < SAMPLE_LIMITS.values / 8 &&
			this.#spent.chars < SAMPLE_LIMITS.chars / 8
		);
	}

	/** Whether `schema` (a property or an item) refers to a `$ref` being filled around `at`: filling it would recurse. */
	#recurses(schema: JsonSchema | JsonValue, at: Place): boolean {
		if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return false;
		return this.#resolve(schema, at).refs.some((ref) => at.refs.includes(ref)) || schema.$ref === "#";
	}

	#object(s: JsonSchema, at: Place): JsonValue {
		const properties = isSchemaMap(s.properties) ? s.properties : {};
		const required = Array.isArray(s.required) ? s.required.filter((k): k is string => typeof k === "string") : [];
		const out: { [key: string]: JsonValue } = {};
		const inner = (key: string, path: string): Place => ({
			...at,
			name: key,
			depth: at.depth + 1,
			path,
			via: "required",
		});
		for (const [key, child] of Object.entries(properties)) {
			const needed = required.includes(key);
			if (!needed && (!this.#roomForOptional(at) || this.#recurses(child, at))) continue;
			out[key] = this.value(child, inner(key, `${at.path}/properties/${escapePointer(key)}`));
		}
		const extra = typeof s.additionalProperties === "object" ? (s.additionalProperties as JsonSchema) : {};
		for (const key of required) {
			if (!(key in out)) out[key] = this.value(extra, inner(key, `${at.path}/additionalProperties`));
		}
		return out;
	}

	#array(s: JsonSchema, at: Place): JsonValue {
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
		if (min > SAMPLE_LIMITS.items) {
			throw unsampleable("minItems", at.path, `is ${min}, over the ${SAMPLE_LIMITS.items} items a sample may hold`);
		}
		const max = numberOr(s.maxItems, Number.POSITIVE_INFINITY);
		const room = this.#roomForOptional(at);
		// Open items only while there is room, and never into what is being filled: `items: { $ref: "#" }`.
		const length =
			this.#seed.arrays === "most" ? LONG_ARRAY_LENGTH : this.#seed.arrays === "fewest" ? 0 : OPEN_ARRAY_LENGTH;
		const more = rest && room && !this.#recurses(rest, at) ? length : 0;
		const wanted = Math.min(max, Math.max(min, room ? prefix.length : 0, more));
		const out: JsonValue[] = [];
		for (let i = 0; i < wanted; i++) {
			const item = i < prefix.length ? prefix[i] : rest;
			if (!item) break;
			if (this.#spent.values >= SAMPLE_LIMITS.values) {
				throw unsampleable("minItems", at.path, `makes a sample of more than ${SAMPLE_LIMITS.values} values`);
			}
			// Items differ from each other (uniqueItems, dedupe in the script): each gets its own index.
			const sampler = new Sampler(this.#root, { ...this.#seed, index: this.#seed.index * wanted + i }, this.#spent);
			const path = itemPath(s, at.path, i < prefix.length ? i : undefined);
			const place = { ...at, name: singular(at.name), depth: at.depth + 1, path, via: "minItems" };
			out.push(sampler.value(item, place));
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

	#text(s: JsonSchema, at: Place): string {
		const min = numberOr(s.minLength, 0);
		const left = SAMPLE_LIMITS.chars - this.#spent.chars;
		if (min > left) {
			throw unsampleable(
				"minLength",
				at.path,
				min > SAMPLE_LIMITS.chars
					? `is ${min}, over the ${SAMPLE_LIMITS.chars} characters a sample may hold`
					: `makes a sample of more than ${SAMPLE_LIMITS.chars} characters`,
			);
		}
		const max = Math.min(numberOr(s.maxLength, Number.POSITIVE_INFINITY), left);
		const text =
			typeof s.pattern === "string" ? this.#matching(s, s.pattern, min, max, at) : this.#plain(s, at, min, max);
		this.#spent.chars += text.length;
		return text;
	}

	/** A text of `min`…`max` characters: a format's sample, else the property's name and the index. */
	#plain(s: JsonSchema, at: Place, min: number, max: number): string {
		const format = typeof s.format === "string" ? FORMAT_SAMPLES[s.format] : undefined;
		let text = format ? format(this.#seed.index) : `${at.name || this.#seed.label || "text"} ${this.#seed.index + 1}`;
		if (text.length < min) text = text.padEnd(min, ".");
		if (text.length > max) text = text.slice(0, max);
		return text;
	}

	/** A text that matches `pattern`: the plain one when it already does (a format's), else one made for it. */
	#matching(s: JsonSchema, pattern: string, min: number, max: number, at: Place): string {
		let sampler = this.#spent.patterns.get(pattern);
		if (!this.#spent.patterns.has(pattern)) {
			sampler = PatternSampler.of(pattern);
			this.#spent.patterns.set(pattern, sampler);
		}
		if (this.#spent.patternWork > SAMPLE_LIMITS.patternWork) {
			throw unsampleable(
				"pattern",
				at.path,
				`(${JSON.stringify(pattern)}) is one of the patterns that took more than ${SAMPLE_LIMITS.patternWork} characters of tries to meet for this many strings`,
				"ask for fewer or shorter strings",
			);
		}
		const preferred = typeof s.format === "string" ? this.#plain(s, at, min, max) : undefined;
		const before = sampler?.work ?? 0;
		const made = sampler?.sample(this.#seed.index, min, max, preferred);
		this.#spent.patternWork += (sampler?.work ?? 0) - before;
		if (made !== undefined) return made;
		throw unsampleable(
			"pattern",
			at.path,
			`(${JSON.stringify(pattern)}) has no match the dry run could make within its minLength and maxLength`,
			"write the pattern with literals, classes, alternations and bounded repeats",
		);
	}
}

/** `schema_unsampleable` for `keyword` at `path`: what it asks, and what to do (by default, ask for less). */
function unsampleable(keyword: string, path: string, what: string, advice = `lower \`${keyword}\``) {
	return schemaUnsampleableError(keyword, path, what, advice);
}

/** The schema path of an array's item `index` of its prefix, or (undefined) of its open items. */
function itemPath(s: JsonSchema, path: string, index: number | undefined): string {
	if (Array.isArray(s.prefixItems)) return index !== undefined ? `${path}/prefixItems/${index}` : `${path}/items`;
	if (Array.isArray(s.items)) return index !== undefined ? `${path}/items/${index}` : `${path}/additionalItems`;
	return `${path}/items`;
}

function escapePointer(key: string): string {
	return key.replace(/~/g, "~0").replace(/\//g, "~1");
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
