/**
 * The host's side of the boundary rule "JSON data only, copied": checking the values the host sends in (`data`,
 * host-call results, error props) and turning host errors into data. The guest side of the rule is guest.ts.
 */
import { types } from "node:util";
import { type HostErrorData, MAX_WIRE_DEPTH } from "./protocol.ts";
import type { GuestErrorKind, SandboxValue } from "./types.ts";

/** A value that cannot cross, with the path of the bad part. */
export interface ValueProblem {
	kind: Extract<GuestErrorKind, "value_not_json" | "limit_value_size">;
	path: string;
	message: string;
}

/** JSON text of a host value that passed the rule, or what is wrong with it. `undefined` stays absent. */
export type EncodedValue = { ok: true; json: string | undefined } | { ok: false; problem: ValueProblem };

/**
 * A value that is not JSON data: the path of the first bad part and what was found there ("a function"). The one
 * rule for host values, shared by the sandbox (which encodes them) and the runtime (which copies them).
 */
export interface JsonDataProblem {
	path: string;
	found: string;
}

/**
 * Checks `value` as JSON data: plain objects and arrays, finite numbers, no cycles, Proxies, getters, holes, symbol
 * keys or `__proto__` keys, at most `MAX_WIRE_DEPTH` levels. Undefined and non-enumerable properties are left out, as
 * the guest's encoder and `JSON.stringify` leave them out. With `copy`, `value` is a copy as plain data, so no Proxy
 * trap, getter or later change by whoever handed it over can make it differ from what was checked.
 */
export function checkJsonData(
	value: unknown,
	root: string,
	copy: boolean,
): { ok: true; value: SandboxValue } | ({ ok: false } & JsonDataProblem) {
	const walk = new JsonWalk(copy);
	const checked = walk.at(value, root, 0);
	return walk.problem ? { ok: false, ...walk.problem } : { ok: true, value: checked };
}

/** Checks `value` as JSON data (see `checkJsonData`) and encodes it. `undefined` stays absent. */
export function encodeHostValue(value: unknown, root: string, maxBytes: number): EncodedValue {
	if (value === undefined) return { ok: true, json: undefined };
	const checked = checkJsonData(value, root, false);
	if (!checked.ok) return { ok: false, problem: notJson(checked.path, checked.found) };
	let json: string;
	try {
		json = JSON.stringify(value);
	} catch (error) {
		// Longer than V8's longest string: far past any limit, and not an internal error.
		if (!(error instanceof RangeError)) throw error;
		json = "";
	}
	if (json === "" || Buffer.byteLength(json) > maxBytes) {
		const message = `\`${root}\` is larger than ${maxBytes} bytes as JSON, the limit for a value crossing the sandbox boundary`;
		return { ok: false, problem: { kind: "limit_value_size", path: root, message } };
	}
	return { ok: true, json };
}

