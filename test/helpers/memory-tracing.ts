/** An OpenTelemetry SDK registered globally, as a host registers one, keeping its spans in memory for a test to read. */
import { trace } from "@opentelemetry/api";
import {
	BasicTracerProvider,
	InMemorySpanExporter,
	type ReadableSpan,
	type Sampler,
	SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

/** Registers the SDK (a test's `afterEach` calls `trace.disable()`); `sampler` as a host would set one. */
export function registerMemorySdk(sampler?: Sampler): InMemorySpanExporter {
	const exporter = new InMemorySpanExporter();
	const provider = new BasicTracerProvider({
		spanProcessors: [new SimpleSpanProcessor(exporter)],
		...(sampler ? { sampler } : {}),
	});
	if (!trace.setGlobalTracerProvider(provider))
		throw new Error("an SDK was registered already: trace.disable() first");
	return exporter;
}

export const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
export const idOf = (span: ReadableSpan): string => span.spanContext().spanId;
