/**
 * OpenTelemetry spans of a run, built from its progress events by one listener, in the names of the GenAI semantic
 * conventions (genai.ts): the run is `invoke_workflow <name>`, each `agent()` call `invoke_agent <type>` (from queued
 * to its end; CLIENT when its runner sends children to other machines) with one `attempt <n>` span per attempt under
 * it, each `tool()` step `execute_tool <tool>`, each `ask()` wait `ask`; phases and provider waits are events of the
 * run span. Tokens and dollars sit on the call span only, the one that spent them, so a backend that sums a trace
 * counts each once. The runner gets each attempt's span as W3C trace context (`trace`), which a queue carries to
 * the worker. With no SDK registered this costs one check per run and nothing per event (api.ts).
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
import type { WorkflowAgentChild, WorkflowAgentRunner, WorkflowCost } from "../runtime/core/types.ts";
import { type Api, loadApi, TRACER_NAME, tracingRegistered } from "./api.ts";
import { captureContent, inputMessages, modelAttributes, outputMessages, usageAttributes } from "./genai.ts";
import { StepSpans } from "./step-spans.ts";
import { traceContextOf } from "./trace-context.ts";

export { type Api, flushSpans, TRACER_NAME, tracingRegistered } from "./api.ts";

/** What the run span knows before the run starts. */
export interface RunSpanOptions {
	/** The run's id in the host's store; a function is asked again when the run ends (a record made meanwhile). */
	runId?: string | (() => string | undefined);
	/** Epoch ms the run started. Default: now. */
	startTime?: number;
	/** The script's sha256 (hex) and tier, as the run span's `workflow.script.*` attributes. Default: none. */
	script?: { sha256: string; tier?: string };
	/** The run's children go to other machines (a queue runner): its calls' spans are CLIENT spans. Default: false. */
	remote?: boolean;
}

/** A traced run: the listener its events go to, and the runner wrapper that hands each attempt its trace context. */
export interface RunTracing {
	/** Absent when the SDK's sampler dropped the run: then its events cost nothing. */
	listener?: (event: WorkflowProgressEvent) => void;
	/** `inner`, handed the attempt's trace context (and, with content capture on, recording prompt and answer). */
	runner(inner: WorkflowAgentRunner): WorkflowAgentRunner;
}

/**
 * The run's tracing, or undefined when nobody traces (no SDK registered). When the SDK's sampler dropped the run
 * span there is no listener (the run pays nothing per event), and the runner still hands each attempt the run's
 * unsampled context, so what its children emit elsewhere (a queue worker, a provider's instrumentation) is dropped
 * too: the host decides.
 */
export async function startRunSpans(options: RunSpanOptions = {}): Promise<RunTracing | undefined> {
	if (!tracingRegistered()) return undefined;
	const otel = await loadApi();
	const spans = runSpansListener(otel, otel.trace.getTracer(TRACER_NAME), options);
	return spans.recording ? spans : { runner: spans.runner };
}

/** The listener over `tracer`, whether it records or not (the bench times it over the API's no-op tracer). */
export function runSpansListener(
	otel: Api,
	tracer: Tracer,
	options: RunSpanOptions = {},
): RunTracing & { recording: boolean } {
	const spans = new RunSpans(otel, tracer, options);
	return {
		listener: (event) => spans.on(event),
		runner: (inner) => spans.runner(inner),
		recording: spans.recording,
	};
}

/** One call's span and its open attempt. */
interface CallSpans {
	key: string;
	/** The call named its model: the span has `gen_ai.request.model` from its start. */
	named: boolean;
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
	/** The same open calls by key: what the runner is asked for. */
	readonly #byKey = new Map<string, CallSpans>();
	readonly #steps: StepSpans;
	readonly #runId: RunSpanOptions["runId"];
	readonly #remote: boolean;
	readonly #error: Api["SpanStatusCode"]["ERROR"];

