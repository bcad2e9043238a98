import { describe, expect, it } from "vitest";
import type { WorkflowProgressEvent } from "../../../src/runtime/index.ts";
import { runWorkflowScript } from "../../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

describe("parallel()", () => {
	it("resolves to an array in input order, not finish order", async () => {
		const fake = createFakeRunner((r) => ({ text: r.prompt.toUpperCase(), delayMs: r.prompt === "a" ? 40 : 1 }));
		const result = await runWorkflowScript(
			`${HEADER}return await parallel(["a", "b", "c"].map((x) => () => agent(x)));`,
			{
				agentRunner: fake.runner,
			},
		);
		expect(result.value).toEqual(["A", "B", "C"]);
	});

	it("runs children concurrently up to the queue's concurrency", async () => {
		const fake = createFakeRunner(() => ({ text: "ok", delayMs: 20 }));
		await runWorkflowScript(
			`${HEADER}return await parallel(Array.from({ length: 12 }, (_, i) => () => agent("t" + i)));`,
			{
				agentRunner: fake.runner,
				concurrency: 3,
			},
		);
		expect(fake.maxRunning).toBe(3);
		expect(fake.requests).toHaveLength(12);
	});

	it("on a slot that throws: that slot is null, logged as parallel[i] failed, and counted", async () => {
		const events: WorkflowProgressEvent[] = [];
		const fake = createFakeRunner();
		const result = await runWorkflowScript(
			`${HEADER}phase("p"); return await parallel([() => agent("a"), async () => { throw new Error("slot broke"); }, () => agent("c")]);`,
			{ agentRunner: fake.runner, onProgress: (e) => events.push(e) },
		);
		expect(result.status).toBe("completed");
		expect(result.value).toEqual(["done: a", null, "done: c"]);
		expect(result.failures).toEqual([{ kind: "parallel", index: 1, cause: "slot broke", phase: "p" }]);
		expect(
			events.some((e) => e.type === "log" && e.message === "parallel[1] failed: slot broke" && e.level === "warn"),
		).toBe(true);
	});

	it("keeps a failed agent's null in its slot without failing the others", async () => {
		const fake = createFakeRunner((r) => (r.prompt === "b" ? { fail: "no" } : "yes"));
		const result = await runWorkflowScript(`${HEADER}return await parallel(["a", "b"].map((x) => () => agent(x)));`, {
			agentRunner: fake.runner,
		});
		expect(result.value).toEqual(["yes", null]);
		expect(result.failures).toEqual([expect.objectContaining({ kind: "agent", cause: "no" })]);
	});

	it.each([
		[
			"a non-array",
			`parallel("x")`,
			"`parallel()` takes an array, got a string. Pass an array of functions that make the calls: `parallel([() => agent(…), () => agent(…)])`, or `parallel(items.map((item) => () => agent(…)))`",
		],
		[
			"a promise element",
			// Through a `.map` the static pass does not follow, so the run meets the promise.
			`parallel([agent("x")].map((started) => started))`,
			"`parallel()` takes functions; item 0 is a Promise. Pass `() => agent(…)`",
		],
		[
			"a number element",
			`parallel([() => 1, 2])`,
			"`parallel()` takes functions; item 1 is a number. Pass `() => agent(…)`",
		],
	])("on %s: throws a TypeError that says what to pass", async (_name, call, message) => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}await ${call};`, { agentRunner: fake.runner });
		expect(result.error?.code).toBe("script_error");
		expect(result.error?.message).toBe(`TypeError: ${message} (2:${result.error?.column})`);
		expect(result.error?.line).toBe(2);
	});

	it("past the item limit: throws limit_items naming the limit and how to raise it", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}await parallel(Array.from({ length: 11 }, () => () => 1));`, {
			agentRunner: fake.runner,
			limits: { maxItems: 10 },
		});
		expect(result.error).toMatchObject({ code: "limit_items", line: 2 });
		expect(result.error?.message).toMatch(
			/^`parallel\(\)` got 11 items \(limit: 10\)\. Split the work into batches \(a `for` loop over `items.slice\(i, i \+ 10\)`\) or raise `limits.maxItems`/,
		);
	});
});

describe("pipeline()", () => {
	it("passes (previous, original, index) and resolves to final values in item order", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(
			`${HEADER}return await pipeline(["x", "y"], (prev, orig, i) => prev + i, (prev, orig, i) => [prev, orig, i]);`,
			{ agentRunner: fake.runner },
		);
		expect(result.value).toEqual([
			["x0", "x", 0],
			["y1", "y", 1],
		]);
	});

	it("has no barrier between stages: a fast item reaches stage 2 while a slow one is still in stage 1", async () => {
		const fake = createFakeRunner((r) => ({ text: r.prompt, delayMs: r.prompt === "s1 slow" ? 60 : 1 }));
		await runWorkflowScript(
			`${HEADER}return await pipeline(["slow", "fast"], (x) => agent("s1 " + x), (p) => agent("s2 " + p));`,
			{ agentRunner: fake.runner },
		);
		const order = fake.requests.map((r) => r.prompt);
		expect(order.indexOf("s2 s1 fast")).toBeLessThan(order.indexOf("s2 s1 slow"));
	});

	it("on a stage that throws or gives null: that item is null, its later stages are skipped, others go on", async () => {
		const fake = createFakeRunner((r) => (r.prompt === "check b" ? { fail: "broken" } : r.prompt));
		const result = await runWorkflowScript(
			`${HEADER}return await pipeline(["a", "b", "c"],
  (x) => { if (x === "c") throw new Error("c is bad"); return agent("check " + x); },
  (prev) => agent("fix " + prev));`,
			{ agentRunner: fake.runner },
		);
		expect(result.value).toEqual(["fix check a", null, null]);
		expect(fake.requests.map((r) => r.prompt).sort()).toEqual(["check a", "check b", "fix check a"]);
		expect(result.failures.map((f) => [f.kind, f.index, f.cause])).toEqual(
			expect.arrayContaining([
				["agent", 1, "broken"],
				["pipeline", 1, "stage 1 returned null"],
				["pipeline", 2, "stage 1 threw: c is bad"],
			]),
		);
	});

	it("on a stage that is not a function: throws a TypeError naming the stage and the function to pass", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}await pipeline([1], (x) => x, "oops");`, {
			agentRunner: fake.runner,
		});
		expect(result.error).toMatchObject({
			code: "script_error",
			line: 2,
			column: 15,
			message:
				"TypeError: `pipeline()` stages must be functions; stage 2 is a string. Pass a function, which `pipeline()` calls for each item with the previous stage's result, the item and its index: `(prev, item, i) => agent(…)` (2:15)",
		});
	});

	it("on items that are not an array: throws a TypeError that says how to pass a list", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}await pipeline("a.ts", (x) => agent(x));`, {
			agentRunner: fake.runner,
		});
		expect(result.error).toMatchObject({
			code: "script_error",
			line: 2,
			column: 15,
			message:
				"TypeError: `pipeline()` takes an array, got a string. Pass the items as an array: `pipeline(items, (item) => agent(…))`; for a list an agent finds, give that `agent()` a `schema` with an array property and pass the property (2:15)",
		});
		expect(fake.requests).toHaveLength(0);
	});
});
