import { describe, expect, it } from "vitest";
import type { WorkflowProgressEvent } from "../../../src/runtime/index.ts";
import { runWorkflowScript } from "../../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const FINDINGS = `{ type: "object", properties: { items: { type: "array", items: { type: "string" } } }, required: ["items"] }`;

describe("agent()", () => {
	it("resolves to the child's final text and passes prompt, type and options to the runner", async () => {
		const fake = createFakeRunner((r) => `answer to ${r.prompt}`);
		const result = await runWorkflowScript(
			`${HEADER}return await agent("review it", { agent: "reviewer", label: "Review", model: "m/x", thinking: "high", tools: ["read"] });`,
			{ agentRunner: fake.runner, agentTypes: ["general-purpose", "reviewer"] },
		);
		expect(result.status).toBe("completed");
		expect(result.value).toBe("answer to review it");
		expect(fake.requests).toHaveLength(1);
		expect(fake.requests[0]).toMatchObject({
			prompt: "review it",
			agentType: "reviewer",
			label: "Review",
			model: "m/x",
			thinking: "high",
			tools: ["read"],
			attempt: 1,
			index: 0,
		});
	});

	it("defaults to the general-purpose type and accepts the agentType and effort aliases", async () => {
		const fake = createFakeRunner();
		await runWorkflowScript(`${HEADER}await agent("a"); await agent("b", { agentType: "scout", effort: "low" });`, {
			agentRunner: fake.runner,
		});
		expect(fake.requests.map((r) => [r.agentType, r.thinking])).toEqual([
			["general-purpose", undefined],
			["scout", "low"],
		]);
	});

	it("on an unknown option: throws agent_options_invalid naming the option, at the call's line", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}\nawait agent("x", { agnet: "reviewer" });`, {
			agentRunner: fake.runner,
		});
		expect(result.status).toBe("failed");
		expect(result.error).toMatchObject({ code: "agent_options_invalid", line: 3, column: 12 });
		expect(result.error?.message).toContain("Unknown `agent()` option `agnet`");
		expect(fake.requests).toHaveLength(0);
	});

	it("on an unknown agent type: throws agent_type_unknown and lists the types", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}await agent("x", { agent: "reviwer" });`, {
			agentRunner: fake.runner,
			agentTypes: ["general-purpose", "reviewer", "scout"],
		});
		expect(result.error?.code).toBe("agent_type_unknown");
		expect(result.error?.message).toBe(
			"Unknown agent type `reviwer`. Did you mean `reviewer`? Available: general-purpose, reviewer, scout (2:12)",
		);
	});

	it("lets the script catch a WorkflowError and read its code", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(
			// Options the static pass cannot read (they come from parsing text), so the run meets the error.
			`${HEADER}const opts = JSON.parse('{"retries": -1}');\ntry { await agent("x", opts); } catch (e) { return [e.name, e.code]; }`,
			{ agentRunner: fake.runner },
		);
		expect(result.value).toEqual(["WorkflowError", "agent_options_invalid"]);
	});

	it("on a failed child: resolves to null and records the cause in the census", async () => {
		const fake = createFakeRunner((r) => (r.prompt === "bad" ? { fail: "provider exploded" } : "ok"));
		const result = await runWorkflowScript(
			`${HEADER}phase("work"); const a = await agent("bad", { label: "Bad one" }); const b = await agent("good"); return [a, b];`,
			{ agentRunner: fake.runner },
		);
		expect(result.status).toBe("completed");
		expect(result.value).toEqual([null, "ok"]);
		expect(result.failures).toEqual([
			expect.objectContaining({
				kind: "agent",
				index: 0,
				label: "Bad one",
				agentType: "general-purpose",
				phase: "work",
				cause: "provider exploded",
			}),
		]);
		expect(result.counts).toMatchObject({ calls: 2, started: 2, completed: 1, failed: 1, skipped: 0 });
	});

	it("on an empty answer: resolves to null with cause `empty answer`", async () => {
		const fake = createFakeRunner(() => "   ");
		const result = await runWorkflowScript(`${HEADER}const a = await agent("x"); return { a };`, {
			agentRunner: fake.runner,
		});
		expect(result.status).toBe("failed");
		expect(result.error?.code).toBe("agents_failed");
		expect(result.failures[0]?.cause).toBe("empty answer");
	});

	it("retries a failed child as many times as `retries` says", async () => {
		let calls = 0;
		const fake = createFakeRunner(() => (++calls < 3 ? { fail: `flaky ${calls}` } : "third time"));
		const result = await runWorkflowScript(`${HEADER}return await agent("x", { retries: 2 });`, {
			agentRunner: fake.runner,
		});
		expect(result.value).toBe("third time");
		expect(fake.requests.map((r) => r.attempt)).toEqual([1, 2, 3]);
	});

	it("on timeoutMs: stops the child and resolves to null with a timed-out cause", async () => {
		const fake = createFakeRunner(() => ({ hang: true }));
		const result = await runWorkflowScript(
			`${HEADER}const a = await agent("x", { timeoutMs: 30 }); return [a, await agent("y", { timeoutMs: 30 })];`,
			{
				agentRunner: fake.runner,
			},
		);
		expect(result.failures.map((f) => f.cause)).toEqual(["timed out after 30 ms", "timed out after 30 ms"]);
		expect(fake.aborted).toBe(2);
		expect(fake.running).toBe(0);
	});

	const TIMEOUT_RANGE =
		"`agent()` option `timeoutMs` must be a number of milliseconds above 0 and at most 2147483647 (about 24.8 days), got";
	const RETRIES_RANGE = "`agent()` option `retries` must be an integer from 0 to 10, got";
	const STALL_RANGE =
		"`agent()` option `stallMs` must be a number of milliseconds from 0 (no watchdog) to 2147483647, got";
	it.each([
		[
			"timeoutMs: 2 ** 31 (Node's timer would fire after 1 ms)",
			"{ timeoutMs: 2 ** 31 }",
			`${TIMEOUT_RANGE} 2147483648`,
		],
		["timeoutMs: 1e308 (Node's timer would throw a RangeError)", "{ timeoutMs: 1e308 }", `${TIMEOUT_RANGE} 1e+308`],
		["timeoutMs: 0", "{ timeoutMs: 0 }", `${TIMEOUT_RANGE} 0`],
		["timeoutMs: -1", "{ timeoutMs: -1 }", `${TIMEOUT_RANGE} -1`],
		["timeoutMs as text", `{ timeoutMs: "60000" }`, `${TIMEOUT_RANGE} "60000"`],
		["retries: 11", "{ retries: 11 }", `${RETRIES_RANGE} 11`],
		["stallMs: -1", "{ stallMs: -1 }", `${STALL_RANGE} -1`],
		["stallMs: 2 ** 31", "{ stallMs: 2 ** 31 }", `${STALL_RANGE} 2147483648`],
		["stallMs as text", `{ stallMs: "5000" }`, `${STALL_RANGE} "5000"`],
		["retries: 1.5", "{ retries: 1.5 }", `${RETRIES_RANGE} 1.5`],
		["retries: 1e308", "{ retries: 1e308 }", `${RETRIES_RANGE} 1e+308`],
	])(
		"on %s: throws agent_options_invalid naming the range, at the call, before any child starts",
		async (_name, opts, message) => {
			const fake = createFakeRunner();
			const result = await runWorkflowScript(`${HEADER}\nawait agent("x", ${opts});`, { agentRunner: fake.runner });
			expect(result.error).toMatchObject({ code: "agent_options_invalid", line: 3, column: 12 });
			expect(result.error?.message).toBe(`${message} (3:12)`);
			expect(fake.requests).toHaveLength(0);
		},
	);

	it("continueInterrupted: false reaches the runner and leaves the call's key as it was; true is the default", async () => {
		const fake = createFakeRunner(() => "ok");
		await runWorkflowScript(
			`${HEADER}return [await agent("x", { continueInterrupted: false }), await agent("y", { continueInterrupted: true }), await agent("x")];`,
			{ agentRunner: fake.runner },
		);
		expect(fake.requests.map((r) => r.continueInterrupted)).toEqual([false, undefined, undefined]);
		// The option is not the call's identity: a run without it gives the call the same key (a resume replays it).
		const [first] = fake.requests;
		const again = createFakeRunner(() => "ok");
		await runWorkflowScript(`${HEADER}return await agent("x");`, { agentRunner: again.runner });
		expect(again.requests[0]?.key).toBe(first?.key);
	});

	it("on continueInterrupted that is not true or false: agent_options_invalid with what to write", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}\nawait agent("x", { continueInterrupted: "no" });`, {
			agentRunner: fake.runner,
		});
		expect(result.error).toMatchObject({ code: "agent_options_invalid", line: 3, column: 12 });
		expect(result.error?.message).toBe(
			'`agent()` option `continueInterrupted` must be true or false (false: an attempt after an interruption starts afresh rather than going on from the earlier attempt\'s finished turns), got "no" (3:12)',
		);
		expect(fake.requests).toHaveLength(0);
	});

	it("passes stallMs (0 included: no watchdog) to the runner", async () => {
		const fake = createFakeRunner(() => "ok");
		await runWorkflowScript(
			`${HEADER}return [await agent("x", { stallMs: 0 }), await agent("y", { stallMs: 9000 })];`,
			{
				agentRunner: fake.runner,
			},
		);
		expect(fake.requests.map((r) => r.stallMs)).toEqual([0, 9000]);
	});

	it("a result with noRetry (a child the user skipped) is null with its error as the cause, and `retries` is not used", async () => {
		const seen: number[] = [];
		const result = await runWorkflowScript(`${HEADER}return [await agent("x", { retries: 3 }), await agent("y")];`, {
			agentRunner: async (request) => {
				seen.push(request.attempt);
				return { id: "c", type: request.agentType, status: "stopped", error: "skipped by the user", noRetry: true };
			},
		});
		expect(seen).toEqual([1, 1]);
		expect(result.failures.map((f) => f.cause)).toEqual(["skipped by the user", "skipped by the user"]);
	});

	it("accepts the longest timeoutMs Node's timers take, and the child answers", async () => {
		const fake = createFakeRunner(() => ({ text: "in time", delayMs: 20 }));
		const result = await runWorkflowScript(`${HEADER}return await agent("x", { timeoutMs: 2 ** 31 - 1 });`, {
			agentRunner: fake.runner,
		});
		expect(result.value).toBe("in time");
		expect(fake.requests[0]?.timeoutMs).toBe(2 ** 31 - 1);
	});
});

describe("agent() with a schema", () => {
	it("resolves to the validated object and asks the runner for structured output", async () => {
		const fake = createFakeRunner(() => ({ structured: { items: ["a", "b"] } }));
		const result = await runWorkflowScript(
			`${HEADER}const r = await agent("find", { schema: ${FINDINGS} }); return r.items.length;`,
			{
				agentRunner: fake.runner,
			},
		);
		expect(result.value).toBe(2);
		expect(fake.requests[0]?.schema).toMatchObject({ type: "object", required: ["items"] });
	});

	it("parses JSON the runner returned as fenced text", async () => {
		const fake = createFakeRunner(() => 'Here you go:\n```json\n{ "items": ["x"] }\n```');
		const result = await runWorkflowScript(`${HEADER}return await agent("find", { schema: ${FINDINGS} });`, {
			agentRunner: fake.runner,
		});
		expect(result.value).toEqual({ items: ["x"] });
	});

	it("re-asks with the validation errors until the answer fits", async () => {
		let n = 0;
		const fake = createFakeRunner(() => ({ structured: ++n < 3 ? { items: [1] } : { items: ["ok"] } }));
		const events: WorkflowProgressEvent[] = [];
		const result = await runWorkflowScript(`${HEADER}return await agent("find", { schema: ${FINDINGS} });`, {
			agentRunner: fake.runner,
			onProgress: (e) => events.push(e),
		});
		expect(result.value).toEqual({ items: ["ok"] });
		expect(fake.requests.map((r) => r.attempt)).toEqual([1, 2, 3]);
		expect(fake.requests[1]?.schemaFeedback).toMatch(/items/);
		expect(events.filter((e) => e.type === "agent_retry")).toHaveLength(2);
		expect(events.find((e) => e.type === "agent_finished")).toMatchObject({ attempts: 3 });
	});

	it("after 5 misses: throws schema_unmet with the last errors", async () => {
		const fake = createFakeRunner(() => ({ structured: { nope: true } }));
		const result = await runWorkflowScript(`${HEADER}\n\nreturn await agent("find", { schema: ${FINDINGS} });`, {
			agentRunner: fake.runner,
		});
		expect(fake.requests).toHaveLength(5);
		expect(result.error).toMatchObject({ code: "schema_unmet", line: 4, column: 19 });
		expect(result.error?.message).toMatch(/after 5 attempts: .*items/);
	});

	it("on an invalid schema: throws schema_invalid before any child runs", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(
			`${HEADER}return await agent("x", { schema: { type: "object", properties: { a: { type: "nonsense" } } } });`,
			{
				agentRunner: fake.runner,
			},
		);
		expect(result.error?.code).toBe("schema_invalid");
		expect(fake.requests).toHaveLength(0);
	});
});

describe("agent() call keys", () => {
	const script = `${HEADER}
const items = ["a", "b", "c"];
return await parallel(items.map((x) => () => agent("do " + x)));`;

	it("are the same in two runs even when children finish in a different order", async () => {
		const keysOf = async (delays: Record<string, number>) => {
			const events: WorkflowProgressEvent[] = [];
			const fake = createFakeRunner((r) => ({ text: "ok", delayMs: delays[r.prompt] ?? 0 }));
			await runWorkflowScript(script, { agentRunner: fake.runner, onProgress: (e) => events.push(e) });
			const finished = events
				.filter((e) => e.type === "agent_finished")
				.map((e) => (e.type === "agent_finished" ? e.key : ""));
			return { sorted: [...finished].sort(), order: finished };
		};
		const first = await keysOf({ "do a": 30, "do b": 1, "do c": 15 });
		const second = await keysOf({ "do a": 1, "do b": 30, "do c": 15 });
		expect(first.sorted).toEqual(second.sorted);
		expect(first.order).not.toEqual(second.order);
		expect(new Set(first.sorted).size).toBe(3);
		expect(first.sorted[0]).toMatch(/^[0-9a-f]{16}#0$/);
	});
});
