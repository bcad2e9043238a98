/**
 * The tools a script's `tool()` may run in pi: every tool the `workflow` call's session can call (pi's built-ins,
 * other extensions' tools), run through pi's own `ctx.executeTool()`, so argument checks, `tool_call`/`tool_result`
 * hooks and permission gates apply to a script's calls exactly as to the model's own. Never `workflow`,
 * `workflow_runs` or `codemode` (`RESERVED_TOOLS`).
 */
import type { AgentTool, AgentToolCallOutcome } from "@earendil-works/pi-agent-core";
import {
	createBashTool,
	createEditTool,
	createFindTool,
	createGrepTool,
	createLsTool,
	createReadTool,
	createWriteTool,
	type ExtensionToolContext,
} from "@earendil-works/pi-coding-agent";
import { errorMessage, toolRefusedError, WorkflowError } from "../errors.ts";
import type { JsonValue, WorkflowTool, WorkflowToolOutput } from "../runtime/core/types.ts";
import { RESERVED_TOOLS } from "../runtime/index.ts";

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

const FACTORIES: Record<string, (cwd: string) => AgentTool> = {
	bash: (cwd) => createBashTool(cwd) as unknown as AgentTool,
	read: (cwd) => createReadTool(cwd) as unknown as AgentTool,
	grep: (cwd) => createGrepTool(cwd) as unknown as AgentTool,
	find: (cwd) => createFindTool(cwd) as unknown as AgentTool,
	ls: (cwd) => createLsTool(cwd) as unknown as AgentTool,
	edit: (cwd) => createEditTool(cwd) as unknown as AgentTool,
	write: (cwd) => createWriteTool(cwd) as unknown as AgentTool,
};

/**
 * pi's built-ins `names`, built in `cwd` with pi's own tool factories, as `tool()` takes them: for hosts without a
 * session (the CLI's `--allow-tools`). No hook or permission prompt applies: lend only what the person named.
 */
export function builtInTools(cwd: string, names: readonly string[]): Record<string, WorkflowTool> {
	const tools: Record<string, WorkflowTool> = {};
	let calls = 0;
	for (const name of names) {
		const make = FACTORIES[name];
		if (!make) continue;
		const tool = make(cwd);
		tools[name] = async (params, signal) => {
			const toolCall = {
				type: "toolCall" as const,
				id: `workflow-tool-${++calls}`,
				name,
				arguments: params as never,
			};
			let result: Awaited<ReturnType<AgentTool["execute"]>>;
			try {
				result = await tool.execute(toolCall.id, params as never, signal);
			} catch (error) {
				throw new WorkflowError("tool_failed", errorMessage(error));
			}
			return fromOutcome({ toolCall, result, isError: result.isError === true, durationMs: 0 });
		};
	}
	return tools;
}
