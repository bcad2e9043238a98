// biome-ignore-all lint/suspicious/noShadowRestrictedNames: built-ins are captured under their own names, before a script can replace them.
// The WHATWG `URL` and `URLSearchParams` globals, evaluated inside QuickJS (never in Node) when a script first
// reads either (see lazy.js): scripts written for Claude Code parse links with them (`new URL(u).hostname`). Pure
// parsing, no network. The parser follows the URL Standard's for what scripts meet (url-parts.js: hosts and
// encodings; url-search.js: the query's list); setters apply the standard's checks to the record directly.
// `createObjectURL` is absent (there are no blobs).
(function installUrl(_host, _data, kit) {
	const G = globalThis;
	const { TypeError, String, Object, Reflect, WeakMap, Symbol } = G;
	const { DEFAULT_PORTS, isSpecial, percentEncode, parseHost, sets } = kit.url;
	const { URLSearchParams, lists, owners, parseForm } = kit.search;
	const defineProperty = Object.defineProperty;
	const apply = Reflect.apply;
	const toLowerCase = String.prototype.toLowerCase;
	const records = new WeakMap();
	const lower = (text) => apply(toLowerCase, text, []);

	const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
	const DRIVE = /^[A-Za-z][:|]$/;
	const SINGLE_DOT = /^(\.|%2e)$/i;
	const DOUBLE_DOT = /^(\.|%2e)(\.|%2e)$/i;

	function fail(input) {
		return new TypeError(`Invalid URL: ${input}`);
	}

	function record(protocol) {
		return { protocol, username: "", password: "", host: null, port: null, path: [], query: null, fragment: null };
	}

	// The URL Standard's basic URL parser, by the shape of the input rather than char by char; null on failure.
	function parse(text, base) {
		const input = text.replace(/^[\0- ]+|[\0- ]+$/g, "").replace(/[\t\n\r]/g, "");
		let rest = input;
		let query = null;
		let fragment = null;
		const hash = rest.indexOf("#");
		if (hash >= 0) {
			fragment = percentEncode(rest.slice(hash + 1), sets.FRAGMENT);
			rest = rest.slice(0, hash);
		}
		const question = rest.indexOf("?");
		if (question >= 0) {
			query = rest.slice(question + 1);
			rest = rest.slice(0, question);
		}
		const scheme = SCHEME.exec(rest);
		let url;
		if (scheme) {
			const protocol = `${lower(scheme[1])}:`;
			const after = rest.slice(scheme[0].length);
			if (protocol === "file:") url = parseFile(after, base && base.protocol === "file:" ? base : null, query);
			else if (isSpecial(protocol)) {
				url =
					base && base.protocol === protocol && !after.startsWith("//")
						? relative(after, base, query)
						: authority(record(protocol), after.replace(/^[/\\]+/, ""));
			} else if (after.startsWith("//")) url = authority(record(protocol), after.slice(2));
			else if (after.startsWith("/")) url = withPath(record(protocol), after);
			else {
				url = record(protocol);
				url.path = percentEncode(after, sets.C0);
			}
		} else if (!base) return null;
		else if (typeof base.path === "string") {
			if (rest !== "" || query !== null || fragment === null) return null;
			url = { ...base };
		} else if (base.protocol === "file:") url = parseFile(rest, base, query);
		else url = relative(rest, base, query);
		if (!url) return null;
		if (query !== null) url.query = percentEncode(query, isSpecial(url.protocol) ? sets.SPECIAL_QUERY : sets.QUERY);
		url.fragment = fragment;
		return url;
	}

	// A reference without a scheme (or a special one equal to the base's), read against `base`.
	function relative(rest, base, query) {
		const special = isSpecial(base.protocol);
		const slash = special ? /^[/\\]/ : /^\//;
		const url = record(base.protocol);
		if (slash.test(rest) && slash.test(rest.slice(1))) {
			return authority(url, special ? rest.replace(/^[/\\]+/, "") : rest.slice(2));
		}
		url.username = base.username;
		url.password = base.password;
		url.host = base.host;
		url.port = base.port;
		if (slash.test(rest)) return withPath(url, rest);
		if (rest === "") {
			url.path = base.path.slice();
			if (query === null) url.query = base.query;
			return url;
		}
		url.path = shorten(base.path.slice(), url.protocol);
		return withPath(url, rest, true);
	}

	// `//user:pass@host:port/path`, from after the slashes.
	function authority(url, text) {
		const special = isSpecial(url.protocol);
		const end = text.search(special ? /[/\\]/ : /\//);
		const part = end < 0 ? text : text.slice(0, end);
		const at = part.lastIndexOf("@");
		let hostPort = part;
		if (at >= 0) {
			const credentials = part.slice(0, at);
			const colon = credentials.indexOf(":");
			url.username = percentEncode(colon < 0 ? credentials : credentials.slice(0, colon), sets.USERINFO);
			url.password = colon < 0 ? "" : percentEncode(credentials.slice(colon + 1), sets.USERINFO);
			hostPort = part.slice(at + 1);
			if (hostPort === "") return null;
		}
		const colon = portColon(hostPort);
		const hostText = colon < 0 ? hostPort : hostPort.slice(0, colon);
		if (special && hostText === "") return null;
		if (colon >= 0 && !setPort(url, hostPort.slice(colon + 1), true)) return null;
		if (hostText === "" && (at >= 0 || url.port !== null)) return null;
		url.host = parseHost(hostText, special);
		if (url.host === null) return null;
		return withPath(url, end < 0 ? "" : text.slice(end));
	}

	// The last `:` outside `[…]`: where a port starts.
	function portColon(text) {
		let inside = false;
		for (let i = 0; i < text.length; i++) {
			if (text[i] === "[") inside = true;
			else if (text[i] === "]") inside = false;
			else if (text[i] === ":" && !inside) return i;
		}
		return -1;
	}

	// `strict`: the parser's rule (digits only, or fail); else the setter's (leading digits, or leave it).
	function setPort(url, text, strict) {
		const digits = /^[0-9]*/.exec(text)[0];
		if (strict ? digits !== text : digits === "") return false;
		if (digits === "") return true;
		const port = Number(digits);
		if (port > 65535) return false;
		url.port = DEFAULT_PORTS[url.protocol] === port ? null : port;
		return true;
	}

	function parseFile(rest, base, query) {
		const url = record("file:");
		url.host = "";
		if (/^[/\\]{2}/.test(rest)) {
			const text = rest.slice(2);
			const end = text.search(/[/\\]/);
			const hostText = end < 0 ? text : text.slice(0, end);
			if (DRIVE.test(hostText)) return withPath(url, `/${text}`);
			if (hostText !== "") {
				const parsed = parseHost(hostText, true);
				if (parsed === null) return null;
				url.host = parsed === "localhost" ? "" : parsed;
			}
			return withPath(url, end < 0 ? "" : text.slice(end));
		}
		if (base) url.host = base.host;
		if (/^[/\\]/.test(rest) || !base) return withPath(url, /^[/\\]/.test(rest) ? rest : `/${rest}`);
		if (rest === "") {
			url.path = base.path.slice();
			if (query === null) url.query = base.query;
			return url;
		}
		url.path = DRIVE.test(rest.slice(0, 2)) ? [] : shorten(base.path.slice(), "file:");
		return withPath(url, rest, true);
	}

	function shorten(path, protocol) {
		if (!(protocol === "file:" && path.length === 1 && /^[A-Za-z]:$/.test(path[0]))) path.pop();
		return path;
	}

	// Appends the segments of `text` to `url.path`: `.` and `..` (also as `%2e`) resolved, each segment encoded.
	// `merge`: `text` continues the path already there; else it is the whole path, from its leading slash.
	function withPath(url, text, merge = false) {
		const special = isSpecial(url.protocol);
		if (!merge) url.path = [];
		if (!special && text === "") return url;
		const parts = text.split(special ? /[/\\]/ : "/");
		if (!merge && /^[/\\]/.test(text) && (special || text[0] === "/")) parts.shift();
		for (let i = 0; i < parts.length; i++) {
			const last = i === parts.length - 1;
			let segment = percentEncode(parts[i], sets.PATH);
			if (DOUBLE_DOT.test(segment)) {
				shorten(url.path, url.protocol);
				if (last) url.path.push("");
			} else if (SINGLE_DOT.test(segment)) {
				if (last) url.path.push("");
			} else {
				if (url.protocol === "file:" && url.path.length === 0 && DRIVE.test(segment)) segment = `${segment[0]}:`;
				url.path.push(segment);
			}
		}
		return url;
	}

	function pathname(url) {
		if (typeof url.path === "string") return url.path;
		let out = "";
		for (const segment of url.path) out += `/${segment}`;
		return out;
	}

	function serialize(url) {
		let out = url.protocol;
		if (url.host !== null) {
			out += "//";
			if (url.username !== "" || url.password !== "") {
				out += url.username + (url.password !== "" ? `:${url.password}` : "");
				out += "@";
			}
			out += url.host + (url.port !== null ? `:${url.port}` : "");
		} else if (typeof url.path !== "string" && url.path.length > 1 && url.path[0] === "") out += "/.";
		out += pathname(url);
		if (url.query !== null) out += `?${url.query}`;
		if (url.fragment !== null) out += `#${url.fragment}`;
		return out;
	}

	function origin(url) {
		if (url.protocol === "blob:") {
			const inner = parse(pathname(url), null);
			return inner && (inner.protocol === "http:" || inner.protocol === "https:") ? origin(inner) : "null";
		}
		if (!isSpecial(url.protocol) || url.protocol === "file:") return "null";
		return `${url.protocol}//${url.host}${url.port !== null ? `:${url.port}` : ""}`;
	}

	// ---- URL ----

	function recordOf(url) {
		const found = records.get(url);
		if (!found) throw new TypeError("Illegal invocation: not a URL");
		return found;
	}

	function parseArguments(url, base) {
		let baseRecord = null;
		if (base !== undefined) {
			baseRecord = parse(String(base), null);
			if (!baseRecord) throw fail(`${String(url)} against the base ${String(base)}`);
		}
		return parse(String(url), baseRecord);
	}

	function adopt(instance, parsed) {
		records.set(instance, parsed);
		const params = new URLSearchParams(parsed.query ?? "");
		owners.set(params, parsed);
		defineProperty(instance, "searchParams", { value: params, enumerable: false, configurable: true });
		return instance;
	}

	// Setters change the record in place; the URL's params follow its query.
	function update(url, change) {
		const current = recordOf(url);
		change(current);
		lists.set(url.searchParams, parseForm(current.query ?? ""));
	}

	const canHaveCredentials = (url) => url.host !== null && url.host !== "" && url.protocol !== "file:";

	function hostSetter(url, value, withPort) {
		if (typeof url.path === "string") return;
		const special = isSpecial(url.protocol);
		const text = String(value).split(special ? /[/\\?#]/ : /[/?#]/)[0];
		const colon = portColon(text);
		const hostText = colon < 0 ? text : text.slice(0, colon);
		if (hostText === "" && (special || colon >= 0)) return;
		if (!withPort && colon >= 0) return;
		const parsed = parseHost(hostText, special);
		if (parsed === null) return;
		url.host = url.protocol === "file:" && parsed === "localhost" ? "" : parsed;
		if (withPort && colon >= 0 && url.host !== "" && url.protocol !== "file:")
			setPort(url, text.slice(colon + 1), false);
	}

	class URL {
		get [Symbol.toStringTag]() {
			return "URL";
		}
		constructor(url, base = undefined) {
			const parsed = parseArguments(url, base);
			if (!parsed) throw fail(String(url));
			adopt(this, parsed);
		}
		static canParse(url, base = undefined) {
			try {
				return parseArguments(url, base) !== null;
			} catch {
				return false;
			}
		}
		static parse(url, base = undefined) {
			try {
				return new URL(url, base);
			} catch {
				return null;
			}
		}
		get href() {
			return serialize(recordOf(this));
		}
		set href(value) {
			const parsed = parse(String(value), null);
			if (!parsed) throw fail(String(value));
			records.set(this, parsed);
			owners.set(this.searchParams, parsed);
			lists.set(this.searchParams, parseForm(parsed.query ?? ""));
		}
		get origin() {
			return origin(recordOf(this));
		}
		get protocol() {
			return recordOf(this).protocol;
		}
		set protocol(value) {
			update(this, (url) => {
				const name = /^[A-Za-z][A-Za-z0-9+.-]*/.exec(String(value).split(":")[0]);
				if (!name) return;
				const protocol = `${lower(name[0])}:`;
				if (isSpecial(protocol) !== isSpecial(url.protocol)) return;
				if (protocol === "file:" && (url.username !== "" || url.password !== "" || url.port !== null)) return;
				if (url.protocol === "file:" && url.host === "") return;
				url.protocol = protocol;
				if (DEFAULT_PORTS[protocol] === url.port) url.port = null;
			});
		}
		get username() {
			return recordOf(this).username;
		}
		set username(value) {
			update(this, (url) => {
				if (canHaveCredentials(url)) url.username = percentEncode(String(value), sets.USERINFO);
			});
		}
		get password() {
			return recordOf(this).password;
		}
		set password(value) {
			update(this, (url) => {
				if (canHaveCredentials(url)) url.password = percentEncode(String(value), sets.USERINFO);
			});
		}
		get host() {
			const url = recordOf(this);
			if (url.host === null) return "";
			return url.port === null ? url.host : `${url.host}:${url.port}`;
		}
		set host(value) {
			update(this, (url) => hostSetter(url, value, true));
		}
		get hostname() {
			return recordOf(this).host ?? "";
		}
		set hostname(value) {
			update(this, (url) => hostSetter(url, value, false));
		}
		get port() {
			const port = recordOf(this).port;
			return port === null ? "" : String(port);
		}
		set port(value) {
			update(this, (url) => {
				if (!canHaveCredentials(url)) return;
				const text = String(value);
				if (text === "") url.port = null;
				else setPort(url, text, false);
			});
		}
		get pathname() {
			return pathname(recordOf(this));
		}
		set pathname(value) {
			update(this, (url) => {
				if (typeof url.path === "string") return;
				const text = String(value);
				const special = isSpecial(url.protocol);
				const leading = special ? /^[/\\]/ : /^\//;
				withPath(url, text === "" || leading.test(text) || (!special && url.host === null) ? text : `/${text}`);
			});
		}
		get search() {
			const query = recordOf(this).query;
			return query === null || query === "" ? "" : `?${query}`;
		}
		set search(value) {
			update(this, (url) => {
				const text = String(value);
				const special = isSpecial(url.protocol);
				if (text === "") url.query = null;
				else
					url.query = percentEncode(
						text[0] === "?" ? text.slice(1) : text,
						special ? sets.SPECIAL_QUERY : sets.QUERY,
					);
			});
		}
		get hash() {
			const fragment = recordOf(this).fragment;
			return fragment === null || fragment === "" ? "" : `#${fragment}`;
		}
		set hash(value) {
			update(this, (url) => {
				const text = String(value);
				url.fragment = text === "" ? null : percentEncode(text[0] === "#" ? text.slice(1) : text, sets.FRAGMENT);
			});
		}
		toString() {
			return this.href;
		}
		toJSON() {
			return this.href;
		}
	}

	kit.exports = { URL, URLSearchParams };
});
