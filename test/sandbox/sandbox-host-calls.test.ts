import { describe, expect, it } from "vitest";
import type { HostFunction, SandboxValue } from "../../src/sandbox/index.ts";
import { checkLeaks, request, resultOf, runOnce } from "./support.ts";

checkLeaks();

/** A host error the way the runtime throws them: a class with a code, details and a location. */
class CodedError extends Error {
	override readonly name = "CodedError";
	readonly code = "agent_type_unknown";
	readonly details = { available: ["a", "b"] };
	readonly location = { line: 3, column: 7 };
	readonly notJson = () => 1;
}

describe("host calls", () => {
	it("runs 100 async calls at once, not one after another", async () => {
		// Each call waits until all 100 are running (or a second has passed), so the peak shows the concurrency.
		let running = 0;
		let peak = 0;
		let open!: () => void;
		const gate = new Promise<void>((resolve) => {
			open = resolve;
		});
		let timer: NodeJS.Timeout | undefined;
		const wait: HostFunction = {
			kind: "async",
			fn: async ([i]) => {
				timer ??= setTimeout(open, 1000);
				running++;
				peak = Math.max(peak, running);
				if (running === 100) open();
				await gate;
				running--;
				return i;
			},
		};
		try {
			const value = await resultOf(
				"const all = []; for (let i = 0; i < 100; i++) all.push(host.wait(i)); return await Promise.all(all);",
				{ wait },
			);
			expect(value).toEqual(Array.from({ length: 100 }, (_, i) => i));
		} finally {
			clearTimeout(timer);
		}
		expect(peak, `peak concurrency was ${peak}`).toBe(100);
	});

	it("settles answers that arrive together, large and small, text and data, each to its own call", async () => {
		// 150 answers in one turn: more than one guest call's batch by count, and by text (10 of 100,000 characters).
		const answer: HostFunction = {
			kind: "async",
			fn: async ([i]) => {
				const n = i as number;
				if (n % 15 === 0) return "x".repeat(100_000) + n;
				return n % 2 === 0 ? { n, list: [n, String(n)] } : `text ${n}`;
			},
		};
		const value = await resultOf(
			`const all = []; for (let i = 0; i < 150; i++) all.push(host.answer(i));
			return (await Promise.all(all)).map((v) => (typeof v === "string" ? v.slice(-12) + ":" + v.length : v));`,
			{ answer },
		);
		expect(value).toEqual(
			Array.from({ length: 150 }, (_, n) => {
				if (n % 15 === 0) return `${`x`.repeat(12 - String(n).length)}${n}:${100_000 + String(n).length}`;
				return n % 2 === 0 ? { n, list: [n, String(n)] } : `text ${n}:${`text ${n}`.length}`;
			}),
		);
	});

	it("hands every string answer to the guest as it is: NUL, lone and paired surrogates, escapes, non-ASCII", async () => {
		const texts = ["plain", "", "a\u0000b", "\ud800x", "x\udfff", "\u{1f600}", 'q"\\\n\t', "é漢\u2028"];
		const value = await resultOf(
			`const out = [];
			for (let i = 0; i < ${texts.length}; i++) {
				const text = await host.text(i);
				const codes = [];
				for (let j = 0; j < text.length; j++) codes.push(text.charCodeAt(j));
				out.push(codes);
			}
			return out;`,
			{ text: { kind: "async", fn: async ([i]) => texts[i as number] as string } },
		);
		expect(value).toEqual(texts.map((text) => [...Array(text.length).keys()].map((j) => text.charCodeAt(j))));
	});

	it("rejects the guest promise with a guest Error carrying the host error's name, message and JSON props", async () => {
		const value = await resultOf(
			`try { await host.fail(); } catch (e) {
				return { isError: e instanceof Error, name: e.name, message: e.message, code: e.code, details: e.details,
					location: e.location, notJson: typeof e.notJson, stackHasCall: e.stack.includes("(wf.js:1:") };
			}`,
			{ fail: { kind: "async", fn: async () => Promise.reject(new CodedError("No such agent")) } },
		);
		expect(value).toEqual({
			isError: true,
			name: "CodedError",
			message: "No such agent",
			code: "agent_type_unknown",
			details: { available: ["a", "b"] },
			location: { line: 3, column: 7 },
			notJson: "undefined",
			stackHasCall: true,
		});
	});

	it("throws a sync host function's error synchronously, at the call", async () => {
		const outcome = await runOnce(
			request("\n  const x = 1;\n  host.now();", {
				now: {
					kind: "sync",
					fn: () => {
						throw new CodedError("clock stopped");
					},
				},
			}),
		);
		expect(outcome).toMatchObject({
			ok: false,
			error: { kind: "thrown", name: "CodedError", message: "clock stopped", line: 3, column: 11 },
		});
		expect(!outcome.ok && outcome.error.props).toEqual({
			code: "agent_type_unknown",
			details: { available: ["a", "b"] },
			location: { line: 3, column: 7 },
		});
	});

	it("lets a sync host function answer from a promise", async () => {
		expect(await resultOf("return host.later();", { later: { kind: "sync", fn: async () => "done" } })).toBe("done");
	});

	it("turns a non-Error throw into an Error with its text", async () => {
		const value = await resultOf("try { await host.f(); } catch (e) { return [e instanceof Error, e.message]; }", {
			f: { kind: "async", fn: () => Promise.reject("plain text") },
		});
		expect(value).toEqual([true, "plain text"]);
	});

	it("gives the guest undefined when the host returns nothing", async () => {
		const value = await resultOf("return [typeof (await host.a()), typeof host.s()];", {
			a: { kind: "async", fn: async () => undefined },
			s: { kind: "sync", fn: () => undefined },
		});
		expect(value).toEqual(["undefined", "undefined"]);
	});

	it("rejects the call when the host returns something that is not JSON, naming the path", async () => {
		const value = await resultOf(
			"try { await host.f(); } catch (e) { return [e.name, e.code, e.path, e.message]; }",
			{
				f: { kind: "async", fn: async () => ({ when: new Date(0) }) },
			},
		);
		expect(value).toEqual([
			"TypeError",
			"value_not_json",
			"f().when",
			"`f().when` is a Date, which cannot cross the sandbox boundary. Pass plain JSON data (objects, arrays, strings, numbers, booleans, null)",
		]);
	});

	it("returns fresh copies: guest changes never reach host objects", async () => {
		const shared = { list: [1, 2] };
		const value = await resultOf("const v = host.get(); v.list.push(3); return host.get();", {
			get: { kind: "sync", fn: () => shared },
		});
		expect(value).toEqual({ list: [1, 2] });
		expect(shared).toEqual({ list: [1, 2] });
	});

	it("returns undefined from an event call at once and reports its errors to onEventError", async () => {
		const reported: [string, unknown][] = [];
		const outcome = await runOnce(
			request(
				"return [host.note('a'), host.noteAsync('b')].map((x) => typeof x);",
				{
					note: {
						kind: "event",
						fn: () => {
							throw new Error("sync boom");
						},
					},
					noteAsync: { kind: "event", fn: async () => Promise.reject(new Error("async boom")) },
				},
				{ onEventError: (name, error) => reported.push([name, (error as Error).message]) },
			),
		);
		expect(outcome).toEqual({ ok: true, value: ["undefined", "undefined"] });
		await new Promise((resolve) => setImmediate(resolve));
		expect(reported).toEqual([
			["note", "sync boom"],
			["noteAsync", "async boom"],
		]);
	});
});

