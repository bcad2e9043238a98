/**
 * `URL` and `URLSearchParams` in the real sandbox. Node's own `URL` (WHATWG, what Claude Code's scripts run on) is
 * the reference: every case is parsed in the sandbox and in Node and every component compared.
 */
import { describe, expect, it } from "vitest";
import { runWorkflowScript } from "../../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

async function run(body: string, args?: unknown) {
	const fake = createFakeRunner();
	return runWorkflowScript(`${HEADER}${body}`, {
		agentRunner: fake.runner,
		...(args === undefined ? {} : { args: args as never }),
	});
}

const PARTS = `[x.href, x.origin, x.protocol, x.username, x.password, x.host, x.hostname, x.port, x.pathname, x.search, x.hash]`;

function nodeParts(input: string, base?: string): string[] {
	try {
		const x = base === undefined ? new URL(input) : new URL(input, base);
		return [
			x.href,
			x.origin,
			x.protocol,
			x.username,
			x.password,
			x.host,
			x.hostname,
			x.port,
			x.pathname,
			x.search,
			x.hash,
		];
	} catch (error) {
		return [`throws ${(error as Error).name}`];
	}
}

const BASE = "http://a/b/c/d;p?q";
/** RFC 3986's examples, the URL Standard's odd corners, and what deep-research scripts meet. */
const CASES: [string, string?][] = [
	["https://Example.COM/a/./b/../c?x=1&y=2#frag"],
	["http://user:pa ss@host:80/p"],
	["http://host:8080"],
	["HTTP://a.b/%7Efoo/ bar"],
	["https://münchen.de/straße?q=ü"],
	["https://xn--mnchen-3ya.de/"],
	["http://0x7f.1/"],
	["http://192.168.0.257/"],
	["http://1.2.3"],
	["http://09.0.0.1/"],
	["http://[::1]:3000/x"],
	["http://[2001:db8:0:0:1:0:0:1]/"],
	["http://[::ffff:192.168.1.1]/"],
	["http://[1::2::3]/"],
	["mailto:Someone@Example.com"],
	["data:text/plain,hello world"],
	["urn:isbn:0451450523"],
	["javascript:alert(1)"],
	["blob:https://a.b/uuid"],
	["foo://host/a\\b"],
	["foo://"],
	["sc://ñ.test/"],
	["file:///C:/x/../y"],
	["file://localhost/etc/passwd"],
	["../d?q", BASE],
	["g", BASE],
	["./g", BASE],
	["g/", BASE],
	["/g", BASE],
	["//g", BASE],
	["?y", BASE],
	["#s", BASE],
	["", BASE],
	["../../../g", BASE],
	["http:g", BASE],
	["\\\\x\\y", "http://a/b"],
	["//host/p", "https://b/"],
	["x", "mailto:a@b"],
	["#f", "mailto:a@b"],
	["https://a/b?c#d", "https://x/"],
	["not a url"],
	["http://"],
	["http://a b/"],
	["http://a:99999/"],
	["https://user@/x"],
	["https://a:443/"],
	["ws://x:80/"],
	["  https://trim.me/\t\n  "],
	["https://a/?q='x'&r=\"y\""],
	["https://a/#a b`c"],
	["https://a/%2e%2E/b/%2e"],
	["http://example.com./"],
	["http://EXAMPLE.com:/x"],
	["http://a/^{}|"],
	["https://a.b/c d/é"],
];