/** The path segment for a key: `.name` for identifiers, `[3]` for indices, `["odd key"]` otherwise. */
export function pathSegment(key: string | number): string {
	if (typeof key === "number") return `[${key}]`;
	return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** One walk over a value: stops at the first problem, which it keeps. */
class JsonWalk {
	problem: JsonDataProblem | null = null;
	private readonly ancestors = new Set<object>();
	private readonly copy: boolean;

	constructor(copy: boolean) {
		this.copy = copy;
	}

	at(value: unknown, path: string, depth: number): SandboxValue {
		if (value === null || typeof value === "string" || typeof value === "boolean") return value;
		if (typeof value === "number") {
			return Number.isFinite(value) ? value : this.fail(path, Number.isNaN(value) ? "NaN" : String(value));
		}
		if (typeof value === "undefined") return this.fail(path, "undefined");
		if (typeof value === "function") return this.fail(path, "a function");
		if (typeof value === "bigint") return this.fail(path, "a BigInt");
		if (typeof value === "symbol") return this.fail(path, "a symbol");
		const object = value as object;
		// A Proxy's traps would run on every read and could answer differently each time; it is refused before any.
		if (types.isProxy(object)) return this.fail(path, "a Proxy");
		// A fixed depth, so a deep value gets the same clear error whatever stack the host has left.
		if (depth >= MAX_WIRE_DEPTH) return this.fail(path, `nested more than ${MAX_WIRE_DEPTH} levels deep`);
		if (this.ancestors.has(object)) return this.fail(path, "a cycle (a value that contains itself)");
		const proto = Object.getPrototypeOf(object);
		const isArray = Array.isArray(object);
		if (isArray ? proto !== Array.prototype : proto !== Object.prototype && proto !== null) {
			const name: unknown = proto?.constructor?.name;
			if (typeof name !== "string" || name === "") return this.fail(path, "an object with a custom prototype");
			return this.fail(path, `${/^[AEIO]/i.test(name) ? "an" : "a"} ${name}`);
		}
		this.ancestors.add(object);
		const out = isArray ? this.array(object as unknown[], path, depth) : this.object(object, path, depth);
		this.ancestors.delete(object);
		return out;
	}

	private array(array: unknown[], path: string, depth: number): SandboxValue {
		const items: SandboxValue[] = [];
		for (let i = 0; i < array.length && !this.problem; i++) {
			const descriptor = Object.getOwnPropertyDescriptor(array, i);
			const itemPath = `${path}[${i}]`;
			if (!descriptor) return this.fail(itemPath, "a hole (a missing element)");
			if (!("value" in descriptor)) return this.fail(itemPath, "a getter or setter");
			const item = this.at(descriptor.value, itemPath, depth + 1);
			if (this.copy) items.push(item);
		}
		const extra = Reflect.ownKeys(array)[array.length + 1];
		if (extra !== undefined) return this.fail(`${path}${pathSegment(String(extra))}`, "a named property of an array");
		return items;
	}

	private object(object: object, path: string, depth: number): SandboxValue {
		const fields: { [key: string]: SandboxValue } = {};
		for (const key of Reflect.ownKeys(object)) {
			if (this.problem) break;
			if (typeof key === "symbol") return this.fail(`${path}[${String(key)}]`, "a symbol-keyed property");
			const keyPath = `${path}${pathSegment(key)}`;
			if (key === "__proto__") return this.fail(keyPath, "a `__proto__` key");
			const descriptor = Object.getOwnPropertyDescriptor(object, key) as PropertyDescriptor;
			if (!("value" in descriptor)) return this.fail(keyPath, "a getter or setter");
			if (!descriptor.enumerable || descriptor.value === undefined) continue;
			const field = this.at(descriptor.value, keyPath, depth + 1);
			if (this.copy) fields[key] = field;
		}
		return fields;
	}

	private fail(path: string, found: string): null {
		this.problem ??= { path, found };
		return null;
	}
}

function notJson(path: string, found: string): ValueProblem {
	return {
		kind: "value_not_json",
		path,
		message: `\`${path}\` is ${found}, which cannot cross the sandbox boundary. Pass plain JSON data (objects, arrays, strings, numbers, booleans, null)`,
	};
}

/** Reduces a host error to name, message and its JSON-safe own enumerable properties (`code`, `details`…). */
export function toHostErrorData(error: unknown, maxBytes: number): HostErrorData {
	if (!(error instanceof Error)) return { name: "Error", message: String(error), props: {} };
	const props: Record<string, SandboxValue> = {};
	let budget = maxBytes;
	for (const key of Object.keys(error)) {
		if (key === "name" || key === "message" || key === "stack" || key === "cause") continue;
		const encoded = encodeHostValue((error as unknown as Record<string, unknown>)[key], key, budget);
		if (!encoded.ok || encoded.json === undefined) continue;
		budget -= encoded.json.length;
		props[key] = JSON.parse(encoded.json) as SandboxValue;
	}
	return { name: typeof error.name === "string" ? error.name : "Error", message: String(error.message), props };
}
