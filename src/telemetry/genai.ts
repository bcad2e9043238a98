/**
 * The OpenTelemetry GenAI semantic conventions' attributes as this package fills them (the conventions' repository
 * and commit are named in docs/host-api.md): the model a call names, its tokens, and the opt-in content.
 */
import type { Attributes } from "@opentelemetry/api";
import type { WorkflowTokenUsage } from "../runtime/core/types.ts";

/**
 * The conventions' switch for prompts and answers in spans (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`,
 * as the GenAI instrumentations read it): off unless set to `true`, since they may hold what nobody should export.
 */
export function captureContent(): boolean {
	return process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === "true";
}

/** `provider/id` as the conventions' provider and model; a name without a provider is the model alone. */
export function modelAttributes(model: string | undefined, key: "request" | "response"): Attributes {
	if (!model) return {};
	const slash = model.indexOf("/");
	const id = slash > 0 ? model.slice(slash + 1) : model;
	return {
		[`gen_ai.${key}.model`]: id,
		...(slash > 0 ? { "gen_ai.provider.name": model.slice(0, slash) } : {}),
	};
}

/** Tokens in the conventions' names: input counts cached tokens too, as the runner counts them. */
export function usageAttributes(usage: WorkflowTokenUsage | undefined): Attributes {
	if (!usage) return {};
	return {
		"gen_ai.usage.input_tokens": usage.input,
		"gen_ai.usage.output_tokens": usage.output,
		...(usage.cacheRead ? { "gen_ai.usage.cache_read.input_tokens": usage.cacheRead } : {}),
		...(usage.cacheWrite ? { "gen_ai.usage.cache_creation.input_tokens": usage.cacheWrite } : {}),
	};
}

/** A prompt as the conventions' `gen_ai.input.messages` (a JSON string: span attributes hold no nested objects). */
export function inputMessages(prompt: string): string {
	return JSON.stringify([{ role: "user", parts: [{ type: "text", content: prompt }] }]);
}

/** An answer as the conventions' `gen_ai.output.messages`. */
export function outputMessages(answer: string): string {
	return JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: answer }], finish_reason: "stop" }]);
}
