/**
 * Claude Code's model names (`opus`, `sonnet`, `haiku`, `opus[1m]`, `opusplan`, `claude-opus-4-5-20251101`), read as
 * the best matching model the user has: of that family, the requested version where there is one, else the newest;
 * Anthropic's own provider first. `inherit` (and `default`) mean the session's model, decided in model.ts.
 */
import type { Api, Model } from "@earendil-works/pi-ai";
import type { ModelRuntime } from "@earendil-works/pi-coding-agent";

// `fable` is Claude Code scripts' name for the claude-fable models (`model: "fable"`), which pi's catalog has.
const FAMILIES = ["opus", "sonnet", "haiku", "fable"] as const;
/** Claude Code's other short names, and the family each runs. */
const ALIASES: Readonly<Record<string, (typeof FAMILIES)[number]>> = { opusplan: "opus", best: "opus" };
/** Claude Code's names for "the model the conversation has". */
export const INHERIT_NAMES: readonly string[] = ["inherit", "default"];

/** A Claude Code model name: its family and, for a full id, the version asked for. */
export interface ClaudeName {
	family: (typeof FAMILIES)[number];
	/** `[4, 5]` for `claude-opus-4-5`; absent for `opus`. */
	version?: number[];
	/** True for a short name (`opus`): "the best one of the family". */
	short: boolean;
	/** The full id as written (lower case), for a full id. */
	id?: string;
}

/** Reads `reference` as a Claude Code model name, or undefined when it is not one. */
export function claudeName(reference: string): ClaudeName | undefined {
	const name = reference
		.trim()
		.toLowerCase()
		.replace(/\[1m\]$/, "");
	if ((FAMILIES as readonly string[]).includes(name)) return { family: name as ClaudeName["family"], short: true };
	const alias = Object.hasOwn(ALIASES, name) ? ALIASES[name] : undefined;
	if (alias) return { family: alias, short: true };
	if (!name.startsWith("claude-")) return undefined;
	const family = FAMILIES.find((candidate) => name.split(/[-.]/).includes(candidate));
	if (!family) return undefined;
	const version = versionOf(name);
	return { family, short: false, id: name, ...(version.length > 0 ? { version } : {}) };
}

/** The version numbers in a model id, dates (8 digits) and Bedrock's `-v1:0` left out: `[4, 6]`, `[3, 5]`. */
function versionOf(id: string): number[] {
	const bare = id
		.toLowerCase()
		.replace(/-v\d+(:\d+)?$/, "")
		.replace(/\d{8}/g, "");
	return (bare.match(/\d+/g) ?? []).map(Number).filter((n) => n < 100);
}

/** Newer first: `[4, 6]` before `[4, 5]` before `[4]`. */
function compareVersions(a: number[], b: number[]): number {
	for (let i = 0; i < Math.max(a.length, b.length); i++) {
		const diff = (b[i] ?? -1) - (a[i] ?? -1);
		if (diff !== 0) return diff;
	}
	return 0;
}

/** The models the user has: those of providers with credentials (pi's catalog lists many more). */
export function modelsTheUserHas(modelRuntime: ModelRuntime): readonly Model<Api>[] {
	const configured = new Map<string, boolean>();
	return modelRuntime.getModels().filter((model) => {
		let has = configured.get(model.provider);
		if (has === undefined) {
			has = modelRuntime.hasConfiguredAuth(model.provider);
			configured.set(model.provider, has);
		}
		return has;
	});
}

/** The best model of `name`'s family among `models`, and how it was picked; undefined when there is none. */
export function matchClaudeModel(
	name: ClaudeName,
	models: readonly Model<Api>[],
): { model: Model<Api>; how: string } | undefined {
	const family = models.filter((model) =>
		model.id
			.toLowerCase()
			.split(/[-./:]/)
			.includes(name.family),
	);
	if (family.length === 0) return undefined;
	const wanted = name.version;
	const sameVersion = wanted
		? family.filter((model) => compareVersions(versionOf(model.id).slice(0, wanted.length), wanted) === 0)
		: [];
	const pool = sameVersion.length > 0 ? sameVersion : family;
	const written = name.id;
	const ranked = [...pool].sort(
		(a, b) =>
			Number(b.id === written) - Number(a.id === written) ||
			compareVersions(versionOf(a.id), versionOf(b.id)) ||
			Number(b.provider === "anthropic") - Number(a.provider === "anthropic") ||
			a.id.length - b.id.length ||
			`${a.provider}/${a.id}`.localeCompare(`${b.provider}/${b.id}`),
	);
	const model = ranked[0] as Model<Api>;
	const how = !wanted
		? `the newest ${name.family} model pi has`
		: sameVersion.length > 0
			? `that version of ${name.family} as pi names it`
			: `no ${name.family} ${wanted.join(".")} here: the newest ${name.family} model pi has`;
	return { model, how };
}