describe("cached sync host functions (watchChanges)", () => {
	/** A sync function that counts the calls that reach the host, and the `changed` the sandbox gave it. */
	function counter() {
		const state = { calls: 0, value: 0, watching: 0, changed: () => {} };
		const read: HostFunction = {
			kind: "sync",
			fn: () => {
				state.calls++;
				return state.value;
			},
			watchChanges: (changed) => {
				state.watching++;
				state.changed = changed;
				return () => state.watching--;
			},
		};
		return { state, read };
	}

	it("answers repeated calls in the worker: 1,000 reads reach the host once", async () => {
		const { state, read } = counter();
		const value = await resultOf("let sum = 0; for (let i = 0; i < 1000; i++) sum += host.read(); return sum;", {
			read,
		});
		expect([value, state.calls]).toEqual([0, 1]);
		expect(state.watching, "watchChanges' stop was not called when the run ended").toBe(0);
	});

	it("asks the host again after the guest posted any call, with other arguments, or after `changed()`", async () => {
		const { state, read } = counter();
		const bump: HostFunction = {
			kind: "event",
			fn: () => {
				state.value++;
			},
		};
		// The host changes the value on its own (as an agent finishing would) and says so.
		const later: HostFunction = {
			kind: "async",
			fn: async () => {
				await new Promise((resolve) => setTimeout(resolve, 10));
				state.value += 10;
				state.changed();
				return null;
			},
		};
		const value = await resultOf(
			`const seen = [host.read()];
			host.bump(); seen.push(host.read());
			seen.push(host.read("other"));
			const p = host.later(); seen.push(host.read());
			await p; seen.push(host.read(), host.read());
			return seen;`,
			{ read, bump, later },
		);
		expect(value).toEqual([0, 1, 1, 1, 11, 11]);
		expect(state.calls).toBe(5);
	});

	it("does not keep an error: a failed call is asked again", async () => {
		let calls = 0;
		const flaky: HostFunction = {
			kind: "sync",
			fn: () => {
				calls++;
				if (calls === 1) throw new Error("not yet");
				return calls;
			},
			watchChanges: () => () => {},
		};
		const value = await resultOf(
			"let first; try { host.flaky(); } catch (e) { first = e.message; } return [first, host.flaky(), host.flaky()];",
			{
				flaky,
			},
		);
		expect(value).toEqual(["not yet", 2, 2]);
	});
});

describe("host calls after the script replaces built-ins", () => {
	const echo: Record<string, HostFunction> = {
		echo: { kind: "async", fn: async ([v]) => v as SandboxValue },
		echoSync: { kind: "sync", fn: ([v]) => v as SandboxValue },
	};

	it.each([
		["Promise", "globalThis.Promise = function () { throw new Error('no'); };"],
		["JSON", "globalThis.JSON = { parse() { throw 1; }, stringify() { throw 2; } };"],
		[
			"Object.* and Reflect",
			"Object.getOwnPropertyDescriptor = Object.keys = Reflect.ownKeys = Reflect.apply = () => { throw 3; };",
		],
		[
			"Array.prototype",
			"Array.prototype.map = Array.prototype.push = Array.prototype[Symbol.iterator] = () => { throw 4; };",
		],
		["Function.prototype", "Function.prototype.call = Function.prototype.apply = () => { throw 5; };"],
		[
			"Object.prototype setters",
			"Object.defineProperty(Object.prototype, 'a', { set() { throw 6; } }); Object.prototype.get = 7;",
		],
		["Error", "globalThis.Error = globalThis.TypeError = function () { throw 8; };"],
	])("still copies values both ways after replacing %s", async (_name, sabotage) => {
		const value = await resultOf(
			`${sabotage}
			const a = await host.echo({ a: [1, { b: "x" }] });
			const b = host.echoSync({ a: 2 });
			return { a, b };`,
			echo,
		);
		expect(value).toEqual({ a: { a: [1, { b: "x" }] }, b: { a: 2 } });
	});
});
