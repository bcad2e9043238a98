/**
 * The web globals besides `URL` in the real sandbox: TextEncoder/TextDecoder, atob/btoa and structuredClone against
 * Node's own (the reference, on the same inputs), DOMException, and what the static pass says of the rest.
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

/** Runs `body` in the sandbox and as a function in Node with Node's globals; both results, as JSON data. */
async function both(body: string, args: unknown) {
	const result = await run(body, args);
	expect(result.status, result.error?.message).toBe("completed");
	const reference = new Function("args", body)(args);
	return { sandbox: result.value, node: JSON.parse(JSON.stringify(reference)) };
}

const TEXTS = ["", "plain", "héllo €𝄞", "\ud800 lone \udc00", "\u0000\u007f\u0080\u07ff\u0800\uffff", "﻿bom first"];
const BYTES = [
	[0xef, 0xbb, 0xbf, 0x61],
	[0xc3, 0x28],
	[0xe2, 0x82],
	[0xf0, 0x9f, 0x98, 0x80, 0x80],
	[0xed, 0xa0, 0x80],
	[0xc0, 0xaf, 0xf5, 0xff],
	[0xe0, 0x80, 0x80, 0x61],
	[0xf4, 0x90, 0x80, 0x80],
];

describe("TextEncoder and TextDecoder", () => {
	it("encode and decode as Node's do, bad bytes as U+FFFD or, when fatal, a TypeError", async () => {
		const { sandbox, node } = await both(
			`const enc = new TextEncoder();
			const out = [enc.encoding, new TextDecoder().encoding];
			for (const t of args.texts) { const b = enc.encode(t); out.push([...b], new TextDecoder().decode(b)); }
			for (const bytes of args.bytes) {
				const b = new Uint8Array(bytes);
				out.push(new TextDecoder().decode(b), new TextDecoder("utf-8", { ignoreBOM: true }).decode(b));
				try { new TextDecoder("utf8", { fatal: true }).decode(b); out.push("ok"); } catch (e) { out.push(e.name); }
			}
			const dest = new Uint8Array(5);
			out.push(enc.encodeInto("a€b𝄞", dest), [...dest], new TextDecoder().decode(new DataView(new Uint8Array([104, 105]).buffer)));
			out.push(new TextDecoder().decode(new Uint8Array([0x61, 0x62, 0x63]).subarray(1)), new TextDecoder().decode());
			return out;`,
			{ texts: TEXTS, bytes: BYTES },
		);
		expect(sandbox).toEqual(node);
	});

	it("decode a stream whose characters are split between chunks, and a BOM only at its start", async () => {
		const { sandbox, node } = await both(
			`const bytes = [...new TextEncoder().encode("\\ufeffa€𝄞z\\ufeff")];
			const out = [];
			for (let cut = 0; cut <= bytes.length; cut++) {
				const d = new TextDecoder();
				out.push(d.decode(new Uint8Array(bytes.slice(0, cut)), { stream: true }) + "|" + d.decode(new Uint8Array(bytes.slice(cut))));
			}
			const d = new TextDecoder();
			out.push(d.decode(new Uint8Array([0xe2, 0x82]), { stream: true }), d.decode());
			return out;`,
			{},
		);
		expect(sandbox).toEqual(node);
	});

	it("refuse an encoding other than UTF-8 with a RangeError that says so", async () => {
		const result = await run(`try { new TextDecoder("latin1"); } catch (e) { return [e.name, e.message]; }`);
		expect(result.value).toEqual([
			"RangeError",
			'The "latin1" encoding is not supported: workflow scripts decode UTF-8 only',
		]);
	});
});

