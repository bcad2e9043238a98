/**
 * Hostile scripts that reach, or act as if they controlled, the engine's own memory: buffers that grow past their
 * allocation, forged host calls with any arguments, and malformed worker messages. Runs use a worker that serves
 * the real engine and lets the script post raw messages (forging-worker.ts), so the host is tested as if the
 * prelude and the worker's own checks did not exist. The host must never throw, whatever arrives.
 */
import { Worker } from "node:worker_threads";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type * as Pool from "../../src/sandbox/pool.ts";
import { beside, checkCase, guardHost, type HostileCase, runHostile } from "./support.ts";

vi.mock("../../src/sandbox/pool.ts", async (importOriginal) => {
	const original = await importOriginal<typeof Pool>();
	return { ...original, DEFAULT_WORKER_ENTRY: new URL("./forging-worker.ts", import.meta.url) };
});

guardHost();

const hostFaults = vi.fn();
const onFault = (error: unknown) => hostFaults(error);
beforeAll(() => {
	process.on("uncaughtException", onFault);
	process.on("unhandledRejection", onFault);
});
afterEach(async () => {
	// An unhandled rejection is reported after the microtasks of the turn it happened in.
	await new Promise((resolve) => setImmediate(resolve));
	expect(hostFaults, "the host threw outside a run").not.toHaveBeenCalled();
});
afterAll(() => {
	process.off("uncaughtException", onFault);
	process.off("unhandledRejection", onFault);
});

const MiB = 1024 * 1024;

/** The 1.7 KB crash: a SharedArrayBuffer grown past its allocation, written through a view. */
const SAB_WRITE = `const b = new SharedArrayBuffer(16, { maxByteLength: 16*1024*1024 }); b.grow(8*1024*1024);
const u = new Uint8Array(b); for (let i = 0; i < u.length; i++) u[i] = 0x41; return "written";`;

const BUFFERS: HostileCase[] = [
	[
		"a SharedArrayBuffer grown and written through a view: there is no SharedArrayBuffer",
		SAB_WRITE,
		{
			code: "name_undeclared",
			message:
				"`SharedArrayBuffer` is not defined in workflow scripts. The sandbox has no `SharedArrayBuffer` (see SECURITY.md): use an `ArrayBuffer` (2:15)",
		},
	],
	[
		"the same, hidden from the static pass: the engine has no SharedArrayBuffer either",
		`return new Function(${JSON.stringify(SAB_WRITE)})();`,
		{ code: "script_error", message: "ReferenceError: 'SharedArrayBuffer' is not defined" },
	],
	[
		"SharedArrayBuffer and Atomics are gone, and no object reachable from globalThis is a SharedArrayBuffer",
		`const seen = new Set(); const queue = [globalThis]; const found = [];
		while (queue.length > 0) {
			const v = queue.pop();
			if ((typeof v !== "object" && typeof v !== "function") || v === null || seen.has(v)) continue;
			seen.add(v);
			for (const key of Reflect.ownKeys(v)) {
				const d = Object.getOwnPropertyDescriptor(v, key);
				if (String(key).includes("SharedArrayBuffer") || d.value === "SharedArrayBuffer") found.push(String(key));
				queue.push(d.value, d.get, d.set);
			}
			queue.push(Object.getPrototypeOf(v));
		}
		return [typeof SharedArrayBuffer, typeof Atomics, found, seen.size > 500];`,
		{ value: ["undefined", "undefined", [], true] },
	],
	[
		"a resizable ArrayBuffer grown to 8 MiB and filled stays inside it: the values around it are intact",
		`const b = new ArrayBuffer(16, { maxByteLength: 16*1024*1024 }); b.resize(8*1024*1024);
		const u = new Uint8Array(b); u.fill(0x41); for (let i = 0; i < u.length; i += 64) u[i] = 0x41;
		let sum = 0; for (let i = 0; i < u.length; i += 4096) sum += u[i];
		return { length: u.length, sum, nothing: null, list: [1, "a", true], text: JSON.stringify({ n: null }) };`,
		{ value: { length: 8 * MiB, sum: 2048 * 0x41, nothing: null, list: [1, "a", true], text: '{"n":null}' } },
	],
	[
		"after a shrink, length-tracking views shrink, fixed views go out of bounds, and a regrown buffer reads zeros",
		`const b = new ArrayBuffer(MiB, { maxByteLength: 16 * MiB });
		const track = new Uint8Array(b); const fixed = new Uint8Array(b, 0, MiB); const view = new DataView(b);
		track.fill(7); b.resize(16);
		let read; try { view.getUint8(100); read = "read"; } catch (e) { read = e.name; }
		fixed[1000] = 9;
		const shrunk = [track.length, fixed.length, view.byteLength, String(fixed[1000]), read];
		b.resize(2 * MiB);
		return [shrunk, track.length, track[1000], fixed.length, fixed[1000], track[15]];`.replaceAll(
			"MiB",
			"(1024*1024)",
		),
		{ value: [[16, 0, 16, "undefined", "RangeError"], 2 * MiB, 0, MiB, 0, 7] },
	],
	[
		"a shrink from inside a typed-array method (fill's start, a sort comparator) stays in bounds",
		`const b = new ArrayBuffer(1 << 20, { maxByteLength: 1 << 24 }); const u = new Uint8Array(b);
		u.fill(0x41, { valueOf() { b.resize(16); return 0; } });
		const c = new ArrayBuffer(1 << 16, { maxByteLength: 1 << 24 }); const v = new Uint8Array(c); let once = true;
		v.sort((x, y) => { if (once) { once = false; c.resize(16); } return x - y; });
		return [u.length, [...u].every((x) => x === 0x41), v.length];`,
		{ value: [16, true, 16] },
	],
	[
		"transfer() detaches the old buffer: its views are empty and writes through them are dropped",
		`const b = new ArrayBuffer(1024, { maxByteLength: 1 << 24 }); const old = new Uint8Array(b);
		const moved = b.transfer(); moved.resize(1 << 23); old[5] = 1;
		const u = new Uint8Array(moved); u.fill(0x41);
		let threw; try { b.resize(10); } catch (e) { threw = e.name; }
		return [b.detached, old.length, String(old[5]), u.length, u[(1 << 23) - 1], threw];`,
		{ value: [true, 0, "undefined", 1 << 23, 0x41, "TypeError"] },
	],
];

