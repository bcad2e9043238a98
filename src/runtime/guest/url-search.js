// biome-ignore-all lint/suspicious/noShadowRestrictedNames: built-ins are captured under their own names, before a script can replace them.
// The WHATWG `URLSearchParams`, for url.js (which installs it with `URL`): the form encoding, and the list a URL's
// query goes to and comes back from. Evaluated inside QuickJS when a script first reads `URL` or
// `URLSearchParams` (see lazy.js); hands url.js what it needs through `kit.search`.
(function installUrlSearch(_host, _data, kit) {
	const G = globalThis;
	const { TypeError, String, Object, Reflect, Symbol, Array, WeakMap } = G;
	const { utf8, fromUtf8, percentEncode, percentDecodeBytes, sets } = kit.url;
	const apply = Reflect.apply;
	const arraySort = Array.prototype.sort;
	const iterator = Symbol.iterator;

	function parseForm(text) {
		const list = [];
		for (const piece of text.split("&")) {
			if (piece === "") continue;
			const equals = piece.indexOf("=");
			const name = equals < 0 ? piece : piece.slice(0, equals);
			const value = equals < 0 ? "" : piece.slice(equals + 1);
			list.push([decodeForm(name), decodeForm(value)]);
		}
		return list;
	}

	function decodeForm(text) {
		return fromUtf8(percentDecodeBytes(utf8(text.replace(/\+/g, " "))));
	}

	function serializeForm(list) {
		let out = "";
		for (let i = 0; i < list.length; i++) {
			out += `${i > 0 ? "&" : ""}${percentEncode(list[i][0], sets.FORM, true)}=${percentEncode(list[i][1], sets.FORM, true)}`;
		}
		return out;
	}

	// A URL's query goes to its params and back: `owners` maps a URLSearchParams to the URL record it belongs to.
	const lists = new WeakMap();
	const owners = new WeakMap();

	function listOf(params) {
		const list = lists.get(params);
		if (!list) throw new TypeError("Illegal invocation: not a URLSearchParams");
		return list;
	}

	function changed(params) {
		const url = owners.get(params);
		if (!url) return;
		const text = serializeForm(listOf(params));
		url.query = text === "" ? null : text;
	}

	class URLSearchParams {
		get [Symbol.toStringTag]() {
			return "URLSearchParams";
		}
		constructor(init = undefined) {
			let list = [];
			if (init !== null && (typeof init === "object" || typeof init === "function")) {
				if (typeof init[iterator] === "function") {
					for (const pair of init) {
						const items = pair !== null && typeof pair === "object" ? [...pair] : null;
						if (items === null || items.length !== 2) {
							throw new TypeError("Each query pair must be an iterable [name, value] tuple");
						}
						list.push([String(items[0]), String(items[1])]);
					}
				} else for (const key of Object.keys(init)) list.push([key, String(init[key])]);
			} else if (init !== undefined && init !== null) {
				const text = String(init);
				list = parseForm(text[0] === "?" ? text.slice(1) : text);
			}
			lists.set(this, list);
		}
		get size() {
			return listOf(this).length;
		}
		append(name, value) {
			listOf(this).push([String(name), String(value)]);
			changed(this);
		}
		delete(name, value = undefined) {
			const list = listOf(this);
			const key = String(name);
			const only = value === undefined ? undefined : String(value);
			for (let i = list.length - 1; i >= 0; i--) {
				if (list[i][0] === key && (only === undefined || list[i][1] === only)) list.splice(i, 1);
			}
			changed(this);
		}
		get(name) {
			const key = String(name);
			for (const [k, v] of listOf(this)) if (k === key) return v;
			return null;
		}
		getAll(name) {
			const key = String(name);
			const values = [];
			for (const [k, v] of listOf(this)) if (k === key) values.push(v);
			return values;
		}
		has(name, value = undefined) {
			const key = String(name);
			const only = value === undefined ? undefined : String(value);
			for (const [k, v] of listOf(this)) if (k === key && (only === undefined || v === only)) return true;
			return false;
		}
		set(name, value) {
			const list = listOf(this);
			const key = String(name);
			const index = list.findIndex((pair) => pair[0] === key);
			if (index < 0) list.push([key, String(value)]);
			else {
				list[index][1] = String(value);
				for (let i = list.length - 1; i > index; i--) if (list[i][0] === key) list.splice(i, 1);
			}
			changed(this);
		}
		sort() {
			// Stable, by UTF-16 code units, as the standard says.
			apply(arraySort, listOf(this), [(a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)]);
			changed(this);
		}
		forEach(callback, thisArg = undefined) {
			if (typeof callback !== "function") throw new TypeError("URLSearchParams.forEach takes a function");
			const list = listOf(this);
			for (let i = 0; i < list.length; i++) apply(callback, thisArg, [list[i][1], list[i][0], this]);
		}
		*entries() {
			const list = listOf(this);
			for (let i = 0; i < list.length; i++) yield [list[i][0], list[i][1]];
		}
		*keys() {
			for (const [key] of this.entries()) yield key;
		}
		*values() {
			for (const [, value] of this.entries()) yield value;
		}
		[iterator]() {
			return this.entries();
		}
		toString() {
			return serializeForm(listOf(this));
		}
	}
	kit.search = { URLSearchParams, lists, owners, parseForm };
});
