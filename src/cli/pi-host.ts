/**
 * The pi half of `run` and `resume`, loaded only by them (with `import()`), so `--help`, `check` and `runs` work
 * where pi is not installed. It sets pi up as its own command line does: auth.json and models.json from the agent
 * directory, settings (default model and thinking level), and extensions (discovered ones plus each `-e`), whose
 * providers reach the children's model runtime; then builds the runner with children as pi sessions.
 */
import { resolve } from "node:path";
import type { Api, Model } from "@earendil-works/pi-ai";
import { getBuiltinModel, getBuiltinModels, getBuiltinProviders } from "@earendil-works/pi-ai/providers/all";
import { createAgentSessionServices, resolveCliModel, SettingsManager } from "@earendil-works/pi-coding-agent";
import type { ModelPrice } from "../host/estimate.ts";
import {
	builtInTools,
	catalogPrice,
	createPiAgentRunner,
	listAvailableAgentTypes,
	loadAgentTypes,
	type PiAgentRunnerOptions,
	type RunProvenance,
	readModelTiers,
	type WorktreePlaceSource,
} from "../pi.ts";
import { queuePlanner } from "../queue/plan.ts";
import { safeUrl } from "../queue/redis-url.ts";
import type { WorkerCommandOptions } from "../queue/worker-command.ts";
import type { WorkflowAgentRequest, WorkflowAgentRunner, WorkflowTool } from "../runtime/core/types.ts";
import { READ_ONLY_TOOLS } from "../runtime/index.ts";
import { usageError } from "./args.ts";

/** What the command line asked of pi. */
export interface PiSetupOptions {
	cwd: string;
	agentDir: string;
	/** `-e` paths, relative to `cwd`. */
	extensions: readonly string[];
	/** `--model provider/id[:thinking]`. */
	model?: string;
	/** The run's id and folder, for `isolation: "worktree"`. */
	worktreePlace?: WorktreePlaceSource;
	/** `--allow-tools`: pi built-ins the script's `tool()` may call. Default: none. */
	allowTools?: readonly string[];
	/**
	 * The built-ins to lend once the project's trust is known (a saved workflow's grants, bound to its text), instead
	 * of `allowTools`. Default: `allowTools`.
	 */
	lentTools?: (projectTrusted: boolean) => readonly string[];
	/** The run's folder, where children's conversations are kept. Default: none (in memory). */
	runFolder?: PiAgentRunnerOptions["runFolder"];
	/** Takes what the runner adds to the run's event log. Default: none. */
	record?: PiAgentRunnerOptions["record"];
	/** `--model-tiers small=a/b,big=c/d`: replaces the `workflows.modelTiers` setting. Default: the setting. */
	modelTiers?: string;
	/** Says something to the person (stderr) while setting up. Default: nothing. */
	onNote?: (text: string) => void;
	/** `--redis <url>`: children go to workers through the queue there instead of running here. Default: none. */
	redis?: string;
	/** `--redis-unreachable-ms`: how long Redis may stay unreachable before the waiting children fail. Default: 60000. */
	redisUnreachableMs?: number;
	/**
	 * `--placement-wait-ms`: how long a queued child waits for a live worker with every label it requires before it
	 * fails with placement_unsatisfiable; a call's `placement.waitMs` wins. Default: 60000.
	 */
	placementWaitMs?: number;
	/** `--approve` / `--no-approve`: the project's trust for this run. Default: pi's saved decision and settings. */
	approve?: boolean;
	/** Who the children speak for (their provenance frame), unless `workflows.provenanceFrame` is false. Default: none. */
	provenance?: RunProvenance;
}

/** The runner and what a run needs to know about it. */
export interface PiSetup {
	runner: WorkflowAgentRunner;
	/**
	 * `provider/id` of the children's default model; absent when pi has none (no credentials): a script that calls
	 * no `agent()` runs anyway, and a child that names no model fails with `NO_MODEL`.
	 */
	model?: string;
	/** Enabled agent types, so an unknown one fails at once. */
	agentTypes: string[];
	/** For an unknown type's error: the project's agent files that were skipped, and how to trust the project. */
	agentTypesNote?: string;
	/** Things the person should see (agent files skipped, pi's model warnings). */
	warnings: string[];
	/** The tools `--allow-tools` named, for `tool()`; absent when none were. */
	tools?: Record<string, WorkflowTool>;
	/** Ends what the runner holds (the queue's connections); absent for the local runner. */
	close?: () => Promise<void>;
	/** The `workflows.slowMultiple` setting, when it is a number above 1 (`--slow-multiple` wins over it). */
	slowMultiple?: number;
}

