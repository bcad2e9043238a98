/**
 * What a person sets for a session's workflow runs: pi flags (`--workflow-child-model`, `--workflow-max-cost`,
 * `--workflow-confirm-agents`, `--workflow-model-tiers`) and the `workflows` key of pi's settings (`childModel`,
 * `maxCostUsd`, `confirmAgents`, `modelTiers`, `provenanceFrame`, `slowMultiple`, global and project merged by pi). A flag wins over a setting. Values that cannot be used are
 * left out and named in `problems`, so the person is told once instead of a run silently ignoring them.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { ModelTiers } from "../children/model.ts";
import type { WorkflowSessionDefaults } from "../tool/workflow-tool.ts";

export const CHILD_MODEL_FLAG = "workflow-child-model";
export const MAX_COST_FLAG = "workflow-max-cost";
export const CONFIRM_AGENTS_FLAG = "workflow-confirm-agents";
export const MODEL_TIERS_FLAG = "workflow-model-tiers";

/** The flags this file reads, with their help lines. */
export const SESSION_FLAGS: ReadonlyArray<{ name: string; description: string }> = [
	{
		name: CHILD_MODEL_FLAG,
		description:
			"Model (provider/id[:thinking]) for workflow children that neither the agent file, the call nor meta.model names (default: workflows.childModel, else this session's model)",
	},
	{
		name: MAX_COST_FLAG,
		description:
			"Default cap in US dollars on what one workflow run's children spend (default: workflows.maxCostUsd, else none)",
	},
	{
		name: CONFIRM_AGENTS_FLAG,
		description:
			"Ask before one parallel()/pipeline() starts more than this many agents, in the TUI (default: workflows.confirmAgents, else 25; 0: never ask)",
	},
	{
		name: MODEL_TIERS_FLAG,
		description:
			"Models for agent() option `tier`, as small=provider/id,medium=provider/id,big=provider/id (default: workflows.modelTiers, else none)",
	},
];

/** The session's defaults, and what could not be used. */
export interface ReadDefaults {
	defaults: WorkflowSessionDefaults;
	problems: string[];
}

/** Reads the flags and settings now (flags are final once pi has loaded the extension). */
export function readSessionDefaults(pi: Pick<ExtensionAPI, "getFlag" | "getSettings">): ReadDefaults {
	const problems: string[] = [];
	const settings = workflowSettings(pi, problems);
	const defaults: WorkflowSessionDefaults = {};

	const flagModel = text(pi.getFlag(CHILD_MODEL_FLAG));
	const settingModel = settings.childModel;
	if (flagModel !== undefined)
		defaults.childModel = { reference: flagModel, source: `The --${CHILD_MODEL_FLAG} flag` };
	else if (typeof settingModel === "string" && settingModel.trim() !== "") {
		defaults.childModel = { reference: settingModel.trim(), source: "The `workflows.childModel` setting" };
	} else if (settingModel !== undefined) problems.push("`workflows.childModel` must be a `provider/id` string");

	const cost = pick(pi.getFlag(MAX_COST_FLAG), settings.maxCostUsd, `--${MAX_COST_FLAG}`, "`workflows.maxCostUsd`");
	if (cost) {
		if (cost.number !== undefined && cost.number > 0) defaults.maxCostUsd = cost.number;
		else problems.push(`${cost.name} must be a positive number of US dollars, got ${JSON.stringify(cost.value)}`);
	}
	const confirm = pick(
		pi.getFlag(CONFIRM_AGENTS_FLAG),
		settings.confirmAgents,
		`--${CONFIRM_AGENTS_FLAG}`,
		"`workflows.confirmAgents`",
	);
	if (confirm) {
		if (confirm.number !== undefined && Number.isInteger(confirm.number)) defaults.confirmAgents = confirm.number;
		else problems.push(`${confirm.name} must be a whole number (0: never ask), got ${JSON.stringify(confirm.value)}`);
	}
	const slow = pick(undefined, settings.slowMultiple, "", "`workflows.slowMultiple`");
	if (slow) {
		if (slow.number !== undefined && slow.number > 1) defaults.slowMultiple = slow.number;
		else problems.push(`${slow.name} must be a number above 1 (default: 5), got ${JSON.stringify(slow.value)}`);
	}
	const tiers = readModelTiers(pi.getFlag(MODEL_TIERS_FLAG), settings.modelTiers, problems);
	if (tiers) defaults.modelTiers = tiers;
	const frame = settings.provenanceFrame;
	if (frame === false) defaults.frame = false;
	else if (frame !== undefined && frame !== true) problems.push("`workflows.provenanceFrame` must be true or false");
	return { defaults, problems };
}

/**
 * `--workflow-model-tiers small=a/b,big=c/d`, else the `workflows.modelTiers` object (`{ "small": "a/b" }`): the
 * tiers `agent()` option `tier` names. A flag replaces the setting whole, so what it says is what a run gets.
 */
export function readModelTiers(
	flag: unknown,
	setting: unknown,
	problems: string[],
	flagName = MODEL_TIERS_FLAG,
): ModelTiers | undefined {
	if (typeof flag === "string" && flag.trim() !== "") {
		const tiers: Record<string, string> = {};
		for (const pair of flag.split(",")) {
			const [name, reference] = pair.split("=").map((part) => part.trim());
			if (!name || !reference) {
				problems.push(`--${flagName} takes tier=provider/id pairs separated by commas, got "${pair.trim()}"`);
				continue;
			}
			tiers[name] = reference;
		}
		return Object.keys(tiers).length > 0 ? { tiers, source: `the --${flagName} flag` } : undefined;
	}
	if (setting === undefined || setting === null) return undefined;
	const entries = typeof setting === "object" && !Array.isArray(setting) ? Object.entries(setting) : undefined;
	const bad = entries?.filter(([, value]) => typeof value !== "string" || value.trim() === "");
	if (!entries || (bad && bad.length > 0)) {
		problems.push(
			'`workflows.modelTiers` must be an object of tier names to models, like { "small": "provider/id", "big": "provider/id" }',
		);
		return undefined;
	}
	const tiers = Object.fromEntries(entries.map(([name, value]) => [name, (value as string).trim()]));
	return { tiers, source: "the `workflows.modelTiers` setting" };
}

function workflowSettings(pi: Pick<ExtensionAPI, "getSettings">, problems: string[]): Record<string, unknown> {
	let value: unknown;
	try {
		value = (pi.getSettings() as Record<string, unknown>).workflows;
	} catch {
		// Settings that cannot be read leave only the flags.
		return {};
	}
	if (value === undefined) return {};
	if (value === null || typeof value !== "object" || Array.isArray(value)) {
		problems.push("the `workflows` setting must be an object (`childModel`, `maxCostUsd`, `confirmAgents`)");
		return {};
	}
	return value as Record<string, unknown>;
}

function text(value: unknown): string | undefined {
	return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** The flag's value when given, else the setting's, with the number it is (a flag's text, a setting's number). */
function pick(
	flag: unknown,
	setting: unknown,
	flagName: string,
	settingName: string,
): { value: unknown; number?: number; name: string } | undefined {
	if (typeof flag === "string" && flag.trim() !== "") {
		const written = flag.trim();
		const number = /^\d+(\.\d+)?$/.test(written) ? Number(written) : undefined;
		return { value: written, ...(number !== undefined ? { number } : {}), name: flagName };
	}
	if (setting === undefined || setting === null) return undefined;
	const number = typeof setting === "number" && Number.isFinite(setting) && setting >= 0 ? setting : undefined;
	return { value: setting, ...(number !== undefined ? { number } : {}), name: settingName };
}
