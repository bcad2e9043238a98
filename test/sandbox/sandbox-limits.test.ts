import { describe, expect, it } from "vitest";
import type { HostFunction } from "../../src/sandbox/index.ts";
import { checkLeaks, request, runOnce, sandbox } from "./support.ts";

checkLeaks();

const MiB = 1024 * 1024;

describe("memory limit", () => {
	it.each([
		["a growing array", "const a = []; for (;;) a.push('x'.repeat(1000) + a.length);"],
		["an object with ever more keys", "const o = {}; for (let i = 0; ; i++) o['key' + i] = [i];"],
		["a big typed array", "const b = new Uint8Array(200 * 1024 * 1024); return b.length;"],
	])("on %s: ends with limit_memory, and the sandbox runs the next script", async (_name, source) => {
		// A slice bound load cannot reach: on a busy machine the default 5 s could end the loop before memory does.
		const box = sandbox({ limits: { memoryBytes: 64 * MiB, syncSliceMs: 600_000 } });
		try {
			const outcome = await box.run(request(source));
			expect(outcome).toMatchObject({ ok: false, error: { kind: "limit_memory" } });
			expect(!outcome.ok && outcome.error.message).toBe(
				"The script ran out of memory (limit: memoryBytes = 67108864)",
			);
			expect(await box.run(request("return 'still fine';"))).toEqual({ ok: true, value: "still fine" });
		} finally {
			await box.dispose();
		}
	});

	it("lets the script catch an ordinary out-of-memory error and go on", async () => {
		const outcome = await runOnce(
			request("try { const a = []; for (;;) a.push('x'.repeat(1000) + a.length); } catch (e) { return e.message; }"),
			{ limits: { memoryBytes: 64 * MiB, syncSliceMs: 600_000 } },
		);
		expect(outcome).toEqual({ ok: true, value: "out of memory" });
	});
});

describe("stack limit", () => {
	it.each([
		["deep recursion", "const f = (n) => f(n + 1) + 1; f(0);"],
		["nested JSON.parse", "JSON.parse('['.repeat(200000));"],
		["nested eval", "const f = (n) => eval('f(n + 1)'); f(0);"],
		["deeply nested source", `return ${"(".repeat(100000)}1${")".repeat(100000)};`],
	])("on %s: ends with limit_stack", async (_name, source) => {
		const outcome = await runOnce(request(source));
		expect(outcome).toMatchObject({ ok: false, error: { kind: "limit_stack" } });
	});

	it.each([
		["a result value", "let v = []; for (let i = 0; i < 200000; i++) v = [v]; return v;"],
		["one level past the cap", "let v = []; for (let i = 0; i < 1000; i++) v = [v]; return v;"],
	])("on %s nested past 1,000 levels: refuses it by path before it crosses", async (_name, source) => {
		const outcome = await runOnce(request(source));
		expect(outcome).toMatchObject({ ok: false, error: { kind: "value_not_json" } });
		// The path keeps its first and last twelve keys around a count, so the message stays readable.
		if (!outcome.ok) {
			expect(outcome.error.message).toContain(
				`\`result${"[0]".repeat(12)}…(976 more levels)…${"[0]".repeat(12)}\` is nested more than 1000 levels deep`,
			);
		}
	});

	it("lets a value nested exactly 1,000 levels cross", async () => {
		const outcome = await runOnce(request("let v = []; for (let i = 0; i < 999; i++) v = [v]; return v;"));
		expect(outcome.ok).toBe(true);
	});

	it("reports where the recursion happened", async () => {
		const outcome = await runOnce(request("\n  function down(n) {\n    return down(n + 1);\n  }\n  down(0);"));
		expect(outcome).toMatchObject({ ok: false, error: { kind: "limit_stack", line: 3 } });
	});
});

