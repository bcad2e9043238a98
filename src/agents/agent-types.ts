/**
 * Agent types: markdown files with YAML frontmatter (the settings) and a body (the system prompt), found in
 * `<cwd>/.pi/agents`, `<cwd>/.agents/agents` and `<agentDir>/agents`, then Claude Code's `<cwd>/.claude/agents` and
 * `~/.claude/agents` (unless the `workflows.claudeDirs` setting says not), plus the built-in `general-purpose`.
 * Loading never throws for a bad file: the file is skipped and a warning names it; so is anything but a regular file
 * (symlinks to one followed) of at most `MAX_AGENT_FILE_BYTES`, so a FIFO or `/dev/zero` cannot stall pi or fill memory.
 */
import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { parseFrontmatter } from "@earendil-works/pi-coding-agent";
import { unknownAgentTypeError, WorkflowError } from "../errors.ts";
import { type AgentTypeConfig, type AgentTypeSource, BUILTIN_TOOL_NAMES, parseAgentFields } from "./agent-fields.ts";
import { type ClaudeDirs, claudeDirsFor } from "./claude-dirs.ts";
import {
	decideProjectTrust,
	type ProjectTrustInput,
	skippedAgentFilesNote,
	untrustedAgentFilesWarning,
} from "./project-trust.ts";
import { readRegularFile } from "./regular-file.ts";

export {
	type AgentTypeConfig,
	type AgentTypeSource,
	BUILTIN_TOOL_NAMES,
	isThinkingLevel,
	THINKING_LEVELS,
	type ThinkingLevel,
} from "./agent-fields.ts";
export { type ProjectTrustInput, sessionTrust } from "./project-trust.ts";

/** Largest agent file read: a system prompt and its settings are a few KiB; this leaves room for long ones. */
export const MAX_AGENT_FILE_BYTES = 256 * 1024;

/** The agent type used when a call names none. */
export const DEFAULT_AGENT_TYPE = "general-purpose";

/** Options of `loadAgentTypes`. */
export interface LoadAgentTypesOptions {
	/** Project directory: `.pi/agents` and `.agents/agents` are read from here. */
	cwd: string;
	/** pi's global config directory (`~/.pi/agent` by default in pi): `agents/` is read from here. */
	agentDir: string;
	/** Claude Code's folders to read after ours, or false for none. Default: per `workflows.claudeDirs` (on). */
	claude?: ClaudeDirs | false;
	/**
	 * What the host knows of pi's trust in the project (see project-trust.ts): the session's decision, or a command
	 * line's `--approve`/`--no-approve`. Default: none (the saved decision and `defaultProjectTrust` decide).
	 */
	trust?: ProjectTrustInput;
}

/** What `loadAgentTypes` found. */
export interface LoadAgentTypesResult {
	/** Every type by name, disabled ones included (they shadow lower-precedence files of the same name). */
	types: Map<string, AgentTypeConfig>;
	/** One line per skipped file or ignored field, naming the file. */
	warnings: string[];
	/** Whether the project is trusted: its agent files were read, and children may load its pi resources. */
	projectTrusted: boolean;
	/** For an unknown type's error, when project agent files were skipped: which, why, how to trust the project. */
	unknownTypeNote?: string;
}

/** The built-in type: pi's default coding prompt (with context files) plus a note that it works for a script. */
export const GENERAL_PURPOSE_AGENT: AgentTypeConfig = Object.freeze({
	name: DEFAULT_AGENT_TYPE,
	description: "General-purpose agent: reads and searches code, runs commands, edits files",
	systemPrompt:
		"You are a sub-agent started by a workflow script. Do the task you are given without asking questions, " +
		"then reply with the final answer only: it is returned to the script as your result.",
	promptMode: "append",
	tools: [...BUILTIN_TOOL_NAMES],
	allSessionTools: true,
	disallowedTools: [],
	enabled: true,
	source: "builtin",
}) as AgentTypeConfig;

