/**
 * Whether anyone traces, and the OpenTelemetry API loaded only when someone does. Through `@opentelemetry/api`
 * only: the host registers an SDK (any exporter, an OTLP collector) and the spans go there. With none registered
 * this costs one check per run and nothing per event: `@opentelemetry/api` is not even loaded.
 */

/** The tracer's name, as collectors show it (the instrumentation scope). */
export const TRACER_NAME = "pi-workflows";

/**
 * Where version 1 of `@opentelemetry/api` keeps what was registered: a global every copy of the 1.x API shares
 * (`Symbol.for("opentelemetry.js.api.1")`, the API's own key). Its `trace` entry exists only once some SDK set a
 * global tracer provider; without one, every tracer is the API's no-op, so nothing need be loaded or done.
 */
const API_GLOBAL = Symbol.for("opentelemetry.js.api.1");

/** The API's module, loaded on first use. */
export type Api = typeof import("@opentelemetry/api");
let loading: Promise<Api> | undefined;
let loaded: Api | undefined;

/** True when a host registered a global tracer provider through `@opentelemetry/api` 1.x. */
export function tracingRegistered(): boolean {
	const registered = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[API_GLOBAL];
	return registered?.trace !== undefined;
}

/** The API, loading it the first time. */
export function loadApi(): Promise<Api> {
	loading ??= import("@opentelemetry/api").then((api) => {
		loaded = api;
		return api;
	});
	return loading;
}

/**
 * The API when something in this process already loaded it (a traced run, a traced job): a trace context can only
 * exist after that, so code that is handed one need not wait for an import.
 */
export function loadedApi(): Api | undefined {
	return loaded;
}

/**
 * Asks the registered SDK to export the spans it still holds (a batch processor's queue), waiting `timeoutMs` at
 * most: for a process about to exit, like the CLI. Does nothing when no SDK is registered.
 */
export async function flushSpans(timeoutMs = 2000): Promise<void> {
	if (!tracingRegistered()) return;
	const provider = (await loadApi()).trace.getTracerProvider() as { getDelegate?: () => unknown };
	// The API hands out a proxy; the SDK's provider behind it is what can flush.
	const target = (provider.getDelegate?.() ?? provider) as { forceFlush?: () => Promise<unknown> };
	if (typeof target.forceFlush !== "function") return;
	let timer: ReturnType<typeof setTimeout> | undefined;
	const deadline = new Promise<void>((resolve) => {
		timer = setTimeout(resolve, timeoutMs);
	});
	await Promise.race([target.forceFlush().catch(() => undefined), deadline]);
	clearTimeout(timer);
}