/** `log("FORGE", messages)`: the worker posts `messages` as they are (see forging-worker.ts). */
function forge(...messages: unknown[]): string {
	// "$big" stands for arguments with a 4 MiB stack, made in the script (a script's source is at most 512 KiB).
	const big = `JSON.stringify(["y", null, "at ".repeat(1.4 * 1024 * 1024)])`;
	// "$deep": arguments nested a million levels, made in the script too.
	const deep = `'["info", "deep", ' + "[".repeat(1e6) + "]".repeat(1e6) + ", true]"`;
	return `log("FORGE", ${JSON.stringify(messages).replaceAll('"$big"', big).replaceAll('"$deep"', deep)});`;
}

function call(name: string, kind: string, argsJson: unknown, callId: unknown = 1000) {
	return { type: "call", runId: "$run", callId, name, kind, argsJson };
}

const ENGINE = { disposedCleanly: true, reusable: true, instantiateMs: 1 };
function done(outcome: unknown, engine: unknown = ENGINE) {
	return { type: "done", runId: "$run", outcome, engine };
}

/** Malformed messages: each ends the run as `sandbox_corrupt` naming what was wrong. */
const MALFORMED: [name: string, message: unknown, problem: string][] = [
	["null instead of a message", null, "a message is null, not an object"],
	["a string instead of a message", "hello", "a message is a string, not an object"],
	["a message of an unknown type", { type: "bogus" }, 'a message has type "bogus" during a run'],
	["a second ready", { type: "ready" }, 'a message has type "ready" during a run'],
	["a runId that is not a number", { ...call("log", "event", "[]"), runId: "x" }, '`runId` is "x"'],
	["a callId of 0", call("log", "event", "[]", 0), "`callId` is 0, not a positive integer"],
	["a fractional callId", call("log", "event", "[]", 1.5), "`callId` is 1.5"],
	["a callId that is a string", call("log", "event", "[]", "1"), '`callId` is "1"'],
	["an undeclared host function", call("exec", "async", "[]"), 'names "exec", which is not a declared'],
	["a host function named __proto__", call("__proto__", "async", "[]"), 'names "__proto__"'],
	["a host function named constructor", call("constructor", "sync", "[]"), 'names "constructor"'],
	[
		"a call of the wrong kind",
		call("agent", "sync", '["x"]'),
		'a call to `agent` is of kind "sync"; `agent` is async',
	],
	["arguments that are not text", call("log", "event", 5), "the arguments of `log` are a number, not JSON text"],
	["arguments that are not JSON", call("log", "event", '["info", nul]'), "are not a JSON array"],
	["arguments that are an object", call("log", "event", "{}"), "are not a JSON array"],
	[
		"arguments nested a million levels deep (a long parse, then a stack overflow in every stringify)",
		call("log", "event", "$deep"),
		"the arguments of `log` nest deeper than 1000 levels",
	],
	[
		"a value nested 5,000 levels deep",
		done({ ok: true, json: `${"[".repeat(5000)}${"]".repeat(5000)}` }),
		"the run's value nests deeper than 1000 levels",
	],
	["a value with a respelled null", done({ ok: true, json: '{"a":nul}' }), "the run's value is not valid JSON"],
	["a value that is not text", done({ ok: true, json: 42 }), "the run's value is a number, not JSON text"],
	["an outcome without ok", done({ json: "1" }), "the run's outcome is not `{ ok, … }`"],
	["an error of an unknown kind", done({ ok: false, error: { kind: "bogus", message: "m" } }), 'has kind "bogus"'],
	["an error of the host's own kind", done({ ok: false, error: { kind: "corrupt", message: "m" } }), 'kind "corrupt"'],
	[
		"an error whose message is a number",
		done({ ok: false, error: { kind: "thrown", message: 5 } }),
		"message is a number",
	],
	[
		"an error with a position that is text",
		done({ ok: false, error: { kind: "thrown", message: "m", line: "3", column: 1 } }),
		'position is "3":1',
	],
	[
		"an error whose props are an array",
		done({ ok: false, error: { kind: "thrown", message: "m", props: [1] } }),
		"`props` are not a JSON object",
	],
	[
		"an engine report with text for a boolean",
		done({ ok: true, json: "1" }, { ...ENGINE, reusable: "yes" }),
		"not a boolean",
	],
	["a missing engine report", done({ ok: true, json: "1" }, null), "the engine report is null"],
	[
		"a fatal message whose message is an object",
		{ type: "fatal", runId: "$run", message: { a: 1 } },
		"`message` is an object",
	],
];

