/**
 * Spans of one child, under the attempt span whose W3C trace context its runner was handed: each tool the child
 * runs as the GenAI conventions' `execute_tool <tool>`, and on a queue worker the job's own span, under which the
 * child's tools and whatever its pi session and provider emit are parented. Nothing without a trace context, or when
 * the host's sampler dropped the run (the context's flags say so): the host decides what is traced.
 */
import type { Context, Span } from "@opentelemetry/api";
import type { WorkflowTraceContext } from "../runtime/core/types.ts";
import { type Api, loadApi, loadedApi, TRACER_NAME, tracingRegistered } from "./api.ts";
import { contextFrom, traceContextOf } from "./trace-context.ts";

/** What of a pi session's events this reads: structural, so this room stays pi-free. */
export interface ChildToolEvent {
	type: string;
	toolCallId?: string;
	toolName?: string;
	isError?: boolean;
}

/** A child's tool spans: its session's events go to `listener`; `end` closes the tools still running. */
export interface ChildToolSpans {
	listener(event: ChildToolEvent): void;
	end(): void;
}

/** The parent `trace` names, when tracing is on here and the trace context is valid. */
function parentOf(otel: Api | undefined, trace: unknown): Context | undefined {
	if (!otel || !trace || !tracingRegistered()) return undefined;
	return contextFrom(otel, trace);
}

/** True when the host sampled the trace `parent` is in. */
function sampled(otel: Api, parent: Context): boolean {
	const flags = otel.trace.getSpanContext(parent)?.traceFlags ?? 0;
	return (flags & otel.TraceFlags.SAMPLED) !== 0;
}

/** The parent `trace` names, when tracing is on here and the host sampled it. */
function sampledParent(otel: Api | undefined, trace: WorkflowTraceContext | undefined): Context | undefined {
	const parent = parentOf(otel, trace);
	return otel && parent && sampled(otel, parent) ? parent : undefined;
}

/**
 * Tool spans of a child whose attempt is `trace`, or undefined when nobody traces it. Synchronous: a trace context
 * exists only once this process loaded the API (a traced run, a traced job), so it is there already.
 */
export function childToolSpans(trace: WorkflowTraceContext | undefined, agentName: string): ChildToolSpans | undefined {
	const otel = loadedApi();
	const parent = sampledParent(otel, trace);
	if (!otel || !parent) return undefined;
	const tracer = otel.trace.getTracer(TRACER_NAME);
	const open = new Map<string, Span>();
	return {
		listener(event) {
			if (!event.toolCallId) return;
			if (event.type === "tool_execution_start") {
				const name = event.toolName ?? "tool";
				const span = tracer.startSpan(
					`execute_tool ${name}`,
					{
						kind: otel.SpanKind.INTERNAL,
						attributes: {
							"gen_ai.operation.name": "execute_tool",
							"gen_ai.tool.name": name,
							"gen_ai.tool.call.id": event.toolCallId,
							"gen_ai.agent.name": agentName,
						},
					},
					parent,
				);
				open.set(event.toolCallId, span);
				return;
			}
			if (event.type !== "tool_execution_end") return;
			const span = open.get(event.toolCallId);
			open.delete(event.toolCallId);
			if (!span) return;
			if (event.isError) {
				span.setAttribute("error.type", "_OTHER");
				span.setStatus({ code: otel.SpanStatusCode.ERROR, message: "the tool reported an error" });
			}
			span.end();
		},
		end() {
			for (const span of open.values()) {
				span.setAttribute("error.type", "cut_off");
				span.setStatus({ code: otel.SpanStatusCode.ERROR, message: "the child ended before its tool did" });
				span.end();
			}
			open.clear();
		},
	};
}

/** A queue job's span on the worker, under the host's attempt span. */
export interface JobSpan {
	/** Its trace context, for the child's runner: the child's tools are its children. */
	trace: WorkflowTraceContext;
	/** Runs `work` with the job's span active, for what pi and its provider emit through the active context. */
	within<T>(work: () => Promise<T>): Promise<T>;
	/** Ends it with the child's status (`failed` and its code are an error). */
	end(outcome: { status: string; code?: string; error?: string }): void;
}

/** What the job's span says of where it ran. */
export interface JobSpanOptions {
	trace: unknown;
	queueName: string;
	jobId: string;
	worker: string;
	agentName: string;
}

/**
 * The job's span (`process <queue>`, CONSUMER, as OpenTelemetry's messaging conventions name a message's
 * processing), or undefined when the job carries no trace context or this worker has no SDK. When the host did not
 * sample the run there is no span, but the child still runs under the host's context, whose flags tell a
 * parent-based sampler (the SDK's default) to drop what the child's session and provider emit.
 */
export async function startJobSpan(options: JobSpanOptions): Promise<JobSpan | undefined> {
	if (!tracingRegistered() || !options.trace) return undefined;
	const otel = await loadApi();
	const parent = parentOf(otel, options.trace);
	if (!parent) return undefined;
	if (!sampled(otel, parent)) {
		return {
			trace: options.trace as WorkflowTraceContext,
			within: (work) => otel.context.with(parent, work),
			end: () => {},
		};
	}
	const span = otel.trace.getTracer(TRACER_NAME).startSpan(
		`process ${options.queueName}`,
		{
			kind: otel.SpanKind.CONSUMER,
			attributes: {
				"messaging.system": "bullmq",
				"messaging.operation.type": "process",
				"messaging.destination.name": options.queueName,
				"messaging.message.id": options.jobId,
				"gen_ai.agent.name": options.agentName,
				"workflow.worker": options.worker,
			},
		},
		parent,
	);
	const active = otel.trace.setSpan(parent, span);
	return {
		trace: traceContextOf(span),
		within: (work) => otel.context.with(active, work),
		end({ status, code, error }) {
			span.setAttribute("workflow.child.status", status);
			if (status === "failed") {
				span.setAttribute("error.type", code ?? "_OTHER");
				span.setStatus({ code: otel.SpanStatusCode.ERROR, ...(error ? { message: error } : {}) });
			}
			span.end();
		},
	};
}