export async function setUpPi(options: PiSetupOptions): Promise<PiSetup> {
	// One trust decision for the run, made as pi's print mode makes it (no one to ask): the project's own pi
	// resources (.pi/extensions, skills, settings) and its agent files load only when it is trusted.
	const types = loadAgentTypes({
		cwd: options.cwd,
		agentDir: options.agentDir,
		...(options.approve !== undefined ? { trust: { override: options.approve } } : {}),
	});
	const services = await createAgentSessionServices({
		cwd: options.cwd,
		agentDir: options.agentDir,
		settingsManager: SettingsManager.create(options.cwd, options.agentDir, { projectTrusted: types.projectTrusted }),
		resourceLoaderOptions: { additionalExtensionPaths: options.extensions.map((path) => resolve(options.cwd, path)) },
	});
	const loaded = services.resourceLoader.getExtensions();
	const failed = loaded.errors[0];
	if (failed) {
		throw usageError(`Extension ${failed.path} did not load: ${failed.error}. Fix it, or leave it out`);
	}
	const error = services.diagnostics.find((d) => d.type === "error");
	if (error) throw usageError(`${error.message}. Fix the extension, or leave it out`);
	const warnings = [
		...(loaded.warnings ?? []).map((w) => `Extension ${w.path}: ${w.warning}`),
		...services.diagnostics.filter((d) => d.type === "warning").map((d) => d.message),
	];

	const { modelRuntime, settingsManager } = services;
	const provenance = frameSetting(settingsManager.getSettings()) === false ? undefined : options.provenance;
	const slowMultiple = slowMultipleSetting(settingsManager.getSettings(), warnings);
	const slow = slowMultiple !== undefined ? { slowMultiple } : {};
	if (options.redis) {
		// The workers resolve models against their own pi: a --model this machine lacks goes to them as it is.
		const chosen = await chooseModel(options.model, services).catch((error: unknown) => {
			if (options.model === undefined) throw error;
			return { reference: options.model, thinking: undefined, warning: undefined };
		});
		if (chosen?.warning) warnings.push(chosen.warning);
		warnings.push(...types.warnings);
		const reference = !chosen
			? undefined
			: "model" in chosen
				? `${chosen.model.provider}/${chosen.model.id}`
				: chosen.reference;
		const thinking = chosen?.thinking ?? settingsManager.getDefaultThinkingLevel();
		return {
			...(await queueSetUp({ ...options, provenance }, options.redis, types, reference, thinking)),
			...(reference ? { model: reference } : {}),
			agentTypes: listAvailableAgentTypes(types.types),
			...(types.unknownTypeNote ? { agentTypesNote: types.unknownTypeNote } : {}),
			warnings,
			...slow,
		};
	}
	const chosen = await chooseModel(options.model, services);
	if (chosen?.warning) warnings.push(chosen.warning);
	const thinking = chosen?.thinking ?? settingsManager.getDefaultThinkingLevel();
	warnings.push(...types.warnings);
	// `agent()` option `tier`: `--model-tiers`, else the `workflows.modelTiers` setting pi's extension reads too.
	const tierProblems: string[] = [];
	const workflowsSetting = (settingsManager.getSettings() as { workflows?: { modelTiers?: unknown } }).workflows;
	const modelTiers = readModelTiers(options.modelTiers, workflowsSetting?.modelTiers, tierProblems, "model-tiers");
	const badTiers = tierProblems.find((problem) => problem.startsWith("--"));
	if (badTiers) throw usageError(`${badTiers}. See \`pi-workflows run --help\``);
	warnings.push(...tierProblems);
	const runner = createPiAgentRunner({
		cwd: options.cwd,
		agentDir: options.agentDir,
		agentTypes: types.types,
		projectTrusted: types.projectTrusted,
		modelRuntime,
		// No model is an error only for a child that needs one, so a script without `agent()` runs without credentials.
		...(chosen ? { defaultModel: chosen.model } : { noModel: NO_MODEL }),
		...(options.worktreePlace ? { worktreePlace: options.worktreePlace } : {}),
		...(options.runFolder ? { runFolder: options.runFolder } : {}),
		...(options.record ? { record: options.record } : {}),
		...(thinking ? { defaultThinking: thinking } : {}),
		...(modelTiers ? { modelTiers } : {}),
		noParentConversation: CLI_NO_CONVERSATION,
		...(provenance ? { provenance } : {}),
	});
	const allowed = options.lentTools?.(types.projectTrusted) ?? options.allowTools ?? [];
	return {
		runner,
		...(chosen ? { model: `${chosen.model.provider}/${chosen.model.id}` } : {}),
		agentTypes: listAvailableAgentTypes(types.types),
		...(types.unknownTypeNote ? { agentTypesNote: types.unknownTypeNote } : {}),
		warnings,
		...(allowed.length > 0 ? { tools: builtInTools(options.cwd, allowed) } : {}),
		...slow,
	};
}

