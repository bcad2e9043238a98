/**
 * OpenTelemetry spans of a run, built from its progress events by one listener: a span for the run
 * (`workflow <name>`), one per `agent()` call (`agent <type>`, from queued to its end) and one per attempt of it
 * (`attempt <n>`), with the run id, call key, label, phase, agent type, model, tokens, cost, outcome and attempts
 * as attributes and status error on failure. Through `@opentelemetry/api` only: the host registers an SDK (any
 * exporter, an OTLP collector) and the spans go there. With none registered this costs one check per run and
 * nothing per event: `@opentelemetry/api` is not even loaded (see `tracingRegistered`).
 */
import type { Attributes, Context, Span, SpanStatus, Tracer } from "@opentelemetry/api";
import type {
	AgentFailedEvent,
	AgentFinishedEvent,
	AgentQueuedEvent,
	AgentRetryEvent,
	AgentStartedEvent,
	RunEndEvent,
	WorkflowAgentCallRef,
	WorkflowProgressEvent,
} from "../runtime/core/events.ts";
import type { WorkflowAgentChild, WorkflowCost, WorkflowTokenUsage } from "../runtime/core/types.ts";

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
let api: Promise<Api> | undefined;

/** True when a host registered a global tracer provider through `@opentelemetry/api` 1.x. */
export function tracingRegistered(): boolean {
	const registered = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[API_GLOBAL];
	return registered?.trace !== undefined;
}

/**
 * Asks the registered SDK to export the spans it still holds (a batch processor's queue), waiting `timeoutMs` at
 * most: for a process about to exit, like the CLI. Does nothing when no SDK is registered.
 */
