/**
 * Faulty agent runners: one that throws synchronously, rejects with odd values, returns malformed results
 * (wrong types, huge text, structured output that is not JSON data), resolves after cancel, reports a child
 * after it resolved or reports garbage, or hangs ignoring abort. The runtime stays correct, the census is
 * right, and nothing escapes to the host as an unhandled error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WorkflowError } from "../../src/errors.ts";
import type { WorkflowAgentRequest, WorkflowAgentRunner, WorkflowAgentRunnerContext } from "../../src/runtime/index.ts";
import { checkCase, expectOutcome, guardHost, runHostile } from "./support.ts";

guardHost();

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => process.on("unhandledRejection", onUnhandled));
afterAll(() => {
	process.off("unhandledRejection", onUnhandled);
	expect(unhandled, "unhandled rejections in the host").toEqual([]);
});

/** What the faulty side of a runner does for the "bad" prompt. */
type Fault = (request: WorkflowAgentRequest, context: WorkflowAgentRunnerContext) => unknown;

/** A runner that answers "good" correctly and hands "bad" to `fault`; counts calls still running. */
function faultyRunner(fault: Fault) {
	let running = 0;
	const runner = ((request, context) => {
		if (request.prompt === "good") {
			return Promise.resolve({ id: "g", type: request.agentType, status: "completed", result: "ok" });
		}
		running++;
		let settled: unknown;
		try {
			settled = fault(request, context);
		} catch (error) {
			running--;
			throw error;
		}
		return Promise.resolve(settled).finally(() => running--);
	}) as WorkflowAgentRunner;
	return {
		runner,
		get running() {
			return running;
		},
	};
}

const completed = (extra: Record<string, unknown>) => (request: WorkflowAgentRequest) => ({
	id: "b",
	type: request.agentType,
	status: "completed",
	...extra,
});

const cycle: Record<string, unknown> = { a: 1 };
cycle.self = cycle;
let deep: unknown = [];
for (let i = 0; i < 20_000; i++) deep = [deep];

const revoked = Proxy.revocable({}, {});
revoked.revoke();
const getterArray: unknown[] = [];
Object.defineProperty(getterArray, 0, { get: () => "read", enumerable: true });
class Tricky extends Array {
	toJSON() {
		return { admin: true };
	}
}

