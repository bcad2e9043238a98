/**
 * Which model and thinking level a child runs with, and how an extension reaches the parent session's model
 * runtime (its providers and credentials) so children share them.
 */
import type { Api, Model } from "@earendil-works/pi-ai";
import { type ModelRegistry, ModelRuntime, resolveCliModel } from "@earendil-works/pi-coding-agent";
import { type AgentTypeConfig, isThinkingLevel, THINKING_LEVELS, type ThinkingLevel } from "../agents/agent-types.ts";
import { WorkflowError } from "../errors.ts";
import type { WorkflowAgentRequest, WorkflowNameMatch } from "../runtime/core/types.ts";
import { claudeName, INHERIT_NAMES, matchClaudeModel, modelsTheUserHas } from "./claude-models.ts";

/** A name the runner read as a model, for the census (`calls` is the runtime's to count). */
export type ModelMatch = Omit<WorkflowNameMatch, "calls">;

/** Model tiers a person set once (`workflows.modelTiers`, `--workflow-model-tiers`): tier name → model reference. */
export interface ModelTiers {
	tiers: Readonly<Record<string, string>>;
	/** Where they were set, for messages: "The `workflows.modelTiers` setting". */
	source: string;
}

/** Where a person sets model tiers, for the error when a script names one and none is set. */
export const MODEL_TIERS_HELP =
	'Set them once in pi\'s settings (~/.pi/agent/settings.json or .pi/settings.json): `"workflows": { "modelTiers": { "small": "provider/id", "medium": "provider/id", "big": "provider/id" } }`, or for one session with `--workflow-model-tiers small=provider/id,big=provider/id` (`--model-tiers` for pi-workflows run)';

/** The model a child runs with; `thinking` undefined lets pi pick its default for the model. */
export interface ChildModelChoice {
	model: Model<Api>;
	thinking?: ThinkingLevel;
	/** Models to move to, in order, when `model` meets a provider limit before the child did any tool work. */
	fallbacks?: { model: Model<Api>; thinking?: ThinkingLevel }[];
	/** Things the person should know, e.g. pi used a model id it does not list. */
	warnings: string[];
	/** Names read as models (a Claude Code name, a tier, `inherit`), for the census; absent when none. */
	matches?: ModelMatch[];
}

/** Inputs of `chooseChildModel`. */
export interface ChooseChildModelInput {
	type: AgentTypeConfig;
	request: Pick<WorkflowAgentRequest, "model" | "thinking" | "defaultModel" | "fallbackModels" | "tier">;
	modelRuntime: ModelRuntime;
	/**
	 * Used when neither the agent file, the call nor the script (`meta.model`) names one: the session's model for
	 * workflow children (`--workflow-child-model`, `workflows.childModel`), else the parent session's.
	 */
	defaultModel?: Model<Api>;
	/** The parent session's thinking level. */
	defaultThinking?: ThinkingLevel;
	/** The tiers `agent()` option `tier` names. Default: none (a tier is an error that says where to set them). */
	modelTiers?: ModelTiers;
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
	const matches: ModelMatch[] = [];
	// Claude Code's `inherit` is what an unnamed model is here: the session's.
	const named = (reference: string | undefined) => {
		if (reference === undefined || !INHERIT_NAMES.includes(reference.trim().toLowerCase())) return reference;
		if (input.defaultModel) {
			const { provider, id } = input.defaultModel;
			matches.push({ kind: "model", written: reference, resolved: `${provider}/${id}`, how: "the session's model" });
		}
		return undefined;
	};
	const fileModel = named(type.model);
	const callModel = named(request.model);
	const scriptModel = named(request.defaultModel);
	const fromFile = fileModel ? resolveModel(fileModel, input.modelRuntime, fileSubject(type)) : undefined;
	const fromCall =
		fromFile === undefined && callModel
			? resolveModel(callModel, input.modelRuntime, "`agent()` option `model`")
			: fromFile === undefined && request.tier
				? resolveTier(request.tier, input, matches)
				: undefined;
	const fromScript =
		!fromFile && !fromCall && scriptModel
			? resolveModel(scriptModel, input.modelRuntime, "The script's `meta.model`")
			: undefined;
	const chosen = fromFile ?? fromCall ?? fromScript;
	if (chosen?.warning) warnings.push(chosen.warning);
	if (chosen?.match) matches.push(chosen.match);
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
		...(matches.length > 0 ? { matches } : {}),
	};
}