/** `workflows.slowMultiple` (global and project merged), as pi's extension reads it; another value is a warning. */
function slowMultipleSetting(settings: unknown, warnings: string[]): number | undefined {
	const value = (settings as { workflows?: { slowMultiple?: unknown } } | undefined)?.workflows?.slowMultiple;
	if (value === undefined || value === null) return undefined;
	if (typeof value === "number" && Number.isFinite(value) && value > 1) return value;
	warnings.push(
		`\`workflows.slowMultiple\` must be a number above 1 (default: 5), got ${JSON.stringify(value)}: left out`,
	);
	return undefined;
}

/** The queue runner: this host plans each child and queues it; workers at `redis` run it on their own pi. */
async function queueSetUp(
	options: PiSetupOptions,
	redis: string,
	types: { types: Parameters<typeof queuePlanner>[0]["agentTypes"]; projectTrusted: boolean },
	model: string | undefined,
	thinking: string | undefined,
): Promise<Pick<PiSetup, "runner" | "close">> {
	const unreachableMs = options.redisUnreachableMs;
	// BullMQ and ioredis (some 60 modules) load only for a run that queues its children.
	const { createQueueHost } = await import("../queue/host.ts");
	const { placementWaitMs } = options;
	const host = createQueueHost({
		redis,
		...(unreachableMs !== undefined ? { unreachableMs } : {}),
		...(placementWaitMs !== undefined ? { placementWaitMs } : {}),
	});
	const unanswered = usageError(`--redis ${safeUrl(redis)}: Redis does not answer. Start it, or check the URL`);
	let timer: ReturnType<typeof setTimeout> | undefined;
	const workers = await Promise.race([
		host.queue.getWorkers(),
		new Promise<never>((_, reject) => {
			timer = setTimeout(() => reject(unanswered), 5000);
		}),
	])
		.catch(async (error: unknown) => {
			await host.close();
			throw error === unanswered ? error : usageError(`--redis ${safeUrl(redis)}: ${String(error)}`);
		})
		.finally(() => clearTimeout(timer));
	if (workers.length === 0) {
		options.onNote?.(
			`no worker takes jobs from ${safeUrl(redis)} yet: children wait until one does (pi-workflows worker --redis <url>)`,
		);
	}
	const runner = host.runner({
		cwd: options.cwd,
		runId: async () => (await options.worktreePlace?.())?.runId,
		prepare: queuePlanner({
			agentTypes: types.types,
			projectTrusted: types.projectTrusted,
			...(model ? { defaultModel: model } : {}),
			...(thinking ? { defaultThinking: thinking } : {}),
			...(options.provenance ? { provenance: options.provenance } : {}),
		}),
	});
	return { runner, close: () => host.close() };
}

/** What a dry run needs of pi: no auth, no model registry, no session; only files and settings are read. */
export interface DryPiSetup {
	agentTypes: string[];
	/** The model a call would run on: its agent file's, its own, its tier, `meta.model`, else the default named. */
	modelOf: (request: WorkflowAgentRequest) => string | undefined;
	/** pi's read-only built-ins `--allow-tools` names (a real run has no other), run for real inside the project. */
	readTools: Record<string, WorkflowTool>;
	/** A model's price from pi-ai's built-in catalog, which needs no auth; undefined for a model it does not list. */
	priceOf: (model: string) => ModelPrice | undefined;
	warnings: string[];
}

/** pi-ai's built-in models as a registry for `catalogPrice`: no credentials, no models.json (its custom models go unpriced). */
const BUILTIN_CATALOG = {
	find: (provider: string, id: string) => getBuiltinModel(provider as never, id as never) as Model<Api> | undefined,
	// Every built-in model, for the names scripts write (`sonnet`): read once, on the first such name.
	getAll: (() => {
		let all: Model<Api>[] | undefined;
		return () => {
			all ??= getBuiltinProviders().flatMap((provider) => getBuiltinModels(provider) as Model<Api>[]);
			return all;
		};
	})(),
};

/**
 * The dry run's side of pi: the agent types (so an unknown one fails as it would), the models they name, and the
 * read-only tools among those `--allow-tools` names. The default model is the one `--model`, `workflows.childModel` or pi's settings name, unresolved:
 * resolving it would need the model registry, which needs credentials a dry run must not need.
 */