describe("sync slice limit", () => {
	const limits = { syncSliceMs: 200 };

	it.each([
		["an endless loop", "for (;;) {}"],
		["a loop inside catch", "for (;;) { try { for (;;) {} } catch (e) {} }"],
		["a loop inside finally", "try { for (;;) {} } finally { for (;;) {} }"],
		[
			"a loop in a promise job",
			"await null; Promise.resolve().then(() => { for (;;) {} }); await new Promise(() => {});",
		],
		["a loop in a getter of the thrown value", "throw { get message() { for (;;) {} } };"],
	])("on %s: ends with limit_cpu", async (_name, source) => {
		const outcome = await runOnce(request(source), { limits });
		expect(outcome).toMatchObject({
			ok: false,
			error: {
				kind: "limit_cpu",
				message: "Script code ran for more than 200 ms without awaiting (limit: syncSliceMs)",
			},
		});
	});

	it("bounds the script's code, not the sandbox's start: a prelude that takes longer than the slice still runs the body", async () => {
		// The prelude is the runtime's (in a fresh worker V8 compiles QuickJS's functions while it runs); 400 ms here.
		const slowPrelude =
			"(host, data) => { const end = Date.now() + 400; while (Date.now() < end) {} globalThis.data = data; }";
		const outcome = await runOnce(
			{ ...request("return data.n + 1;"), prelude: slowPrelude, data: { n: 41 } },
			{ limits },
		);
		expect(outcome).toMatchObject({ ok: true, value: 42 });
		const stuck = await runOnce({ ...request("for (;;) {}"), prelude: slowPrelude }, { limits });
		expect(stuck).toMatchObject({ ok: false, error: { kind: "limit_cpu" } });
	});

	it("ends a slice stuck in native code (deep JSON.stringify is quadratic and never polls) by ending the worker", async () => {
		const outcome = await runOnce(
			request("let v = []; for (let i = 0; i < 200000; i++) v = [v]; JSON.stringify(v);"),
			{ limits, cancelGraceMs: 100 },
		);
		expect(outcome).toMatchObject({ ok: false, error: { kind: "limit_cpu" } });
	});

	// How soon the watchdog ends such a slice is a reaction time: bench row 1b measures it (a bound here breaks under load).
	it("ends a stretch stuck in native code that never polls the interrupt handler", async () => {
		let reached = false;
		const mark: HostFunction = {
			kind: "event",
			fn: () => {
				reached = true;
			},
		};
		// The value is built in stretches between host round trips, so only the stringify is one stuck slice.
		const tick: HostFunction = { kind: "async", fn: async () => null };
		const source = `let v = [];
			for (let i = 0; i < 200000; i++) { v = [v]; if (i % 5000 === 0) await host.tick(); }
			host.reached();
			JSON.stringify(v);`;
		const outcome = await runOnce(request(source, { reached: mark, tick }), { limits: { syncSliceMs: 1000 } });
		expect(reached, "the script reached the stuck call").toBe(true);
		expect(outcome).toMatchObject({ ok: false, error: { kind: "limit_cpu" } });
	});

	it("counts a wait on a sync host call as part of the slice: a host that never answers ends the run", async () => {
		const never: HostFunction = { kind: "sync", fn: () => new Promise(() => {}) };
		const outcome = await runOnce(request("host.never();", { never }), { limits });
		expect(outcome).toMatchObject({
			ok: false,
			error: {
				kind: "limit_cpu",
				message: "Script code ran for more than 200 ms without awaiting (limit: syncSliceMs)",
			},
		});
	});

	it("counts each stretch between host round trips on its own", async () => {
		const tick: HostFunction = { kind: "async", fn: async () => null };
		const source = `const spin = (ms) => { const end = Date.now() + ms; while (Date.now() < end) {} };
			for (let i = 0; i < 4; i++) { spin(100); await host.tick(); }
			return "done";`;
		expect(await runOnce(request(source, { tick }), { limits: { syncSliceMs: 400 } })).toEqual({
			ok: true,
			value: "done",
		});
	});

	it("counts a stretch that only awaits itself as one slice (each step between host answers used to get its own)", async () => {
		const source = `const spin = (ms) => { const end = Date.now() + ms; while (Date.now() < end) {} };
			spin(300);
			await null;
			spin(300);
			return "done";`;
		expect(await runOnce(request(source), { limits: { syncSliceMs: 400 } })).toMatchObject({
			ok: false,
			error: { kind: "limit_cpu" },
		});
	});

	it("reports the function that was stopped (QuickJS gives the function's start, not the loop's line)", async () => {
		const outcome = await runOnce(request("\n  function spin() {\n    while (true);\n  }\n  spin();"), { limits });
		expect(outcome).toMatchObject({ ok: false, error: { kind: "limit_cpu", line: 2, column: 3 } });
	});
});

describe("value size limit", () => {
	const limits = { maxValueBytes: 1000 };
	const take: HostFunction = { kind: "async", fn: async () => null, params: ["text"] };

	it("ends the run when the result is too large", async () => {
		const outcome = await runOnce(request("return 'x'.repeat(2000);"), { limits });
		expect(outcome).toEqual({
			ok: false,
			error: {
				kind: "limit_value_size",
				path: "result",
				message: "`result` is larger than 1000 bytes as JSON, the limit for a value crossing the sandbox boundary",
			},
		});
	});

	it("counts bytes, not characters", async () => {
		const outcome = await runOnce(request("return 'é'.repeat(600);"), { limits });
		expect(outcome).toMatchObject({ ok: false, error: { kind: "limit_value_size", path: "result" } });
	});

	it("throws a catchable TypeError in the guest when arguments are too large", async () => {
		const outcome = await runOnce(
			request("try { await host.take('x'.repeat(2000)); } catch (e) { return [e.name, e.code, e.path]; }", { take }),
			{ limits },
		);
		expect(outcome).toEqual({ ok: true, value: ["TypeError", "limit_value_size", "text"] });
	});

	it("rejects the call when the host's answer is too large", async () => {
		const big: HostFunction = { kind: "sync", fn: () => "x".repeat(2000) };
		const outcome = await runOnce(request("try { host.big(); } catch (e) { return [e.code, e.path]; }", { big }), {
			limits,
		});
		expect(outcome).toEqual({ ok: true, value: ["limit_value_size", "big()"] });
	});

	it("ends the run before it starts when `data` is too large", async () => {
		const outcome = await runOnce(request("return 1;", {}, { data: "x".repeat(2000) }), { limits });
		expect(outcome).toMatchObject({ ok: false, error: { kind: "limit_value_size", path: "data" } });
	});
});

describe("unsettled promise", () => {
	it("ends at once with unsettled when nothing can settle the body's promise", async () => {
		const outcome = await runOnce(request("await new Promise(() => {});"));
		expect(outcome).toEqual({
			ok: false,
			error: {
				kind: "unsettled",
				message:
					"The script is awaiting a promise that nothing can settle: no host call is in flight and no job is queued",
			},
		});
	});

	it("waits while a host call is in flight, then reports unsettled", async () => {
		let answered = false;
		const slow: HostFunction = {
			kind: "async",
			fn: () =>
				new Promise((resolve) =>
					setTimeout(() => {
						answered = true;
						resolve(null);
					}, 50),
				),
		};
		const outcome = await runOnce(request("host.slow(); await new Promise(() => {});", { slow }));
		expect(outcome).toMatchObject({ ok: false, error: { kind: "unsettled" } });
		expect(answered).toBe(true);
	});
});
