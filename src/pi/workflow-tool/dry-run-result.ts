/**
 * `workflow({ …, dryRun: true })`: the script run with no model (made-up answers, the session's read-only tools
 * run, the others fenced, questions answered with their defaults), nothing recorded, no child session opened; the
 * model gets the plan's text and the details keep the plan's data.
 */
import type { AgentToolResult, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { listAvailableAgentTypes, loadAgentTypes, sessionTrust } from "../../agents/agent-types.ts";
import { WorkflowError } from "../../errors.ts";
import { createWorkflowResolver, resolveScriptSource } from "../../host/script-source.ts";
import type { JsonValue, WorkflowTool } from "../../runtime/core/types.ts";
import { dryRunPlanText, dryRunWorkflowScript, type WorkflowDryRunPlan } from "../../runtime/index.ts";

/** The details of a dry run: its plan. */
export interface WorkflowDryRunDetails {
	dryRun: WorkflowDryRunPlan;
}

/** What a dry run takes from the call and the session. */
export interface DryRunCall {
	params: { script?: string; path?: string; name?: string; args?: unknown; answers?: unknown; timeoutMs?: number };
	ctx: ExtensionContext;
	agentDir: string;
	/** The session's tools for `tool()`: the read-only ones run, the rest are fenced. */
	scriptTools?: Record<string, WorkflowTool>;
	/** The session's model for workflow children, when set. */
	childModel?: string;
}

export async function dryRunOnly(call: DryRunCall): Promise<AgentToolResult<WorkflowDryRunDetails>> {
	const { params, ctx, agentDir } = call;
	const script = resolveScriptSource(params, { cwd: ctx.cwd, agentDir });
	const types = loadAgentTypes({ cwd: ctx.cwd, agentDir, trust: sessionTrust(ctx) });
	const fallback = call.childModel ?? (ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : undefined);
	const { plan } = await dryRunWorkflowScript(script.source, {
		filename: script.filename,
		cwd: ctx.cwd,
		agentTypes: listAvailableAgentTypes(types.types),
		resolveWorkflow: createWorkflowResolver({ agentDir }),
		modelOf: (request) =>
			types.types.get(request.agentType)?.model ??
			request.model ??
			(request.tier !== undefined ? `tier ${request.tier}` : (request.defaultModel ?? fallback)),
		...(call.scriptTools ? { tools: call.scriptTools } : {}),
		...(params.args !== undefined ? { args: params.args as JsonValue } : {}),
		...(params.answers !== undefined ? { answers: checkAnswers(params.answers) } : {}),
		...(params.timeoutMs !== undefined ? { timeoutMs: params.timeoutMs } : {}),
	});
	return { content: [{ type: "text", text: dryRunPlanText(plan) }], details: { dryRun: plan } };
}

function checkAnswers(value: unknown): Record<string, string> | string[] {
	const isText = (answer: unknown) => typeof answer === "string";
	const ok = Array.isArray(value)
		? value.every(isText)
		: value !== null && typeof value === "object" && Object.values(value).every(isText);
	if (!ok) {
		throw new WorkflowError(
			"ask_answer_invalid",
			"`answers` must be an object of question → answer, or an array of answers in the order the script asks; every answer a string",
		);
	}
	return value as Record<string, string> | string[];
}
