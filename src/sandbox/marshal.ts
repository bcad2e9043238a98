/**
 * The host's side of the boundary rule "JSON data only, copied": checking the values the host sends in (`data`,
 * host-call results, error props) and turning host errors into data. The guest side of the rule is guest.ts.
 */
import { types } from "node:util";
import type { HostErrorData } from "./protocol.ts";
import type { GuestErrorKind, SandboxValue } from "./types.ts";

/** A value that cannot cross, with the path of the bad part. */
export interface ValueProblem {
	kind: Extract<GuestErrorKind, "value_not_json" | "limit_value_size">;
	path: string;
	message: string;
}

/** JSON text of a host value that passed the rule, or what is wrong with it. `undefined` stays absent. */
export type EncodedValue = { ok: true; json: string | undefined } | { ok: false; problem: ValueProblem };

/** Checks `value` as JSON data (plain objects and arrays, finite numbers, no cycles) and encodes it. */
export function encodeHostValue(value: unknown, root: string, maxBytes: number): EncodedValue {
	if (value === undefined) return { ok: true, json: undefined };
	let problem: ValueProblem | null;
	let json = "";
	try {
		problem = findProblem(value, root, new Set());
		if (!problem) json = JSON.stringify(value);
	} catch (error) {
		// Thousands of levels overflow the host's own stack: that is a bad value, not an internal error.
		if (!(error instanceof RangeError)) throw error;
		problem = notJson(root, "nested too deeply (or too large) to encode");
	}
	if (problem) return { ok: false, problem };
	if (Buffer.byteLength(json) > maxBytes) {
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

function findProblem(value: unknown, path: string, ancestors: Set<object>): ValueProblem | null {
	if (value === null || typeof value === "string" || typeof value === "boolean") return null;
	if (typeof value === "number") {
		return Number.isFinite(value) ? null : notJson(path, Number.isNaN(value) ? "NaN" : String(value));
	}
	if (typeof value === "undefined") return notJson(path, "undefined");
	if (typeof value === "function") return notJson(path, "a function");
	if (typeof value === "bigint") return notJson(path, "a BigInt");
	if (typeof value === "symbol") return notJson(path, "a symbol");
	const object = value as object;
	if (types.isProxy(object)) return notJson(path, "a Proxy");
	if (ancestors.has(object)) return notJson(path, "a cycle (a value that contains itself)");
	const proto = Object.getPrototypeOf(object);
	const isArray = Array.isArray(object);
	if (isArray ? proto !== Array.prototype : proto !== Object.prototype && proto !== null) {
		const name: unknown = proto?.constructor?.name;
		if (typeof name !== "string" || name === "") return notJson(path, "an object with a custom prototype");
		return notJson(path, `${/^[AEIO]/i.test(name) ? "an" : "a"} ${name}`);
	}
	ancestors.add(object);
	const problem = isArray
		? arrayProblem(object as unknown[], path, ancestors)
		: objectProblem(object, path, ancestors);
	ancestors.delete(object);
	return problem;
}

function arrayProblem(array: unknown[], path: string, ancestors: Set<object>): ValueProblem | null {
	for (let i = 0; i < array.length; i++) {
		const descriptor = Object.getOwnPropertyDescriptor(array, i);
		const itemPath = `${path}[${i}]`;
		if (!descriptor) return notJson(itemPath, "a hole (a missing element)");
		if (!("value" in descriptor)) return notJson(itemPath, "a getter or setter");
		const problem = findProblem(descriptor.value, itemPath, ancestors);
		if (problem) return problem;
	}
	const extra = Reflect.ownKeys(array)[array.length + 1];
	return extra === undefined ? null : notJson(`${path}${pathSegment(String(extra))}`, "a named property of an array");
}

function objectProblem(object: object, path: string, ancestors: Set<object>): ValueProblem | null {
	for (const key of Reflect.ownKeys(object)) {
		if (typeof key === "symbol") return notJson(`${path}[${String(key)}]`, "a symbol-keyed property");
		const keyPath = `${path}${pathSegment(key)}`;
		if (key === "__proto__") return notJson(keyPath, "a `__proto__` key");
		const descriptor = Object.getOwnPropertyDescriptor(object, key) as PropertyDescriptor;
		if (!("value" in descriptor)) return notJson(keyPath, "a getter or setter");
		if (!descriptor.enumerable || descriptor.value === undefined) continue;
		const problem = findProblem(descriptor.value, keyPath, ancestors);
		if (problem) return problem;
	}
	return null;
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
