/**
 * The tools a script's `tool()` may run in pi: every tool the `workflow` call's session can call (pi's built-ins,
 * other extensions' tools), run through pi's own `ctx.executeTool()`, so argument checks, `tool_call`/`tool_result`
 * hooks and permission gates apply to a script's calls exactly as to the model's own. Never `workflow` or
 * `workflow_runs`.
 */
import type { AgentToolCallOutcome } from "@earendil-works/pi-agent-core";
import type { ExtensionToolContext } from "@earendil-works/pi-coding-agent";
import { errorMessage, toolRefusedError, WorkflowError } from "../../errors.ts";
import { RESERVED_TOOLS } from "../../runtime/tool/call.ts";
import type { JsonValue, WorkflowTool, WorkflowToolOutput } from "../../runtime/types.ts";

/** The session's tools as `runWorkflowScript`'s `tools` map, read when the run starts. */
export function scriptToolsOf(ctx: ExtensionToolContext): Record<string, WorkflowTool> {
	const names = (() => {
		try {
			return ctx.tools.map((tool) => tool.name);
		} catch {
			// A stale context (the session was replaced): it lends nothing.
			return [];
		}
	})();
	const tools: Record<string, WorkflowTool> = {};
	for (const name of names) {
		if (RESERVED_TOOLS.includes(name)) continue;
		tools[name] = async (params, signal) => {
			let outcome: AgentToolCallOutcome;
			try {
				outcome = await ctx.executeTool(name, params, { signal });
			} catch (error) {
				throw new WorkflowError("tool_failed", `pi could not run it: ${errorMessage(error)}`);
			}
			return fromOutcome(outcome);
		};
	}
	return tools;
}

/**
 * pi's outcome as the runtime takes it. pi never rejects: a call its hooks blocked (or its argument check refused)
 * comes back as an error that never ran (no `durationMs`); a tool that threw, as an error result without the
 * tool's own `isError`; a tool that reported a failure (bash's non-zero exit) sets `isError` on its result.
 */
export function fromOutcome(outcome: AgentToolCallOutcome): WorkflowToolOutput {
	const result = outcome.result ?? { content: [] };
	const text = textOf(result.content);
	if (outcome.isError && outcome.durationMs === undefined) throw toolRefusedError(text || "pi did not run it");
	if (outcome.isError && result.isError !== true && result.structuredContent === undefined) {
		throw new WorkflowError("tool_failed", text || "the tool threw");
	}
	return {
		output: text,
		isError: outcome.isError,
		...detailsOf(result.structuredContent, result.details),
	};
}

function textOf(content: unknown): string {
	if (!Array.isArray(content)) return "";
	return content
		.map((part) =>
			part && typeof part === "object" && (part as { type?: unknown }).type === "text"
				? String((part as { text?: unknown }).text ?? "")
				: "",
		)
		.filter((text) => text !== "")
		.join("\n");
}

/** The tool's JSON: its `structuredContent` (less a copy of the output), else its `details` when not empty. */
function detailsOf(structured: unknown, details: unknown): { details?: JsonValue } {
	if (structured && typeof structured === "object" && !Array.isArray(structured)) {
		const { output: _copy, ...rest } = structured as Record<string, JsonValue>;
		return { details: rest };
	}
	if (details && typeof details === "object" && Object.keys(details).length > 0) {
		return { details: details as JsonValue };
	}
	return {};
}
