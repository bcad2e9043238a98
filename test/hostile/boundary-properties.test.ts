/**
 * Property tests of the value boundary, through real sandbox runs: random JSON data crosses in (as args) and out
 * (as log data and as the result) unchanged; a random non-JSON value placed anywhere in random data is refused
 * with the path of the bad part; and any value a caller passes as args is either accepted and read back equal
 * to its JSON form, or refused as value_not_json naming its path — never an internal error.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../src/runtime/index.ts";
import { guardHost, runHostile } from "./support.ts";

guardHost();

/** JSON data without `__proto__` keys, which the boundary refuses on purpose (tested elsewhere). */
const jsonData = fc
	.jsonValue({ maxDepth: 4 })
	.filter((value) => !JSON.stringify(value).includes('"__proto__":')) as fc.Arbitrary<JsonValue>;

/** JSON text → the value both sides agree on (-0 becomes 0). */
const normal = (value: unknown) => JSON.parse(JSON.stringify(value));

/** Non-JSON values the script can make, with what the error says they are; `arrayOnly` ones vanish in objects. */
const BAD: [expression: string, found: string, arrayOnly?: boolean][] = [
	["() => 1", "a function"],
	["undefined", "undefined", true],
	["NaN", "NaN"],
	["-Infinity", "-Infinity"],
	["10n", "a BigInt"],
	["Symbol('s')", "a symbol"],
	["new Date(0)", "a Date"],
	["new Map()", "a Map"],
	["new Proxy({}, {})", "a Proxy"],
	["new (class Widget {})()", "a Widget"],
	["new Uint8Array(2)", "a Uint8Array"],
	["CYCLE", "a cycle"],
	["GETTER", "a getter or setter"],
];

/** The path the boundary reports for a key sequence under `root`. */
function pathText(root: string, keys: (string | number)[]): string {
	return keys.reduce<string>((path, key) => {
		if (typeof key === "number") return `${path}[${key}]`;
		return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
	}, root);
}

/** Picks a place in `value` by `choices`: the key path to an existing slot (empty means the root). */
function pickPlace(value: JsonValue, choices: number[]): (string | number)[] {
	const keys: (string | number)[] = [];
	let here = value;
	for (const choice of choices) {
		if (here === null || typeof here !== "object") break;
		const slots = Array.isArray(here) ? here.map((_, i) => i) : Object.keys(here);
		if (slots.length === 0) break;
		const key = slots[choice % slots.length] as string | number;
		keys.push(key);
		here = (here as Record<string | number, JsonValue>)[key] as JsonValue;
	}
	return keys;
}

describe("the value boundary", () => {
	it("carries random JSON data in as args and out as log data and as the result, unchanged", async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(jsonData, { maxLength: 6 }), async (values) => {
				const { result, events } = await runHostile(`log("echo", args);\nreturn args;`, { args: values });
				expect(result.error).toBeUndefined();
				expect(result.value).toEqual(normal(values));
				expect(events.find((event) => event.type === "log")).toMatchObject({ data: normal(values) });
			}),
			{ numRuns: 25 },
		);
	});

	it("refuses a non-JSON value put anywhere in random data, naming its path", async () => {
		await fc.assert(
			fc.asyncProperty(
				jsonData,
				fc.array(fc.nat(), { maxLength: 5 }),
				fc.constantFrom(...BAD),
				async (data, choices, bad) => {
					const [expression, found, arrayOnly] = bad;
					const keys = pickPlace(data, choices);
					const parentIsArray = keys.length > 0 && typeof keys.at(-1) === "number";
					fc.pre(!arrayOnly || parentIsArray);
					// A cycle or a getter needs a parent inside the returned value.
					fc.pre(keys.length > 0 || (expression !== "CYCLE" && expression !== "GETTER"));
					const keysJson = JSON.stringify(keys);
					const script = `const v = { root: JSON.parse(${JSON.stringify(JSON.stringify(data))}) };
const keys = ["root", ...${keysJson}];
let parent = v;
for (const k of keys.slice(0, -1)) parent = parent[k];
const last = keys.at(-1);
if (${JSON.stringify(expression)} === "GETTER") Object.defineProperty(parent, last, { get() { return 1; }, enumerable: true, configurable: true });
else parent[last] = ${expression === "CYCLE" ? "v.root" : expression === "GETTER" ? "null" : expression};
return v.root;`;
					const { result } = await runHostile(script);
					const path = pathText("result", keys);
					expect(result.error?.code, result.error?.message).toBe("value_not_json");
					expect(result.error?.message).toContain(`\`${path}\` is ${found}`);
				},
			),
			{ numRuns: 40 },
		);
	});

	it("takes any caller value as args: read back equal to its JSON form, or refused as value_not_json with a path", async () => {
		const anything = fc.anything({
			maxDepth: 3,
			withBigInt: true,
			withDate: true,
			withMap: true,
			withSet: true,
			withNullPrototype: true,
			withSparseArray: true,
			withTypedArray: true,
			withBoxedValues: true,
			withObjectString: true,
		});
		await fc.assert(
			fc.asyncProperty(anything, async (args) => {
				const { result } = await runHostile("return args === undefined ? 'none' : args;", { args });
				if (result.status === "completed") {
					expect(result.value).toEqual(args === undefined ? "none" : normal(args));
				} else {
					expect(result.error?.code, result.error?.message).toBe("value_not_json");
					const path = (result.error?.details as { path?: unknown } | undefined)?.path;
					expect(typeof path === "string" && path.startsWith("args")).toBe(true);
					expect(result.error?.message).toContain(`\`${path}\``);
				}
			}),
			{ numRuns: 60 },
		);
	});
});
