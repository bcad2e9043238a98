/**
 * Turning arbitrary values into JSON-safe data for tool results: values JSON cannot carry faithfully become
 * `{ unsupported: true, type, value? }` markers instead of vanishing or throwing. Also UTF-8 size bounds for text.
 */

/** Stands in for a value JSON cannot carry; `value` is a JSON-safe hint at what it was, when there is one. */
export interface WorkflowUnsupportedValue {
	unsupported: true;
	/** "function", "bigint", "symbol", "undefined", "cycle", "Date", "Map", "Set", "number", "depth", a class name… */
	type: string;
	value?: unknown;
}

/** Nesting deeper than this becomes a `depth` marker, so a pathological value cannot overflow the stack. */
const MAX_DEPTH = 100;

/**
 * A deep copy of `value` that `JSON.stringify` round-trips unchanged: plain objects, arrays, strings, finite numbers,
 * booleans and null are kept; everything else becomes a marker. Shared references are copied; only true cycles
 * become `cycle` markers (with the path of the object they point back to).
 */
export function toJsonSafe(value: unknown): unknown {
	return convert(value, "$", new Map(), 0);
}

function marker(type: string, value?: unknown): WorkflowUnsupportedValue {
	return value === undefined ? { unsupported: true, type } : { unsupported: true, type, value };
}

function convert(value: unknown, path: string, ancestors: Map<object, string>, depth: number): unknown {
	switch (typeof value) {
		case "string":
		case "boolean":
			return value;
		case "number":
			return Number.isFinite(value) ? value : marker("number", String(value));
		case "bigint":
			return marker("bigint", value.toString());
		case "symbol":
			return marker("symbol", value.description);
		case "function":
			return marker("function", value.name || undefined);
		case "undefined":
			return marker("undefined");
	}
	if (value === null) return null;
	const object = value as object;
	const seenAt = ancestors.get(object);
	if (seenAt !== undefined) return marker("cycle", seenAt);
	if (depth >= MAX_DEPTH) return marker("depth", path);
	ancestors.set(object, path);
	try {
		return convertObject(object, path, ancestors, depth);
	} finally {
		ancestors.delete(object);
	}
}

function convertObject(object: object, path: string, ancestors: Map<object, string>, depth: number): unknown {
	const child = (item: unknown, at: string) => convert(item, at, ancestors, depth + 1);
	if (Array.isArray(object)) {
		const out: unknown[] = [];
		// Index loop, not map(): holes must become markers rather than stay holes (JSON would write null).
		for (let i = 0; i < object.length; i++) out.push(child(object[i], `${path}[${i}]`));
		return out;
	}
	if (object instanceof Date) {
		return marker("Date", Number.isNaN(object.getTime()) ? "Invalid Date" : object.toISOString());
	}
	if (object instanceof Map) {
		return marker(
			"Map",
			[...object].map(([key, item], i) => [child(key, `${path}<key ${i}>`), child(item, `${path}<value ${i}>`)]),
		);
	}
	if (object instanceof Set)
		return marker(
			"Set",
			[...object].map((item, i) => child(item, `${path}<item ${i}>`)),
		);
	if (object instanceof Error) return marker(object.name || "Error", object.message);
	if (object instanceof RegExp) return marker("RegExp", String(object));
	if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer) return marker(object.constructor.name);
	if (object instanceof Promise || object instanceof WeakMap || object instanceof WeakSet) {
		return marker(object.constructor.name);
	}
	const out: Record<string, unknown> = {};
	for (const key of Object.keys(object)) {
		let item: unknown;
		try {
			item = (object as Record<string, unknown>)[key];
		} catch (error) {
			item = marker("throwing getter", error instanceof Error ? error.message : String(error));
		}
		const value = child(item, `${path}.${key}`);
		// Assigning a key named __proto__ would change the copy's prototype instead of adding a property.
		if (key === "__proto__") {
			Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
		} else {
			out[key] = value;
		}
	}
	const proto = Object.getPrototypeOf(object);
	if (proto !== Object.prototype && proto !== null) {
		const name = typeof proto?.constructor === "function" ? proto.constructor.name : "";
		// A class instance keeps its own data, marked with its class so nobody mistakes it for a plain object.
		if (name && name !== "Object") return marker(name, out);
	}
	return out;
}

/** Bytes of `text` in UTF-8. */
export function utf8Length(text: string): number {
	return Buffer.byteLength(text, "utf8");
}

/** `text` cut to at most `maxBytes` of UTF-8 (never inside a character), with a note saying how much was cut. */
export function boundText(text: string, maxBytes: number): string {
	const bytes = utf8Length(text);
	if (bytes <= maxBytes) return text;
	const note = (cut: number) => `\n… (${cut} more bytes not shown)`;
	const budget = Math.max(0, maxBytes - utf8Length(note(bytes)));
	const buffer = Buffer.from(text, "utf8");
	let end = budget;
	// Step back over UTF-8 continuation bytes (10xxxxxx) so no character is split.
	while (end > 0 && ((buffer[end] ?? 0) & 0xc0) === 0x80) end--;
	return `${buffer.subarray(0, end).toString("utf8")}${note(bytes - end)}`;
}