describe("URL", () => {
	it("parses every case as Node's URL does, component by component, and throws where Node throws", async () => {
		const result = await run(
			`const out = [];
			for (const [u, b] of args.cases) {
				try { const x = b === null ? new URL(u) : new URL(u, b); out.push(${PARTS}); }
				catch (e) { out.push(["throws " + e.name]); }
			}
			return out;`,
			{ cases: CASES.map(([input, base]) => [input, base ?? null]) },
		);
		expect(result.status).toBe("completed");
		const value = result.value as string[][];
		CASES.forEach(([input, base], i) => {
			expect(value[i], JSON.stringify([input, base])).toEqual(nodeParts(input, base));
		});
	});

	it("gives a deep-research script's host, and its catch takes a link that is not a URL", async () => {
		const result = await run(`
			const host = (u) => { try { return new URL(u).hostname.replace(/^www\\./, ""); } catch { return u.toLowerCase(); } };
			return ["https://www.Example.com/a?b", "Not A Link", "http://[::1]/"].map(host);`);
		expect(result.value).toEqual(["example.com", "not a link", "[::1]"]);
	});

	it("throws a TypeError naming the input, at the script's line", async () => {
		const result = await run(`const a = 1;\nreturn new URL("nope").href;`);
		expect(result.status).toBe("failed");
		expect(result.error?.message).toContain("TypeError: Invalid URL: nope");
		expect(result.error?.line).toBe(3);
	});

	it("resolves against a base, and a base that is not a URL is a TypeError", async () => {
		const result = await run(`
			const out = [new URL("../x?y#z", "https://h.com/a/b/c").href, URL.canParse("/p", "https://h"), URL.canParse("nope"), URL.parse("nope")];
			try { new URL("/x", "not a base"); } catch (e) { out.push(e.name + ": " + e.message); }
			return out;`);
		expect(result.value).toEqual([
			"https://h.com/a/x?y#z",
			true,
			false,
			null,
			"TypeError: Invalid URL: /x against the base not a base",
		]);
	});

	it("turns into its href as text and as JSON, and a logged URL reads as its href", async () => {
		const result = await run(
			`const u = new URL("https://s.tr/p?q=1"); return [String(u), \`\${u}\`, JSON.stringify({ u }), u.toJSON()];`,
		);
		expect(result.value).toEqual([
			"https://s.tr/p?q=1",
			"https://s.tr/p?q=1",
			'{"u":"https://s.tr/p?q=1"}',
			"https://s.tr/p?q=1",
		]);
	});

	const SETS: [string, string, string][] = [
		["https://a.com/x?y=1#z", "hash", ""],
		["https://a.com/x?y=1#z", "hash", "#new frag"],
		["https://a.com/x?y=1#z", "search", ""],
		["https://a.com/x?y=1#z", "search", "?a=b c#d"],
		["https://a.com/x?y=1#z", "pathname", "p/q r?s"],
		["https://a.com/x", "pathname", "/../a/./b"],
		["https://a.com/x", "hostname", "B.example:99"],
		["https://a.com/x", "hostname", "a b"],
		["https://a.com/x", "host", "B.example:99"],
		["https://a.com/x", "host", "b.example:443"],
		["https://a.com/x", "host", ""],
		["foo://h/p", "host", ""],
		["https://a.com/x", "port", "8080"],
		["https://a.com/x", "port", "12ab"],
		["https://a.com/x", "port", ""],
		["https://a.com/x", "port", "99999"],
		["https://a.com/x", "protocol", "http"],
		["https://a.com/x", "protocol", "foo"],
		["https://a.com:80/x", "protocol", "http:"],
		["https://a.com/x", "username", "me@x"],
		["https://a.com/x", "password", "p:w"],
		["mailto:a@b", "pathname", "c@d"],
		["mailto:a@b", "hash", "x"],
		["https://a.com/x", "href", "http://other/"],
	];

	it("sets each component as Node's URL does (an invalid value leaves it), and its searchParams follow", async () => {
		const result = await run(
			`return args.sets.map(([u, key, v]) => { const x = new URL(u); x[key] = v; return [x.href, x.searchParams.toString()]; });`,
			{ sets: SETS },
		);
		const want = SETS.map(([input, key, v]) => {
			const x = new URL(input) as unknown as Record<string, string> & URL;
			x[key] = v;
			return [x.href, x.searchParams.toString()];
		});
		expect(result.value).toEqual(want);
	});

	it("refuses an invalid href with a TypeError, and the URL keeps its value", async () => {
		const result = await run(
			`const u = new URL("https://a/"); try { u.href = "nope"; } catch (e) { return [e.name, u.href]; }`,
		);
		expect(result.value).toEqual(["TypeError", "https://a/"]);
	});
});

describe("URLSearchParams", () => {
	const BODY = `const u = new URL("https://s.com/p?b=2&a=1&a=3&c=%20x+y");
		const p = u.searchParams;
		const log = [p.get("a"), p.getAll("a"), p.get("c"), p.get("none"), p.has("b"), p.has("a", "3"), p.has("a", "4"), p.size];
		p.append("d", "é &="); log.push(u.href);
		p.delete("a", "1"); log.push(u.href);
		p.set("a", "9"); log.push(u.href);
		p.sort(); log.push(u.href, [...p.keys()], [...p.values()], [...p], [...p.entries()]);
		p.delete("a"); p.delete("b"); p.delete("c"); p.delete("d"); log.push(u.href, u.search);
		u.search = "?z=1"; log.push(p.get("z"), p.size, u.searchParams === p);
		log.push(new URLSearchParams({ q: "a b", n: 2 }).toString(), new URLSearchParams([["x", "1"], ["x", "2"]]).toString());
		log.push(new URLSearchParams("?a=1&&b&c=%zz&d=%E2%82%AC").toString(), new URLSearchParams(new URLSearchParams("k=v")).toString());
		log.push(new URLSearchParams().toString(), new URLSearchParams("a=~!'()*").toString());
		try { new URLSearchParams([["a"]]); log.push("no throw"); } catch (e) { log.push(e.name); }
		const each = []; new URLSearchParams("a=1&b=2").forEach((v, k) => each.push(k + v)); log.push(each);
		return log;`;

	it("reads, changes, sorts and serializes as Node's does, and a URL's params write back to its query", async () => {
		const result = await run(BODY);
		expect(result.status).toBe("completed");
		const reference = new Function("URL", "URLSearchParams", BODY);
		expect(result.value).toEqual(reference(URL, URLSearchParams));
		expect((result.value as unknown[])[8]).toBe("https://s.com/p?b=2&a=1&a=3&c=+x+y&d=%C3%A9+%26%3D");
	});
});

describe("the lazy web globals", () => {
	it("are globals before a script reads them, and a script may replace one before or after", async () => {
		const result = await run(`
			const before = Object.getOwnPropertyDescriptor(globalThis, "URLSearchParams");
			globalThis.URLSearchParams = "mine";
			const kind = typeof URL;
			return [typeof before.get, URLSearchParams, kind, typeof new URL("https://a").searchParams.get];`);
		// The script's own URLSearchParams stays; URL still gets the real one for its searchParams.
		expect(result.value).toEqual(["function", "mine", "function", "function"]);
	});
});
