/**
 * Before a new run with a cap starts its first child: its estimate, from a dry run of the same script and args (no
 * model, nothing recorded, the run's own timeout). Over the cap, the model reads a warning in the call's result and
 * a person at pi's TUI is asked whether to start anyway; declining ends the call with nothing spent. No cap, no dry
 * run: a run without one pays nothing for this.
 *
 * A saved workflow may hold a dollar ceiling granted to its text (src/host/grants.ts): a run estimated over its cap
 * but within the ceiling takes the ceiling as its cap without asking. A yes to start one over the cap grants the
 * run's cap as the ceiling, and the cap raises the person makes in that run raise it; a changed byte asks again,
 * with the diff. Inline scripts have no grants: they are asked every time.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { AgentTypeConfig } from "../agents/agent-types.ts";
import { catalogPrice, type ModelTiers } from "../children/model.ts";
import { WorkflowError } from "../errors.ts";
import type { CostCapAsk } from "../host/cost-cap.ts";
import type { DurableSource } from "../host/durable-run.ts";
import type { WorkflowGrants } from "../host/grants.ts";
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
	/** The saved workflow's grants (its dollar ceiling); absent for an inline script. */
	grants?: WorkflowGrants;
}

/** The estimate, and what the call's result says about it (empty when it fits the cap). */
export interface EstimateFirst {
	planned?: PlannedRunEstimate;
	note: string;
	/** The run's cap when a granted ceiling is it (above the cap it was given). */
	capUsd?: number;
	/** The grants whose ceiling follows the run's cap raises: the ceiling is the run's cap, granted or granted now. */
	ceilingOf?: WorkflowGrants;
}

/** The estimate before the run; throws `cost_cap` when a person declines to start a run estimated over its cap. */
export async function estimateFirst(input: EstimateFirstInput): Promise<EstimateFirst> {
	const { ctx, source, grants } = input;
	const ceiling = grants?.ceiling();
	const raised = ceiling !== undefined && ceiling > input.capUsd;
	const capUsd = raised ? ceiling : input.capUsd;
	const granted = raised && grants ? { capUsd, ceilingOf: grants } : {};
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
	const note = found.note ? `\nNote: ${found.note}.` : "";
	// No estimate, nothing known to fit a ceiling: the cap given holds.
	if (!planned) return { note };
	if (!planned.overCap) {
		const under =
			raised && grants ? `\nNote: capped at ${usdText(capUsd)}, the ceiling granted to ${grants.describe()}.` : "";
		return { planned, note: note + under, ...granted };
	}
	const warning = `\nWarning: before it started, ${planned.overCap} (${planned.text.split("\n").at(-1)}). It stops at the cap.`;
	if (ctx.hasUI) {
		const start = await visibleUi(ctx.ui).confirm(
			`Workflow: ${planned.overCap}`,
			`${planned.text}\n\nStart anyway? The run stops at the cap ${usdText(capUsd)} and asks for a higher one.${grants ? ceilingOffer(grants, capUsd, raised) : ""}`,
		);
		if (start && grants) {
			grants.grantCeiling(capUsd);
			return { planned, note: warning, capUsd, ceilingOf: grants };
		}
		if (!start) {
			throw new WorkflowError(
				"cost_cap",
				`Not started: ${planned.overCap}, and the person declined to start it. Nothing was spent. Give a higher maxCostUsd to run it, or a smaller job (fewer items, a cheaper model).`,
			);
		}
	}
	return { planned, note: warning, ...granted };
}

/** What a yes grants a saved workflow, after what changed since an earlier version was granted. */
function ceilingOffer(grants: WorkflowGrants, capUsd: number, isCeiling: boolean): string {
	const now = isCeiling
		? `is estimated over the dollar ceiling granted to this version (the cap above). `
		: `has no dollar ceiling granted to this version. ${grants.changeNote()}`;
	return `\n\n${capital(grants.describe())} ${now}Yes also grants it ${usdText(capUsd)}, raised with the cap in this run (kept in ${grants.file}): its later runs estimated within it take it as their cap without asking, and any change to the file asks again.`;
}

/** `ask` with every raise the person makes also kept as the ceiling granted to the workflow's text. */
export function raisesGrantCeiling(grants: WorkflowGrants, ask: CostCapAsk): CostCapAsk {
	return async (info) => {
		const cap = await ask(info);
		if (typeof cap === "number" && Number.isFinite(cap) && cap > info.spentUsd) grants.grantCeiling(cap);
		return cap;
	};
}

function capital(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}