/** [name, fault, cause of the failed "bad" call, schema call?] */
const MALFORMED: [name: string, fault: Fault, cause: string | RegExp, schema?: boolean][] = [
	[
		"throws synchronously",
		() => {
			throw new Error("boom");
		},
		"runner error: boom",
	],
	["rejects with an Error", () => Promise.reject(new Error("provider down")), "runner error: provider down"],
	[
		"rejects with an object whose toString throws",
		() =>
			Promise.reject({
				toString() {
					throw new Error("no");
				},
			}),
		"runner error: a value that cannot be printed",
	],
	["resolves to null", () => null, "runner returned null instead of a result"],
	["resolves to a string", () => "done", "runner returned string instead of a result"],
	[
		"resolves to an unknown status",
		completed({ status: "done", result: "x" }),
		'runner returned a result with status "done"',
	],
	["resolves to a number as text", completed({ result: 42 }), "runner returned a non-text `result`"],
	["resolves to an empty answer", completed({ result: "  " }), "empty answer"],
	[
		"resolves to a result whose getter throws",
		(request) => ({
			id: "b",
			type: request.agentType,
			status: "completed",
			result: "x",
			get usage() {
				throw new Error("usage boom");
			},
		}),
		"runner error: usage boom",
	],
	[
		"fails with an error that cannot be printed",
		completed({
			status: "failed",
			error: {
				toString() {
					throw new Error("no");
				},
			},
		}),
		"a value that cannot be printed",
	],
	[
		"returns a thenable whose then throws",
		() => ({
			// biome-ignore lint/suspicious/noThenProperty: the fault under test is a thenable that throws.
			then() {
				throw new Error("bad thenable");
			},
		}),
		"runner error: bad thenable",
	],
	[
		"returns structured output with a function",
		completed({ structuredOutput: { f: () => 1 } }),
		"runner returned structured output that is not JSON data: `structuredOutput.f` is a function",
		true,
	],
	[
		"returns structured output with a cycle",
		completed({ structuredOutput: cycle }),
		"`structuredOutput.self` is a cycle",
		true,
	],
	[
		"returns structured output with a BigInt",
		completed({ structuredOutput: { n: 10n } }),
		"`structuredOutput.n` is a BigInt",
		true,
	],
	[
		"returns structured output nested 20,000 deep",
		completed({ structuredOutput: { d: deep } }),
		"nested more than 1000 levels deep",
		true,
	],
	[
		"returns structured output that is a Proxy",
		completed({ structuredOutput: new Proxy({ n: 1 }, {}) }),
		"runner returned structured output that is not JSON data: `structuredOutput` is a Proxy",
		true,
	],
	[
		"returns structured output holding a revoked Proxy",
		completed({ structuredOutput: { inner: revoked.proxy } }),
		"`structuredOutput.inner` is a Proxy",
		true,
	],
	[
		"returns structured output holding a Proxy of an array",
		completed({ structuredOutput: { list: new Proxy(["a"], {}) } }),
		"`structuredOutput.list` is a Proxy",
		true,
	],
	[
		"returns structured output with a getter in an array",
		completed({ structuredOutput: { list: getterArray } }),
		"`structuredOutput.list[0]` is a getter or setter",
		true,
	],
	[
		"returns structured output with an Array subclass that has toJSON",
		completed({ structuredOutput: { list: Tricky.from(["a"]) } }),
		"`structuredOutput.list` is a Tricky",
		true,
	],
	[
		"resolves to a Proxy whose traps throw",
		() =>
			new Proxy(
				{},
				{
					get() {
						throw new Error("trap boom");
					},
				},
			),
		"runner error: trap boom",
	],
	[
		"rejects with a Proxy whose traps throw",
		() =>
			Promise.reject(
				new Proxy(
					{},
					new Proxy(
						{},
						{
							get: () => () => {
								throw new Error("trap boom");
							},
						},
					),
				),
			),
		"runner error: a value that cannot be printed",
	],
	[
		"returns structured output with a __proto__ key",
		completed({ structuredOutput: JSON.parse('{"__proto__":{"admin":true}}') }),
		"`structuredOutput.__proto__` is a `__proto__` key",
		true,
	],
];