export async function flushSpans(timeoutMs = 2000): Promise<void> {
	if (!tracingRegistered()) return;
	api ??= import("@opentelemetry/api");
	const provider = (await api).trace.getTracerProvider() as { getDelegate?: () => unknown };
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

/** What the run span knows before the run starts. */
export interface RunSpanOptions {
	/** The run's id in the host's store; a function is asked again when the run ends (a record made meanwhile). */
	runId?: string | (() => string | undefined);
	/** Epoch ms the run started. Default: now. */
	startTime?: number;
	/** The script's sha256 (hex) and tier, as the run span's `workflow.script.*` attributes. Default: none. */
	script?: { sha256: string; tier?: string };
}

/**
 * A listener that turns the run's events into spans, or undefined when nobody traces (no SDK registered, or the
 * SDK's sampler dropped the run span): then the run pays nothing per event.
 */
export async function startRunSpans(
	options: RunSpanOptions = {},
): Promise<((event: WorkflowProgressEvent) => void) | undefined> {
	if (!tracingRegistered()) return undefined;
	api ??= import("@opentelemetry/api");
	const otel = await api;
	const spans = runSpansListener(otel, otel.trace.getTracer(TRACER_NAME), options);
	return spans.recording ? spans.listener : undefined;
}

/** The listener over `tracer`, whether it records or not (the bench times it over the API's no-op tracer). */
export function runSpansListener(
	otel: Api,
	tracer: Tracer,
	options: RunSpanOptions = {},
): { listener: (event: WorkflowProgressEvent) => void; recording: boolean } {
	const spans = new RunSpans(otel, tracer, options);
	return { listener: (event) => spans.on(event), recording: spans.recording };
}

/** One call's span and its open attempt. */
interface CallSpans {
	call: Span;
	context: Context;
	attempt?: Span;
	attemptNumber?: number;
	/** The attempt's child as last reported: what its span says of it when it ends. */
	child?: WorkflowAgentChild;
}

class RunSpans {
	readonly #api: Api;
	readonly #tracer: Tracer;
	readonly #run: Span;
	readonly #context: Context;
	readonly #calls = new Map<number, CallSpans>();
	readonly #runId: RunSpanOptions["runId"];
	readonly #error: Api["SpanStatusCode"]["ERROR"];

	constructor(otel: Api, tracer: Tracer, options: RunSpanOptions) {
		this.#api = otel;
		this.#tracer = tracer;
		this.#runId = options.runId;
		this.#error = otel.SpanStatusCode.ERROR;
		// Under whatever span the host has active (a tool call, a request), when its SDK keeps a context.
		this.#run = tracer.startSpan("workflow", { startTime: options.startTime ?? Date.now() }, otel.context.active());
		this.#context = otel.trace.setSpan(otel.context.active(), this.#run);
		this.#setRunId();
		if (options.script) {
			this.#run.setAttributes({
				"workflow.script.sha256": options.script.sha256,
				...(options.script.tier !== undefined ? { "workflow.script.tier": options.script.tier } : {}),
			});
		}
	}

	get recording(): boolean {
		return this.#run.isRecording();
	}

	on(event: WorkflowProgressEvent): void {
		switch (event.type) {
			case "run_start":
				this.#run.updateName(`workflow ${event.meta.name}`);
				this.#run.setAttributes({
					"workflow.name": event.meta.name,
					...(event.costLimitUsd !== undefined ? { "workflow.cost_limit_usd": event.costLimitUsd } : {}),
				});
				return;
			case "phase_start":
			case "phase_end":
				this.#run.addEvent(event.type, { "workflow.phase": event.phase }, event.time);
				return;
			case "provider_wait_started":
				this.#run.addEvent(
					"provider_wait",
					{ "workflow.provider_wait.kind": event.kind, "workflow.provider_wait.ms": event.waitMs },
					event.time,
				);
				return;
			case "agent_queued":
				this.#callQueued(event);
				return;
			case "agent_child": {
				const spans = this.#calls.get(event.index);
				if (spans?.attempt) spans.child = event.child;
				return;
			}
			case "agent_started":
			case "agent_retry":
				this.#attemptStarted(event);
				return;
			case "agent_finished":
				this.#callFinished(event);
				return;
			case "agent_failed":
				this.#callFailed(event);
				return;
			case "run_end":
				this.#runEnded(event);
				return;
			default:
				return;
		}
	}

	/** A call's span runs from its queueing to its end, under the run's; its attempts run under it. */
	#callQueued(event: AgentQueuedEvent): void {
		const call = this.#tracer.startSpan(
			`agent ${event.agentType}`,
			{
				startTime: event.time,
				attributes: {
					...callAttributes(event),
					...(event.model ? { "workflow.agent.model": event.model } : {}),
					"workflow.call.schema": event.hasSchema,
				},
			},
			this.#context,
		);
		this.#calls.set(event.index, { call, context: this.#api.trace.setSpan(this.#context, call) });
	}

	#attemptStarted(event: AgentStartedEvent | AgentRetryEvent): void {
		const spans = this.#calls.get(event.index);
		if (!spans) return;
		// A retry ends the attempt before it: what the retry says is why that one did not do.
		if (spans.attempt && event.type === "agent_retry") {
			endAttempt(spans, "retried", event.time, { code: this.#error, message: event.reason });
		}
		spans.attemptNumber = event.attempt;
		spans.attempt = this.#tracer.startSpan(
			`attempt ${event.attempt}`,
			{ startTime: event.time, attributes: { ...callAttributes(event), "workflow.attempt": event.attempt } },
			spans.context,
		);
	}

	#callFinished(event: AgentFinishedEvent): void {
		const spans = this.#calls.get(event.index);
		if (!spans) return;
		this.#calls.delete(event.index);
		const outcome = event.cached ? "replayed" : "completed";
		const attributes: Attributes = {
			"workflow.call.outcome": outcome,
			"workflow.call.attempts": event.attempts,
			...spendAttributes(event.usage, event.cost),
			...(event.model ? { "workflow.agent.model": event.model } : {}),
			...(event.toolUses !== undefined ? { "workflow.call.tool_uses": event.toolUses } : {}),
			...(event.worktree ? { "workflow.call.branch": event.worktree.branch } : {}),
			...(event.fallbackFrom ? { "workflow.call.fallback_from": event.fallbackFrom } : {}),
		};
		endAttempt(spans, outcome, event.time);
		spans.call.setAttributes(attributes);
		spans.call.end(event.time);
	}

	#callFailed(event: AgentFailedEvent): void {
		const spans = this.#calls.get(event.index);
		if (!spans) return;
		this.#calls.delete(event.index);
		const outcome = event.skipped ? "skipped" : "failed";
		const status = { code: this.#error, message: event.error };
		endAttempt(spans, outcome, event.time, status);
		spans.call.setAttributes({
			"workflow.call.outcome": outcome,
			"workflow.call.attempts": spans.attemptNumber ?? 0,
			"workflow.call.error": event.error,
			...(event.code ? { "workflow.call.error_code": event.code } : {}),
			"workflow.call.thrown": event.thrown,
			...spendAttributes(event.usage, event.cost),
			...(event.model ? { "workflow.agent.model": event.model } : {}),
			...(event.toolUses !== undefined ? { "workflow.call.tool_uses": event.toolUses } : {}),
			...(event.worktree ? { "workflow.call.branch": event.worktree.branch } : {}),
		});
		spans.call.setStatus(status);
		spans.call.end(event.time);
	}

	#runEnded(event: RunEndEvent): void {
		// A call still open here was cut off with the run: its spans end with it, saying so.
		for (const spans of this.#calls.values()) {
			const status = { code: this.#error, message: "the run ended before this call did" };
			endAttempt(spans, "cut_off", event.time, status);
			spans.call.setAttribute("workflow.call.outcome", "cut_off");
			spans.call.setStatus(status);
			spans.call.end(event.time);
		}
		this.#calls.clear();
		this.#setRunId();
		this.#run.setAttributes({
			"workflow.status": event.status,
			"workflow.agents.calls": event.counts.calls,
			"workflow.agents.completed": event.counts.completed,
			"workflow.agents.failed": event.counts.failed,
			"workflow.agents.skipped": event.counts.skipped,
			"workflow.agents.replayed": event.counts.replayed ?? 0,
			"workflow.failures": event.failures.length,
			...spendAttributes(event.usage, event.cost),
			...(event.error
				? { "workflow.error.code": event.error.code, "workflow.error.message": event.error.message }
				: {}),
		});
		// A stopped run is not an error: a person or a limit stopped it, and it can resume.
		if (event.status === "failed") {
			this.#run.setStatus({ code: this.#error, message: event.error?.message ?? "the workflow failed" });
		}
		this.#run.end(event.time);
	}

	#setRunId(): void {
		const id = typeof this.#runId === "function" ? this.#runId() : this.#runId;
		if (id) this.#run.setAttribute("workflow.run.id", id);
	}
}

