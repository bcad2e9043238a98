/**
 * Which model and thinking level a child runs with, and how an extension reaches the parent session's model
 * runtime (its providers and credentials) so children share them.
 */
import type { Api, Model } from "@earendil-works/pi-ai";
import { type ModelRegistry, ModelRuntime, resolveCliModel } from "@earendil-works/pi-coding-agent";
import { WorkflowError } from "../../errors.ts";
import type { WorkflowAgentRequest } from "../../runtime/types.ts";
import { type AgentTypeConfig, isThinkingLevel, THINKING_LEVELS, type ThinkingLevel } from "../agents/agent-types.ts";

/** The model a child runs with; `thinking` undefined lets pi pick its default for the model. */
export interface ChildModelChoice {
	model: Model<Api>;
	thinking?: ThinkingLevel;
	/** Models to move to, in order, when `model` meets a provider limit before the child did any tool work. */
	fallbacks?: { model: Model<Api>; thinking?: ThinkingLevel }[];
	/** Things the person should know, e.g. pi used a model id it does not list. */
	warnings: string[];
}

/** Inputs of `chooseChildModel`. */
export interface ChooseChildModelInput {
	type: AgentTypeConfig;
	request: Pick<WorkflowAgentRequest, "model" | "thinking" | "defaultModel" | "fallbackModels">;
	modelRuntime: ModelRuntime;
	/**
	 * Used when neither the agent file, the call nor the script (`meta.model`) names one: the session's model for
	 * workflow children (`--workflow-child-model`, `workflows.childModel`), else the parent session's.
	 */
	defaultModel?: Model<Api>;
	/** The parent session's thinking level. */
	defaultThinking?: ThinkingLevel;
}

/**
 * The agent file wins; the call's `model`/`thinking` fill what it leaves open; then the script's `meta.model`;
 * then the runner's default. Returns undefined when there is no model at all. Throws `agent_options_invalid` for a
 * model reference pi cannot resolve or a thinking level it does not know.
 */
export function chooseChildModel(input: ChooseChildModelInput): ChildModelChoice | undefined {
	const { type, request } = input;
	const warnings: string[] = [];
	if (request.thinking !== undefined && !isThinkingLevel(request.thinking)) {
		throw new WorkflowError(
			"agent_options_invalid",
			`\`agent()\` option \`thinking\` must be one of ${THINKING_LEVELS.join(", ")}, got "${request.thinking}"`,
		);
	}
	const fromFile = type.model ? resolveModel(type.model, input.modelRuntime, fileSubject(type)) : undefined;
	const fromCall =
		!fromFile && request.model
			? resolveModel(request.model, input.modelRuntime, "`agent()` option `model`")
			: undefined;
	const fromScript =
		!fromFile && !fromCall && request.defaultModel
			? resolveModel(request.defaultModel, input.modelRuntime, "The script's `meta.model`")
			: undefined;
	const chosen = fromFile ?? fromCall ?? fromScript;
	if (chosen?.warning) warnings.push(chosen.warning);
	const model = chosen?.model ?? input.defaultModel;
	if (!model) return undefined;
	const thinking =
		type.thinking ??
		fromFile?.thinking ??
		(request.thinking as ThinkingLevel | undefined) ??
		fromCall?.thinking ??
		fromScript?.thinking ??
		input.defaultThinking;
	const fallbacks = chooseFallbacks(input, model, thinking, warnings);
	return {
		model,
		...(thinking !== undefined ? { thinking } : {}),
		...(fallbacks.length > 0 ? { fallbacks } : {}),
		warnings,
	};
}

/**
 * The agent file's `fallback_models`, else the call's `fallbackModels`, resolved as models are (an unknown one is
 * `agent_options_invalid`); each keeps its own `:thinking`, else the child's. The child's own model is left out.
 */
function chooseFallbacks(
	input: ChooseChildModelInput,
	model: Model<Api>,
	thinking: ThinkingLevel | undefined,
	warnings: string[],
): NonNullable<ChildModelChoice["fallbacks"]> {
	const { type, request } = input;
	const fromFile = type.fallbackModels !== undefined;
	const references = type.fallbackModels ?? request.fallbackModels ?? [];
	const subject = fromFile ? `${fileSubject(type)} \`fallback_models\`` : "`agent()` option `fallbackModels`";
	const seen = new Set([`${model.provider}/${model.id}`]);
	const fallbacks: NonNullable<ChildModelChoice["fallbacks"]> = [];
	for (const reference of references) {
		const resolved = resolveModel(reference, input.modelRuntime, subject);
		if (resolved.warning) warnings.push(resolved.warning);
		const name = `${resolved.model.provider}/${resolved.model.id}`;
		if (seen.has(name)) continue;
		seen.add(name);
		const level = resolved.thinking ?? thinking;
		fallbacks.push(level === undefined ? { model: resolved.model } : { model: resolved.model, thinking: level });
	}
	return fallbacks;
}

/**
 * The parent session's `ModelRuntime`, from the `ctx.modelRegistry` an extension receives. pi 1.6 keeps it in the
 * registry's private `runtime` field; when that is not there (a later pi), a fresh runtime reads the same
 * `auth.json`/`models.json` and gets the providers extensions registered, which loses only `--api-key` overrides.
 */
export async function parentModelRuntime(
	registry: ModelRegistry,
	options: { agentDir: string },
): Promise<ModelRuntime> {
	// Reading a private field on purpose: it is the only way to share the parent's exact auth (see above).
	const inner = (registry as unknown as { runtime?: unknown }).runtime;
	if (inner instanceof ModelRuntime) return inner;
	const runtime = await ModelRuntime.create({
		authPath: `${options.agentDir}/auth.json`,
		modelsPath: `${options.agentDir}/models.json`,
	});
	for (const id of registry.getRegisteredProviderIds()) {
		const native = registry.getRegisteredNativeProvider(id);
		if (native) runtime.registerNativeProvider(native);
		else {
			const config = registry.getRegisteredProviderConfig(id);
			if (config) runtime.registerProvider(id, config);
		}
	}
	return runtime;
}

/** A model reference pi resolved. */
export interface ResolvedReference {
	model: Model<Api>;
	thinking?: ThinkingLevel;
	warning?: string;
}

/**
 * Resolves `provider/id[:thinking]` (or a fuzzy name) as pi's `--model` does; throws `agent_options_invalid` naming
 * `subject` when pi cannot.
 */
export function resolveModel(reference: string, modelRuntime: ModelRuntime, subject: string): ResolvedReference {
	const resolved = resolveCliModel({ cliModel: reference, modelRuntime });
	if (!resolved.model) {
		// pi's message is written for its command line ("Use --list-models"); keep only the first sentence.
		const reason = (resolved.error ?? "no such model").split(". ")[0].replace(/\.$/, "");
		throw new WorkflowError(
			"agent_options_invalid",
			`${subject} names model \`${reference}\`, which pi cannot resolve: ${reason}. Use \`provider/id\` of a model \`pi --list-models\` shows`,
			{ details: { model: reference } },
		);
	}
	const result: ResolvedReference = { model: resolved.model };
	if (resolved.thinkingLevel && isThinkingLevel(resolved.thinkingLevel)) result.thinking = resolved.thinkingLevel;
	if (resolved.warning) result.warning = `${subject}: ${resolved.warning}`;
	return result;
}

function fileSubject(type: AgentTypeConfig): string {
	return type.path ? `Agent type \`${type.name}\` (${type.path})` : `Agent type \`${type.name}\``;
}
