/** Census entries of the models and names a run used in place of others: fallbacks, and names read as others. */

/**
 * A name the script (or its agent file) wrote that the host read as another: a Claude Code model name (`opus`), a
 * model tier (`small`), a plugin-scoped agent type (`plugin:reviewer`). Kept in the run's census, so a person sees
 * what ran.
 */
export interface WorkflowNameMatch {
	kind: "model" | "tier" | "agent";
	/** What was written. */
	written: string;
	/** What it was taken as: `provider/id` of a model, or an agent type's name. */
	resolved: string;
	/** Why, in a few words ("the newest opus model pi has", "workflows.modelTiers"). */
	how: string;
	/** Calls that used this match; in a runner's result, 1. */
	calls: number;
}

/** An `agent()` call a fallback model answered because the model before it met a provider limit. */
export interface WorkflowFallback {
	/** The call's index and key, as in its events. */
	index: number;
	key: string;
	label: string;
	agentType: string;
	phase?: string;
	/** The model that answered. */
	model: string;
	/** The models that met a limit first, in order. */
	limited: string[];
}
