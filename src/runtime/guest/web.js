// biome-ignore-all lint/suspicious/noShadowRestrictedNames: built-ins are captured under their own names.
// `DOMException`, `atob`, `btoa` and `structuredClone` as the HTML Standard has them, evaluated inside QuickJS
// (never in Node) when a script first reads one (see lazy.js). `structuredClone` copies what the standard's
// serializer copies (primitives, plain objects and arrays, Date, RegExp, Map, Set, ArrayBuffer and its views,
// errors, boxed primitives, cycles) and throws a `DataCloneError` for what it refuses (functions, symbols,
// promises, weak collections); `transfer` is refused, there being nothing to transfer to.
(function installWeb(_host, _data, kit) {
	const G = globalThis;
	const { Error, TypeError, String, Object, Reflect, Array, Map, Set, ArrayBuffer, DataView, Number, Boolean } = G;
	const { RegExp, Symbol, BigInt, Promise, WeakMap, WeakSet, WeakRef } = G;
	const apply = Reflect.apply;
	const getPrototypeOf = Object.getPrototypeOf;
	const keys = Object.keys;
	const isArray = Array.isArray;
	const fromCharCode = String.fromCharCode;
	const charCodeAt = String.prototype.charCodeAt;
	const TypedArray = getPrototypeOf(G.Uint8Array);
	const typedArrayName = Object.getOwnPropertyDescriptor(TypedArray.prototype, Symbol.toStringTag).get;
	const objectToString = Object.prototype.toString;
	const code = (text, i) => apply(charCodeAt, text, [i]);

	// The legacy codes of the names scripts meet.
	const CODES = {
		IndexSizeError: 1,
		NotFoundError: 8,
		NotSupportedError: 9,
		InvalidStateError: 11,
		SyntaxError: 12,
		InvalidAccessError: 15,
		TypeMismatchError: 17,
		SecurityError: 18,
		NetworkError: 19,
		AbortError: 20,
		TimeoutError: 23,
		DataCloneError: 25,
		InvalidCharacterError: 5,
	};

	class DOMException extends Error {
		constructor(message = "", name = "Error") {
			super(String(message));
			Object.defineProperty(this, "name", { value: String(name), writable: true, configurable: true });
		}
		get code() {
			return CODES[this.name] ?? 0;
		}
	}

	// ---- base64 ----

	const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	function btoa(data) {
		// biome-ignore lint/complexity/noArguments: no argument is an error, `undefined` is not (as in browsers).
		if (arguments.length === 0) throw new TypeError("`btoa()` takes 1 argument, got none");
		const text = String(data);
		let out = "";
		for (let i = 0; i < text.length; i += 3) {
			const a = code(text, i);
			const b = i + 1 < text.length ? code(text, i + 1) : 0;
			const c = i + 2 < text.length ? code(text, i + 2) : 0;
			if (a > 255 || b > 255 || c > 255) {
				throw new DOMException(
					"`btoa()` takes Latin-1 text only (code points up to U+00FF): encode other text to UTF-8 bytes first, with `TextEncoder`",
					"InvalidCharacterError",
				);
			}
			const n = (a << 16) | (b << 8) | c;
			out += ALPHABET[n >> 18] + ALPHABET[(n >> 12) & 63];
			out += i + 1 < text.length ? ALPHABET[(n >> 6) & 63] : "=";
			out += i + 2 < text.length ? ALPHABET[n & 63] : "=";
		}
		return out;
	}

	function atob(data) {
		// biome-ignore lint/complexity/noArguments: no argument is an error, `undefined` is not (as in browsers).
		if (arguments.length === 0) throw new TypeError("`atob()` takes 1 argument, got none");
		let text = String(data).replace(/[\t\n\f\r ]/g, "");
		if (text.length % 4 === 0) text = text.replace(/==?$/, "");
		if (text.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(text)) {
			throw new DOMException("The string given to `atob()` is not valid base64", "InvalidCharacterError");
		}
		let out = "";
		let bits = 0;
		let buffer = 0;
		for (let i = 0; i < text.length; i++) {
			buffer = (buffer << 6) | ALPHABET.indexOf(text[i]);
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				out += fromCharCode((buffer >> bits) & 255);
			}
		}
		return out;
	}

	// ---- structuredClone ----

	// Web objects that refuse to be cloned, as in Node (whose TextEncoder and TextDecoder clone as plain objects).
	const PLATFORM = ["URL", "URLSearchParams"];
	const ERRORS = ["Error", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError"];

	function refuse(what) {
		return new DOMException(`${what} could not be cloned`, "DataCloneError");
	}

	function tagOf(value) {
		return apply(objectToString, value, []).slice(8, -1);
	}

	function clone(value, memory) {
		if (typeof value === "symbol") throw refuse(`Symbol(${value.description ?? ""})`);
		if (typeof value === "function") throw refuse(`The function ${value.name || "(anonymous)"}`);
		if (value === null || typeof value !== "object") return value;
		if (memory.has(value)) return memory.get(value);
		const tag = tagOf(value);
		let copy;
		if (tag === "Boolean") copy = Object(apply(Boolean.prototype.valueOf, value, []));
		else if (tag === "Number") copy = Object(apply(Number.prototype.valueOf, value, []));
		else if (tag === "String") copy = Object(apply(String.prototype.valueOf, value, []));
		else if (tag === "BigInt") copy = Object(apply(BigInt.prototype.valueOf, value, []));
		else if (tag === "Date") copy = new G.Date(apply(G.Date.prototype.getTime, value, []));
		else if (tag === "RegExp") copy = new RegExp(value.source, value.flags);
		else if (value instanceof ArrayBuffer) copy = apply(ArrayBuffer.prototype.slice, value, [0]);
		else if (value instanceof DataView || value instanceof TypedArray) {
			const buffer = clone(value.buffer, memory);
			const Kind = value instanceof DataView ? DataView : G[apply(typedArrayName, value, [])];
			const length = value instanceof DataView ? value.byteLength : value.length;
			copy = new Kind(buffer, value.byteOffset, length);
		} else if (value instanceof Map) {
			copy = new Map();
			memory.set(value, copy);
			for (const [k, v] of value) copy.set(clone(k, memory), clone(v, memory));
			return copy;
		} else if (value instanceof Set) {
			copy = new Set();
			memory.set(value, copy);
			for (const v of value) copy.add(clone(v, memory));
			return copy;
		} else if (value instanceof Error) {
			const name = ERRORS.includes(value.name) ? value.name : "Error";
			copy = new G[name](value.message);
			memory.set(value, copy);
			if (typeof value.stack === "string") copy.stack = value.stack;
			if ("cause" in value) copy.cause = clone(value.cause, memory);
			return copy;
		} else if (value instanceof Promise) throw refuse("A Promise");
		else if (value instanceof WeakMap || value instanceof WeakSet || value instanceof WeakRef)
			throw refuse(`A ${tag}`);
		else if (PLATFORM.includes(tag)) throw refuse(`A ${tag} object`);
		else {
			copy = isArray(value) ? new Array(value.length) : {};
			memory.set(value, copy);
			for (const key of keys(value)) copy[key] = clone(value[key], memory);
			return copy;
		}
		memory.set(value, copy);
		return copy;
	}

	function structuredClone(value, options = undefined) {
		// biome-ignore lint/complexity/noArguments: no argument is an error, `undefined` is not (as in browsers).
		if (arguments.length === 0) throw new TypeError("`structuredClone()` takes 1 argument, got none");
		const transfer = options?.transfer;
		if (transfer !== undefined && !(isArray(transfer) && transfer.length === 0)) {
			throw new DOMException(
				"`structuredClone()` cannot transfer in workflow scripts: leave `transfer` out",
				"DataCloneError",
			);
		}
		return clone(value, new Map());
	}

	kit.exports = { DOMException, atob, btoa, structuredClone, ...kit.text };
});