/** `tier: "small"` through the person's tiers; a tier nobody set is `agent_options_invalid` saying where to set it. */
function resolveTier(tier: string, input: ChooseChildModelInput, matches: ModelMatch[]): ResolvedReference {
	const tiers = input.modelTiers;
	const reference = tiers && Object.hasOwn(tiers.tiers, tier) ? tiers.tiers[tier] : undefined;
	if (!tiers || reference === undefined) {
		const set = tiers ? Object.keys(tiers.tiers).sort() : [];
		const what =
			set.length > 0
				? `only ${set.map((name) => `\`${name}\``).join(", ")} ${set.length > 1 ? "are" : "is"} set (${tiers?.source})`
				: "no model tiers are set";
		throw new WorkflowError(
			"agent_options_invalid",
			`\`agent()\` option \`tier: "${tier}"\` names a model tier, and ${what}. ${MODEL_TIERS_HELP}; or write \`model: "provider/id"\` instead`,
			{ details: { option: "tier", tier, set } },
		);
	}
	const resolved = resolveModel(reference, input.modelRuntime, `Model tier \`${tier}\` (${tiers.source})`);
	const { provider, id } = resolved.model;
	matches.push({ kind: "tier", written: tier, resolved: `${provider}/${id}`, how: tiers.source });
	// The tier's own Claude Code name (a tier may say `sonnet`) is part of the same choice: one census entry.
	const { match: _match, ...rest } = resolved;
	return rest;
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
	/** A Claude Code model name read as the best matching model. */
	match?: ModelMatch;
}

/**
 * Resolves `provider/id[:thinking]` (or a fuzzy name) as pi's `--model` does; throws `agent_options_invalid` naming
 * `subject` when pi cannot.
 */
export function resolveModel(reference: string, modelRuntime: ModelRuntime, subject: string): ResolvedReference {
	const claude = claudeName(reference);
	// Claude Code's names (`opus`, `claude-opus-4-5`) are the best match among the models the user has: pi's own
	// lookup would take a catalog model nobody has credentials for.
	if (claude) return resolveClaude(reference, claude, modelRuntime, subject);
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

/** A Claude Code model name as the best matching model the user has; none is an error listing what there is. */
function resolveClaude(
	reference: string,
	claude: NonNullable<ReturnType<typeof claudeName>>,
	modelRuntime: ModelRuntime,
	subject: string,
): ResolvedReference {
	const models = modelsTheUserHas(modelRuntime);
	const found = matchClaudeModel(claude, models);
	if (!found) {
		const names = models.map((model) => `${model.provider}/${model.id}`);
		const shown =
			names.length > 20 ? `${names.slice(0, 20).join(", ")} and ${names.length - 20} more` : names.join(", ");
		throw new WorkflowError(
			"agent_options_invalid",
			`${subject} names model \`${reference}\`, a Claude Code model name, and pi has no ${claude.family} model. Models you have: ${shown || "none"}. Write \`provider/id\` of one of them, or log in to a provider that has ${claude.family} (pi's /login)`,
			{ details: { model: reference, available: names } },
		);
	}
	const { provider, id } = found.model;
	// The very model written (`claude-opus-4-6` is `anthropic/claude-opus-4-6`) is no match worth a census line.
	if (id === reference.trim()) return { model: found.model };
	return {
		model: found.model,
		match: { kind: "model", written: reference, resolved: `${provider}/${id}`, how: found.how },
	};
}

function fileSubject(type: AgentTypeConfig): string {
	return type.path ? `Agent type \`${type.name}\` (${type.path})` : `Agent type \`${type.name}\``;
}

/**
 * A model's catalog price in dollars per million tokens, for estimates before a run: pi's model registry's
 * `cost` of `provider/id` (a `:thinking` suffix ignored), or of a Claude Code name as scripts write it (`sonnet`,
 * `opus`, `haiku`, `claude-sonnet-4-5`) read as a run reads it: the best match of that family in the registry's
 * models (`getAll`); undefined when pi does not know the model or its price is all zero (pi-ai's way of saying
 * "no price").
 */
export function catalogPrice(
	registry: (Pick<ModelRegistry, "find"> & { getAll?: () => readonly Model<Api>[] }) | undefined,
	reference: string,
): { input: number; output: number } | undefined {
	if (!registry) return undefined;
	const slash = reference.indexOf("/");
	if (slash <= 0) return priced(claudeCatalogModel(registry, reference)?.cost);
	const rest = reference.slice(slash + 1);
	const colon = rest.lastIndexOf(":");
	const id = colon > 0 && isThinkingLevel(rest.slice(colon + 1)) ? rest.slice(0, colon) : rest;
	return priced(registry.find(reference.slice(0, slash), id)?.cost);
}

/** The registry's model a Claude Code name stands for, as a run would pick it (without asking about credentials). */
function claudeCatalogModel(
	registry: { getAll?: () => readonly Model<Api>[] },
	reference: string,
): Model<Api> | undefined {
	const name = claudeName(reference);
	const all = name && registry.getAll?.();
	return name && all ? matchClaudeModel(name, all)?.model : undefined;
}

function priced(cost: { input: number; output: number } | undefined): { input: number; output: number } | undefined {
	if (!cost || !(cost.input > 0 || cost.output > 0)) return undefined;
	return { input: cost.input, output: cost.output };
}
