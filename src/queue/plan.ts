/**
 * What the host decides for a child on the queue before it is queued (the part of src/pi/children/plan.ts that
 * needs the host's files): its agent type, resolved from the host's agent files and sent whole, the tools a call
 * names checked, and the session's defaults. The worker runs that plan on its own pi: models are resolved there.
 */
import { type AgentTypeConfig, checkCallTools, resolveAgentType } from "../agents/agent-types.ts";
import type { RunProvenance } from "../children/frame.ts";
import { WorkflowError } from "../errors.ts";
import { labelProblem } from "../runtime/core/placement.ts";
import type { WorkflowAgentRequest } from "../runtime/core/types.ts";
import type { QueueChildPlan } from "./protocol.ts";

/** What the planner reads. */
export interface QueuePlanOptions {
	/** The host's agent types by name. Required. */
	agentTypes: ReadonlyMap<string, AgentTypeConfig>;
	/** `provider/id` of the session's (or `--model`'s) model for children. Default: none (the type or call must name one). */
	defaultModel?: string;
	/** Default: none (the model's). */
	defaultThinking?: string;
	/** The stall watchdog's default. Default: the worker's (5 min). */
	stallMs?: number;
	/** Names of the parent session's tools, which a remote child cannot use. Default: none. */
	sessionTools?: readonly string[];
	/** Whether the host trusts the project (`LoadAgentTypesResult.projectTrusted`). Default: false. */
	projectTrusted?: boolean;
	/** Who the run's children speak for: the worker frames each child with it (children/frame.ts). Default: no frame. */
	provenance?: RunProvenance;
}

/** A `prepare` for `QueueHost.runner`: throws the author's mistakes (unknown type or tool) before a job exists. */
export function queuePlanner(options: QueuePlanOptions): (request: WorkflowAgentRequest) => QueueChildPlan {
	return (request) => {
		const type = resolveAgentType(options.agentTypes, request.agentType);
		const session = options.sessionTools ?? [];
		const { ownExtensions } = checkCallTools(type, request.tools, session);
		const warnings: string[] = [];
		const wanted = request.tools ?? type.tools;
		const lent = type.allSessionTools && !request.tools ? session : session.filter((name) => wanted.includes(name));
		if (lent.length > 0) {
			warnings.push(
				`the parent session's tools (${lent.join(", ")}) cannot reach a child on a worker machine: it ran without them`,
			);
		}
		if (ownExtensions) {
			warnings.push(
				`agent type \`${type.name}\` loads its extensions from the worker machine's paths (${[...(type.extensions ?? []), ...(type.subagentOnlyExtensions ?? [])].join(", ")})`,
			);
		}
		const placement = typePlacement(type);
		return {
			agentType: JSON.parse(JSON.stringify(type)) as QueueChildPlan["agentType"],
			...(placement ? { placement } : {}),
			...(options.defaultModel ? { defaultModel: options.defaultModel } : {}),
			...(options.defaultThinking ? { defaultThinking: options.defaultThinking } : {}),
			...(options.stallMs !== undefined ? { stallMs: options.stallMs } : {}),
			...(warnings.length > 0 ? { warnings } : {}),
			...(options.projectTrusted ? { projectTrusted: true } : {}),
			...(options.provenance ? { provenance: options.provenance } : {}),
		};
	};
}

/** The agent file's `placement:`, its labels checked by the rule the call's are (an author error names the file). */
function typePlacement(type: AgentTypeConfig): AgentTypeConfig["placement"] {
	const placement = type.placement;
	if (!placement) return undefined;
	for (const name of ["labels", "prefer"] as const) {
		const problem = (placement[name] ?? []).map(labelProblem).find((found) => found !== undefined);
		if (problem !== undefined) {
			throw new WorkflowError(
				"agent_options_invalid",
				`Agent type \`${type.name}\`${type.path ? ` (${type.path})` : ""}: \`placement.${name}\` must be a list of labels: ${problem}. Fix the agent file`,
				{ details: { agentType: type.name, field: "placement" } },
			);
		}
	}
	return placement;
}