	constructor(otel: Api, tracer: Tracer, options: RunSpanOptions) {
		this.#api = otel;
		this.#tracer = tracer;
		this.#runId = options.runId;
		this.#remote = options.remote === true;
		this.#error = otel.SpanStatusCode.ERROR;
		// Under whatever span the host has active (a tool call, a request), when its SDK keeps a context.
		this.#run = tracer.startSpan(
			"invoke_workflow",
			{
				kind: otel.SpanKind.INTERNAL,
				startTime: options.startTime ?? Date.now(),
				attributes: { "gen_ai.operation.name": "invoke_workflow" },
			},
			otel.context.active(),
		);
		this.#context = otel.trace.setSpan(otel.context.active(), this.#run);
		this.#steps = new StepSpans(otel, tracer, this.#context);
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
		if (this.#steps.on(event)) return;
		switch (event.type) {
			case "run_start":
				this.#run.updateName(`invoke_workflow ${event.meta.name}`);
				this.#run.setAttributes({
					"gen_ai.workflow.name": event.meta.name,
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

	/**
	 * The runner the run calls: each attempt's span goes to it as trace context (the attempt started just before,
	 * with `agent_started` or `agent_retry`) and is the active span while it runs; with content capture on, the
	 * call's span gets prompt and answer.
	 */
	runner(inner: WorkflowAgentRunner): WorkflowAgentRunner {
		const wrapped: WorkflowAgentRunner = async (request, context) => {
			if (!this.recording) return this.#unsampled(inner, request, context);
			const spans = this.#byKey.get(request.key);
			if (!spans?.attempt) return inner(request, context);
			const capture = captureContent();
			if (capture) spans.call.setAttribute("gen_ai.input.messages", inputMessages(request.prompt));
			// With the attempt's span active: what the child's session and provider emit through the active context
			// (when the host registered a context manager) is the attempt's too.
			const active = this.#api.trace.setSpan(spans.context, spans.attempt);
			const given = { ...context, trace: traceContextOf(spans.attempt) };
			const result = await this.#api.context.with(active, () => inner(request, given));
			if (capture && result.status === "completed" && result.result !== undefined) {
				spans.call.setAttribute("gen_ai.output.messages", outputMessages(result.result));
			}
			return result;
		};
		return inner.remote ? Object.assign(wrapped, { remote: true }) : wrapped;
	}

	/** A dropped run's attempt: the run's unsampled context, active and handed on. */
	#unsampled(
		inner: WorkflowAgentRunner,
		request: Parameters<WorkflowAgentRunner>[0],
		context: Parameters<WorkflowAgentRunner>[1],
	): ReturnType<WorkflowAgentRunner> {
		const given = { ...context, trace: traceContextOf(this.#run) };
		return this.#api.context.with(this.#context, () => inner(request, given));
	}

	/** A call's span runs from its queueing to its end, under the run's; its attempts run under it. */
	#callQueued(event: AgentQueuedEvent): void {
		const call = this.#tracer.startSpan(
			`invoke_agent ${event.agentType}`,
			{
				kind: this.#remote ? this.#api.SpanKind.CLIENT : this.#api.SpanKind.INTERNAL,
				startTime: event.time,
				attributes: {
					"gen_ai.operation.name": "invoke_agent",
					"gen_ai.agent.name": event.agentType,
					...modelAttributes(event.model, "request"),
					...callAttributes(event),
					"workflow.call.schema": event.hasSchema,
				},
			},
			this.#context,
		);
		const spans: CallSpans = {
			key: event.key,
			named: event.model !== undefined,
			call,
			context: this.#api.trace.setSpan(this.#context, call),
		};
		this.#calls.set(event.index, spans);
		this.#byKey.set(event.key, spans);
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
			{
				kind: this.#api.SpanKind.INTERNAL,
				startTime: event.time,
				attributes: { ...callAttributes(event), "workflow.attempt": event.attempt },
			},
			spans.context,
		);
	}

