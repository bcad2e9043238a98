/**
 * Host-side check that a value is plain JSON data before it is handed to the sandbox (`args`, nested args),
 * naming the path of the first bad value (`args.items[3].fn`).
 */
import { valueNotJsonError } from "../errors.ts";
import type { JsonValue } from "./types.ts";

/** Throws `value_not_json` with the path of the first value that is not JSON data; returns the value typed. */
export function assertJsonValue(value: unknown, path: string): JsonValue {
	check(value, path, new Set(), 0);
	return value as JsonValue;
}

/**
 * Deepest nesting accepted. Far below what the sandbox can take (its JSON parser and encoder handle a few thousand
 * levels), and a fixed number, so a deep value gets the same clear error whatever stack the host has left.
 */
export const MAX_JSON_DEPTH = 1000;

function check(value: unknown, path: string, seen: Set<object>, depth: number): void {
	switch (typeof value) {
		case "string":
		case "boolean":
			return;
		case "number":
			if (!Number.isFinite(value)) throw valueNotJsonError(path, String(value));
			return;
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
	if (value === null) return;
	if (depth >= MAX_JSON_DEPTH) throw valueNotJsonError(path, `nested more than ${MAX_JSON_DEPTH} levels deep`);
	if (seen.has(value)) throw valueNotJsonError(path, "a cycle (a value that contains itself)");
	seen.add(value);
	if (Array.isArray(value)) {
		for (let i = 0; i < value.length; i++) {
			if (!(i in value)) throw valueNotJsonError(`${path}[${i}]`, "a hole in a sparse array");
			check(value[i], `${path}[${i}]`, seen, depth + 1);
		}
	} else {
		const proto = Object.getPrototypeOf(value);
		if (proto !== Object.prototype && proto !== null) {
			throw valueNotJsonError(path, `an instance of ${proto?.constructor?.name ?? "a class"}`);
		}
		for (const key of Object.keys(value)) {
			const descriptor = Object.getOwnPropertyDescriptor(value, key);
			const child = /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
			// The sandbox refuses the key too; refusing it here names it instead of failing the run as internal.
			if (key === "__proto__") throw valueNotJsonError(child, "a `__proto__` key");
			if (descriptor && (descriptor.get || descriptor.set)) throw valueNotJsonError(child, "a getter or setter");
			check(descriptor?.value, child, seen, depth + 1);
		}
	}
	seen.delete(value);
}
