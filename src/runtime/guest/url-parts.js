// biome-ignore-all lint/suspicious/noShadowRestrictedNames: built-ins are captured under their own names, before a script can replace them.
// The parts of the WHATWG URL parser that `url.js` builds on: UTF-8, the percent-encode sets, and host parsing
// (domains, IPv4 in its hex, octal and short forms, IPv6). Evaluated inside QuickJS (never in Node) when a script
// first reads `URL` or `URLSearchParams` (see lazy.js); it hands its functions to url.js through `kit`.
// International domain names are lowercased, NFC-normalized and Punycode-encoded, without UTS #46's mapping table
// (which would be larger than the sandbox's whole prelude).
(function installUrlParts(_host, _data, kit) {
	const G = globalThis;
	const { String, Object, Reflect, Math, Number } = G;
	const apply = Reflect.apply;
	const charCodeAt = String.prototype.charCodeAt;
	const codePointAt = String.prototype.codePointAt;
	const toLowerCase = String.prototype.toLowerCase;
	const normalize = String.prototype.normalize;
	const fromCharCode = String.fromCharCode;
	const fromCodePoint = String.fromCodePoint;
	const HEX = "0123456789ABCDEF";
	const DEFAULT_PORTS = { "ftp:": 21, "file:": null, "http:": 80, "https:": 443, "ws:": 80, "wss:": 443 };

	const code = (text, i) => apply(charCodeAt, text, [i]);
	const lower = (text) => apply(toLowerCase, text, []);
	const isSpecial = (scheme) => Object.hasOwn(DEFAULT_PORTS, scheme);
	const isHex = (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
	const hexValue = (c) => (c <= 57 ? c - 48 : (c | 32) - 87);

	// ---- UTF-8 and percent-encoding ----

	// A USVString's UTF-8 bytes (a lone surrogate becomes U+FFFD, as WebIDL converts it).
	function utf8(text) {
		const bytes = [];
		for (let i = 0; i < text.length; i++) {
			let c = apply(codePointAt, text, [i]);
			if (c > 0xffff) i++;
			else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
			if (c < 0x80) bytes.push(c);
			else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
			else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
			else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
		}
		return bytes;
	}

	// UTF-8 without BOM handling; a malformed sequence becomes U+FFFD, as the URL Standard decodes.
	function fromUtf8(bytes) {
		let out = "";
		for (let i = 0; i < bytes.length; ) {
			const b = bytes[i];
			const need =
				b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
			let c = need === 0 ? b : need === 1 ? b & 31 : need === 2 ? b & 15 : b & 7;
			let j = 1;
			for (; need > 0 && j <= need; j++) {
				const next = bytes[i + j];
				const low = j === 1 && b === 0xe0 ? 0xa0 : j === 1 && b === 0xf0 ? 0x90 : 0x80;
				const high = j === 1 && b === 0xed ? 0x9f : j === 1 && b === 0xf4 ? 0x8f : 0xbf;
				if (next === undefined || next < low || next > high) break;
				c = (c << 6) | (next & 63);
			}
			if (need < 0 || j <= need) {
				out += "\ufffd";
				i += need < 0 ? 1 : j;
			} else {
				out += fromCodePoint(c);
				i += need + 1;
			}
		}
		return out;
	}

	// The URL Standard's encode sets, as "is this ASCII code point encoded" tests; non-ASCII always is.
	const C0 = (c) => c < 0x20 || c > 0x7e;
	const FRAGMENT = (c) => C0(c) || c === 32 || c === 34 || c === 60 || c === 62 || c === 96;
	const QUERY = (c) => C0(c) || c === 32 || c === 34 || c === 35 || c === 60 || c === 62;
	const SPECIAL_QUERY = (c) => QUERY(c) || c === 39;
	// Without `^`, which the current standard adds to the path set but Node (where Claude Code runs) leaves as is.
	const PATH = (c) => QUERY(c) || c === 63 || c === 96 || c === 123 || c === 125;
	const USERINFO = (c) =>
		PATH(c) || c === 47 || c === 58 || c === 59 || c === 61 || c === 64 || (c >= 91 && c <= 94) || c === 124;
	const COMPONENT = (c) => USERINFO(c) || (c >= 36 && c <= 38) || c === 43 || c === 44;
	const FORM = (c) => COMPONENT(c) || c === 33 || (c >= 39 && c <= 41) || c === 126;

	function percentEncode(text, set, spaceAsPlus) {
		let out = "";
		for (let i = 0; i < text.length; i++) {
			const c = code(text, i);
			if (c < 0x80 && !set(c)) out += text[i];
			else if (c === 32 && spaceAsPlus) out += "+";
			else if (c < 0x80) out += `%${HEX[c >> 4]}${HEX[c & 15]}`;
			else {
				const end = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? i + 2 : i + 1;
				for (const b of utf8(text.slice(i, end))) out += `%${HEX[b >> 4]}${HEX[b & 15]}`;
				i = end - 1;
			}
		}
		return out;
	}

	function percentDecodeBytes(bytes) {
		const out = [];
		for (let i = 0; i < bytes.length; i++) {
			if (bytes[i] === 37 && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
				out.push(hexValue(bytes[i + 1]) * 16 + hexValue(bytes[i + 2]));
				i += 2;
			} else out.push(bytes[i]);
		}
		return out;
	}

	// ---- Hosts ----

	const FORBIDDEN_HOST = /[\0\t\n\r #/:<>?@[\\\]^|]/;
	// biome-ignore lint/suspicious/noControlCharactersInRegex: the standard forbids C0 controls in a domain.
	const FORBIDDEN_DOMAIN = /[\0-\x1f #%/:<>?@[\\\]^|\x7f]/;

	function parseHost(input, special) {
		if (input[0] === "[") {
			if (input[input.length - 1] !== "]") return null;
			const pieces = parseIPv6(input.slice(1, -1));
			return pieces && `[${serializeIPv6(pieces)}]`;
		}
		if (!special) return FORBIDDEN_HOST.test(input) ? null : percentEncode(input, C0);
		const domain = fromUtf8(percentDecodeBytes(utf8(input)));
		const ascii = domainToAscii(domain);
		if (ascii === null || ascii === "" || FORBIDDEN_DOMAIN.test(ascii)) return null;
		if (!endsInNumber(ascii)) return ascii;
		const address = parseIPv4(ascii);
		if (address === null) return null;
		const parts = [];
		for (let n = address, i = 0; i < 4; i++, n = Math.floor(n / 256)) parts.unshift(n % 256);
		return parts.join(".");
	}

	function domainToAscii(domain) {
		const labels = apply(normalize, lower(domain), ["NFC"]).split(/[.\u3002\uff0e\uff61]/);
		for (let i = 0; i < labels.length; i++) {
			if (/[^\0-\x7f]/.test(labels[i])) labels[i] = `xn--${punycode(labels[i])}`;
		}
		return labels.join(".");
	}

	// RFC 3492's encoder.
	function punycode(label) {
		const points = [];
		for (let i = 0; i < label.length; i++) {
			const c = apply(codePointAt, label, [i]);
			if (c > 0xffff) i++;
			points.push(c);
		}
		let out = "";
		for (const c of points) if (c < 0x80) out += fromCharCode(c);
		const basic = out.length;
		let handled = basic;
		if (basic > 0) out += "-";
		const digit = (d) => fromCharCode(d < 26 ? d + 97 : d + 22);
		const adapt = (delta, count, first) => {
			let d = first ? Math.floor(delta / 700) : delta >> 1;
			d += Math.floor(d / count);
			let k = 0;
			for (; d > 455; k += 36) d = Math.floor(d / 35);
			return k + Math.floor((36 * d) / (d + 38));
		};
		for (let n = 128, delta = 0, bias = 72; handled < points.length; n++, delta++) {
			let next = 0x10ffff;
			for (const c of points) if (c >= n && c < next) next = c;
			delta += (next - n) * (handled + 1);
			n = next;
			for (const c of points) {
				if (c < n) delta++;
				if (c !== n) continue;
				let q = delta;
				for (let k = 36; ; k += 36) {
					const t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
					if (q < t) break;
					out += digit(t + ((q - t) % (36 - t)));
					q = Math.floor((q - t) / (36 - t));
				}
				out += digit(q);
				bias = adapt(delta, handled + 1, handled === basic);
				delta = 0;
				handled++;
			}
		}
		return out;
	}

	function endsInNumber(host) {
		const labels = host.split(".");
		if (labels[labels.length - 1] === "" && labels.length > 1) labels.pop();
		const last = labels[labels.length - 1];
		return /^[0-9]+$/.test(last) || /^0[xX][0-9A-Fa-f]*$/.test(last);
	}

	function parseIPv4(host) {
		const parts = host.split(".");
		if (parts[parts.length - 1] === "" && parts.length > 1) parts.pop();
		if (parts.length > 4) return null;
		const numbers = [];
		for (const part of parts) {
			let n;
			if (/^0[xX][0-9A-Fa-f]*$/.test(part)) n = part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
			else if (/^0[0-7]+$/.test(part)) n = Number.parseInt(part.slice(1), 8);
			else if (/^(0|[1-9][0-9]*)$/.test(part)) n = Number(part);
			else return null;
			numbers.push(n);
		}
		const last = numbers.pop();
		for (const n of numbers) if (n > 255) return null;
		if (last >= 256 ** (4 - numbers.length)) return null;
		let address = last;
		for (let i = 0; i < numbers.length; i++) address += numbers[i] * 256 ** (3 - i);
		return address;
	}

	// The URL Standard's IPv6 parser: eight 16-bit pieces, or null.
	function parseIPv6(input) {
		const pieces = [0, 0, 0, 0, 0, 0, 0, 0];
		let index = 0;
		let compress = null;
		let i = 0;
		const at = (k) => (k < input.length ? code(input, k) : -1);
		if (at(0) === 58) {
			if (at(1) !== 58) return null;
			i = 2;
			compress = ++index;
		}
		while (at(i) !== -1) {
			if (index === 8) return null;
			if (at(i) === 58) {
				if (compress !== null) return null;
				i++;
				compress = ++index;
				continue;
			}
			let value = 0;
			let length = 0;
			while (length < 4 && isHex(at(i))) {
				value = value * 16 + hexValue(at(i));
				i++;
				length++;
			}
			if (at(i) === 46) {
				if (length === 0 || index > 6) return null;
				i -= length;
				let seen = 0;
				while (at(i) !== -1) {
					let piece = null;
					if (seen > 0) {
						if (at(i) !== 46 || seen >= 4) return null;
						i++;
					}
					if (!(at(i) >= 48 && at(i) <= 57)) return null;
					while (at(i) >= 48 && at(i) <= 57) {
						const n = at(i) - 48;
						if (piece === 0) return null;
						piece = piece === null ? n : piece * 10 + n;
						if (piece > 255) return null;
						i++;
					}
					pieces[index] = pieces[index] * 256 + piece;
					seen++;
					if (seen === 2 || seen === 4) index++;
				}
				if (seen !== 4) return null;
				break;
			}
			if (at(i) === 58) {
				i++;
				if (at(i) === -1) return null;
			} else if (at(i) !== -1) return null;
			pieces[index++] = value;
		}
		if (compress !== null) {
			let swaps = index - compress;
			index = 7;
			while (index !== 0 && swaps > 0) {
				const other = compress + swaps - 1;
				const kept = pieces[index];
				pieces[index] = pieces[other];
				pieces[other] = kept;
				index--;
				swaps--;
			}
		} else if (index !== 8) return null;
		return pieces;
	}

	function serializeIPv6(pieces) {
		let best = -1;
		let bestLength = 1;
		for (let i = 0; i < 8; ) {
			let j = i;
			while (j < 8 && pieces[j] === 0) j++;
			if (j - i > bestLength) {
				best = i;
				bestLength = j - i;
			}
			i = j === i ? i + 1 : j;
		}
		let out = "";
		for (let i = 0; i < 8; i++) {
			if (i === best) {
				out += i === 0 ? "::" : ":";
				i += bestLength - 1;
				continue;
			}
			out += pieces[i].toString(16) + (i < 7 ? ":" : "");
		}
		return out;
	}

	kit.url = { DEFAULT_PORTS, isSpecial, utf8, fromUtf8, percentEncode, percentDecodeBytes, parseHost };
	kit.url.sets = { C0, FRAGMENT, QUERY, SPECIAL_QUERY, PATH, USERINFO, COMPONENT, FORM };
});