describe("a runner that misbehaves", () => {
	it.each(MALFORMED)(
		"%s: that call is null with the cause in the census, the other completes",
		async (_name, fault, cause, schema) => {
			const faulty = faultyRunner(fault);
			const options = schema ? `, { schema: { type: "object" } }` : "";
			const run = await runHostile(`return [await agent("good"), await agent("bad"${options})];`, {
				agentRunner: faulty.runner,
			});
			expectOutcome(run, { value: ["ok", null] });
			expect(run.result.counts).toEqual({ calls: 2, started: 2, completed: 1, failed: 1, skipped: 0 });
			expect(run.result.failures).toHaveLength(1);
			expect(run.result.failures[0]).toMatchObject({ kind: "agent", index: 1, label: "bad" });
			if (typeof cause === "string") expect(run.result.failures[0]?.cause).toContain(cause);
			else expect(run.result.failures[0]?.cause).toMatch(cause);
			expect(faulty.running).toBe(0);
		},
	);

	it("rejects with an author-error code: agent() throws it into the script, and the census counts it failed", async () => {
		const faulty = faultyRunner(() =>
			Promise.reject(new WorkflowError("agent_type_unknown", "Unknown agent type `x`. Available: a")),
		);
		const run = await runHostile(
			`const ok = await agent("good");\ntry { await agent("bad"); } catch (e) { return [ok, e.code, e.message]; }`,
			{
				agentRunner: faulty.runner,
			},
		);
		expectOutcome(run, { value: ["ok", "agent_type_unknown", "Unknown agent type `x`. Available: a"] });
		expect(run.result.counts).toEqual({ calls: 2, started: 2, completed: 1, failed: 1, skipped: 0 });
		expect(run.result.failures[0]).toMatchObject({
			code: "agent_type_unknown",
			cause: "Unknown agent type `x`. Available: a",
		});
	});

	it("answers with more text than may cross the boundary: that call is null and the census says which limit", async () => {
		const faulty = faultyRunner(completed({ result: "x".repeat(5000) }));
		const run = await checkCase(
			`return [await agent("good"), await agent("bad")];`,
			{ value: ["ok", null] },
			{ agentRunner: faulty.runner, limits: { maxValueBytes: 4096 } },
		);
		expect(run.result.failures).toEqual([
			expect.objectContaining({
				label: "bad",
				cause: "answer is 5002 bytes of JSON (limit: 4096); raise `limits.maxValueBytes` or ask for less",
			}),
		]);
		expect(run.result.counts).toMatchObject({ completed: 1, failed: 1 });
	});

	it("returns an id and toolUses that are not data: the answer stands, the finished event carries neither", async () => {
		const faulty = faultyRunner(completed({ result: "fine", id: new Proxy({}, {}), toolUses: { n: 3 } }));
		const run = await checkCase(`return await agent("bad");`, { value: "fine" }, { agentRunner: faulty.runner });
		const finished = run.events.find((event) => event.type === "agent_finished");
		expect(finished).toMatchObject({ type: "agent_finished", agentId: undefined });
		expect(finished).not.toHaveProperty("toolUses");
	});

	it("reports garbage usage: tokens count as zero, the answer stands", async () => {
		const faulty = faultyRunner(
			completed({ result: "fine", usage: { input: Number.NaN, output: "many", total: -5 } }),
		);
		const run = await checkCase(
			`const a = await agent("bad");\nreturn [a, budget.tokens.spent()];`,
			{ value: ["fine", 0] },
			{ agentRunner: faulty.runner },
		);
		expect(run.result.usage).toEqual({ input: 0, output: 0, total: 0 });
	});

	it("fails on the second schema attempt after a miss: null, with both attempts' causes accounted", async () => {
		let attempt = 0;
		const faulty = faultyRunner((request) => {
			attempt++;
			if (attempt === 1) return completed({ structuredOutput: { wrong: true } })(request);
			throw new Error("crashed on retry");
		});
		const run = await runHostile(
			`return [await agent("good"), await agent("bad", { schema: { type: "object", required: ["n"] } })];`,
			{
				agentRunner: faulty.runner,
			},
		);
		expectOutcome(run, { value: ["ok", null] });
		expect(run.result.failures[0]?.cause).toBe("runner error: crashed on retry");
		expect(run.events.filter((event) => event.type === "agent_retry")).toHaveLength(1);
	});
});

