/**
 * The frontmatter field rules of one agent file: each field is read on its own, and a bad value is dropped with a
 * warning that names the file and the field, so one typo never takes the whole type (or the others) down.
 */

import { normalizeFieldNames } from "./agent-field-names.ts";
import { type AgentResourceFields, parseResourceFields } from "./agent-resources.ts";
import { claudeFrontmatter } from "./claude-dirs.ts";

/** Thinking levels an agent file may name (pi's levels). */
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"] as const;

/** Longest `stall_ms` (Node's longest timer, about 24.8 days). */
const MAX_STALL_MS = 2 ** 31 - 1;

/** A thinking level pi understands. */
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/** pi's built-in tools a child may be given; `tools: all` (or `*`) means all of them and the session's tools. */
export const BUILTIN_TOOL_NAMES: readonly string[] = ["read", "bash", "edit", "write", "grep", "find", "ls"];

/** Our own tools, which no child gets: a child cannot start or control workflows. */
export const RESERVED_TOOL_NAMES: readonly string[] = ["workflow", "workflow_runs"];

/** Where an agent type came from, highest precedence first (Claude Code's folders after ours). */
export type AgentTypeSource = "project" | "workspace" | "global" | "claude-project" | "claude-global" | "builtin";

/** One agent type, as the runner uses it. */
export interface AgentTypeConfig extends AgentResourceFields {
	/** The type name scripts pass as `agent`: frontmatter `name:`, else the file name. */
	name: string;
	/** Label for widgets; `display_name:`. */
	displayName?: string;
	/** `description:`, else the name. */
	description: string;
	/** The file body: the child's system prompt (or what is appended to pi's default prompt). */
	systemPrompt: string;
	/**
	 * `replace`: the body is the whole prompt. `append`: the body follows pi's default prompt; context files and the
	 * skills catalog come with it unless the `inherit_*` fields say otherwise.
	 */
	promptMode: "replace" | "append";
	/** Tools the child gets (after `disallowed_tools`): built-ins and the session's tools by name. Empty means none. */
	tools: string[];
	/** True when `tools:` is absent, `all` or `*`: the child also gets every tool the parent session lends it. */
	allSessionTools?: boolean;
	/** Tools the child never gets, even when a call's `tools` names them. */
	disallowedTools: string[];
	/** Model reference (`provider/id`, a bare id or a fuzzy name, optionally `:thinking`); unset inherits. */
	model?: string;
	/** `fallback_models:` models to move to, in order, when `model` meets a provider limit before any tool work. */
	fallbackModels?: string[];
	/** Thinking level; unset inherits. */
	thinking?: ThinkingLevel;
	/** Turns before the child is told to wrap up; unset means unlimited (`max_turns: 0`). */
	maxTurns?: number;
	/** `stall_ms:` no progress for this long stops the child and retries it once; 0 turns the watchdog off. */
	stallMs?: number;
	/**
	 * `context:` what a child of this type starts from when its call gives no `context`: `fresh`, `fork` (the
	 * session's conversation up to the `workflow` call) or `fork-or-fresh`. Unset: fresh.
	 */
	context?: "fresh" | "fork" | "fork-or-fresh";
	/**
	 * `placement:` what a child of this type needs of a queue worker: `labels` it must have, `prefer` ranking the able
	 * ones, `wait_ms`. The labels are checked where they are used (the queue's planner); a call's `placement` wins.
	 */
	placement?: { labels?: string[]; prefer?: string[]; waitMs?: number };
	/** `enabled: false` keeps the type known but refuses to run it. */
	enabled: boolean;
	source: AgentTypeSource;
	/** The file it was read from (absent for the built-in). */
	path?: string;
}

/** A parsed file, before its fields are checked. */
export interface AgentFileInput {
	frontmatter: Record<string, unknown>;
	body: string;
	/** File name without `.md`: the type name when `name:` is absent. */
	fileName: string;
	path: string;
	source: Exclude<AgentTypeSource, "builtin">;
}

/** `:` is reserved for plugin-scoped names (`my-plugin:reviewer`); a file declaring one is refused, not renamed. */
const RESERVED_IN_NAME = ":";