	#callFinished(event: AgentFinishedEvent): void {
		const spans = this.#calls.get(event.index);
		if (!spans) return;
		this.#calls.delete(event.index);
		this.#byKey.delete(spans.key);
		const replayed = event.cached === true;
		endAttempt(spans, replayed ? "replayed" : "completed", event.time);
		spans.call.setAttributes({
			"workflow.call.outcome": replayed ? "replayed" : "completed",
			"workflow.call.attempts": event.attempts,
			// A replayed call spent nothing in this run: what it cost is on the span of the run that made it.
			...(replayed ? { "workflow.call.replayed": true } : spendAttributes(event)),
			...answered(spans, event),
			...(event.fallbackFrom ? { "workflow.call.fallback_from": event.fallbackFrom } : {}),
		});
		spans.call.end(event.time);
	}

	#callFailed(event: AgentFailedEvent): void {
		const spans = this.#calls.get(event.index);
		if (!spans) return;
		this.#calls.delete(event.index);
		this.#byKey.delete(spans.key);
		const outcome = event.skipped ? "skipped" : "failed";
		const status = { code: this.#error, message: event.error };
		endAttempt(spans, outcome, event.time, status);
		spans.call.setAttributes({
			"error.type": event.code ?? "_OTHER",
			"workflow.call.outcome": outcome,
			"workflow.call.attempts": spans.attemptNumber ?? 0,
			"workflow.call.error": event.error,
			"workflow.call.thrown": event.thrown,
			...spendAttributes(event),
			...answered(spans, event),
		});
		spans.call.setStatus(status);
		spans.call.end(event.time);
	}

	#runEnded(event: RunEndEvent): void {
		// A call still open here was cut off with the run: its spans end with it, saying so.
		for (const spans of this.#calls.values()) {
			const status = { code: this.#error, message: "the run ended before this call did" };
			endAttempt(spans, "cut_off", event.time, status);
			spans.call.setAttributes({ "workflow.call.outcome": "cut_off", "error.type": "cut_off" });
			spans.call.setStatus(status);
			spans.call.end(event.time);
		}
		this.#calls.clear();
		this.#byKey.clear();
		this.#steps.endAll(event.time);
		this.#setRunId();
		// Counts only: what the run spent is the sum of its calls' spans, and would be counted twice here.
		this.#run.setAttributes({
			"workflow.status": event.status,
			"workflow.agents.calls": event.counts.calls,
			"workflow.agents.completed": event.counts.completed,
			"workflow.agents.failed": event.counts.failed,
			"workflow.agents.skipped": event.counts.skipped,
			"workflow.agents.replayed": event.counts.replayed ?? 0,
			"workflow.failures": event.failures.length,
			...(event.error
				? {
						"error.type": event.error.code,
						"workflow.error.code": event.error.code,
						"workflow.error.message": event.error.message,
					}
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

/** Ends the call's open attempt: its outcome, what its child reported last (id, model, turns), its status. */
function endAttempt(spans: CallSpans, outcome: string, time: number, status?: SpanStatus): void {
	const { attempt, child } = spans;
	if (!attempt) return;
	attempt.setAttributes({
		"workflow.attempt.outcome": outcome,
		...(child
			? {
					"gen_ai.agent.id": child.id,
					...modelAttributes(child.model, "response"),
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
		...(ref.phase !== undefined ? { "workflow.phase": ref.phase } : {}),
		...(ref.workflow !== undefined ? { "workflow.nested": ref.workflow } : {}),
	};
}

/**
 * What answered a call: its last child, the model it ran on (the model requested too, when the call named none and
 * the run's default was asked), its tools, its branch.
 */
function answered(spans: CallSpans, event: AgentFinishedEvent | AgentFailedEvent): Attributes {
	return {
		...(event.agentId ? { "gen_ai.agent.id": event.agentId } : {}),
		...(spans.named ? {} : modelAttributes(firstModel(event), "request")),
		...modelAttributes(event.model, "response"),
		...(event.toolUses !== undefined ? { "workflow.call.tool_uses": event.toolUses } : {}),
		...(event.worktree ? { "workflow.call.branch": event.worktree.branch } : {}),
	};
}

/** The model a call asked first: the first that met a provider limit (`fallbackModels`), else the one that ran. */
function firstModel(event: AgentFinishedEvent | AgentFailedEvent): string | undefined {
	return (event.type === "agent_finished" ? event.fallbackFrom?.[0] : undefined) ?? event.model;
}

/** Tokens and dollars the call's children spent, every attempt's: the call span owns them. */
function spendAttributes(event: { usage?: AgentFinishedEvent["usage"]; cost?: WorkflowCost }): Attributes {
	const { cost } = event;
	return {
		...usageAttributes(event.usage),
		...(cost
			? { "workflow.cost.usd": cost.usd, ...(cost.unpriced ? { "workflow.cost.unpriced": cost.unpriced } : {}) }
			: {}),
	};
}
