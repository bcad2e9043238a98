/**
 * The OpenTelemetry GenAI semantic conventions this package follows, pinned to one commit of
 * open-telemetry/semantic-conventions-genai (docs/gen-ai/gen-ai-agent-spans.md for `invoke_workflow` and
 * `invoke_agent`, docs/gen-ai/gen-ai-spans.md for `execute_tool`), as a table the span tests check spans against.
 */
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { expect } from "vitest";

/** The conventions this package follows: the repository and commit docs/host-api.md names. */
export const PINNED = {
	repository: "open-telemetry/semantic-conventions-genai",
	commit: "e8fc5751506258db1459d1bde47994e01dee922e",
};

export const INTERNAL = 0;
export const CLIENT = 2;
const ERROR = 2;

/**
 * What the pinned text says of each span we emit: its name, its kind, its `gen_ai.operation.name`, and the
 * attributes it marks `Required` (and `Conditionally Required` ones whose condition our spans meet: the agent's and
 * workflow's names are always available here, the model whenever the call names one, `error.type` on failure).
 */
export const CONVENTIONS = {
	invoke_workflow: {
		name: "invoke_workflow {gen_ai.workflow.name}",
		kind: INTERNAL,
		required: ["gen_ai.operation.name", "gen_ai.workflow.name"],
	},
	invoke_agent_internal: {
		name: "invoke_agent {gen_ai.agent.name}",
		kind: INTERNAL,
		required: ["gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.agent.name", "gen_ai.request.model"],
	},
	invoke_agent_client: {
		name: "invoke_agent {gen_ai.agent.name}",
		kind: CLIENT,
		required: ["gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.agent.name", "gen_ai.request.model"],
	},
	execute_tool: {
		name: "execute_tool {gen_ai.tool.name}",
		kind: INTERNAL,
		required: ["gen_ai.operation.name", "gen_ai.tool.name"],
	},
} as const;

/** A span's name as the convention spells it, its `{attribute}` replaced by the span's value of it. */
function conventionName(template: string, span: ReadableSpan): string {
	return template.replace(/\{([^}]+)\}/g, (_, key: string) => String(span.attributes[key]));
}

export function checkConvention(span: ReadableSpan, convention: keyof typeof CONVENTIONS): void {
	const rule = CONVENTIONS[convention];
	const operation = convention.replace(/_(internal|client)$/, "");
	expect(span.name, convention).toBe(conventionName(rule.name, span));
	expect(span.kind, `${span.name}: kind`).toBe(rule.kind);
	expect(span.attributes["gen_ai.operation.name"], span.name).toBe(operation);
	for (const key of rule.required) expect(span.attributes[key], `${span.name}: ${key}`).toBeDefined();
	if (span.status.code === ERROR) expect(span.attributes["error.type"], `${span.name}: error.type`).toBeDefined();
}
