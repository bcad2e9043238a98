/**
 * The spans of a run against the OpenTelemetry GenAI semantic conventions, pinned to one commit of
 * open-telemetry/semantic-conventions-genai (docs/gen-ai/gen-ai-agent-spans.md for `invoke_workflow` and
 * `invoke_agent`, docs/gen-ai/gen-ai-spans.md for `execute_tool`): each span's name, kind and the attributes the
 * conventions require, from a real run (the real QuickJS, a scripted runner) seen by the SDK's in-memory exporter.
 * Also: tokens and dollars on the span that spent them only (a backend summing a trace counts each once), `ask()`
 * waits as spans, the attempt's W3C trace context handed to the runner, and prompts and answers in spans only when
 * the conventions' content switch is on.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import type { WorkflowAgentRunner, WorkflowTool } from "../../src/runtime/core/types.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../helpers/fake-runner.ts";
import { checkConvention, PINNED } from "../helpers/genai-conventions.ts";
import { idOf, parentOf, registerMemorySdk } from "../helpers/memory-tracing.ts";
import { ROOT } from "../helpers/package.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const ERROR = 2;

const registerSdk = () => registerMemorySdk();

afterEach(() => {
	trace.disable();
	delete process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT;
});

const bash: WorkflowTool = async (params) => {
	const command = String((params as { command?: unknown }).command);
	return {
		output: `ran ${command}`,
		isError: command === "false",
		details: { exit_code: command === "false" ? 1 : 0 },
	};
};

const SCRIPT = `${HEADER}phase("plan");
const a = await agent("plan it", { label: "planner", model: "faux/m1" });
const step = await tool("bash", { command: "npm test" });
const again = await agent("flaky", { label: "flaky one", retries: 1, model: "anthropic/claude-x" });
const broken = await agent("broken", { label: "broken one", agentType: "reviewer", model: "faux/m1" });
const answer = await ask("go on?", { choices: ["yes", "no"] });
return [a, step.output, again, broken, answer];`;

async function tracedRun(runner: WorkflowAgentRunner) {
	return runWorkflowScript(SCRIPT, {
		agentRunner: runner,
		runId: "wf-20261204-101530-genai1",
		agentTypes: ["general-purpose", "reviewer"],
		tools: { bash },
		ask: () => "yes",
	});
}

function flakyRunner() {
	return createFakeRunner((request) => {
		if (request.prompt === "flaky" && request.attempt === 1)
			return { fail: "provider hiccup", tokens: 4, costUsd: 0.01 };
		if (request.prompt === "broken") return { fail: "it broke", tokens: 2, costUsd: 0.001 };
		return { text: `ok ${request.prompt}`, tokens: 10, costUsd: 0.25, model: request.model ?? "faux/m1" };
	});
}

describe("spans in the GenAI conventions' names", () => {
	it("docs/host-api.md names the conventions' repository and commit the table here follows", () => {
		const doc = readFileSync(join(ROOT, "docs", "host-api.md"), "utf8");
		expect(doc).toContain(PINNED.repository);
		expect(doc).toContain(PINNED.commit);
	});

	it("each span's name, kind and required attributes are the pinned conventions'", async () => {
		const exporter = registerSdk();
		const result = await tracedRun(flakyRunner().runner);
		expect(result.status).toBe("completed");
		const spans = exporter.getFinishedSpans();
		const run = spans.find((span) => span.attributes["gen_ai.operation.name"] === "invoke_workflow");
		if (!run) throw new Error(`no invoke_workflow span among ${spans.map((span) => span.name).join(", ")}`);
		checkConvention(run, "invoke_workflow");
		expect(run.name).toBe("invoke_workflow t");
		expect(run.attributes).toMatchObject({
			"workflow.run.id": "wf-20261204-101530-genai1",
			"workflow.status": "completed",
		});

		const calls = spans.filter((span) => span.attributes["gen_ai.operation.name"] === "invoke_agent");
		expect(calls.map((span) => span.name)).toEqual([
			"invoke_agent general-purpose",
			"invoke_agent general-purpose",
			"invoke_agent reviewer",
		]);
		for (const call of calls) {
			checkConvention(call, "invoke_agent_internal");
			expect(parentOf(call)).toBe(idOf(run));
		}
		const [planner, flaky, broken] = calls as [ReadableSpan, ReadableSpan, ReadableSpan];
		expect(planner.attributes).toMatchObject({
			"gen_ai.agent.name": "general-purpose",
			"gen_ai.provider.name": "faux",
			"gen_ai.request.model": "m1",
			"gen_ai.usage.input_tokens": 5,
			"gen_ai.usage.output_tokens": 5,
			"workflow.call.label": "planner",
			"workflow.call.outcome": "completed",
		});
		expect(flaky.attributes).toMatchObject({
			"gen_ai.provider.name": "anthropic",
			"gen_ai.request.model": "claude-x",
		});
		expect(broken.status).toEqual({ code: ERROR, message: "it broke" });
		expect(broken.attributes["error.type"]).toBeDefined();

		// Attempts are the call's children; the retried one says why.
		const attempts = spans.filter((span) => parentOf(span) === idOf(flaky));
		expect(attempts.map((span) => [span.name, span.attributes["workflow.attempt.outcome"]])).toEqual([
			["attempt 1", "retried"],
			["attempt 2", "completed"],
		]);

		const tools = spans.filter((span) => span.attributes["gen_ai.operation.name"] === "execute_tool");
		expect(tools.map((span) => span.name)).toEqual(["execute_tool bash"]);
		for (const tool of tools) {
			checkConvention(tool, "execute_tool");
			expect(parentOf(tool)).toBe(idOf(run));
		}
		expect(tools[0]?.attributes["gen_ai.tool.name"]).toBe("bash");

		// The ask() wait is a span of the run: how long the run waited for a person.
		const asks = spans.filter((span) => span.name === "ask");
		expect(asks).toHaveLength(1);
		expect(parentOf(asks[0] as ReadableSpan)).toBe(idOf(run));
		expect(asks[0]?.attributes).toMatchObject({ "workflow.ask.source": "person" });
		// No content by default: neither the prompt, the answer nor the question.
		for (const span of spans) {
			expect(Object.keys(span.attributes).filter((key) => /messages|question|answer/.test(key))).toEqual([]);
		}
		expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
	});

	it("tokens and dollars are on the call that spent them only: summed over the trace, they are the run's", async () => {
		const exporter = registerSdk();
		const result = await tracedRun(flakyRunner().runner);
		const spans = exporter.getFinishedSpans();
		const sum = (key: string) => spans.reduce((total, span) => total + Number(span.attributes[key] ?? 0), 0);
		expect(sum("workflow.cost.usd")).toBeCloseTo(result.cost.usd, 10);
		expect(sum("gen_ai.usage.input_tokens") + sum("gen_ai.usage.output_tokens")).toBe(result.usage.total);
		const spenders = spans.filter((span) => span.attributes["workflow.cost.usd"] !== undefined);
		expect(new Set(spenders.map((span) => span.attributes["gen_ai.operation.name"]))).toEqual(
			new Set(["invoke_agent"]),
		);
	});

	it("cached input tokens: the conventions' cache attributes, every attempt's added up, within input_tokens", async () => {
		const exporter = registerSdk();
		const runner: WorkflowAgentRunner = async (request) => ({
			id: `child-${request.attempt}`,
			type: request.agentType,
			...(request.attempt === 1
				? { status: "failed" as const, error: "provider hiccup" }
				: { status: "completed" as const, result: "ok" }),
			usage: { input: 100, output: 20, total: 120, cacheRead: 60, cacheWrite: 10 },
		});
		const result = await runWorkflowScript(`${HEADER}return await agent("cached", { retries: 1 });`, {
			agentRunner: runner,
		});
		expect(result.status).toBe("completed");
		const call = exporter.getFinishedSpans().find((span) => span.name.startsWith("invoke_agent"));
		expect(call?.attributes).toMatchObject({
			"gen_ai.usage.input_tokens": 200,
			"gen_ai.usage.output_tokens": 40,
			"gen_ai.usage.cache_read.input_tokens": 120,
			"gen_ai.usage.cache_creation.input_tokens": 20,
		});
	});

	it("the runner gets the attempt's W3C trace context: the attempt span's trace and id", async () => {
		const exporter = registerSdk();
		const seen: Array<{ prompt: string; attempt: number; traceparent?: string }> = [];
		const fake = flakyRunner();
		const runner: WorkflowAgentRunner = (request, context) => {
			seen.push({
				prompt: request.prompt,
				attempt: request.attempt,
				...(context.trace ? { traceparent: context.trace.traceparent } : {}),
			});
			return fake.runner(request, context);
		};
		await tracedRun(runner);
		const spans = exporter.getFinishedSpans();
		const flaky = spans.find(
			(span) => span.attributes["workflow.call.label"] === "flaky one" && span.name.startsWith("invoke_agent"),
		);
		const attempts = spans.filter((span) => parentOf(span) === (flaky && idOf(flaky)));
		expect(seen.filter((call) => call.prompt === "flaky").map((call) => call.traceparent)).toEqual(
			attempts.map((span) => `00-${span.spanContext().traceId}-${idOf(span)}-01`),
		);
	});

	it("with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, the call span carries its prompt and answer", async () => {
		process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = "true";
		const exporter = registerSdk();
		await tracedRun(flakyRunner().runner);
		const planner = exporter
			.getFinishedSpans()
			.find((span) => span.attributes["workflow.call.label"] === "planner" && span.name.startsWith("invoke_agent"));
		expect(JSON.parse(String(planner?.attributes["gen_ai.input.messages"]))).toEqual([
			{ role: "user", parts: [{ type: "text", content: "plan it" }] },
		]);
		expect(JSON.parse(String(planner?.attributes["gen_ai.output.messages"]))).toEqual([
			{ role: "assistant", parts: [{ type: "text", content: "ok plan it" }], finish_reason: "stop" },
		]);
	});
});
