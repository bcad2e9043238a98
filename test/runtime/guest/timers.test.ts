/**
 * setTimeout, clearTimeout and queueMicrotask in the real sandbox: order, arguments, cancellation, and that no
 * timer outlives its script (a pending one neither runs nor holds the run, nor leaves a host timer behind).
 */
import { describe, expect, it } from "vitest";
import { runWorkflowScript, type WorkflowProgressEvent } from "../../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

async function run(body: string, options: Partial<Parameters<typeof runWorkflowScript>[1]> = {}) {
	const fake = createFakeRunner();
	const logs: string[] = [];
	const result = await runWorkflowScript(`${HEADER}${body}`, {
		agentRunner: fake.runner,
		onProgress: (event: WorkflowProgressEvent) => {
			if (event.type === "log") logs.push(`${event.level}: ${event.message}`);
		},
		...options,
	});
	return { result, logs };
}

/** Node's pending timers: the host's own must all be gone once a run has ended. */
const hostTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;

describe("setTimeout", () => {
	// Timers of one delay, set in one stretch, fire in the order they were set; which of two different delays fires
	// first is the host clock's business (and on a loaded machine not a thing to assert).
	it("runs callbacks with their arguments, after sync code and microtasks, in the order set", async () => {
		const { result } = await run(`
			const order = [];
			setTimeout((a, b) => order.push("first " + a + b), 0, "x", "y");
			setTimeout(() => order.push("second"));
			setTimeout(() => order.push("third"), Number.NaN);
			queueMicrotask(() => order.push("micro"));
			Promise.resolve().then(() => order.push("then"));
			order.push("sync");
			await new Promise((resolve) => setTimeout(resolve, 20));
			return order;`);
		expect(result.value).toEqual(["sync", "micro", "then", "first xy", "second", "third"]);
	});

	it("returns distinct numeric ids; clearTimeout stops a pending one and ignores others", async () => {
		const { result } = await run(`
			const ran = [];
			const a = setTimeout(() => ran.push("a"), 1);
			const b = setTimeout(() => ran.push("b"), 1);
			clearTimeout(a);
			clearTimeout(a);
			clearTimeout(12345);
			clearTimeout(undefined);
			await new Promise((resolve) => setTimeout(resolve, 10));
			return [typeof a, a !== b, ran];`);
		expect(result.value).toEqual(["number", true, ["b"]]);
	});

	it("a cleared timer ends on the host at once: a script left with only it fails as unsettled, not a day later", async () => {
		const { result } = await run(`
			const id = setTimeout(() => {}, 86400000);
			clearTimeout(id);
			await new Promise(() => {});`);
		expect(result.status).toBe("failed");
		expect(result.error?.code).toBe("unsettled");
	});

	it("a timer still pending when the script returns never runs, holds nothing, and leaves no host timer", async () => {
		const before = hostTimers();
		const { result, logs } = await run(`
			setTimeout(() => log("late"), 86400000);
			setTimeout(() => log("soon"), 1);
			return "done";`);
		expect(result.status).toBe("completed");
		expect(result.value).toBe("done");
		expect(logs).toEqual([]);
		expect(hostTimers()).toBeLessThanOrEqual(before);
	});

	it("a cancelled run ends with its pending timers, and none of their callbacks runs", async () => {
		const controller = new AbortController();
		const before = hostTimers();
		const logs: string[] = [];
		const { result } = await run(
			`setTimeout(() => log("late"), 86400000);
			const waiting = new Promise((resolve) => setTimeout(resolve, 86400000));
			log("armed");
			await waiting;
			log("after");`,
			{
				signal: controller.signal,
				onProgress: (event) => {
					if (event.type !== "log") return;
					logs.push(event.message);
					if (event.message === "armed") controller.abort("user");
				},
			},
		);
		expect(result.status).toBe("stopped");
		expect(result.error?.code).toBe("cancelled");
		expect(logs).toEqual(["armed"]);
		expect(hostTimers()).toBeLessThanOrEqual(before);
	});

	it("obeys the run's deadline: a script waiting on a long timer is timed out", async () => {
		const { result } = await run(`await new Promise((resolve) => setTimeout(resolve, 86400000));`, { timeoutMs: 50 });
		expect(result.status).toBe("failed");
		expect(result.error?.code).toBe("timed_out");
	});

	it("logs a callback that throws as an error, and the run goes on", async () => {
		const { result, logs } = await run(`
			setTimeout(() => { throw new TypeError("bad"); });
			queueMicrotask(() => { throw "plain"; });
			await new Promise((resolve) => setTimeout(resolve, 10));
			return "went on";`);
		expect(result.value).toBe("went on");
		expect(logs).toEqual([
			"error: A `queueMicrotask()` callback threw plain; nothing catches an exception there, so the run goes on without it",
			"error: A `setTimeout()` callback threw TypeError: bad; nothing catches an exception there, so the run goes on without it",
		]);
	});

	it("refuses a string of code, a delay over a day, and more than 10,000 pending timers, at the script's line", async () => {
		const { result } = await run(
			`
			const out = [];
			for (const f of [() => setTimeout("log(1)", 1), () => setTimeout(() => {}, 86400001), () => queueMicrotask(1)]) {
				try { f(); } catch (e) { out.push(e.name + ": " + e.message); }
			}
			const ids = [];
			try { for (let i = 0; i <= 10000; i++) ids.push(setTimeout(() => {}, 86400000)); } catch (e) { out.push(ids.length + " " + e.name + ": " + e.message); }
			for (const id of ids) clearTimeout(id);
			ids.length = 0;
			ids.push(setTimeout(() => {}, 1));
			return [...out, ids.length];`,
			// Ten thousand timers in one stretch: a slice bound a busy machine cannot reach, as the bound is not the subject.
			{ limits: { syncSliceMs: 600_000 } },
		);
		expect(result.value).toEqual([
			"TypeError: `setTimeout()` takes a function (a string of code is not run here): write `setTimeout(() => …, ms)`",
			"RangeError: `setTimeout()` takes a delay from 0 to 86400000 ms, got 86400001",
			"TypeError: `queueMicrotask()` takes a function",
			"10000 RangeError: `setTimeout()`: 10000 timers are pending already, the most a script may have; clear the ones it no longer needs (`clearTimeout(id)`)",
			1,
		]);
		const failed = await run(`await null;\nsetTimeout(() => {}, -1, 1);\nsetTimeout("x");`);
		expect(failed.result.error?.message).toContain("`setTimeout()` takes a function");
		expect(failed.result.error?.line).toBe(4);
	});
});
