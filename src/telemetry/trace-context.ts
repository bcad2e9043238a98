/**
 * A span's identity as W3C Trace Context (`traceparent`, `tracestate`), written and read here rather than through
 * the API's global propagator: a host that registers only a tracer provider has the API's no-op propagator, and the
 * trace must still cross to a queue worker.
 */
import type { Context, Span } from "@opentelemetry/api";
import type { WorkflowTraceContext } from "../runtime/core/types.ts";
import type { Api } from "./api.ts";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The span's trace context, for a runner to carry. */
export function traceContextOf(span: Span): WorkflowTraceContext {
	const { traceId, spanId, traceFlags, traceState } = span.spanContext();
	const tracestate = traceState?.serialize();
	return {
		traceparent: `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, "0")}`,
		...(tracestate ? { tracestate } : {}),
	};
}

/** A context whose parent is the (remote) span `carried` names; undefined when it is not a valid trace context. */
export function contextFrom(otel: Api, carried: unknown): Context | undefined {
	if (typeof carried !== "object" || carried === null) return undefined;
	const { traceparent, tracestate } = carried as Partial<WorkflowTraceContext>;
	const match = typeof traceparent === "string" ? TRACEPARENT.exec(traceparent) : null;
	if (!match) return undefined;
	const spanContext = {
		traceId: match[1] as string,
		spanId: match[2] as string,
		traceFlags: Number.parseInt(match[3] as string, 16),
		isRemote: true,
		...(typeof tracestate === "string" && tracestate ? { traceState: otel.createTraceState(tracestate) } : {}),
	};
	if (!otel.trace.isSpanContextValid(spanContext)) return undefined;
	return otel.trace.setSpanContext(otel.ROOT_CONTEXT, spanContext);
}
