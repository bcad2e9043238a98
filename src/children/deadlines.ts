/**
 * An agent type's deadlines: `timeout_ms` (the default `timeoutMs` of its calls, applied here when the call gives
 * none; the runtime applies a call's own) and `tool_timeout_ms` (a hard deadline on each tool call in the child).
 */
import type { AgentTool } from "@earendil-works/pi-agent-core";
import type { AgentSession } from "@earendil-works/pi-coding-agent";
import type { AgentTypeConfig } from "../agents/agent-types.ts";
import { WorkflowError } from "../errors.ts";

/** A signal that also fires at the type's `timeout_ms`; `clear()` ends its timer and listener. */
export interface TypeDeadline {
	signal: AbortSignal;
	/** True once the deadline (not the caller) stopped the child. */
	readonly fired: boolean;
	/** The cause a timed-out child fails with (as with a call's own `timeoutMs`, not as a stop someone asked for). */
	cause: string;
	clear(): void;
}

/** The type's deadline over `signal`, or undefined when the call has its own, the type none, or `signal` fired. */
export function typeDeadline(
	type: AgentTypeConfig,
	callTimeoutMs: number | undefined,
	signal: AbortSignal,
): TypeDeadline | undefined {
	const ms = type.timeoutMs;
	if (ms === undefined || callTimeoutMs !== undefined || signal.aborted) return undefined;
	const controller = new AbortController();
	const cause = `timed out after ${ms} ms (\`timeout_ms\` of agent type \`${type.name}\`)`;
	let fired = false;
	const timer = setTimeout(() => {
		fired = true;
		controller.abort(new WorkflowError("timed_out", `The agent call ${cause}`));
	}, ms);
	const onAbort = () => controller.abort(signal.reason);
	signal.addEventListener("abort", onAbort, { once: true });
	return {
		signal: controller.signal,
		get fired() {
			return fired;
		},
		cause,
		clear() {
			clearTimeout(timer);
			signal.removeEventListener("abort", onAbort);
		},
	};
}

/** A session's tool registry: pi keeps it private, and builds each turn's tools from it. */
type ToolRegistryHolder = { _toolRegistry?: Map<string, AgentTool> };

/**
 * Puts a hard deadline on every tool the child can call: past `ms` the tool's signal fires and the call ends with an
 * error result the model reads, whether or not the tool heeds the signal. pi rebuilds a turn's tools from the
 * session's (private) registry, so the registry's tools are wrapped, as well as the current ones.
 */
export function limitToolCalls(session: AgentSession, ms: number, agentType: string): void {
	const registry = (session as unknown as ToolRegistryHolder)._toolRegistry;
	if (registry instanceof Map) {
		for (const [name, tool] of registry) registry.set(name, withDeadline(tool, ms, agentType));
	}
	session.agent.state.tools = session.agent.state.tools.map(
		(tool) => registry?.get(tool.name) ?? withDeadline(tool, ms, agentType),
	);
}

function withDeadline(tool: AgentTool, ms: number, agentType: string): AgentTool {
	return {
		...tool,
		execute: (toolCallId, params, signal, onUpdate) => {
			const controller = new AbortController();
			const onAbort = () => controller.abort(signal?.reason);
			signal?.addEventListener("abort", onAbort, { once: true });
			let timer: ReturnType<typeof setTimeout> | undefined;
			const deadline = new Promise<never>((_resolve, reject) => {
				timer = setTimeout(() => {
					const message = `tool \`${tool.name}\` did not finish within ${ms} ms (\`tool_timeout_ms\` of agent type \`${agentType}\`) and was stopped`;
					controller.abort(new Error(message));
					reject(new Error(message));
				}, ms);
			});
			return Promise.race([tool.execute(toolCallId, params, controller.signal, onUpdate), deadline]).finally(() => {
				clearTimeout(timer);
				signal?.removeEventListener("abort", onAbort);
			});
		},
	};
}
