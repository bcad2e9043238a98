/**
 * pi-workflows/pi: everything that needs pi. The default export is the pi extension (the `workflow` tool,
 * `workflow_runs`, `/workflows`); the named exports are the pi-backed runner, the pi widget/status controller and
 * agent-type loading, for hosts and extensions that compose their own. The pi-free host API is `pi-workflows`.
 */

/** Who a run's children speak for: the provenance frame's input (`PiAgentRunnerOptions.provenance`). */
export type { PersonProvenance, RunProvenance, ScriptProvenance } from "./children/frame.ts";
/** A model's catalog price (dollars per million tokens) from a pi model registry: what estimates price with. */
export { catalogPrice } from "./children/model.ts";
/**
 * Evals with your runner (docs/host-api.md, "Evals"): here rather than in the core entry, since a durable run's types
 * reach pi's. `exitCodeOf` is the command's verdict.
 */
export {
	type EvaluateWorkflowsOptions,
	evaluateWorkflows,
} from "./eval/evaluate-workflows.ts";
export { type EvalScorecard, exitCodeOf } from "./eval/scorecard.ts";
export type {
	AgentTypeConfig,
	ChildAction,
	ChildControl,
	LoadAgentTypesOptions,
	LoadAgentTypesResult,
	ModelTiers,
	PiAgentRunnerHooks,
	PiAgentRunnerOptions,
	SessionTools,
	WorkflowToolOptions,
	WorktreePlace,
	WorktreePlaceSource,
} from "./pi/extension.ts";
export {
	builtInTools,
	ChildControls,
	createPiAgentRunner,
	createWorkflowTool,
	default,
	listAvailableAgentTypes,
	loadAgentTypes,
	readModelTiers,
	scriptToolsOf,
	sessionToolsOf,
} from "./pi/extension.ts";
export type {
	WorkflowProgressUi,
	WorkflowProgressUiContext,
	WorkflowProgressUiOptions,
} from "./progress/ui.ts";
export { createWorkflowProgressUi } from "./progress/ui.ts";
