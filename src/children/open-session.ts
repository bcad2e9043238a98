/**
 * Opening a child's session: its resources (extensions, skills, context files) loaded first, so an extension that
 * does not load fails the child, naming the file, and the child's own tools are known before its tool list is set.
 * Then the run's controls are lent to it: a message steers it, and a pause stops its turn and keeps the session until
 * a message resumes it (as the next user turn), or its signal ends the wait.
 */

import type { Api, Model } from "@earendil-works/pi-ai";
import type { AgentSession, ModelRuntime, ToolDefinition } from "@earendil-works/pi-coding-agent";
import { BUILTIN_TOOL_NAMES, type ThinkingLevel } from "../agents/agent-types.ts";
import type { WorkflowAgentResult } from "../runtime/core/types.ts";
import { limitToolCalls } from "./deadlines.ts";
import type { ChildPlan } from "./plan.ts";
import { type ChildResources, type ChildRetrySettings, createChildSession, loadChildResources } from "./session.ts";
import { STRUCTURED_OUTPUT_TOOL_NAME } from "./structured-output.ts";
import type { AttemptContext } from "./supervisor.ts";

/** The fields every result of one child shares. */
export type ResultBase = Pick<WorkflowAgentResult, "id" | "type"> & {
	warnings: string[];
	/** The child's conversation files so far (one per session it opened). */
	transcripts?: string[];
};

/** Loads the child's resources and opens its session; an extension that did not load fails the child instead. */
export async function openSession(
	child: {
		sessionId: string;
		plan: ChildPlan;
		model: Model<Api>;
		thinking: ThinkingLevel | undefined;
		/** Where the conversation is kept (see `keepConversation`). Default: in memory. */
		sessionFile?: string;
		/** Without a file, the earlier conversation a continued child starts from. */
		history?: unknown[];
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
		...(plan.frame !== undefined ? { frame: plan.frame } : {}),
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
		...(child.sessionFile
			? { sessionFile: child.sessionFile }
			: child.history
				? { history: child.history }
				: plan.seed
					? { history: plan.seed }
					: {}),
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

/** One session's pause state. */
export class PauseGate {
	#requested = false;
	#resume: ((text: string | undefined) => void) | undefined;
	#early: string | undefined;

	/** True between a pause request and the message that resumes the child. */
	get paused(): boolean {
		return this.#requested;
	}

	/** Asks for a pause; false when one is already asked for. */
	request(): boolean {
		if (this.#requested) return false;
		this.#requested = true;
		return true;
	}

	/**
	 * Gives a message to a paused child (or one whose turn is being stopped: the message waits for `wait`); false
	 * when it is not paused, and the caller steers it instead.
	 */
	resume(text: string): boolean {
		if (!this.#requested || this.#early !== undefined) return false;
		if (this.#resume) this.#resume(text);
		else this.#early = text;
		return true;
	}

	/** Once the turn stopped: the message that resumes the child, or undefined when `signal` aborts first. */
	wait(signal: AbortSignal): Promise<string | undefined> {
		const settle = (text: string | undefined) => {
			this.#requested = false;
			this.#early = undefined;
			return text;
		};
		if (this.#early !== undefined) return Promise.resolve(settle(this.#early));
		if (signal.aborted) return Promise.resolve(settle(undefined));
		return new Promise((resolve) => {
			const done = (text: string | undefined) => {
				this.#resume = undefined;
				signal.removeEventListener("abort", onAbort);
				resolve(settle(text));
			};
			const onAbort = () => done(undefined);
			this.#resume = done;
			signal.addEventListener("abort", onAbort, { once: true });
		});
	}
}