export function setUpDryPi(
	options: Pick<PiSetupOptions, "cwd" | "agentDir" | "model" | "approve" | "allowTools" | "modelTiers">,
): DryPiSetup {
	const types = loadAgentTypes({
		cwd: options.cwd,
		agentDir: options.agentDir,
		...(options.approve !== undefined ? { trust: { override: options.approve } } : {}),
	});
	const settings = SettingsManager.create(options.cwd, options.agentDir, { projectTrusted: types.projectTrusted });
	const provider = settings.getDefaultProvider();
	const id = settings.getDefaultModel();
	const fallback =
		options.model ?? childModelSetting(settings.getSettings()) ?? (provider && id ? `${provider}/${id}` : undefined);
	// A tier is named by the model it stands for (`--model-tiers`, else the setting), so the estimate can price it.
	const tierProblems: string[] = [];
	const workflowsSetting = (settings.getSettings() as { workflows?: { modelTiers?: unknown } }).workflows;
	const tiers = readModelTiers(options.modelTiers, workflowsSetting?.modelTiers, tierProblems, "model-tiers")?.tiers;
	const tierModel = (tier: string) =>
		(tiers && Object.hasOwn(tiers, tier) ? tiers[tier] : undefined) ?? `tier ${tier}`;
	return {
		agentTypes: listAvailableAgentTypes(types.types),
		modelOf: (request) => {
			const own = types.types.get(request.agentType)?.model ?? request.model;
			return own ?? (request.tier !== undefined ? tierModel(request.tier) : (request.defaultModel ?? fallback));
		},
		readTools: builtInTools(
			options.cwd,
			READ_ONLY_TOOLS.filter((name) => options.allowTools?.includes(name)),
		),
		priceOf: (model) => catalogPrice(BUILTIN_CATALOG, model),
		warnings: [...types.warnings, ...tierProblems],
	};
}

type Services = Awaited<ReturnType<typeof createAgentSessionServices>>;

/** `workflows.childModel` from pi's settings (global and project merged), when it is a non-empty string. */
function childModelSetting(settings: unknown): string | undefined {
	const workflows = (settings as { workflows?: unknown } | undefined)?.workflows;
	const value = (workflows as { childModel?: unknown } | undefined)?.childModel;
	return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}
/** `workflows.provenanceFrame` from pi's settings: false turns the children's frame off, as in pi's extension. */
function frameSetting(settings: unknown): unknown {
	const workflows = (settings as { workflows?: unknown } | undefined)?.workflows;
	return (workflows as { provenanceFrame?: unknown } | undefined)?.provenanceFrame;
}
type Thinking = NonNullable<ReturnType<Services["settingsManager"]["getDefaultThinkingLevel"]>>;

/** Why a child of the command line cannot fork: the error `context: fork` in an agent file gets here. */
const CLI_NO_CONVERSATION =
	"it runs from the command line (`pi-workflows run`), where there is no session conversation";

/** What a child that names no model fails with when pi has no model to give it. */
const NO_MODEL =
	"No model available: pi has no credentials for any provider. Log in with `pi` (/login) or set a provider's API key, or pass --model provider/id with -e for a custom provider";

/**
 * `--model`, else the `workflows.childModel` setting (the model pi's extension gives workflow children), else pi's
 * default model from settings, else the first model pi has credentials for, else none. A model named but not found
 * is a usage error at once; none at all is not: only a child that needs it fails (`NO_MODEL`).
 */
async function chooseModel(
	flag: string | undefined,
	{ modelRuntime, settingsManager }: Services,
): Promise<{ model: Model<Api>; thinking?: Thinking; warning?: string } | undefined> {
	const provider = settingsManager.getDefaultProvider();
	const id = settingsManager.getDefaultModel();
	const wanted = flag ?? childModelSetting(settingsManager.getSettings());
	const reference = wanted ?? (provider && id ? `${provider}/${id}` : undefined);
	if (reference) {
		const resolved = resolveCliModel({ cliModel: reference, modelRuntime });
		if (resolved.model) {
			return {
				model: resolved.model,
				...(resolved.thinkingLevel ? { thinking: resolved.thinkingLevel as Thinking } : {}),
				...(resolved.warning ? { warning: resolved.warning } : {}),
			};
		}
		if (wanted) {
			// pi's message is written for its own command line; its first sentence says what is wrong.
			const reason = (resolved.error ?? "no such model").split(". ")[0]?.replace(/\.$/, "");
			const given = flag !== undefined ? `--model ${wanted}` : `The workflows.childModel setting (${wanted})`;
			throw usageError(
				`${given}: ${reason}. Pass provider/id of a model \`pi --list-models\` shows, or load its provider with -e`,
			);
		}
	}
	const [first] = await modelRuntime.getAvailable().catch(() => []);
	return first ? { model: first } : undefined;
}

/** The provenance frame's input, for the rest of the CLI (which imports pi's entry only here). */
export type { PersonProvenance, RunProvenance, ScriptProvenance } from "../pi.ts";

/** `pi-workflows worker`: BullMQ loads with it, not with every command. */
export async function runWorker(options: WorkerCommandOptions): Promise<number> {
	return (await import("../queue/worker-command.ts")).runWorker(options);
}
