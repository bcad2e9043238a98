/**
 * The agent-file fields that give a child more than a prompt and tools: its own extensions and skills, the
 * project's context files, other names, and deadlines. Read like the other fields: a bad value is dropped with a
 * warning naming the field, never the whole type.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, resolve } from "node:path";

/** Longest deadline (Node's longest timer, about 24.8 days). */
const MAX_MS = 2 ** 31 - 1;

/** What these fields add to an agent type; each is unset when its field is absent. */
export interface AgentResourceFields {
	/** `aliases:` other names that select this type. */
	aliases?: string[];
	/** `package:` the type registers as `<package>.<name>`. */
	package?: string;
	/** `extensions:` exactly these extensions in the child's session (absolute paths or package sources); [] is none. */
	extensions?: string[];
	/** `subagent_only_extensions:` extensions loaded only in this type's children. */
	subagentOnlyExtensions?: string[];
	/** `skills:` skills the child gets, by name, whether or not it inherits pi's catalog. */
	skills?: string[];
	/** `inherit_skills:` pi's discovered skills catalog. Default: on for `append` types, off for `replace` ones. */
	inheritSkills?: boolean;
	/** `skill_path:` more places (files or directories, absolute) to find `skills` in. */
	skillPath?: string[];
	/** `inherit_project_context:` the repository's AGENTS.md / CLAUDE.md. Default: on for `append`, off for `replace`. */
	inheritProjectContext?: boolean;
	/** `inherit_global_context:` pi's global AGENTS.md (in its agent dir). Default: on for `append`, off for `replace`. */
	inheritGlobalContext?: boolean;
	/** `timeout_ms:` the default `timeoutMs` of this type's calls. */
	timeoutMs?: number;
	/** `tool_timeout_ms:` a hard deadline for each tool call inside the child. */
	toolTimeoutMs?: number;
}

/** Reads the resource fields of one (normalized) frontmatter; paths resolve from the agent file's folder. */
export function parseResourceFields(
	fm: Record<string, unknown>,
	path: string,
	warn: (message: string) => void,
): AgentResourceFields {
	const out: AgentResourceFields = {};
	const base = dirname(path);
	const aliases = nameList(fm, "aliases", warn)?.filter((alias) => {
		if (!alias.includes(":")) return true;
		warn(`alias \`${alias}\` contains \`:\`, which is reserved for plugin-scoped names; ignoring it`);
		return false;
	});
	if (aliases && aliases.length > 0) out.aliases = aliases;
	if (typeof fm.package === "string" && fm.package.trim()) {
		const pkg = fm.package.trim();
		if (pkg.includes(":")) warn(`\`package\` \`${pkg}\` contains \`:\`, which is reserved; ignoring it`);
		else out.package = pkg;
	} else if (fm.package !== undefined && fm.package !== null) {
		warn(`\`package\` must be a name; ignoring ${JSON.stringify(fm.package)}`);
	}
	const extensions = pathList(fm, "extensions", base, warn);
	if (extensions) out.extensions = extensions;
	const childOnly = pathList(fm, "subagent_only_extensions", base, warn);
	if (childOnly && childOnly.length > 0) out.subagentOnlyExtensions = childOnly;
	const skills = nameList(fm, "skills", warn);
	if (skills && skills.length > 0) out.skills = skills;
	const skillPath = pathList(fm, "skill_path", base, warn);
	if (skillPath && skillPath.length > 0) out.skillPath = skillPath;
	for (const [field, key] of [
		["inherit_skills", "inheritSkills"],
		["inherit_project_context", "inheritProjectContext"],
		["inherit_global_context", "inheritGlobalContext"],
	] as const) {
		const value = booleanField(fm[field], field, warn);
		if (value !== undefined) out[key] = value;
	}
	const timeoutMs = positiveMs(fm.timeout_ms, "timeout_ms", warn);
	if (timeoutMs !== undefined) out.timeoutMs = timeoutMs;
	const toolTimeoutMs = positiveMs(fm.tool_timeout_ms, "tool_timeout_ms", warn);
	if (toolTimeoutMs !== undefined) out.toolTimeoutMs = toolTimeoutMs;
	for (const file of [...(out.extensions ?? []), ...(out.subagentOnlyExtensions ?? [])]) {
		if (isAbsolute(file) && !existsSync(file)) {
			warn(`extension \`${file}\` does not exist: this type's children will fail until it does`);
		}
	}
	return out;
}

/**
 * A list of names: a comma list or a YAML block list. Absent → undefined; present but empty (`field:`) → [].
 */
export function nameList(fm: Record<string, unknown>, field: string, warn: (message: string) => void) {
	if (!(field in fm)) return undefined;
	const value = fm[field];
	if (value === null || value === undefined) return [];
	let items: string[];
	if (Array.isArray(value)) items = value.map((item) => String(item));
	else if (typeof value === "string") items = value.split(",");
	else {
		warn(`\`${field}\` must be a comma list or a YAML list; ignoring ${JSON.stringify(value)}`);
		return undefined;
	}
	return [...new Set(items.map((item) => item.trim()).filter((item) => item.length > 0))];
}

/** A list of paths, each resolved from `base` (`~/` from the home folder); package sources (`npm:…`) are kept. */
function pathList(fm: Record<string, unknown>, field: string, base: string, warn: (message: string) => void) {
	return nameList(fm, field, warn)?.map((entry) => {
		if (/^(npm|git|https?):/.test(entry)) return entry;
		if (entry === "~" || entry.startsWith("~/")) return resolve(homedir(), entry.slice(2));
		return resolve(base, entry);
	});
}

function booleanField(value: unknown, field: string, warn: (message: string) => void): boolean | undefined {
	if (value === undefined || value === null) return undefined;
	if (typeof value === "boolean") return value;
	warn(`\`${field}\` must be true or false; ignoring ${JSON.stringify(value)}`);
	return undefined;
}

function positiveMs(value: unknown, field: string, warn: (message: string) => void): number | undefined {
	if (value === undefined || value === null) return undefined;
	const number = typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value) : value;
	if (typeof number === "number" && Number.isInteger(number) && number > 0 && number <= MAX_MS) return number;
	warn(`\`${field}\` must be a whole number of milliseconds above 0; ignoring ${JSON.stringify(value)}`);
	return undefined;
}
