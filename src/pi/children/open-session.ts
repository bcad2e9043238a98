/**
 * Opening a child's session: its resources (extensions, skills, context files) loaded first, so an extension that
 * does not load fails the child, naming the file, and the child's own tools are known before its tool list is set.
 */

import type { Api, Model } from "@earendil-works/pi-ai";
import type { AgentSession, ModelRuntime, ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { WorkflowAgentResult } from "../../runtime/types.ts";
import { type AgentTypeConfig, BUILTIN_TOOL_NAMES, type ThinkingLevel } from "../agents/agent-types.ts";
import { limitToolCalls } from "./deadlines.ts";
import type { ChildModelChoice } from "./model.ts";
import { PauseGate } from "./pause.ts";
import { type ChildResources, type ChildRetrySettings, createChildSession, loadChildResources } from "./session.ts";
import { STRUCTURED_OUTPUT_TOOL_NAME, type StructuredOutputCapture } from "./structured-output.ts";
import type { AttemptContext } from "./supervisor.ts";

/** The fields every result of one child shares. */
export type ResultBase = Pick<WorkflowAgentResult, "id" | "type"> & {
	warnings: string[];
	/** The child's conversation files so far (one per session it opened). */
	transcripts?: string[];
};

/** Everything decided before a session exists; each check here is an author error, thrown. */
export interface ChildPlan {
	type: AgentTypeConfig;
	choice: ChildModelChoice | undefined;
	tools: string[];
	/** The structured-output tool and the session's tools lent to the child. */
	customTools: ToolDefinition[];
	/** Tools the agent type names that the session does not have. */
	warnings: string[];
	/** Tools named (by the call or the type), less the type's denylist. */
	named: string[];
	/** The type gives every tool there is (`tools:` absent or `all`) and the call names none. */
	allTools: boolean;
	/** Tools named that neither pi nor the session has: the child's own extensions may register them. */
	deferred: string[];
	capture: StructuredOutputCapture | undefined;
	prompt: string;
	cwd: string;
}

/** Loads the child's resources and opens its session; an extension that did not load fails the child instead. */
export async function openSession(
	child: {
		sessionId: string;
		plan: ChildPlan;
		model: Model<Api>;
		thinking: ThinkingLevel | undefined;
		/** Where the conversation is kept (see `keepConversation`). Default: in memory. */
		sessionFile?: string;
	},
	options: {
		agentDir: string;
		modelRuntime: ModelRuntime;
		piRetry?: false | Omit<ChildRetrySettings, "enabled">;
		projectTrusted?: boolean;
	},
	base: ResultBase,
): Promise<{ session: AgentSession } | { failure: WorkflowAgentResult }> {
	const { plan, model, thinking } = child;
	const retry = options.piRetry === false ? { enabled: false } : { enabled: true, ...(options.piRetry ?? {}) };
	const { type } = plan;
	const resources = await loadChildResources({
		cwd: plan.cwd,
		agentDir: options.agentDir,
		type,
		retry,
		projectTrusted: options.projectTrusted,
	});
	if (resources.extensionErrors.length > 0) {
		// A child without the tools its type loads them for would answer without them: it fails, naming the file.
		const where = type.path ? ` (${type.path})` : "";
		const error = `agent type \`${type.name}\`${where}: ${resources.extensionErrors.join("; ")}. Fix the path in the agent file`;
		// Loading again would fail again: not retried.
		return { failure: { ...base, warnings: [...base.warnings, error], status: "failed", error, noRetry: true } };
	}
	const tools = childTools(plan, resources, base.warnings);
	const session = await createChildSession({
		id: child.sessionId,
		cwd: plan.cwd,
		agentDir: options.agentDir,
		modelRuntime: options.modelRuntime,
		resources,
		model,
		...(thinking ? { thinking } : {}),
		...(child.sessionFile ? { sessionFile: child.sessionFile } : {}),
		...tools,
	});
	if (type.toolTimeoutMs) limitToolCalls(session, type.toolTimeoutMs, type.name);
	return { session };
}

/**
 * The child's tools once its extensions are loaded: a tool its own extension registers runs there (not as the
 * parent's stand-in), a deferred name nothing registered is a warning, and skills bring `read` to open them.
 */
function childTools(
	plan: ChildPlan,
	resources: ChildResources,
	warnings: string[],
): { tools: string[]; customTools?: ToolDefinition[] } {
	const own = new Set(resources.extensionTools);
	const denied = plan.type.disallowedTools;
	const customTools = plan.customTools.filter(
		(tool) => tool.name === STRUCTURED_OUTPUT_TOOL_NAME || !own.has(tool.name),
	);
	const ownActive = plan.allTools
		? [...own].filter((tool) => !denied.includes(tool))
		: plan.named.filter((tool) => own.has(tool));
	for (const name of plan.deferred) {
		if (own.has(name)) continue;
		const from = [...(plan.type.extensions ?? []), ...(plan.type.subagentOnlyExtensions ?? [])].join(", ");
		warnings.push(
			`agent type \`${plan.type.name}\` names tool \`${name}\`, which neither this session nor its extensions (${from}) have; the child ran without it`,
		);
	}
	const tools = [
		...new Set([
			...plan.tools.filter((tool) => BUILTIN_TOOL_NAMES.includes(tool)),
			...ownActive,
			...customTools.map((tool) => tool.name),
		]),
	];
	warnings.push(...resources.skillWarnings);
	if (resources.hasSkills && !tools.includes("read") && !tools.includes("bash")) {
		if (denied.includes("read"))
			warnings.push(`agent type \`${plan.type.name}\` has skills but no \`read\` tool to open them`);
		else tools.push("read");
	}
	return { tools, ...(customTools.length > 0 ? { customTools } : {}) };
}

/** Registers the child's steer and pause with the run's controls; the gate holds a paused child until it is resumed. */
export function lendControls(session: AgentSession, context: Partial<Pick<AttemptContext, "onSession">>): PauseGate {
	const gate = new PauseGate();
	context.onSession?.({
		// A paused child goes on with the message as its next turn; a running one reads it at its next turn.
		async steer(text) {
			if (!gate.resume(text)) await session.steer(text);
		},
		pause() {
			if (gate.request()) session.abort().catch(() => {});
		},
	});
	return gate;
}