/** Ends the call's open attempt: its outcome, what its child reported last (id, model, tokens, cost), its status. */
function endAttempt(spans: CallSpans, outcome: string, time: number, status?: SpanStatus): void {
	const { attempt, child } = spans;
	if (!attempt) return;
	attempt.setAttributes({
		"workflow.attempt.outcome": outcome,
		...(child
			? {
					"workflow.agent.id": child.id,
					...(child.model ? { "workflow.agent.model": child.model } : {}),
					...(child.tokens !== undefined ? { "workflow.tokens.total": child.tokens } : {}),
					...(child.cost ? { "workflow.cost.usd": child.cost.usd } : {}),
					...(child.toolUses !== undefined ? { "workflow.call.tool_uses": child.toolUses } : {}),
					...(child.turns !== undefined ? { "workflow.attempt.turns": child.turns } : {}),
				}
			: {}),
	});
	if (status) attempt.setStatus(status);
	attempt.end(time);
	spans.attempt = undefined;
	spans.child = undefined;
}

/** Who a call is, on its span and each attempt's. */
function callAttributes(ref: WorkflowAgentCallRef): Attributes {
	return {
		"workflow.call.key": ref.key,
		"workflow.call.index": ref.index,
		"workflow.call.label": ref.label,
		"workflow.agent.type": ref.agentType,
		...(ref.phase !== undefined ? { "workflow.phase": ref.phase } : {}),
		...(ref.workflow !== undefined ? { "workflow.nested": ref.workflow } : {}),
	};
}

/** Tokens and dollars, when the event has them. */
function spendAttributes(usage: WorkflowTokenUsage | undefined, cost: WorkflowCost | undefined): Attributes {
	return {
		...(usage
			? {
					"workflow.tokens.input": usage.input,
					"workflow.tokens.output": usage.output,
					"workflow.tokens.total": usage.total,
				}
			: {}),
		...(cost
			? { "workflow.cost.usd": cost.usd, ...(cost.unpriced ? { "workflow.cost.unpriced": cost.unpriced } : {}) }
			: {}),
	};
}
