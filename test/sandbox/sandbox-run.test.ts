import { describe, expect, it } from "vitest";
import type { HostFunction } from "../../src/sandbox/index.ts";
import { checkLeaks, request, resultOf, runOnce, sandbox } from "./support.ts";

checkLeaks();

describe("createSandbox().run", () => {
	it("resolves to the body's value, with `data` copied in", async () => {
		expect(await resultOf("return { got: data, sum: 1 + 2 };", {}, { a: [1, "x", null, true] })).toEqual({
			got: { a: [1, "x", null, true] },
			sum: 3,
		});
	});

	it("resolves `undefined` as null", async () => {
		expect(await resultOf("await 1;")).toBeNull();
	});

	it("routes async, sync and event host calls with copied arguments", async () => {
		const events: unknown[] = [];
		const value = await resultOf(
			`const sum = await host.add(2, 3);
			const now = host.clock();
			host.log("sum", { sum });
			return { sum, now };`,
			{
				add: { kind: "async", fn: async ([a, b]) => (a as number) + (b as number) },
				clock: { kind: "sync", fn: () => 1234 },
				log: { kind: "event", fn: (args) => void events.push(args) },
			},
		);
		expect(value).toEqual({ sum: 5, now: 1234 });
		expect(events).toEqual([["sum", { sum: 5 }]]);
	});

	it("passes undefined arguments as null and drops trailing ones", async () => {
		const seen: unknown[] = [];
		await resultOf("await host.f(undefined, 1, undefined, undefined);", {
			f: { kind: "async", fn: (args) => void seen.push(args) },
		});
		expect(seen).toEqual([[null, 1]]);
	});

	it("on a thrown Error: kind thrown with name, message, position and props", async () => {
		const outcome = await runOnce(
			request("\n  const e = new TypeError('bad thing');\n  e.code = 'E_BAD';\n  throw e;"),
		);
		expect(outcome).toMatchObject({
			ok: false,
			// QuickJS places a call's position at its opening parenthesis, where the Error was created.
			error: {
				kind: "thrown",
				name: "TypeError",
				message: "bad thing",
				line: 2,
				column: 26,
				props: { code: "E_BAD" },
			},
		});
	});

	it("on a syntax error in the body: kind syntax with its position", async () => {
		const outcome = await runOnce(request("\n  let x = ;"));
		expect(outcome).toMatchObject({ ok: false, error: { kind: "syntax", name: "SyntaxError", line: 2, column: 11 } });
	});
});

const CACHED_ASYNC: object = { hostFunctions: { f: { kind: "async", fn: () => 1, watchChanges: () => () => {} } } };
const CACHED_NOT_A_FUNCTION: object = { hostFunctions: { f: { kind: "sync", fn: () => 1, watchChanges: true } } };

describe("createSandbox().run misuse", () => {
	it.each([
		["a missing body", { body: undefined }, "Expected `request.body` to be a string, got undefined"],
		[
			"a reserved filename",
			{ filename: "<prelude>" },
			"Expected `request.filename` to be a file name of the script, got `<prelude>`",
		],
		[
			"a host function of an unknown kind",
			{ hostFunctions: { f: { kind: "later", fn: () => 1 } } },
			'Expected `hostFunctions.f` to be { kind: "async" | "sync" | "event", fn }, got later',
		],
		[
			"a cached host function that is not sync",
			CACHED_ASYNC,
			'Expected `hostFunctions.f` with `watchChanges` to be of kind "sync", got "async"',
		],
		[
			"a watchChanges that is not a function",
			CACHED_NOT_A_FUNCTION,
			"Expected `hostFunctions.f.watchChanges` to be a function, got boolean",
		],
		[
			"data that is not JSON",
			{ data: { when: new Date(0) } },
			"`data.when` is a Date, which cannot cross the sandbox boundary. Pass plain JSON data (objects, arrays, strings, numbers, booleans, null)",
		],
	])("rejects %s with a TypeError", async (_what, change, message) => {
		await expect(runOnce({ ...request("return 1;"), ...change } as never)).rejects.toThrow(new TypeError(message));
	});

	it("rejects a second run while one is in progress", async () => {
		const box = sandbox();
		try {
			// The script's host call hands over its release: the first run is inside it once that resolves.
			let entered!: (release: () => void) => void;
			const inside = new Promise<() => void>((resolve) => (entered = resolve));
			const wait: HostFunction = { kind: "async", fn: () => new Promise<null>((r) => entered(() => r(null))) };
			const first = box.run(request("await host.wait(); return 1;", { wait }));
			await expect(box.run(request("return 2;"))).rejects.toThrow(
				"The sandbox is already running. Wait for `run()` to resolve, or use another sandbox",
			);
			(await inside)();
			expect(await first).toEqual({ ok: true, value: 1 });
		} finally {
			await box.dispose();
		}
	});

	it("throws a TypeError for bad options", () => {
		expect(() => sandbox({ limits: { memoryBytes: -1 } })).toThrow(TypeError);
		expect(() => sandbox({ cancelGraceMs: Number.NaN })).toThrow(
			new TypeError("Expected `cancelGraceMs` to be a non-negative number, got NaN"),
		);
	});
});
