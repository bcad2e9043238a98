/**
 * The spellings of agent-file fields: ours (snake_case), the camelCase names of pi's subagent conventions (seed 001)
 * as aliases of ours, and the fields we know but leave to others. Anything else is named in one warning per file.
 */

/** Our field names: what a workflow child reads. */
export const AGENT_FIELDS = [
	"name",
	"description",
	"display_name",
	"tools",
	"disallowed_tools",
	"model",
	"thinking",
	"max_turns",
	"stall_ms",
	"prompt_mode",
	"enabled",
	"aliases",
	"package",
	"extensions",
	"subagent_only_extensions",
	"skills",
	"inherit_skills",
	"skill_path",
	"inherit_project_context",
	"inherit_global_context",
	"timeout_ms",
	"tool_timeout_ms",
	"context",
	"placement",
] as const;

/** One of our field names. */
export type AgentFieldName = (typeof AGENT_FIELDS)[number];

/** Other spellings of our fields (seed 001's camelCase and its synonyms). */
export const FIELD_ALIASES: Readonly<Record<string, AgentFieldName>> = {
	displayName: "display_name",
	disallowedTools: "disallowed_tools",
	excludeTools: "disallowed_tools",
	exclude_tools: "disallowed_tools",
	maxTurns: "max_turns",
	stallMs: "stall_ms",
	promptMode: "prompt_mode",
	systemPromptMode: "prompt_mode",
	system_prompt_mode: "prompt_mode",
	subagentOnlyExtensions: "subagent_only_extensions",
	skill: "skills",
	inheritSkills: "inherit_skills",
	skillPath: "skill_path",
	skill_paths: "skill_path",
	inheritProjectContext: "inherit_project_context",
	inheritGlobalContext: "inherit_global_context",
	timeoutMs: "timeout_ms",
	toolTimeoutMs: "tool_timeout_ms",
	contextMode: "context",
};

/** Fields read elsewhere (another part of this package handles them), so neither parsed here nor warned about. */
const KNOWN_ELSEWHERE = new Set(["fallback_models", "fallbackModels"]);

/** The frontmatter under our names, and warnings for doubled and unsupported fields. */
export function normalizeFieldNames(
	frontmatter: Record<string, unknown>,
	warn: (message: string) => void,
): Record<string, unknown> {
	const fields: Record<string, unknown> = {};
	const spelledAs = new Map<string, string>();
	const unsupported: string[] = [];
	for (const [key, value] of Object.entries(frontmatter)) {
		if (KNOWN_ELSEWHERE.has(key)) {
			fields[key] = value;
			continue;
		}
		const canonical = FIELD_ALIASES[key] ?? ((AGENT_FIELDS as readonly string[]).includes(key) ? key : undefined);
		if (!canonical) {
			unsupported.push(key);
			continue;
		}
		const earlier = spelledAs.get(canonical);
		// Our own spelling wins over an alias, whatever the order in the file.
		if (earlier !== undefined) {
			const keep = earlier === canonical ? earlier : key === canonical ? key : earlier;
			const drop = keep === key ? earlier : key;
			warn(`\`${earlier}\` and \`${key}\` set the same field; using \`${keep}\` and ignoring \`${drop}\``);
			if (keep === earlier) continue;
		}
		spelledAs.set(canonical, key);
		fields[canonical] = value;
	}
	if (unsupported.length > 0) {
		const list = unsupported.map((key) => `\`${key}\``).join(", ");
		warn(`ignoring field${unsupported.length > 1 ? "s" : ""} a workflow child does not use: ${list}`);
	}
	return fields;
}