/** Reads every agent file; project files win over workspace files, which win over global ones and the built-in. */
export function loadAgentTypes(options: LoadAgentTypesOptions): LoadAgentTypesResult {
	const types = new Map<string, AgentTypeConfig>([[DEFAULT_AGENT_TYPE, GENERAL_PURPOSE_AGENT]]);
	const warnings: string[] = [];
	// Lowest precedence first, so later directories overwrite: Claude Code's, then ours.
	const claude = claudeDirsFor("agents", options, options.claude);
	const projectDirs = [join(options.cwd, ".pi", "agents"), join(options.cwd, ".agents", "agents")];
	if (claude) projectDirs.push(join(claude.cwd, ".claude", "agents"));
	const trust = decideProjectTrust(options.cwd, options.agentDir, projectDirs, options.trust);
	// Untrusted: the whole file is skipped, not only its code fields. pi gates a project's system prompt
	// (`.pi/SYSTEM.md`) and settings (its model) as well as its code, and a file that is not read cannot shadow the
	// user's own type of that name: `general-purpose` stays the built-in or the user's global file.
	const skipped: string[] = [];
	const load = (dir: string, source: Exclude<AgentTypeSource, "builtin">) => {
		if (trust.trusted || !projectDirs.includes(dir)) loadDirectory(dir, source, types, warnings);
		else skipped.push(...listMarkdownFiles(dir).map((file) => join(dir, file)));
	};
	if (claude) {
		load(join(claude.home, "agents"), "claude-global");
		load(join(claude.cwd, ".claude", "agents"), "claude-project");
	}
	load(join(options.agentDir, "agents"), "global");
	load(join(options.cwd, ".agents", "agents"), "workspace");
	load(join(options.cwd, ".pi", "agents"), "project");
	if (skipped.length > 0) warnings.unshift(untrustedAgentFilesWarning(skipped, trust.reason, options.agentDir));
	warnAliasClashes(types, warnings);
	return {
		types,
		warnings,
		projectTrusted: trust.trusted,
		...(skipped.length > 0
			? { unknownTypeNote: skippedAgentFilesNote(skipped, trust.reason, options.agentDir) }
			: {}),
	};
}

/** The names a script may use: enabled types and their aliases, sorted. */
export function listAvailableAgentTypes(types: ReadonlyMap<string, AgentTypeConfig>): string[] {
	const names = new Set<string>();
	for (const type of types.values()) {
		if (!type.enabled) continue;
		names.add(type.name);
		for (const alias of type.aliases ?? []) names.add(alias);
	}
	return [...names].sort();
}

/**
 * The enabled type of that name or alias (a type's own name wins over another's alias), or a `agent_type_unknown`
 * error that lists the available ones, or names both types an alias is claimed by.
 */
export function resolveAgentType(types: ReadonlyMap<string, AgentTypeConfig>, name: string): AgentTypeConfig {
	const type = types.get(name) ?? byAlias(types, name);
	const available = listAvailableAgentTypes(types);
	if (!type) throw unknownAgentTypeError(name, available);
	if (!type.enabled) {
		const where = type.path ? ` in ${type.path}` : "";
		return throwDisabled(name, where, available);
	}
	return type;
}

function byAlias(types: ReadonlyMap<string, AgentTypeConfig>, alias: string): AgentTypeConfig | undefined {
	const claimants = [...types.values()].filter((type) => type.enabled && type.aliases?.includes(alias));
	if (claimants.length <= 1) return claimants[0];
	const [a, b] = claimants;
	throw new WorkflowError(
		"agent_type_unknown",
		`Agent type alias \`${alias}\` is ambiguous: both \`${a.name}\` (${a.path ?? "built-in"}) and \`${b.name}\` ` +
			`(${b.path ?? "built-in"}) declare it. Use a type's own name, or remove the alias from one of the files`,
		{ details: { agentType: alias, ambiguous: claimants.map((type) => type.name) } },
	);
}

/** An alias two types claim, or one that is another type's name, is said when the files are read. */
function warnAliasClashes(types: ReadonlyMap<string, AgentTypeConfig>, warnings: string[]): void {
	const claimed = new Map<string, AgentTypeConfig>();
	for (const type of types.values()) {
		if (!type.enabled) continue;
		for (const alias of type.aliases ?? []) {
			const owner = types.get(alias);
			if (owner && owner !== type) {
				warnings.push(
					`Agent file ${type.path}: alias \`${alias}\` is the name of agent type \`${alias}\` (${owner.path ?? "built-in"}), which it selects instead`,
				);
				continue;
			}
			const other = claimed.get(alias);
			if (other && other !== type) {
				warnings.push(
					`Agent type alias \`${alias}\` is declared by both \`${other.name}\` (${other.path}) and \`${type.name}\` (${type.path}); using it is an error until one of them drops it`,
				);
			}
			claimed.set(alias, type);
		}
	}
}

function throwDisabled(name: string, where: string, available: string[]): never {
	const list = available.length > 0 ? available.join(", ") : "(none)";
	throw new WorkflowError(
		"agent_type_unknown",
		`Agent type \`${name}\` is disabled (\`enabled: false\`${where}). Available: ${list}`,
		{ details: { agentType: name, disabled: true, available } },
	);
}

