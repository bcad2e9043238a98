/**
 * A child's fallback models: when its model meets a provider limit before the child did any tool work, the child
 * starts again on the next model (a fresh session each) instead of waiting. After tool work it does not: a fresh
 * session would redo that work, so the limit goes to the run's queue to wait out.
 */
import type { Api, Model } from "@earendil-works/pi-ai";
import { addCost } from "../../runtime/spend/cost.ts";
import type {
	WorkflowAgentResult,
	WorkflowCost,
	WorkflowProviderLimit,
	WorkflowTokenUsage,
} from "../../runtime/types.ts";
import type { ThinkingLevel } from "../agents/agent-types.ts";
import type { ChildActivity } from "./activity.ts";
import type { ChildModelChoice } from "./model.ts";

/** What `runOnModels` needs. */
export interface RunOnModelsInput {
	choice: ChildModelChoice;
	/** The child's live state: it counts tool uses across the sessions and says when a model is left behind. */
	activity: ChildActivity;
	/** The fields every result of the child shares; a note per fallback goes into its warnings. */
	base: Pick<WorkflowAgentResult, "id" | "type"> & { warnings: string[] };
	signal: AbortSignal;
	/** Runs one session of the child on `model` (the `index`th of the list, 0 for the child's own). */
	run(model: Model<Api>, thinking: ThinkingLevel | undefined, index: number): Promise<WorkflowAgentResult>;
}

/**
 * The child on its model, then on each fallback in turn while the last one met a provider limit before any tool
 * work. The result says which model ran last (`model`) and which met a limit first (`fallbackFrom`); its usage is
 * every session's, and so is its cost. When every model was limited it carries the first model's limit: the run's next try starts
 * from that model again.
 */
export async function runOnModels(input: RunOnModelsInput): Promise<WorkflowAgentResult> {
	const { choice, activity, base } = input;
	const models = [{ model: choice.model, thinking: choice.thinking }, ...(choice.fallbacks ?? [])];
	const limited: string[] = [];
	let usage: WorkflowTokenUsage | undefined;
	let cost: WorkflowCost | undefined;
	let firstLimit: WorkflowProviderLimit | undefined;
	let result: WorkflowAgentResult | undefined;
	let name = "";
	for (const [index, { model, thinking }] of models.entries()) {
		name = nameOf(model);
		result = await input.run(model, thinking, index);
		usage = addUsage(usage, result.usage);
		cost = addCost(cost, result.cost);
		firstLimit ??= result.providerLimit;
		const next = models[index + 1];
		if (!result.providerLimit || !next || activity.toolUses > 0 || input.signal.aborted) break;
		limited.push(name);
		activity.fallback(name);
		base.warnings.push(
			`\`${name}\` met a provider limit (${result.providerLimit.kind}) before any tool work; \`${nameOf(next.model)}\` took over`,
		);
	}
	const last = result ?? { ...base, status: "failed", error: "no model" };
	return {
		...last,
		...(usage ? { usage } : {}),
		...(cost ? { cost } : {}),
		...(last.providerLimit && firstLimit ? { providerLimit: firstLimit } : {}),
		model: name,
		...(limited.length > 0 ? { fallbackFrom: limited } : {}),
	};
}

function nameOf(model: Model<Api>): string {
	return `${model.provider}/${model.id}`;
}

function addUsage(
	a: WorkflowTokenUsage | undefined,
	b: WorkflowTokenUsage | undefined,
): WorkflowTokenUsage | undefined {
	if (!b) return a;
	return { input: (a?.input ?? 0) + b.input, output: (a?.output ?? 0) + b.output, total: (a?.total ?? 0) + b.total };
}
