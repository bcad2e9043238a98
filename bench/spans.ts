/**
 * What OpenTelemetry spans cost a run (`node bench/spans.ts`; docs/performance.md, "Spans"). The events of one
 * 1,000-agent run are recorded once, then fed, per sample, to: no listener (a plain function that drops them, the
 * floor), what `runWorkflowScript` attaches when no SDK is registered (`startRunSpans()`: nothing, so the floor
 * again), the span listener forced onto the API's no-op tracer (what skipping the check would cost), and the span
 * listener over a real SDK (BasicTracerProvider, SimpleSpanProcessor, in-memory exporter). Reported as ns per
 * event and as a ratio to the floor, plus the per-run check (`tracingRegistered`) and whole 1,000-agent runs with
 * and without an SDK.
 */
import * as otel from "@opentelemetry/api";
import {
	BasicTracerProvider,
	BatchSpanProcessor,
	InMemorySpanExporter,
	SimpleSpanProcessor,
	type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import type { WorkflowProgressEvent } from "../src/runtime/index.ts";
import { shutdownSandboxPool } from "../src/sandbox/index.ts";
import { runSpansListener, startRunSpans, TRACER_NAME, tracingRegistered } from "../src/telemetry/spans.ts";
import { runOn } from "./lib/engines.ts";
import { instantRunner } from "./lib/runners.ts";
import { median, now } from "./lib/stats.ts";
import { CONCURRENT } from "./workloads.ts";

const AGENTS = 1000;
const SAMPLES = process.argv.includes("--quick") ? 5 : 21;
const PAIRS = process.argv.includes("--quick") ? 3 : 9;

const events: WorkflowProgressEvent[] = [];
await runOn("pi-workflows", CONCURRENT, {
	runner: instantRunner(),
	args: { n: AGENTS },
	onProgress: (e) => events.push(e),
});

/** ns per event of feeding the recorded run to a fresh listener from `make`, median of the samples. */
async function perEvent(make: () => Promise<((event: WorkflowProgressEvent) => void) | undefined>): Promise<number> {
	const samples: number[] = [];
	for (let i = 0; i < SAMPLES + 3; i++) {
		const listener = await make();
		const started = now();
		for (const event of events) listener?.(event);
		const ms = now() - started;
		if (i >= 3) samples.push((ms * 1e6) / events.length);
	}
	return median(samples);
}

let dropped = 0;
const floor = await perEvent(async () => (event) => {
	dropped += event.time > 0 ? 0 : 1;
});
const noSdk = await perEvent(async () => (await startRunSpans())?.listener);
const noopTracer = await perEvent(async () => runSpansListener(otel, otel.trace.getTracer(TRACER_NAME)).listener);

let checks = 0;
const checkStarted = now();
for (let i = 0; i < 1_000_000; i++) if (tracingRegistered()) checks++;
const checkNs = ((now() - checkStarted) * 1e6) / 1_000_000;

/** ms of one whole run of the workload. */
async function wholeRun(): Promise<number> {
	const started = now();
	await runOn("pi-workflows", CONCURRENT, { runner: instantRunner(), args: { n: AGENTS } });
	return now() - started;
}

/** Per event and per whole run with an SDK whose processor is `processor` (over `exporter`). */
async function withSdk(exporter: InMemorySpanExporter, processor: SpanProcessor) {
	const provider = new BasicTracerProvider({ spanProcessors: [processor] });
	otel.trace.setGlobalTracerProvider(provider);
	const ns = await perEvent(async () => (await startRunSpans())?.listener);
	await provider.forceFlush();
	exporter.reset();
	// Whole runs in pairs, without and with the SDK, one after the other: a busy machine slows both alike.
	const off: number[] = [];
	const on: number[] = [];
	const ratios: number[] = [];
	for (let i = 0; i < PAIRS + 1; i++) {
		otel.trace.disable();
		const a = await wholeRun();
		otel.trace.setGlobalTracerProvider(provider);
		const b = await wholeRun();
		if (i === 0) continue;
		off.push(a);
		on.push(b);
		ratios.push(b / a);
	}
	await provider.forceFlush();
	const spans = exporter.getFinishedSpans().length / (PAIRS + 1);
	otel.trace.disable();
	await provider.shutdown();
	return { ns, off: median(off), on: median(on), ratio: median(ratios), spans };
}
const simpleExporter = new InMemorySpanExporter();
const simple = await withSdk(simpleExporter, new SimpleSpanProcessor(simpleExporter));
const batchExporter = new InMemorySpanExporter();
// A queue large enough for every span of the runs, so none is dropped and the figure is for all of them.
const batch = await withSdk(
	batchExporter,
	new BatchSpanProcessor(batchExporter, { maxQueueSize: 1_000_000, maxExportBatchSize: 512 }),
);
await shutdownSandboxPool();

const row = (name: string, ns: number) =>
	`${name.padEnd(44)} ${ns.toFixed(1).padStart(8)} ns/event  ×${(ns / floor).toFixed(2)}`;
console.log(
	`Spans: ${events.length} events of one ${AGENTS}-agent run, median of ${SAMPLES} samples (${dropped} dropped)`,
);
console.log(row("no listener (floor)", floor));
console.log(row("no SDK registered (what a run attaches)", noSdk));
console.log(row("listener on the API's no-op tracer", noopTracer));
console.log(row("listener on an SDK, SimpleSpanProcessor", simple.ns));
console.log(row("listener on an SDK, BatchSpanProcessor", batch.ns));
console.log(`the per-run check, tracingRegistered(): ${checkNs.toFixed(1)} ns (${checks} of 1,000,000 true)`);
for (const [name, sdk] of [
	["SimpleSpanProcessor", simple],
	["BatchSpanProcessor", batch],
] as const) {
	console.log(
		`whole ${AGENTS}-agent runs, ${name}: no SDK ${sdk.off.toFixed(1)} ms, with it ${sdk.on.toFixed(1)} ms, paired ratio ×${sdk.ratio.toFixed(2)} (median of ${PAIRS}); ${sdk.spans} spans per run`,
	);
}