describe("buffers that grow, shrink, move", () => {
	it.each(BUFFERS)("%s", async (_name, script, expectation, options) => {
		await checkCase(script, expectation, options);
	});

	it("the SharedArrayBuffer write beside a normal workflow leaves it unaffected", async () => {
		// In a `Function` the static pass does not read, so the engine meets it.
		const hidden = `return new Function(${JSON.stringify(SAB_WRITE)})();`;
		await beside(() => checkCase(hidden, { code: "script_error", message: "is not defined" }));
	});
});

describe("String.prototype.normalize out of memory", () => {
	const NORMALIZE = `let s = "\\u1E9B\\u0323".repeat(1 << 22);`;
	const limits = { memoryBytes: 64 * MiB };
	it("ends as limit_memory, not as a script error about an unsupported type", async () => {
		await checkCase(
			`${NORMALIZE} s.normalize("NFKD"); return 1;`,
			{ code: "limit_memory", message: "64 MiB" },
			{ limits },
		);
	});

	it("ends as limit_memory when the script catches what it threw and throws it again", async () => {
		await checkCase(
			`${NORMALIZE} try { s.normalize("NFKD"); } catch (e) { throw e; } return 1;`,
			{ code: "limit_memory", message: "The script ran out of memory" },
			{ limits },
		);
	});
});

describe("malformed worker messages", () => {
	it.each(MALFORMED)("%s ends the run as sandbox_corrupt", async (_name, message, problem) => {
		const run = await checkCase(`${forge(message)} await sleep(50); return "not reached";`, {
			code: "sandbox_corrupt",
			message: "sent the host a malformed message",
		});
		expect(run.result.error?.message).toContain(problem);
	});

	it("ends the worker rather than returning it to the pool", async () => {
		// A worker's threadId reads -1 once it has exited, so it is recorded as terminate() is called.
		const ended: string[] = [];
		const original = Worker.prototype.terminate;
		const terminate = vi.spyOn(Worker.prototype, "terminate").mockImplementation(function (this: Worker) {
			ended.push(`thread ${this.threadId}`);
			return original.call(this);
		});
		try {
			const run = await checkCase(`log("THREAD"); ${forge(null)} await sleep(50);`, {
				code: "sandbox_corrupt",
				message: "a message is null",
			});
			expect(run.result.error?.message).toBe(
				"The script's sandbox sent the host a malformed message (a message is null, not an object), so the run was stopped and its worker ended. The script corrupted its engine's memory, or the engine has a bug: do not trust this script's output, and report it with the script",
			);
			const thread = run.events.find((event) => event.type === "log")?.message;
			expect(ended).toContain(thread);
		} finally {
			terminate.mockRestore();
		}
	});

	it("a malformed message beside a normal workflow leaves it unaffected", async () => {
		await beside(() =>
			checkCase(`${forge(done({ ok: true, json: "nul" }))} await sleep(50);`, {
				code: "sandbox_corrupt",
				message: "not valid JSON",
			}),
		);
	});

	it("another run's messages are ignored, as before", async () => {
		await checkCase(`${forge({ ...call("log", "event", 5), runId: 999_999 })} await sleep(20); return "kept";`, {
			value: "kept",
		});
	});
});

