import { describe, expect, it } from "vitest";
import { encodeHostValue, toHostErrorData } from "../../src/sandbox/marshal.ts";

describe("encodeHostValue", () => {
	it("encodes JSON data, and leaves undefined absent", () => {
		expect(encodeHostValue({ a: [1, "x", null, true, { b: -0 }] }, "data", 1000)).toEqual({
			ok: true,
			json: '{"a":[1,"x",null,true,{"b":0}]}',
		});
		expect(encodeHostValue(undefined, "data", 1000)).toEqual({ ok: true, json: undefined });
	});

	it.each([
		["a function", { f: () => 1 }, "data.f", "a function"],
		[
			"a cycle",
			(() => {
				const o: Record<string, unknown> = {};
				o.self = o;
				return o;
			})(),
			"data.self",
			"a cycle (a value that contains itself)",
		],
		["a Date", [new Date(0)], "data[0]", "a Date"],
		["a class instance", { e: new (class Thing {})() }, "data.e", "a Thing"],
		["a Proxy", { p: new Proxy({}, {}) }, "data.p", "a Proxy"],
		["a getter", Object.defineProperty({}, "g", { get: () => 1, enumerable: true }), "data.g", "a getter or setter"],
		["NaN", { n: Number.NaN }, "data.n", "NaN"],
		["a BigInt", { n: 1n }, "data.n", "a BigInt"],
		["undefined in an array", [undefined], "data[0]", "undefined"],
		["a hole", Object.assign(new Array(3), { 0: 1, 2: 2 }), "data[1]", "a hole (a missing element)"],
		["a __proto__ key", JSON.parse('{"__proto__":1}'), "data.__proto__", "a `__proto__` key"],
		["an odd key", { "x-y": Symbol("s") }, 'data["x-y"]', "a symbol"],
	])("rejects %s with its path", (_what, value, path, found) => {
		expect(encodeHostValue(value, "data", 1000)).toEqual({
			ok: false,
			problem: {
				kind: "value_not_json",
				path,
				message: `\`${path}\` is ${found}, which cannot cross the sandbox boundary. Pass plain JSON data (objects, arrays, strings, numbers, booleans, null)`,
			},
		});
	});

	it("rejects a value larger than the limit in UTF-8 bytes", () => {
		expect(encodeHostValue("é".repeat(10), "data", 21)).toMatchObject({
			ok: false,
			problem: { kind: "limit_value_size" },
		});
		expect(encodeHostValue("é".repeat(10), "data", 22)).toMatchObject({ ok: true });
	});
});

describe("toHostErrorData", () => {
	it("keeps name, message and the JSON-safe own properties", () => {
		class CodedError extends Error {
			override readonly name = "CodedError";
			readonly code = "schema_unmet";
			readonly details = { tries: 5 };
			readonly fn = () => 1;
		}
		expect(toHostErrorData(new CodedError("no"), 1000)).toEqual({
			name: "CodedError",
			message: "no",
			props: { code: "schema_unmet", details: { tries: 5 } },
		});
	});

	it("turns a thrown non-Error into an Error with its text", () => {
		expect(toHostErrorData(42, 1000)).toEqual({ name: "Error", message: "42", props: {} });
	});
});
