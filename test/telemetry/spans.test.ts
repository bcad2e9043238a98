/**
 * OpenTelemetry spans of real runs (the real QuickJS, a scripted runner), seen by the SDK's in-memory exporter
 * registered as the global tracer provider, as a host would: a run with phases, a retry and a failure (names,
 * parent and child links, attributes, statuses), a failed run, a call cut off by the run's end; and nothing at all
 * without an SDK or when the sampler drops the run.
 */
import { createHash } from "node:crypto";
import { trace } from "@opentelemetry/api";
import {
	AlwaysOffSampler,
	BasicTracerProvider,
	BatchSpanProcessor,
	InMemorySpanExporter,
	type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { dryRunWorkflowScript, runWorkflowScript } from "../../src/runtime/index.ts";
import { flushSpans, startRunSpans, tracingRegistered } from "../../src/telemetry/spans.ts";
import { createFakeRunner, HEADER } from "../helpers/fake-runner.ts";
import { idOf, parentOf, registerMemorySdk } from "../helpers/memory-tracing.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const ERROR = 2;
const UNSET = 0;

/** An SDK registered globally, as a host registers one; its spans are kept in memory. */
const registerSdk = (options: { sampleNothing?: boolean } = {}) =>
	registerMemorySdk(options.sampleNothing ? new AlwaysOffSampler() : undefined);

afterEach(() => {
	trace.disable();
});

describe("spans of a run", () => {
	it("a run with phases, a retry and a failure: a run span, a span per call, a child span per attempt", async () => {
		const exporter = registerSdk();
		const fake = createFakeRunner((request) => {
			if (request.prompt === "flaky" && request.attempt === 1) return { fail: "provider hiccup", tokens: 4 };
			if (request.prompt === "broken") return { fail: "it broke", tokens: 2, costUsd: 0.001 };
			return { text: `ok ${request.prompt}`, tokens: 10, costUsd: 0.25, model: "faux/m1", toolUses: 3 };
		});
		const result = await runWorkflowScript(
			`${HEADER}phase("plan");
const a = await agent("plan it", { label: "planner" });
phase("build");
const b = await agent("flaky", { label: "flaky one", retries: 1, model: "faux/m1" });
const c = await agent("broken", { label: "broken one", agentType: "reviewer" });
return [a, b, c];`,
			{ agentRunner: fake.runner, runId: "wf-20261201-101530-abc123", agentTypes: ["general-purpose", "reviewer"] },
		);
		expect(result.status).toBe("completed");
		const spans = exporter.getFinishedSpans();
		const [run, ...rest] = [
			spans.find((span) => span.name === "invoke_workflow t"),
			...spans.filter((span) => span.name !== "invoke_workflow t"),
		];
		if (!run) throw new Error(`no run span among ${spans.map((span) => span.name).join(", ")}`);
		expect(parentOf(run)).toBeUndefined();
		expect(run.attributes).toMatchObject({
			"workflow.run.id": "wf-20261201-101530-abc123",
			"gen_ai.workflow.name": "t",
			"workflow.status": "completed",
			"workflow.agents.calls": 3,
			"workflow.agents.completed": 2,
			"workflow.agents.failed": 1,
			"workflow.failures": 1,
		});
		// What the run spent is its calls' spans' sum: not on the run span, where a backend would count it twice.
		expect(run.attributes["workflow.cost.usd"]).toBeUndefined();
		expect(run.attributes["gen_ai.usage.input_tokens"]).toBeUndefined();
		expect(run.status.code).toBe(UNSET);
		expect(run.events.map((event) => [event.name, event.attributes?.["workflow.phase"]])).toEqual([
			["phase_start", "plan"],
			["phase_end", "plan"],
			["phase_start", "build"],
			["phase_end", "build"],
		]);

		const calls = rest.filter((span) => span.name.startsWith("invoke_agent "));
		const attempts = rest.filter((span) => span.name.startsWith("attempt "));
		expect(rest).toHaveLength(calls.length + attempts.length);
		expect(calls.map((span) => span.name)).toEqual([
			"invoke_agent general-purpose",
			"invoke_agent general-purpose",
			"invoke_agent reviewer",
		]);
		for (const call of calls) expect(parentOf(call)).toBe(idOf(run));
		const [planner, flaky, broken] = calls as [ReadableSpan, ReadableSpan, ReadableSpan];
		const attemptsOf = (call: ReadableSpan) => attempts.filter((span) => parentOf(span) === idOf(call));

		expect(planner.attributes).toMatchObject({
			"workflow.call.label": "planner",
			"workflow.call.index": 0,
			"workflow.phase": "plan",
			"gen_ai.agent.name": "general-purpose",
			"gen_ai.response.model": "m1",
			"gen_ai.provider.name": "faux",
			"workflow.call.outcome": "completed",
			"workflow.call.attempts": 1,
			"workflow.call.tool_uses": 3,
			"gen_ai.usage.input_tokens": 5,
			"gen_ai.usage.output_tokens": 5,
			"workflow.cost.usd": 0.25,
		});
		expect(typeof planner.attributes["workflow.call.key"]).toBe("string");
		expect(planner.status.code).toBe(UNSET);
		expect(attemptsOf(planner).map((span) => [span.name, span.attributes["workflow.attempt.outcome"]])).toEqual([
			["attempt 1", "completed"],
		]);

		expect(flaky.attributes).toMatchObject({
			"workflow.call.label": "flaky one",
			"workflow.phase": "build",
			"workflow.call.outcome": "completed",
			"workflow.call.attempts": 2,
			"gen_ai.usage.input_tokens": 7,
			"gen_ai.usage.output_tokens": 7,
		});
		const [first, second] = attemptsOf(flaky);
		expect([first?.name, second?.name]).toEqual(["attempt 1", "attempt 2"]);
		expect(first?.attributes["workflow.attempt.outcome"]).toBe("retried");
		expect(first?.status).toEqual({ code: ERROR, message: expect.stringContaining("provider hiccup") });
		expect(second?.status.code).toBe(UNSET);
		expect(second?.attributes).toMatchObject({ "workflow.attempt": 2, "workflow.call.label": "flaky one" });

		expect(broken.attributes).toMatchObject({
			"workflow.call.label": "broken one",
			"gen_ai.agent.name": "reviewer",
			"workflow.call.outcome": "failed",
			"workflow.call.error": "it broke",
			"workflow.call.thrown": false,
			"workflow.cost.usd": 0.001,
		});
		expect(broken.status).toEqual({ code: ERROR, message: "it broke" });
		expect(attemptsOf(broken).map((span) => span.status)).toEqual([{ code: ERROR, message: "it broke" }]);
		// Every span of the run is one trace.
		expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
	});

	it("a dry run makes no span: it calls no model, and a real run's plan made beside it is not a second run", async () => {
		const exporter = registerSdk();
		const { plan } = await dryRunWorkflowScript(`${HEADER}return await agent("hello");`);
		expect(plan.totals.agentCalls).toBe(1);
		expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual([]);
	});

	it("the run span names the script: its sha256 always, its tier when the host gives it", async () => {
		const exporter = registerSdk();
		const fake = createFakeRunner(() => ({ text: "ok" }));
		const source = `${HEADER}return await agent("hello");`;
		await runWorkflowScript(source, { agentRunner: fake.runner, scriptTier: "project" });
		await runWorkflowScript(source, { agentRunner: fake.runner });
		const runs = exporter.getFinishedSpans().filter((span) => span.name === "invoke_workflow t");
		const sha256 = createHash("sha256").update(source).digest("hex");
		expect(
			runs.map((span) => [span.attributes["workflow.script.sha256"], span.attributes["workflow.script.tier"]]),
		).toEqual([
			[sha256, "project"],
			[sha256, undefined],
		]);
	});

	it("a failed run: its span has status error, the error's code and message; a run id given as a function is asked at the end", async () => {
		const exporter = registerSdk();
		let id: string | undefined;
		const fake = createFakeRunner(() => "ok");
		const result = await runWorkflowScript(`${HEADER}await agent("x");\nthrow new Error("no good");`, {
			agentRunner: fake.runner,
			runId: () => id,
			onProgress: (event) => {
				if (event.type === "run_start") id = "wf-20261201-101530-late01";
			},
		});
		expect(result.status).toBe("failed");
		const run = exporter.getFinishedSpans().find((span) => span.name === "invoke_workflow t");
		expect(run?.status).toEqual({ code: ERROR, message: expect.stringContaining("no good") });
		expect(run?.attributes).toMatchObject({
			"workflow.run.id": "wf-20261201-101530-late01",
			"workflow.status": "failed",
			"workflow.error.code": "script_error",
		});
	});

	it("a call the run cut off ends with the run, status error; a stopped run is not an error", async () => {
		const exporter = registerSdk();
		const controller = new AbortController();
		const fake = createFakeRunner(() => ({ hang: true }));
		const running = runWorkflowScript(`${HEADER}return await agent("forever", { label: "slow" });`, {
			agentRunner: fake.runner,
			signal: controller.signal,
			onProgress: (event) => {
				if (event.type === "agent_started") controller.abort();
			},
		});
		expect((await running).status).toBe("stopped");
		const spans = exporter.getFinishedSpans();
		const run = spans.find((span) => span.name === "invoke_workflow t");
		const call = spans.find((span) => span.name === "invoke_agent general-purpose");
		expect(run?.status.code).toBe(UNSET);
		expect(run?.attributes["workflow.status"]).toBe("stopped");
		expect(call?.status.code).toBe(ERROR);
		expect(call?.attributes["workflow.call.outcome"]).toMatch(/^(failed|cut_off)$/);
		expect(spans.filter((span) => span.name === "attempt 1")).toHaveLength(1);
	});

	it("flushSpans: what a batch processor still holds is exported before a process exits", async () => {
		const exporter = new InMemorySpanExporter();
		trace.setGlobalTracerProvider(
			new BasicTracerProvider({
				spanProcessors: [
					new BatchSpanProcessor(exporter, { scheduledDelayMillis: 600_000, maxExportBatchSize: 10_000 }),
				],
			}),
		);
		const fake = createFakeRunner(() => "ok");
		await runWorkflowScript(`${HEADER}return await agent("x");`, { agentRunner: fake.runner });
		expect(exporter.getFinishedSpans()).toEqual([]);
		await flushSpans();
		expect(
			exporter
				.getFinishedSpans()
				.map((span) => span.name)
				.sort(),
		).toEqual(["attempt 1", "invoke_agent general-purpose", "invoke_workflow t"]);
	});

	it("no SDK registered: no listener, and the API is not asked for a tracer", async () => {
		expect(tracingRegistered()).toBe(false);
		expect(await startRunSpans()).toBeUndefined();
		await flushSpans();
		const fake = createFakeRunner(() => "ok");
		const result = await runWorkflowScript(`${HEADER}return await agent("x");`, { agentRunner: fake.runner });
		expect(result.status).toBe("completed");
	});

	it("an SDK whose sampler drops the run: no listener either", async () => {
		const exporter = registerSdk({ sampleNothing: true });
		expect(tracingRegistered()).toBe(true);
		expect((await startRunSpans())?.listener).toBeUndefined();
		const fake = createFakeRunner(() => "ok");
		await runWorkflowScript(`${HEADER}return await agent("x");`, { agentRunner: fake.runner });
		expect(exporter.getFinishedSpans()).toEqual([]);
	});
});
