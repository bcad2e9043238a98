/**
 * The parent session's tools for children: tools other extensions registered (MCP bridges, custom tools), given to a
 * child as stand-ins that run the parent's tool through pi's `ctx.executeTool()`, so the parent's argument checks,
 * `tool_call`/`tool_result` hooks and permission gates apply to a child's calls as to the model's own. pi's
 * built-ins are not among them (each child has its own, bound to its cwd), nor is the run-control surface.
 */
import type {
	AgentToolResult,
	AgentToolUpdateCallback,
	ExtensionToolContext,
	ToolDefinition,
} from "@earendil-works/pi-coding-agent";
import { BUILTIN_TOOL_NAMES, RESERVED_TOOL_NAMES } from "../agents/agent-fields.ts";
import { errorMessage } from "../errors.ts";

/** What a child's stand-in shows the model: the parent tool's name, description and parameter schema. */
export interface SessionToolInfo {
	name: string;
	label: string;
	description: string;
	parameters: ToolDefinition["parameters"];
}

/** The parent session's tools, as the runner sees them. */
export interface SessionTools {
	/** The tools children may be given now (read at each child's start: MCP tools can appear late). */
	list(): SessionToolInfo[];
	/** Runs one in the parent session. Resolves with an error result for every failure, never rejects. */
	execute(
		name: string,
		args: unknown,
		options: { signal?: AbortSignal; onUpdate?: AgentToolUpdateCallback },
	): Promise<AgentToolResult<unknown>>;
}

/**
 * The tools the `workflow` tool call's session can call (`ctx.tools`: its active tools plus every `codemode` or
 * `deferred` one), less pi's built-ins and ours.
 */
export function sessionToolsOf(ctx: ExtensionToolContext): SessionTools {
	return {
		list() {
			const tools = (() => {
				try {
					return ctx.tools;
				} catch {
					// The session was replaced or ended (a stale context): it has no tools to lend any more.
					return [];
				}
			})();
			return tools
				.filter((tool) => !BUILTIN_TOOL_NAMES.includes(tool.name) && !RESERVED_TOOL_NAMES.includes(tool.name))
				.map((tool) => ({
					name: tool.name,
					label: tool.label,
					description: tool.description,
					parameters: tool.parameters as ToolDefinition["parameters"],
				}));
		},
		async execute(name, args, options) {
			try {
				const outcome = await ctx.executeTool(name, args, options);
				return outcome.isError ? { ...outcome.result, isError: true } : outcome.result;
			} catch (error) {
				const text = errorMessage(error);
				return { content: [{ type: "text", text: `${name} failed: ${text}` }], details: undefined, isError: true };
			}
		},
	};
}

/** The stand-in a child session gets for one of the parent's tools. */
export function sessionToolDefinition(info: SessionToolInfo, tools: SessionTools): ToolDefinition {
	return {
		name: info.name,
		label: info.label,
		description: info.description,
		parameters: info.parameters,
		execute: (_toolCallId, params, signal, onUpdate) =>
			tools.execute(info.name, params, {
				...(signal ? { signal } : {}),
				...(onUpdate ? { onUpdate } : {}),
			}),
	};
}

/** What a child gets of the session's tools, and a warning per tool its agent type names that is not there. */
export interface SessionToolChoice {
	definitions: ToolDefinition[];
	warnings: string[];
}

/**
 * The stand-ins for `wanted` (names beyond pi's built-ins) plus, with `all`, every session tool; less `denied`.
 * A wanted name the session lacks is a warning: the child runs without it.
 */
export function chooseSessionTools(options: {
	tools: SessionTools | undefined;
	wanted: readonly string[];
	all: boolean;
	denied: readonly string[];
	agentType: string;
}): SessionToolChoice {
	const available = options.tools?.list() ?? [];
	const byName = new Map(available.map((tool) => [tool.name, tool]));
	const warnings: string[] = [];
	const chosen = new Map<string, SessionToolInfo>();
	for (const name of options.wanted) {
		if (BUILTIN_TOOL_NAMES.includes(name) || options.denied.includes(name)) continue;
		const tool = byName.get(name);
		if (tool) chosen.set(name, tool);
		else warnings.push(missingToolWarning(options.agentType, name, available));
	}
	if (options.all) {
		for (const tool of available) if (!options.denied.includes(tool.name)) chosen.set(tool.name, tool);
	}
	const { tools } = options;
	return {
		definitions: tools ? [...chosen.values()].map((tool) => sessionToolDefinition(tool, tools)) : [],
		warnings,
	};
}

function missingToolWarning(agentType: string, name: string, available: readonly SessionToolInfo[]): string {
	if (RESERVED_TOOL_NAMES.includes(name)) {
		return `agent type \`${agentType}\` names tool \`${name}\`, which workflow children never get; the child ran without it`;
	}
	const others = available.length > 0 ? available.map((tool) => tool.name).join(", ") : "none";
	return `agent type \`${agentType}\` names tool \`${name}\`, which this session does not have (its tools beyond pi's built-ins: ${others}); the child ran without it`;
}
