/**
 * A pi child's tools as spans: with an OpenTelemetry SDK registered, each tool a child runs is an
 * `execute_tool <tool>` span (the GenAI conventions' name) under its attempt's span, in the run's trace; a run the
 * sampler drops has none (the trace context the runner gets says so).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { type Context, type ContextManager, context, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { ParentBasedSampler, type ReadableSpan, TraceIdRatioBasedSampler } from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";
import { checkConvention } from "../helpers/genai-conventions.ts";
import { registerMemorySdk } from "../helpers/memory-tracing.ts";
import { createRunnerFixture, type RunnerFixture } from "./runner-fixture.ts";

let fx: RunnerFixture;
beforeEach(async () => {
	fx = await createRunnerFixture();
});
afterEach(() => {
	trace.disable();
	context.disable();
	fx.teardown();
});

const SCRIPT = `export const meta = { name: "reader", description: "d" };
return await agent("Read notes.txt", { label: "reader" });`;

describe("createPiAgentRunner: spans of a child's tools", () => {
	it("each tool the child runs is an execute_tool span under its attempt's span", async () => {
		const exporter = registerMemorySdk();
		fx.dirs.write("notes.txt", "remember the milk");
		fx.faux.route("Read notes", [
			fauxAssistantMessage([fauxToolCall("read", { path: "notes.txt" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("The milk."),
		]);
		const result = await runWorkflowScript(SCRIPT, {
			agentRunner: fx.runner({ defaultModel: fx.faux.model }),
			cwd: fx.dirs.cwd,
		});
		expect(result.status).toBe("completed");
		const spans = exporter.getFinishedSpans();
		const attempt = spans.find((span) => span.name === "attempt 1") as ReadableSpan;
		const tools = spans.filter((span) => span.name.startsWith("execute_tool"));
		expect(tools.map((span) => span.name)).toEqual(["execute_tool read"]);
		const [read] = tools as [ReadableSpan];
		checkConvention(read, "execute_tool");
		expect(read.parentSpanContext?.spanId).toBe(attempt.spanContext().spanId);
		expect(read.spanContext().traceId).toBe(attempt.spanContext().traceId);
		expect(read.attributes).toMatchObject({ "gen_ai.tool.name": "read", "gen_ai.agent.name": "general-purpose" });
		expect(read.attributes["gen_ai.tool.call.id"]).toEqual(expect.any(String));
	});

	it("with a context manager registered, what the child's provider emits is under its attempt's span", async () => {
		const exporter = registerMemorySdk();
		context.setGlobalContextManager(new StoredContexts());
		// As a provider's own instrumentation does: a span of the model request, under whatever span is active.
		fx.faux.route("Say hi", [
			() => {
				trace.getTracer("a-provider-sdk").startSpan("chat faux-1").end();
				return fauxAssistantMessage("hi");
			},
		]);
		const result = await runWorkflowScript(SCRIPT.replace("Read notes.txt", "Say hi"), {
			agentRunner: fx.runner({ defaultModel: fx.faux.model }),
			cwd: fx.dirs.cwd,
		});
		expect(result.status).toBe("completed");
		const spans = exporter.getFinishedSpans();
		const attempt = spans.find((span) => span.name === "attempt 1") as ReadableSpan;
		const chat = spans.find((span) => span.name === "chat faux-1");
		expect(chat?.parentSpanContext?.spanId).toBe(attempt.spanContext().spanId);
	});

	it("a run the host's sampler drops: no spans of its child's tools either", async () => {
		const exporter = registerMemorySdk(new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0) }));
		fx.dirs.write("notes.txt", "remember the milk");
		fx.faux.route("Read notes", [
			fauxAssistantMessage([fauxToolCall("read", { path: "notes.txt" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("The milk."),
		]);
		const result = await runWorkflowScript(SCRIPT, {
			agentRunner: fx.runner({ defaultModel: fx.faux.model }),
			cwd: fx.dirs.cwd,
		});
		expect(result.status).toBe("completed");
		expect(exporter.getFinishedSpans()).toEqual([]);
	});
});

/** A context manager over AsyncLocalStorage, as the SDK's Node packages register one. */
class StoredContexts implements ContextManager {
	readonly #store = new AsyncLocalStorage<Context>();
	active(): Context {
		return this.#store.getStore() ?? ROOT_CONTEXT;
	}
	with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
		active: Context,
		fn: F,
		thisArg?: ThisParameterType<F>,
		...args: A
	): ReturnType<F> {
		return this.#store.run(active, () => fn.call(thisArg, ...args));
	}
	bind<T>(_active: Context, target: T): T {
		return target;
	}
	enable(): this {
		return this;
	}
	disable(): this {
		this.#store.disable();
		return this;
	}
}