describe("atob and btoa", () => {
	const INPUTS = [
		"",
		"a",
		"ab",
		"abc",
		"hi\u00ff\u0000",
		"YWJj",
		"YW Jj\n",
		"YQ==",
		"YQ=",
		"YQ",
		"Y",
		"Y===",
		"@@@@",
		"€",
	];

	it("encode and decode as Node's do, and throw an InvalidCharacterError where Node does", async () => {
		const { sandbox, node } = await both(
			`const out = [];
			for (const s of args.inputs) {
				for (const f of [btoa, atob]) {
					try { out.push(f(s)); } catch (e) { out.push(e.name + " " + (e instanceof DOMException) + " " + e.code); }
				}
			}
			return out;`,
			{ inputs: INPUTS },
		);
		expect(sandbox).toEqual(node);
	});

	it("say what to do with text beyond Latin-1", async () => {
		const result = await run(`try { btoa("€"); } catch (e) { return e.message; }`);
		expect(result.value).toBe(
			"`btoa()` takes Latin-1 text only (code points up to U+00FF): encode other text to UTF-8 bytes first, with `TextEncoder`",
		);
	});
});

describe("structuredClone", () => {
	it("copies data, cycles and shared buffers as Node's does", async () => {
		const { sandbox, node } = await both(
			`const shared = new Uint8Array([1, 2, 3, 4]);
			const source = { n: 1, s: "x", nested: { list: [1, [2, { deep: true }]] }, when: new Date(86400000),
				re: /a+b/gi, map: new Map([["k", { v: 1 }]]), set: new Set([1, "two"]), big: 10n, boxed: new String("b"),
				view: shared.subarray(1, 3), whole: shared, error: new RangeError("too far"), holes: [1, , 3], undef: undefined };
			source.self = source;
			const copy = structuredClone(source);
			return [copy !== source, copy.self === copy, copy.nested !== source.nested, JSON.stringify(copy.nested),
				copy.when.getTime(), copy.re.source + "/" + copy.re.flags, copy.map.get("k").v, copy.map.get("k") !== source.map.get("k"),
				[...copy.set], String(copy.big), typeof copy.boxed, String(copy.boxed), [...copy.view], copy.view.buffer === copy.whole.buffer,
				copy.whole.buffer !== shared.buffer, copy.error instanceof RangeError, copy.error.message, 1 in copy.holes, copy.holes.length,
				"undef" in copy, Object.getPrototypeOf(structuredClone(new (class A { x = 1 })())) === Object.prototype];`,
			{},
		);
		expect(sandbox).toEqual(node);
	});

	it("refuses what cannot be cloned with a DataCloneError, as Node does", async () => {
		const { sandbox, node } = await both(
			`const out = [];
			for (const v of [() => 1, Symbol("s"), { f() {} }, Promise.resolve(1), new WeakMap(), new URL("https://a"), new URLSearchParams("a=1"), new TextEncoder()]) {
				try { structuredClone(v); out.push("cloned"); } catch (e) { out.push(e.name, e instanceof DOMException, e.code); }
			}
			return out;`,
			{},
		);
		expect(sandbox).toEqual(node);
	});

	it("says transfer is not available", async () => {
		const result = await run(
			`const b = new ArrayBuffer(4); try { structuredClone(b, { transfer: [b] }); } catch (e) { return [e.name, e.message]; }`,
		);
		expect(result.value).toEqual([
			"DataCloneError",
			"`structuredClone()` cannot transfer in workflow scripts: leave `transfer` out",
		]);
	});
});

describe("DOMException", () => {
	it("the web globals' objects name themselves as Node's do", async () => {
		const { sandbox, node } = await both(
			`return [new URL("https://a"), new URLSearchParams(), new TextEncoder(), new TextDecoder()].map((o) => Object.prototype.toString.call(o));`,
			{},
		);
		expect(sandbox).toEqual(node);
	});

	it("is an Error with a name, a message and the legacy code, as Node's", async () => {
		const { sandbox, node } = await both(
			`const e = new DOMException("gone", "AbortError");
			return [e instanceof Error, e.name, e.message, e.code, String(e), new DOMException().name, new DOMException("x", "Custom").code];`,
			{},
		);
		expect(sandbox).toEqual(node);
	});
});