/** Reads the fields of one file; undefined (with a warning) when the file must be skipped. */
export function parseAgentFields(input: AgentFileInput, warnings: string[]): AgentTypeConfig | undefined {
	const warn = (message: string) => warnings.push(`Agent file ${input.path}: ${message}`);
	// Claude Code's files name tools its way (`Read, Grep, Glob`): read as pi's.
	const written = input.source.startsWith("claude-") ? claudeFrontmatter(input.frontmatter, warn) : input.frontmatter;
	const fm = normalizeFieldNames(written, warn);
	const declared = stringField(fm.name)?.trim();
	if (declared?.includes(RESERVED_IN_NAME)) {
		warnings.push(
			`Skipping agent file ${input.path}: its name \`${declared}\` contains \`:\`, which is reserved for ` +
				"plugin-scoped names. Rename it, or put the label in `display_name:`",
		);
		return undefined;
	}
	const resources = parseResourceFields(fm, input.path, warn);
	// `||`: an empty or blank `name:` falls back to the file name rather than registering an unusable "" type.
	const bare = declared || input.fileName;
	const name = resources.package ? `${resources.package}.${bare}` : bare;
	const disallowedTools = toolList(fm.disallowed_tools, "disallowed_tools", warn)?.names ?? [];
	const listed = toolList(fm.tools, "tools", warn) ?? { names: [...BUILTIN_TOOL_NAMES], all: true };
	const tools = listed.names.filter((tool) => !disallowedTools.includes(tool));
	const config: AgentTypeConfig = {
		name,
		description: stringField(fm.description)?.trim() || name,
		systemPrompt: input.body.trim(),
		promptMode: promptMode(fm.prompt_mode, warn),
		tools,
		...(listed.all ? { allSessionTools: true } : {}),
		disallowedTools,
		enabled: enabledField(fm.enabled, warn),
		source: input.source,
		path: input.path,
		...resources,
	};
	const displayName = stringField(fm.display_name)?.trim();
	if (displayName) config.displayName = displayName;
	const model = stringField(fm.model)?.trim();
	if (model) config.model = model;
	const fallbacks = modelList(fm.fallback_models ?? fm.fallbackModels, warn);
	if (fallbacks) config.fallbackModels = fallbacks;
	const thinking = thinkingLevel(fm.thinking, warn);
	if (thinking) config.thinking = thinking;
	const maxTurns = maxTurnsField(fm.max_turns, warn);
	if (maxTurns) config.maxTurns = maxTurns;
	const stallMs = stallMsField(fm.stall_ms, warn);
	if (stallMs !== undefined) config.stallMs = stallMs;
	const context = contextField(fm.context, warn);
	if (context) config.context = context;
	const placement = placementField(fm.placement, warn);
	if (placement) config.placement = placement;
	return config;
}

/** `placement:` an object of `labels` and `prefer` (comma or YAML lists) and `wait_ms`; anything else is dropped. */
function placementField(value: unknown, warn: (message: string) => void): AgentTypeConfig["placement"] {
	if (value === undefined || value === null) return undefined;
	const list = (item: unknown): string[] | undefined =>
		Array.isArray(item) && item.every((label) => typeof label === "string")
			? item.map((label) => label.trim())
			: typeof item === "string"
				? item.split(",").map((label) => label.trim())
				: undefined;
	const fields = typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
	const labels = fields?.labels === undefined ? [] : list(fields.labels);
	const prefer = fields?.prefer === undefined ? [] : list(fields.prefer);
	const wait = fields?.wait_ms ?? fields?.waitMs;
	const known = fields && Object.keys(fields).every((key) => ["labels", "prefer", "wait_ms", "waitMs"].includes(key));
	if (!known || !labels || !prefer || (wait !== undefined && !(typeof wait === "number" && wait >= 0))) {
		warn(
			`\`placement\` must be an object of \`labels\`, \`prefer\` (lists of labels) and \`wait_ms\`; ignoring ${JSON.stringify(value)}`,
		);
		return undefined;
	}
	return {
		...(labels.length > 0 ? { labels: labels.filter(Boolean) } : {}),
		...(prefer.length > 0 ? { prefer: prefer.filter(Boolean) } : {}),
		...(typeof wait === "number" ? { waitMs: wait } : {}),
	};
}

/** Whether a string is one of pi's thinking levels. */
export function isThinkingLevel(value: unknown): value is ThinkingLevel {
	return typeof value === "string" && (THINKING_LEVELS as readonly string[]).includes(value);
}

function stringField(value: unknown): string | undefined {
	return typeof value === "string" ? value : undefined;
}

/**
 * A tool list: a comma list or a YAML list. Absent → undefined (the caller's default); `none` or empty → [];
 * `all` or `*` → every built-in tool, and `all` set (the session's tools too). Other names are kept: whether the
 * session has such a tool is known only when a child starts. Our own tools are dropped with a warning.
 */