function loadDirectory(
	dir: string,
	source: Exclude<AgentTypeSource, "builtin">,
	types: Map<string, AgentTypeConfig>,
	warnings: string[],
): void {
	const claimedHere = new Map<string, string>();
	for (const file of listMarkdownFiles(dir)) {
		const path = join(dir, file);
		const fileName = basename(file, ".md");
		const parsed = readAgentFile(path, warnings);
		if (!parsed) {
			warnIfShadowLost(fileName, types, warnings);
			continue;
		}
		const config = parseAgentFields({ ...parsed, fileName, path, source }, warnings);
		if (!config) continue;
		const earlier = claimedHere.get(config.name);
		if (earlier) {
			warnings.push(`Agent type \`${config.name}\` is defined by both ${earlier} and ${path}; using ${path}`);
		}
		const claude = types.get(config.name);
		if (claude?.source.startsWith("claude-") && !source.startsWith("claude-")) {
			warnings.push(
				`Agent type \`${config.name}\` is defined by Claude Code's ${claude.path} and by ${path}; using ${path} (pi's folders come first)`,
			);
		}
		claimedHere.set(config.name, path);
		types.set(config.name, config);
	}
}

/** Sorted so that which of two same-named files wins does not depend on the file system's order. */
function listMarkdownFiles(dir: string): string[] {
	try {
		return (
			readdirSync(dir, { withFileTypes: true })
				// Not only files: a FIFO or device named *.md is read to say it was skipped, not left out without a word.
				.filter((entry) => entry.name.endsWith(".md") && !entry.isDirectory())
				.map((entry) => entry.name)
				.sort()
		);
	} catch {
		// A missing directory is the common case: most projects define no agents.
		return [];
	}
}

function readAgentFile(
	path: string,
	warnings: string[],
): { frontmatter: Record<string, unknown>; body: string } | undefined {
	const read = readRegularFile(path, MAX_AGENT_FILE_BYTES);
	if (!read.ok) {
		warnings.push(`Skipping agent file ${path}: ${read.reason}. ${SKIP_HINTS[read.problem]}`);
		return undefined;
	}
	try {
		const { frontmatter, body } = parseFrontmatter(read.text);
		// YAML happily parses `---\nreviewer\n---` as a string; only a mapping holds fields.
		if (frontmatter === null || typeof frontmatter !== "object" || Array.isArray(frontmatter)) {
			warnings.push(`Skipping agent file ${path}: the frontmatter must be a YAML mapping of fields`);
			return undefined;
		}
		return { frontmatter, body };
	} catch (error) {
		const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
		warnings.push(`Skipping agent file ${path}: ${reason}`);
		return undefined;
	}
}

/** What to do about an agent file that was not read. */
const SKIP_HINTS = {
	not_regular: "Only regular .md files are read as agent files: remove it, or put an agent file in its place",
	too_large: `An agent file may be at most ${MAX_AGENT_FILE_BYTES / 1024} KiB: shorten its prompt`,
	unreadable: "Check that the file exists and can be read",
} as const;

/** A skipped file that would have overridden a type leaves the name pointing at another file; say which. */
function warnIfShadowLost(name: string, types: Map<string, AgentTypeConfig>, warnings: string[]): void {
	const surviving = types.get(name);
	if (!surviving?.enabled) return;
	const from = surviving.path ?? "the built-in definition";
	warnings.push(`Agent type \`${name}\` now loads from ${from} instead`);
}

/**
 * Checks the tools an `agent()` call names against pi's built-ins and `sessionTools` (an author error when one is
 * unknown); returns whether the type has extensions of its own, whose tools are checked only when the child starts.
 */
export function checkCallTools(
	type: AgentTypeConfig,
	tools: readonly string[] | undefined,
	sessionTools: readonly string[],
): { ownExtensions: boolean } {
	const ownExtensions = (type.extensions?.length ?? 0) + (type.subagentOnlyExtensions?.length ?? 0) > 0;
	if (!tools || ownExtensions) return { ownExtensions };
	const known = [...BUILTIN_TOOL_NAMES, ...sessionTools];
	const unknown = tools.filter((tool) => !known.includes(tool));
	if (unknown.length > 0) {
		throw new WorkflowError(
			"agent_options_invalid",
			`\`agent()\` option \`tools\` names unknown tool${unknown.length > 1 ? "s" : ""} ${unknown.map((t) => `\`${t}\``).join(", ")}. Known tools: ${known.join(", ")}`,
			{ details: { unknown, known } },
		);
	}
	return { ownExtensions };
}