describe("a runner that reports children badly", () => {
	it("reports after it resolved: the late report is dropped, nothing follows run_end", async () => {
		let late: (() => void) | undefined;
		const faulty = faultyRunner((request, context) => {
			late = () =>
				context.reportChild({ id: "zombie", type: "t", status: "active", description: "back from the dead" });
			return completed({ result: "answer" })(request);
		});
		const run = await checkCase(
			`const a = await agent("bad");\nawait sleep(5);\nreturn a;`,
			{ value: "answer" },
			{ agentRunner: faulty.runner },
		);
		late?.();
		expect(run.events.filter((event) => event.type === "agent_child")).toEqual([]);
	});

	it("reports garbage: non-objects are dropped, objects are forwarded with the call's key", async () => {
		const faulty = faultyRunner((request, context) => {
			for (const child of [null, 5, "child", undefined]) context.reportChild(child as never);
			context.reportChild({ id: "c1", type: "t", status: "active", description: "real" });
			return completed({ result: "answer" })(request);
		});
		const run = await checkCase(`return await agent("bad");`, { value: "answer" }, { agentRunner: faulty.runner });
		const children = run.events.filter((event) => event.type === "agent_child");
		expect(children).toHaveLength(1);
		expect(children[0]).toMatchObject({
			child: { id: "c1", callKey: run.events.find((e) => e.type === "agent_queued")?.key, callIndex: 0 },
		});
	});

	it("reports Proxies, getters and odd field types: only plain fields of complete reports are forwarded, no getter runs", async () => {
		let getterRan = false;
		const faulty = faultyRunner((request, context) => {
			const base = { id: "c1", type: "t", status: "active", description: "real" };
			context.reportChild(new Proxy(base, {}) as never);
			context.reportChild({ ...base, description: { toString: () => "object" } } as never);
			context.reportChild({ ...base, status: "exploded" } as never);
			const withGetter = { ...base, turns: 2 };
			Object.defineProperty(withGetter, "activity", {
				enumerable: true,
				get() {
					getterRan = true;
					return "from a getter";
				},
			});
			context.reportChild(withGetter as never);
			context.reportChild({ ...base, tokens: Number.NaN, toolUses: -1, model: 7, extra: () => 1 } as never);
			return completed({ result: "answer" })(request);
		});
		const run = await checkCase(`return await agent("bad");`, { value: "answer" }, { agentRunner: faulty.runner });
		const children = run.events.filter((event) => event.type === "agent_child").map((event) => event.child);
		const key = run.events.find((e) => e.type === "agent_queued")?.key;
		const plain = { id: "c1", type: "t", status: "active", description: "real", callKey: key, callIndex: 0 };
		expect(children).toEqual([{ ...plain, turns: 2 }, plain]);
		expect(getterRan, "a getter on a report ran").toBe(false);
	});

	it("floods 10,000 child reports: all forwarded in order, the run still ends", async () => {
		const faulty = faultyRunner((request, context) => {
			for (let i = 0; i < 10_000; i++)
				context.reportChild({ id: "c", type: "t", status: "active", description: `step ${i}`, toolUses: i });
			return completed({ result: "answer" })(request);
		});
		const run = await checkCase(`return await agent("bad");`, { value: "answer" }, { agentRunner: faulty.runner });
		const children = run.events.filter((event) => event.type === "agent_child");
		expect(children).toHaveLength(10_000);
		expect(children.at(-1)).toMatchObject({ child: { toolUses: 9999 } });
	});
});

