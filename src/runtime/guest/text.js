// biome-ignore-all lint/suspicious/noShadowRestrictedNames: built-ins are captured under their own names.
// `TextEncoder` and `TextDecoder` (UTF-8, the only encoding the Encoding Standard's encoder has), evaluated inside
// QuickJS (never in Node) when a script first reads one (see lazy.js); web.js installs them. The decoder takes
// `fatal`, `ignoreBOM` and `{ stream: true }`; a label other than UTF-8's is a RangeError, as in Node without ICU.
(function installText(_host, _data, kit) {
	const G = globalThis;
	const { TypeError, RangeError, String, Boolean, Reflect, Uint8Array, ArrayBuffer, Symbol } = G;
	const apply = Reflect.apply;
	const codePointAt = String.prototype.codePointAt;
	const fromCharCode = String.fromCharCode;
	const isView = ArrayBuffer.isView;
	const LABELS = ["utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8"];

	// The UTF-8 bytes of `text` (a lone surrogate becomes U+FFFD), written into `out` from 0 up to its length.
	// Stops before a character that does not fit whole; returns the code units read and bytes written.
	function encodeInto(text, out) {
		let read = 0;
		let written = 0;
		for (let i = 0; i < text.length; i++) {
			let c = apply(codePointAt, text, [i]);
			const units = c > 0xffff ? 2 : 1;
			if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
			const size = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
			if (written + size > out.length) break;
			if (size === 1) out[written] = c;
			else if (size === 2) {
				out[written] = 0xc0 | (c >> 6);
				out[written + 1] = 0x80 | (c & 63);
			} else if (size === 3) {
				out[written] = 0xe0 | (c >> 12);
				out[written + 1] = 0x80 | ((c >> 6) & 63);
				out[written + 2] = 0x80 | (c & 63);
			} else {
				out[written] = 0xf0 | (c >> 18);
				out[written + 1] = 0x80 | ((c >> 12) & 63);
				out[written + 2] = 0x80 | ((c >> 6) & 63);
				out[written + 3] = 0x80 | (c & 63);
			}
			written += size;
			read += units;
			i += units - 1;
		}
		return { read, written };
	}

	class TextEncoder {
		get [Symbol.toStringTag]() {
			return "TextEncoder";
		}
		get encoding() {
			return "utf-8";
		}
		encode(input = "") {
			const text = String(input);
			// At most 3 bytes per UTF-16 code unit.
			const out = new Uint8Array(text.length * 3);
			return out.slice(0, encodeInto(text, out).written);
		}
		encodeInto(source, destination) {
			if (!(destination instanceof Uint8Array)) throw new TypeError("`encodeInto()` writes into a Uint8Array");
			return encodeInto(String(source), destination);
		}
	}

	function bytesOf(input) {
		if (input === undefined) return new Uint8Array(0);
		if (input instanceof ArrayBuffer) return new Uint8Array(input);
		if (isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
		throw new TypeError("`TextDecoder.decode()` takes an ArrayBuffer, a typed array or a DataView");
	}

	const decoders = new G.WeakMap();

	class TextDecoder {
		get [Symbol.toStringTag]() {
			return "TextDecoder";
		}
		constructor(label = "utf-8", options = undefined) {
			const name = String(label).trim().toLowerCase();
			if (!LABELS.includes(name)) {
				throw new RangeError(
					`The "${String(label)}" encoding is not supported: workflow scripts decode UTF-8 only`,
				);
			}
			decoders.set(this, {
				fatal: Boolean(options?.fatal),
				ignoreBOM: Boolean(options?.ignoreBOM),
				pending: [],
				started: false,
			});
		}
		get encoding() {
			return "utf-8";
		}
		get fatal() {
			return state(this).fatal;
		}
		get ignoreBOM() {
			return state(this).ignoreBOM;
		}
		decode(input = undefined, options = undefined) {
			const decoder = state(this);
			const stream = Boolean(options?.stream);
			const fresh = bytesOf(input);
			const bytes = decoder.pending.length === 0 ? fresh : [...decoder.pending, ...fresh];
			const { text, rest } = decode(bytes, decoder.fatal, stream);
			decoder.pending = rest;
			let out = text;
			if (!decoder.started && !decoder.ignoreBOM && out.charCodeAt(0) === 0xfeff) out = out.slice(1);
			decoder.started = stream && (decoder.started || out.length > 0 || text.length > 0);
			return out;
		}
	}

	function state(decoder) {
		const found = decoders.get(decoder);
		if (!found) throw new TypeError("Illegal invocation: not a TextDecoder");
		return found;
	}

	// The Encoding Standard's UTF-8 decoder: a bad sequence is one U+FFFD (or a TypeError when `fatal`); with
	// `stream`, an incomplete sequence at the end is kept for the next call.
	function decode(bytes, fatal, stream) {
		const units = [];
		let text = "";
		const flush = () => {
			text += apply(fromCharCode, undefined, units);
			units.length = 0;
		};
		let i = 0;
		for (; i < bytes.length; ) {
			const b = bytes[i];
			const need =
				b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
			let c = need === 0 ? b : need === 1 ? b & 31 : need === 2 ? b & 15 : b & 7;
			let j = 1;
			for (; need > 0 && j <= need; j++) {
				const next = bytes[i + j];
				if (next === undefined) break;
				const low = j === 1 && b === 0xe0 ? 0xa0 : j === 1 && b === 0xf0 ? 0x90 : 0x80;
				const high = j === 1 && b === 0xed ? 0x9f : j === 1 && b === 0xf4 ? 0x8f : 0xbf;
				if (next < low || next > high) break;
				c = (c << 6) | (next & 63);
			}
			if (need > 0 && j <= need && i + j >= bytes.length && stream) break;
			if (need < 0 || j <= need) {
				if (fatal) throw new TypeError("The encoded data was not valid UTF-8");
				units.push(0xfffd);
				i += need < 0 ? 1 : j;
			} else {
				if (c > 0xffff) units.push(0xd800 + ((c - 0x10000) >> 10), 0xdc00 + ((c - 0x10000) & 0x3ff));
				else units.push(c);
				i += need + 1;
			}
			if (units.length > 8192) flush();
		}
		flush();
		const rest = [];
		for (; i < bytes.length; i++) rest.push(bytes[i]);
		return { text, rest };
	}

	kit.text = { TextEncoder, TextDecoder };
});
