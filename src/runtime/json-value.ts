/**
 * Host-side check that a value is plain JSON data before it is handed to the sandbox (`args`, nested args, a runner's
 * structured output), naming the path of the first bad value (`args.items[3].fn`), and a copy of it as plain data.
 */
import { types } from "node:util";
import { valueNotJsonError } from "../errors.ts";
import type { JsonValue } from "./types.ts";

/**
 * Throws `value_not_json` with the path of the first value that is not JSON data; returns a copy of it as plain data,
 * so no Proxy trap, getter or later change by whoever handed it over can make it differ from what was checked.
 */
export function assertJsonValue(value: unknown, path: string): JsonValue {
	return copy(value, path, new Set(), 0);
}

/**
 * Deepest nesting accepted. Far below what the sandbox can take (its JSON parser and encoder handle a few thousand
 * levels), and a fixed number, so a deep value gets the same clear error whatever stack the host has left.
 */
export const MAX_JSON_DEPTH = 1000;

function copy(value: unknown, path: string, seen: Set<object>, depth: number): JsonValue {
	switch (typeof value) {
		case "string":
		case "boolean":
			return value;
		case "number":
			if (!Number.isFinite(value)) throw valueNotJsonError(path, String(value));
			return value;
		case "object":
			break;
		case "undefined":
			throw valueNotJsonError(path, "undefined");
		case "bigint":
			throw valueNotJsonError(path, "a BigInt");
		case "symbol":
			throw valueNotJsonError(path, "a symbol");
		default:
			throw valueNotJsonError(path, "a function");
	}
	if (value === null) return null;
	// A Proxy's traps would run on every read and could answer differently each time; it is refused before any.
	if (types.isProxy(value)) throw valueNotJsonError(path, "a Proxy");
	if (depth >= MAX_JSON_DEPTH) throw valueNotJsonError(path, `nested more than ${MAX_JSON_DEPTH} levels deep`);
	if (seen.has(value)) throw valueNotJsonError(path, "a cycle (a value that contains itself)");
	const isArray = Array.isArray(value);
	const proto = Object.getPrototypeOf(value);
	if (isArray ? proto !== Array.prototype : proto !== Object.prototype && proto !== null) {
		throw valueNotJsonError(path, `an instance of ${proto?.constructor?.name ?? "a class"}`);
	}
	seen.add(value);
	let out: JsonValue;
	if (isArray) {
		const items: JsonValue[] = [];
		for (let i = 0; i < value.length; i++) {
			const descriptor = Object.getOwnPropertyDescriptor(value, i);
			if (!descriptor) throw valueNotJsonError(`${path}[${i}]`, "a hole in a sparse array");
			if (descriptor.get || descriptor.set) throw valueNotJsonError(`${path}[${i}]`, "a getter or setter");
			items.push(copy(descriptor.value, `${path}[${i}]`, seen, depth + 1));
		}
		out = items;
	} else {
		const fields: Record<string, JsonValue> = {};
		for (const key of Object.keys(value)) {
			const descriptor = Object.getOwnPropertyDescriptor(value, key);
			const child = /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
			// The sandbox refuses the key too; refusing it here names it instead of failing the run as internal.
			if (key === "__proto__") throw valueNotJsonError(child, "a `__proto__` key");
			if (descriptor && (descriptor.get || descriptor.set)) throw valueNotJsonError(child, "a getter or setter");
			fields[key] = copy(descriptor?.value, child, seen, depth + 1);
		}
		out = fields;
	}
	seen.delete(value);
	return out;
}