describe("a runner that ignores cancellation", () => {
	it("resolves after cancel: the late answer is ignored, the call is failed, the run stopped", async () => {
		const controller = new AbortController();
		const faulty = faultyRunner((request, context) => {
			setTimeout(() => controller.abort("stop"), 5);
			return new Promise((resolve) => {
				context.signal.addEventListener("abort", () =>
					setTimeout(() => resolve(completed({ result: "too late" })(request)), 30),
				);
			});
		});
		const run = await runHostile(`return await agent("bad");`, {
			agentRunner: faulty.runner,
			signal: controller.signal,
		});
		expectOutcome(run, { code: "cancelled", message: "The workflow was cancelled: stop" });
		expect(run.result.counts).toEqual({ calls: 1, started: 1, completed: 0, failed: 1, skipped: 0 });
		expect(run.events.some((event) => event.type === "agent_finished")).toBe(false);
		expect(faulty.running, "the run waited for the runner to settle").toBe(0);
	});

	it("resolves after its own timeoutMs: the call is null with a timed-out cause", async () => {
		const faulty = faultyRunner(
			(request) => new Promise((resolve) => setTimeout(() => resolve(completed({ result: "late" })(request)), 150)),
		);
		const run = await runHostile(`return [await agent("good"), await agent("bad", { timeoutMs: 20 })];`, {
			agentRunner: faulty.runner,
		});
		expectOutcome(run, { value: ["ok", null] });
		expect(run.result.failures[0]?.cause).toBe("timed out after 20 ms");
	});

	it("hangs for ever while the script awaits it, past the run's deadline: timed_out, and the run still ends", async () => {
		const faulty = faultyRunner(() => new Promise(() => {}));
		const run = await runHostile(`return await agent("bad");`, { agentRunner: faulty.runner, timeoutMs: 100 });
		expectOutcome(run, { code: "timed_out", message: "The workflow ran past its deadline (limit: 100 ms)" });
		expect(run.result.counts).toEqual({ calls: 1, started: 1, completed: 0, failed: 1, skipped: 0 });
	});

	it("says it abandoned attempts: counted in error.details.abandoned; a run that got its answers stays completed", async () => {
		const stopped = (abandoned: unknown) => (request: WorkflowAgentRequest) => ({
			id: "b",
			type: request.agentType,
			status: "stopped",
			error: "stalled, twice",
			abandoned,
		});
		const failed = await runHostile(`return await agent("bad");`, { agentRunner: faultyRunner(stopped(2)).runner });
		expectOutcome(failed, {
			code: "agents_failed",
			message: "The only `agent()` call failed: stopped: stalled, twice (2:19)",
		});
		const causes = [{ cause: "stopped: stalled, twice", count: 1, sites: ["2:19"] }];
		expect(failed.result.error?.details).toEqual({ failed: 1, skipped: 0, calls: 1, causes, abandoned: 2 });
		const script = `return [await agent("good"), await agent("bad")];`;
		const answered = await runHostile(script, { agentRunner: faultyRunner(stopped(1)).runner });
		expectOutcome(answered, { value: ["ok", null] });
		// Not a count (a string, a fraction, a negative, a getter that throws): nothing is counted.
		const throwing = (request: WorkflowAgentRequest) =>
			Object.defineProperty(stopped(0)(request), "abandoned", {
				get() {
					throw new Error("no count");
				},
			});
		for (const fault of [stopped("2"), stopped(1.5), stopped(-1), throwing]) {
			const run = await runHostile(`return await agent("bad");`, { agentRunner: faultyRunner(fault).runner });
			expect(run.result.error?.details).toEqual({ failed: 1, skipped: 0, calls: 1, causes });
		}
	});

	it("says it abandoned an attempt after its call timed out: counted, and the log says it may still be running", async () => {
		const faulty = faultyRunner(
			(request) =>
				new Promise((resolve) =>
					setTimeout(() => resolve({ ...completed({ status: "stopped" })(request), abandoned: 1 }), 100),
				),
		);
		const run = await runHostile(`return await agent("bad", { timeoutMs: 20 });`, { agentRunner: faulty.runner });
		expectOutcome(run, {
			code: "agents_failed",
			message: "The only `agent()` call failed: timed out after 20 ms (2:19)",
		});
		expect(run.result.failures[0]?.cause).toBe("timed out after 20 ms");
		expect(run.result.error?.details).toMatchObject({ abandoned: 1 });
		expect(run.events.flatMap((event) => (event.type === "log" ? [event.message] : []))).toEqual([
			"`bad`: its child did not stop when asked and was abandoned; it may still be running",
		]);
	});

	it("hangs for ever after the script returned: the run reports the abandoned call instead of waiting", async () => {
		const faulty = faultyRunner(() => new Promise(() => {}));
		const run = await runHostile(`agent("bad");\nreturn await agent("good");`, { agentRunner: faulty.runner });
		// The script's own mistake is the error; the abandoned call is counted with it.
		expectOutcome(run, { code: "not_awaited", message: "The script returned while 1 call(s) it started" });
		expect(run.result.error?.details).toMatchObject({ abandoned: 1 });
		const awaited = await runHostile(`await agent("bad");`, { agentRunner: faulty.runner, timeoutMs: 1000 });
		expectOutcome(awaited, { code: "timed_out", message: "The workflow ran past its deadline" });
		expect(awaited.result.error?.details).toEqual({ limit: 1000, abandoned: 1 });
	});
});
