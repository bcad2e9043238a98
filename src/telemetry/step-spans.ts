/**
 * The spans of a run's own steps, under its `invoke_workflow` span: each `tool()` step as the GenAI conventions'
 * `execute_tool <tool>` (from its turn in the tool queue to its result), each `ask()` as `ask`, the time the run
 * waited for a person. The question and answer are content: on the span only with content capture on (genai.ts).
 */
import type { Context, Span, Tracer } from "@opentelemetry/api";
import type { AskRef, ToolRef, WorkflowProgressEvent } from "../runtime/core/events.ts";
import type { Api } from "./api.ts";
import { captureContent } from "./genai.ts";

export class StepSpans {
	readonly #api: Api;
	readonly #tracer: Tracer;
	readonly #context: Context;
	readonly #tools = new Map<number, Span>();
	readonly #asks = new Map<number, Span>();

	constructor(otel: Api, tracer: Tracer, context: Context) {
		this.#api = otel;
		this.#tracer = tracer;
		this.#context = context;
	}

	/** Takes a step's event; false for any other. */
	on(event: WorkflowProgressEvent): boolean {
		switch (event.type) {
			case "tool_started":
				this.#tools.set(event.index, this.#toolSpan(event, event.time));
				return true;
			case "tool_finished": {
				// A step replayed from the run's record never started: its span is the moment it was answered.
				const span = this.#take(this.#tools, event.index) ?? this.#toolSpan(event, event.time);
				span.setAttributes({
					"workflow.tool.outcome": event.cached ? "replayed" : event.isError ? "error" : "completed",
					...(event.cached ? { "workflow.tool.replayed": true } : {}),
					...(event.exitCode !== undefined ? { "workflow.tool.exit_code": event.exitCode } : {}),
					"workflow.tool.output_chars": event.outputChars,
				});
				// The tool's own error (a command's non-zero exit) is its result, which the script reads: still an error.
				if (event.isError) {
					span.setAttribute("error.type", event.exitCode !== undefined ? `exit ${event.exitCode}` : "_OTHER");
					span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: "the tool reported an error" });
				}
				span.end(event.time);
				return true;
			}
			case "tool_failed": {
				const span = this.#take(this.#tools, event.index) ?? this.#toolSpan(event, event.time);
				span.setAttributes({ "error.type": event.code, "workflow.tool.outcome": "failed" });
				span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: event.error });
				span.end(event.time);
				return true;
			}
			case "ask_started":
				this.#asks.set(event.index, this.#askSpan(event));
				return true;
			case "ask_answered": {
				const span = this.#take(this.#asks, event.index) ?? this.#askSpan(event);
				span.setAttributes({
					"workflow.ask.source": event.source,
					...(captureContent() ? { "workflow.ask.answer": event.answer } : {}),
				});
				span.end(event.time);
				return true;
			}
			case "ask_failed": {
				const span = this.#take(this.#asks, event.index) ?? this.#askSpan(event);
				span.setAttributes({ "error.type": event.code });
				span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: event.error });
				span.end(event.time);
				return true;
			}
			default:
				return false;
		}
	}

	/** The run ended: a step still open was cut off with it. */
	endAll(time: number): void {
		for (const span of [...this.#tools.values(), ...this.#asks.values()]) {
			span.setAttribute("error.type", "cut_off");
			span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: "the run ended before this step did" });
			span.end(time);
		}
		this.#tools.clear();
		this.#asks.clear();
	}

	#toolSpan(ref: ToolRef, time: number): Span {
		return this.#tracer.startSpan(
			`execute_tool ${ref.name}`,
			{
				kind: this.#api.SpanKind.INTERNAL,
				startTime: time,
				attributes: {
					"gen_ai.operation.name": "execute_tool",
					"gen_ai.tool.name": ref.name,
					"workflow.tool.key": ref.key,
					"workflow.tool.index": ref.index,
					"workflow.tool.label": ref.label,
					...(ref.phase !== undefined ? { "workflow.phase": ref.phase } : {}),
					...(ref.workflow !== undefined ? { "workflow.nested": ref.workflow } : {}),
				},
			},
			this.#context,
		);
	}

	#askSpan(ref: AskRef & { time: number }): Span {
		return this.#tracer.startSpan(
			"ask",
			{
				kind: this.#api.SpanKind.INTERNAL,
				startTime: ref.time,
				attributes: {
					"workflow.ask.key": ref.key,
					"workflow.ask.index": ref.index,
					...(ref.phase !== undefined ? { "workflow.phase": ref.phase } : {}),
					...(captureContent() ? { "workflow.ask.question": ref.question } : {}),
				},
			},
			this.#context,
		);
	}

	#take(spans: Map<number, Span>, index: number): Span | undefined {
		const span = spans.get(index);
		spans.delete(index);
		return span;
	}
}
