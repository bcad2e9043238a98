/**
 * `workflow({ …, dryRun: true })`: the script run with no model (made-up answers, the session's read-only tools
 * run, its `bash` in a read-only sandbox where the machine has one, the others fenced, questions answered with their defaults), nothing recorded, no child session opened; the
 * model gets the plan's text and the estimate after it, fenced as data (per phase and in all, with its basis: this workflow's
 * earlier runs, the project's, or the model's catalog price), and the details keep the plan's data and the estimate.
 */
import type { AgentToolResult, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { type AgentTypeConfig, listAvailableAgentTypes, loadAgentTypes, sessionTrust } from "../agents/agent-types.ts";
import { catalogPrice, type ModelTiers } from "../children/model.ts";
import { WorkflowError } from "../errors.ts";
import { estimateDryPlan, type PlannedRunEstimate, planWithEstimateText } from "../host/run-estimate.ts";
import { createWorkflowResolver, piProjectTrusted, resolveScriptSource } from "../host/script-source.ts";
import { DATA_FENCE_NOTE, dataFence } from "../progress/model-text.ts";
import type { JsonValue, WorkflowParentConversation, WorkflowTool } from "../runtime/core/types.ts";
import {
	dryRunPlanText,
	dryRunWorkflowScript,
	type WorkflowDryRunOptions,
	type WorkflowDryRunPlan,
} from "../runtime/index.ts";

/** The details of a dry run: its plan, and its estimate when the run store could be read. */
export interface WorkflowDryRunDetails {
	dryRun: WorkflowDryRunPlan;
	estimate?: PlannedRunEstimate;
}

/** What a dry run takes from the call and the session. */
export interface DryRunCall {
	params: {
		script?: string;
		path?: string;
		name?: string;
		args?: unknown;
		answers?: unknown;
		timeoutMs?: number;
		maxCostUsd?: number;
	};
	ctx: ExtensionContext;
	agentDir: string;
	/** Where run records live: the estimate's history. */
	runsRoot: string;
	/** The session's tools for `tool()`: the read-only ones run, the rest are fenced. */
	scriptTools?: Record<string, WorkflowTool>;
	/** The session's model for workflow children, when set. */
	childModel?: string;
	/** The session's model tiers (`workflows.modelTiers`, `--workflow-model-tiers`), when set. */
	modelTiers?: ModelTiers;
	/** The cap a real run would have (`maxCostUsd`, else the session's default): the estimate says when it is over. */
	capUsd?: number;
	/** The session's conversation forked children would start from: the estimate counts what each reads. */
	parentConversation?: WorkflowParentConversation;
}

export async function dryRunOnly(call: DryRunCall): Promise<AgentToolResult<WorkflowDryRunDetails>> {
	const { params, ctx, agentDir } = call;
	const script = resolveScriptSource(params, { cwd: ctx.cwd, agentDir, projectTrusted: piProjectTrusted(ctx) });
	const types = loadAgentTypes({ cwd: ctx.cwd, agentDir, trust: sessionTrust(ctx) });
	const { plan } = await dryRunWorkflowScript(script.source, {
		...sessionDryOptions(ctx, {
			agentDir,
			types: types.types,
			...(call.childModel ? { childModel: call.childModel } : {}),
			...(call.scriptTools ? { scriptTools: call.scriptTools } : {}),
			...(call.modelTiers ? { modelTiers: call.modelTiers } : {}),
		}),
		filename: script.filename,
		...(params.args !== undefined ? { args: params.args as JsonValue } : {}),
		...(params.answers !== undefined ? { answers: checkAnswers(params.answers) } : {}),
		...(params.timeoutMs !== undefined ? { timeoutMs: params.timeoutMs } : {}),
		...(call.parentConversation ? { parentConversation: call.parentConversation } : {}),
	});
	const capUsd = params.maxCostUsd ?? call.capUsd;
	// An unreadable run store leaves the plan without its estimate, not the call without its plan.
	const estimate = await estimateDryPlan(plan, {
		cwd: ctx.cwd,
		runsRoot: call.runsRoot,
		priceOf: (model) => catalogPrice(ctx.modelRegistry, model),
		...(capUsd !== undefined ? { capUsd } : {}),
	}).catch(() => undefined);
	return {
		content: [{ type: "text", text: dryRunModelText(plan, estimate) }],
		details: { dryRun: plan, ...(estimate ? { estimate } : {}) },
	};
}

/**
 * The plan and its estimate as the model reads them: in one data fence, frame markup escaped, as a real run's result
 * fences what children and the script wrote. Phase names, labels, questions, warnings and the error are the
 * script's words all through the plan (and the estimate's per-phase lines), so the whole of it is data.
 */
function dryRunModelText(plan: WorkflowDryRunPlan, estimate: PlannedRunEstimate | undefined): string {
	const fenced = dataFence(
		"the dry run's plan: its phase names, labels, questions, warnings and error are the script's",
		planWithEstimateText(dryRunPlanText(plan), estimate),
	);
	return `Dry run ${plan.status}: its plan${estimate ? " and estimate" : ""} below.\n\n${DATA_FENCE_NOTE}\n\n${fenced}`;
}

/** What a session's dry run takes from the session beside its context. */
export interface SessionDryInput {
	agentDir: string;
	types: ReadonlyMap<string, AgentTypeConfig>;
	/** The session's model for workflow children, when set. */
	childModel?: string;
	scriptTools?: Record<string, WorkflowTool>;
	/** The session's model tiers: a call's `tier` is planned (and priced) as the model they name for it. */
	modelTiers?: ModelTiers;
}

/**
 * A dry run's options in a session: its agent types, the model each call would run on (agent file, call, its tier
 * through the session's tiers, `meta.model`, the session's child model, the session's model), its tools.
 */
export function sessionDryOptions(ctx: ExtensionContext, input: SessionDryInput): WorkflowDryRunOptions {
	const { types, childModel, scriptTools, modelTiers } = input;
	const fallback = childModel ?? (ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : undefined);
	// A tier nobody set stays `tier x`: unpriced here, and the real run says where to set it.
	const tierModel = (tier: string) =>
		(modelTiers && Object.hasOwn(modelTiers.tiers, tier) ? modelTiers.tiers[tier] : undefined) ?? `tier ${tier}`;
	return {
		cwd: ctx.cwd,
		agentTypes: listAvailableAgentTypes(types),
		resolveWorkflow: createWorkflowResolver({ agentDir: input.agentDir }),
		sandboxedBash: true,
		modelOf: (request) =>
			types.get(request.agentType)?.model ??
			request.model ??
			(request.tier !== undefined ? tierModel(request.tier) : (request.defaultModel ?? fallback)),
		...(scriptTools ? { tools: scriptTools } : {}),
	};
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