function toolList(
	value: unknown,
	field: string,
	warn: (message: string) => void,
): { names: string[]; all: boolean } | undefined {
	if (value === undefined || value === null) return undefined;
	let items: string[];
	if (Array.isArray(value)) items = value.map((item) => String(item).trim());
	else if (typeof value === "string") items = value.split(",").map((item) => item.trim());
	else {
		warn(`\`${field}\` must be a comma list or a YAML list of tool names; ignoring ${JSON.stringify(value)}`);
		return undefined;
	}
	items = items.filter((item) => item.length > 0);
	if (items.length === 1 && items[0].toLowerCase() === "none") return { names: [], all: false };
	const result = new Set<string>();
	let all = false;
	for (const item of items) {
		if (item === "*" || item.toLowerCase() === "all") {
			all = true;
			for (const tool of BUILTIN_TOOL_NAMES) result.add(tool);
		} else if (RESERVED_TOOL_NAMES.includes(item)) {
			// Never given, so there is nothing to deny; naming one in `tools` is a mistake worth a word.
			if (field === "tools") warn(`\`tools\` names \`${item}\`, which workflow children never get; ignoring it`);
		} else {
			result.add(item);
		}
	}
	return { names: [...result], all };
}

/** `fallback_models:` (or `fallbackModels:`): a comma list or a YAML list of model references; empty means none. */
function modelList(value: unknown, warn: (message: string) => void): string[] | undefined {
	if (value === undefined || value === null) return undefined;
	const items = Array.isArray(value)
		? value.map((item) => (typeof item === "string" ? item.trim() : ""))
		: typeof value === "string"
			? value.split(",").map((item) => item.trim())
			: undefined;
	if (!items || (Array.isArray(value) && items.some((item) => item === ""))) {
		warn(
			`\`fallback_models\` must be a comma list or a YAML list of models (\`provider/id\`); ignoring ${JSON.stringify(value)}`,
		);
		return undefined;
	}
	const models = items.filter((item) => item !== "");
	return models.length > 0 ? models : undefined;
}

function enabledField(value: unknown, warn: (message: string) => void): boolean {
	if (value === undefined || value === null || typeof value === "boolean") return value !== false;
	warn(`\`enabled\` must be true or false; ignoring ${JSON.stringify(value)} (the type stays enabled)`);
	return true;
}

function promptMode(value: unknown, warn: (message: string) => void): "replace" | "append" {
	if (value === undefined || value === null || value === "replace") return "replace";
	if (value === "append") return "append";
	warn(`\`prompt_mode\` must be \`replace\` or \`append\`; using \`replace\` instead of ${JSON.stringify(value)}`);
	return "replace";
}

/** `context:` fresh, fork or fork-or-fresh; anything else is dropped with a warning (the child starts fresh). */
function contextField(value: unknown, warn: (message: string) => void): AgentTypeConfig["context"] {
	if (value === undefined || value === null) return undefined;
	const text = typeof value === "string" ? value.trim().toLowerCase() : value;
	if (text === "fresh" || text === "fork" || text === "fork-or-fresh") return text;
	warn(
		`\`context\` must be \`fresh\`, \`fork\` or \`fork-or-fresh\`; ignoring ${JSON.stringify(value)} (children start fresh)`,
	);
	return undefined;
}

function thinkingLevel(value: unknown, warn: (message: string) => void): ThinkingLevel | undefined {
	if (value === undefined || value === null) return undefined;
	const text = typeof value === "string" ? value.trim().toLowerCase() : value;
	if (isThinkingLevel(text)) return text;
	warn(`\`thinking\` must be one of ${THINKING_LEVELS.join(", ")}; ignoring ${JSON.stringify(value)}`);
	return undefined;
}

/** A non-negative integer; 0 means unlimited (returned as undefined). Numeric strings are accepted. */
function maxTurnsField(value: unknown, warn: (message: string) => void): number | undefined {
	if (value === undefined || value === null) return undefined;
	const number = typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value) : value;
	if (typeof number === "number" && Number.isInteger(number) && number >= 0) return number === 0 ? undefined : number;
	warn(`\`max_turns\` must be a non-negative integer (0 = unlimited); ignoring ${JSON.stringify(value)}`);
	return undefined;
}

/** Milliseconds, a non-negative integer; 0 is kept (it turns the watchdog off). Numeric strings are accepted. */
function stallMsField(value: unknown, warn: (message: string) => void): number | undefined {
	if (value === undefined || value === null) return undefined;
	const number = typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value) : value;
	if (typeof number === "number" && Number.isInteger(number) && number >= 0 && number <= MAX_STALL_MS) return number;
	warn(
		`\`stall_ms\` must be a whole number of milliseconds (0 = no stall watchdog); ignoring ${JSON.stringify(value)}`,
	);
	return undefined;
}