/** Host calls with arguments the prelude would never send: each is refused with a code, or ignored. */
const FORGED_CALLS: [name: string, calls: unknown[], check: (run: Awaited<ReturnType<typeof runHostile>>) => void][] = [
	[
		"agent() with a prompt, options and stack of the wrong types is refused and counted as skipped",
		[
			call("agent", "async", "[5]", 1001),
			call("agent", "async", '["x", "opts"]', 1002),
			call("agent", "async", '["x", {"tools": 5, "retries": -1}]', 1003),
			call("agent", "async", '["x", [], {"a": 1}]', 1004),
		],
		({ result, fake }) => {
			expect(fake.requests).toHaveLength(0);
			expect(result.counts).toMatchObject({ calls: 4, started: 0, completed: 0, failed: 0, skipped: 4 });
		},
	],
	[
		"agent() with a stack that is not text, or is 4 MiB, still runs once and is counted once",
		[call("agent", "async", '["x", null, {"not": "a stack"}]', 1001), call("agent", "async", "$big", 1002)],
		({ result, fake }) => {
			expect(fake.requests.map((r) => r.prompt)).toEqual(["x", "y"]);
			expect(result.counts).toMatchObject({ calls: 2, started: 2, completed: 2, failed: 0, skipped: 0 });
		},
	],
	[
		"slotFailed() with odd indexes records slot -1, never NaN or a fraction",
		[
			call("slotFailed", "event", '["parallel", -3, "m"]'),
			call("slotFailed", "event", '["parallel", 1.5, null]'),
			call("slotFailed", "event", '[7, 1e300, {"a": 1}]'),
			call("slotFailed", "event", '["pipeline", 2, "ok"]'),
		],
		({ events, result }) => {
			const slots = events.filter((event) => event.type === "slot_failed");
			expect(slots.map((event) => event.index)).toEqual([-1, -1, -1, 2]);
			expect(slots.map((event) => event.kind)).toEqual(["parallel", "parallel", "parallel", "pipeline"]);
			expect(result.failures).toHaveLength(4);
		},
	],
	[
		"phaseStart() with an empty or non-text name, and phaseEnd() of a phase never started, are ignored",
		[
			call("phaseStart", "event", '["", true]'),
			call("phaseStart", "event", "[5, false]"),
			call("phaseStart", "event", "[]"),
			call("phaseEnd", "event", '["never", true]'),
		],
		({ events }) => {
			expect(events.filter((event) => event.type === "phase_start" || event.type === "phase_end")).toEqual([]);
		},
	],
	[
		"log() with a level, message and data of the wrong types logs text at info",
		[call("log", "event", '[5, {"a": 1}, [1], "yes"]'), call("log", "event", "[]")],
		({ events }) => {
			expect(events.filter((event) => event.type === "log").map((e) => [e.level, e.message, "data" in e])).toEqual([
				["info", "[object Object]", false],
				["info", "undefined", false],
			]);
		},
	],
	[
		"budget() with arguments, sleep() and workflow() with bad ones are answered with errors or ignored",
		[
			call("budget", "sync", "[1, 2, 3]", 1001),
			call("sleep", "async", '["x"]', 1002),
			call("sleep", "async", "[-1]", 1003),
			call("workflow", "async", "[5]", 1004),
			call("workflow", "async", '["/etc/passwd", null, true]', 1005),
		],
		({ result }) => {
			expect(result.counts.calls).toBe(0);
		},
	],
];

describe("forged host calls", () => {
	it.each(FORGED_CALLS)("%s", async (_name, calls, check) => {
		const run = await runHostile(`${forge(...calls)} await sleep(100); return "done";`);
		expect(run.result.error).toBeUndefined();
		expect(run.result.value).toBe("done");
		check(run);
	});
});
