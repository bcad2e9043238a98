/**
 * What is decided for a child before its session exists: its agent type, model, tools (built-ins, the session's lent
 * tools, the structured-output tool) and prompt. Each check here is an author error, thrown before any session.
 */
import type { Api, Model } from "@earendil-works/pi-ai";
import type { ModelRuntime, ToolDefinition } from "@earendil-works/pi-coding-agent";
import {
	type AgentTypeConfig,
	BUILTIN_TOOL_NAMES,
	checkCallTools,
	resolveAgentType,
	type ThinkingLevel,
} from "../agents/agent-types.ts";
import { neutralizeModelText } from "../progress/model-text.ts";
import type { WorkflowAgentRequest } from "../runtime/core/types.ts";
import { type ForkSource, forkedEntries } from "./fork.ts";
import { type ChildModelChoice, chooseChildModel, type ModelTiers } from "./model.ts";
import { chooseSessionTools, type SessionTools } from "./session-tools.ts";
import {
	createStructuredOutputTool,
	STRUCTURED_OUTPUT_TOOL_NAME,
	type StructuredOutputCapture,
	structuredOutputPrompt,
} from "./structured-output.ts";

/** Everything decided before a child's session exists; each check here is an author error, thrown. */
export interface ChildPlan {
	readonly type: AgentTypeConfig;
	readonly choice: ChildModelChoice | undefined;
	readonly tools: readonly string[];
	/** The structured-output tool and the session's tools lent to the child. */
	readonly customTools: readonly ToolDefinition[];
	/** Tools the agent type names that the session does not have. */
	readonly warnings: readonly string[];
	/** Tools named (by the call or the type), less the type's denylist. */
	readonly named: readonly string[];
	/** The type gives every tool there is (`tools:` absent or `all`) and the call names none. */
	readonly allTools: boolean;
	/** Tools named that neither pi nor the session has: the child's own extensions may register them. */
	readonly deferred: readonly string[];
	readonly capture: StructuredOutputCapture | undefined;
	readonly prompt: string;
	/** The run's provenance frame (frame.ts), appended to the child's system prompt; absent when the run has none. */
	readonly frame?: string;
	readonly cwd: string;
	/** A forked child's first entries: the parent session's conversation (fork.ts). Absent: it starts fresh. */
	readonly seed?: readonly Readonly<Record<string, unknown>>[];
}

/** What planning a child reads of the runner's options. */
export interface ChildPlanOptions extends ForkSource {
	cwd: string;
	agentTypes: ReadonlyMap<string, AgentTypeConfig>;
	modelRuntime: ModelRuntime;
	defaultModel?: Model<Api>;
	defaultThinking?: ThinkingLevel;
	sessionTools?: SessionTools;
	modelTiers?: ModelTiers;
	/** The run's provenance frame (`composeFrame`); with it, frame-like markup in the task is escaped. Default: none. */
	frame?: string;
}

/** What `readOnly: true` takes away: pi's built-ins that change files or run commands. */
const WRITING_TOOLS: readonly string[] = ["edit", "write", "bash"];

/** Plans the child of `request`: throws the author's mistakes (an unknown tool or agent type, a bad schema). */
export async function planChild(request: WorkflowAgentRequest, options: ChildPlanOptions): Promise<ChildPlan> {
	const type = resolveAgentType(options.agentTypes, request.agentType);
	const seed = forkedEntries(request, type, options);
	const sessionNames = options.sessionTools?.list().map((tool) => tool.name) ?? [];
	// The child's own extensions register their tools when it starts: names only they have are checked then.
	const { ownExtensions } = checkCallTools(type, request.tools, sessionNames);
	const choice = chooseChildModel({
		type,
		request,
		modelRuntime: options.modelRuntime,
		...(options.defaultModel ? { defaultModel: options.defaultModel } : {}),
		...(options.defaultThinking ? { defaultThinking: options.defaultThinking } : {}),
		...(options.modelTiers ? { modelTiers: options.modelTiers } : {}),
	});
	// Last of the checks that may throw: its schema is held until the child's `finish` lets it go.
	const capture = request.schema ? await createStructuredOutputTool(request.schema) : undefined;
	// The file's denylist applies to a call's own `tools` too: a type that must not write stays that way.
	// `readOnly` (pi peers' option) takes away the tools that write, whatever the type or the call lists.
	const named = (request.tools ?? type.tools).filter(
		(tool) => !type.disallowedTools.includes(tool) && !(request.readOnly && WRITING_TOOLS.includes(tool)),
	);
	const deferred = ownExtensions
		? named.filter((tool) => !BUILTIN_TOOL_NAMES.includes(tool) && !sessionNames.includes(tool))
		: [];
	const lent = chooseSessionTools({
		tools: options.sessionTools,
		wanted: named.filter((tool) => !deferred.includes(tool)),
		all: !request.tools && type.allSessionTools === true,
		denied: request.readOnly ? [...type.disallowedTools, ...WRITING_TOOLS] : type.disallowedTools,
		agentType: type.name,
	});
	// A session tool that happens to share the structured-output tool's name gives way to it.
	const customTools = [
		...lent.definitions.filter((tool) => !capture || tool.name !== STRUCTURED_OUTPUT_TOOL_NAME),
		...(capture ? [capture.tool] : []),
	];
	const tools = [...named.filter((tool) => BUILTIN_TOOL_NAMES.includes(tool)), ...customTools.map((t) => t.name)];
	// The script computed the task: under a frame, nothing in it may read as one (progress/model-text.ts).
	const task = options.frame !== undefined ? neutralizeModelText(request.prompt) : request.prompt;
	const prompt = capture
		? structuredOutputPrompt(task, request.schemaFeedback ? { schemaFeedback: request.schemaFeedback } : {})
		: task;
	return {
		type,
		choice,
		tools,
		customTools,
		warnings: lent.warnings,
		named,
		allTools: !request.tools && type.allSessionTools === true,
		deferred,
		capture,
		prompt,
		...(options.frame !== undefined ? { frame: options.frame } : {}),
		cwd: request.cwd || options.cwd,
		...(seed ? { seed } : {}),
	};
}
