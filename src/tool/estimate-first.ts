/**
 * Before a new run with a cap starts its first child: its estimate, from a dry run of the same script and args (no
 * model, nothing recorded, the run's own timeout). Over the cap, the model reads a warning in the call's result and
 * a person at pi's TUI is asked whether to start anyway; declining ends the call with nothing spent. No cap, no dry
 * run: a run without one pays nothing for this.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { AgentTypeConfig } from "../agents/agent-types.ts";
import { catalogPrice, type ModelTiers } from "../children/model.ts";
import { WorkflowError } from "../errors.ts";
import type { DurableSource } from "../host/durable-run.ts";
import { estimateBeforeRun, type PlannedRunEstimate } from "../host/run-estimate.ts";
import { visibleUi } from "../pi/runs/visible-ui.ts";
import type { WorkflowParentConversation, WorkflowTool } from "../runtime/core/types.ts";
import { usdText } from "../runtime/index.ts";
import { sessionDryOptions } from "./dry-run-result.ts";

/** What the estimate before a run takes. */
export interface EstimateFirstInput {
	ctx: ExtensionContext;
	source: DurableSource;
	capUsd: number;
	agentDir: string;
	runsRoot: string;
	types: ReadonlyMap<string, AgentTypeConfig>;
	childModel?: string;
	scriptTools?: Record<string, WorkflowTool>;
	/** The session's model tiers: a call's `tier` is estimated as the model they name. */
	modelTiers?: ModelTiers;
	timeoutMs?: number;
	/** The conversation forked children would start from, so the dry run forks as the run will. */
	parentConversation?: WorkflowParentConversation;
}

/** The estimate, and what the call's result says about it (empty when it fits the cap). */
export interface EstimateFirst {
	planned?: PlannedRunEstimate;
	note: string;
}

/** The estimate before the run; throws `cost_cap` when a person declines to start a run estimated over its cap. */
export async function estimateFirst(input: EstimateFirstInput): Promise<EstimateFirst> {
	const { ctx, source, capUsd } = input;
	const found = await estimateBeforeRun(
		source.script,
		{
			...sessionDryOptions(ctx, input),
			filename: source.filename,
			...(source.args !== undefined ? { args: source.args } : {}),
			...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
			...(input.parentConversation ? { parentConversation: input.parentConversation } : {}),
		},
		{
			cwd: ctx.cwd,
			runsRoot: input.runsRoot,
			capUsd,
			priceOf: (model) => catalogPrice(ctx.modelRegistry, model),
		},
	);
	const { planned } = found;
	if (!planned?.overCap) return { ...(planned ? { planned } : {}), note: found.note ? `\nNote: ${found.note}.` : "" };
	if (ctx.hasUI) {
		const start = await visibleUi(ctx.ui).confirm(
			`Workflow: ${planned.overCap}`,
			`${planned.text}\n\nStart anyway? The run stops at the cap ${usdText(capUsd)} and asks for a higher one.`,
		);
		if (!start) {
			throw new WorkflowError(
				"cost_cap",
				`Not started: ${planned.overCap}, and the person declined to start it. Nothing was spent. Give a higher maxCostUsd to run it, or a smaller job (fewer items, a cheaper model).`,
			);
		}
	}
	return {
		planned,
		note: `\nWarning: before it started, ${planned.overCap} (${planned.text.split("\n").at(-1)}). It stops at the cap.`,
	};
}
