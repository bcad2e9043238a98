/**
 * Where Claude Code users keep their files, read after ours: `.claude/workflows/*.js` and `.claude/agents/*.md` in
 * the project, and the same under Claude Code's home (`$CLAUDE_CONFIG_DIR`, else `~/.claude`). The `workflows` key
 * of pi's settings turns them off: `"claudeDirs": false` (both), or `{ "workflows": false }` / `{ "agents": false }`.
 * The settings files are read here as JSON (project `.pi/settings.json` over `<agentDir>/settings.json`), so the
 * pi-free command line honours them too.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** Where to look, or `false` for not at all. */
export interface ClaudeDirs {
	/** The project's `.claude` folder's parent: the project directory. */
	cwd: string;
	/** Claude Code's home (`~/.claude`): its `workflows/` and `agents/` are the global ones. */
	home: string;
}

/** Claude Code's home: `$CLAUDE_CONFIG_DIR` (Claude Code's own variable), else `~/.claude`. */
export function claudeHome(env: NodeJS.ProcessEnv = process.env): string {
	const set = env.CLAUDE_CONFIG_DIR?.trim();
	return set ? set : join(homedir(), ".claude");
}

/** Which kind of Claude Code file a setting is about. */
export type ClaudeKind = "workflows" | "agents";

/**
 * The `.claude` places to read for `kind`, or false when the `workflows.claudeDirs` setting turns them off. A value
 * `given` by the caller wins (tests, hosts of their own); undefined reads the settings.
 */
export function claudeDirsFor(
	kind: ClaudeKind,
	places: { cwd: string; agentDir: string },
	given?: ClaudeDirs | false,
): ClaudeDirs | false {
	if (given !== undefined) return given;
	return claudeDirsSetting(places.cwd, places.agentDir, kind) ? { cwd: places.cwd, home: claudeHome() } : false;
}

/** Whether `workflows.claudeDirs` leaves `kind` on (the default); the project's settings file wins. */
export function claudeDirsSetting(cwd: string, agentDir: string, kind: ClaudeKind): boolean {
	for (const file of [join(cwd, ".pi", "settings.json"), join(agentDir, "settings.json")]) {
		const value = readSetting(file);
		if (value === undefined) continue;
		if (typeof value === "boolean") return value;
		if (value !== null && typeof value === "object" && !Array.isArray(value)) {
			const one = (value as Record<string, unknown>)[kind];
			if (typeof one === "boolean") return one;
		}
	}
	return true;
}

/** `workflows.claudeDirs` of one settings file; undefined when the file, the key or valid JSON is missing. */
function readSetting(file: string): unknown {
	let text: string;
	try {
		text = readFileSync(file, "utf8");
	} catch {
		return undefined;
	}
	try {
		const settings = JSON.parse(text) as { workflows?: { claudeDirs?: unknown } };
		return settings?.workflows?.claudeDirs;
	} catch {
		// pi says what is wrong with its own settings file; here it only means "not set".
		return undefined;
	}
}

/** Claude Code's tool names and pi's for the same tool; the rest have no pi built-in and are dropped with a word. */
export const CLAUDE_TOOL_NAMES: Readonly<Record<string, string>> = {
	Read: "read",
	Write: "write",
	Edit: "edit",
	MultiEdit: "edit",
	Bash: "bash",
	Grep: "grep",
	Glob: "find",
	LS: "ls",
};

/** Frontmatter fields of Claude Code's agent files that a workflow child has no use for: not warned about. */
export const CLAUDE_ONLY_FIELDS: readonly string[] = ["color", "permissionMode", "mcpServers", "hooks", "memory"];

/**
 * A Claude Code agent file's frontmatter in our terms: its tool names as pi's (`Read` → `read`, `Glob` → `find`),
 * tools pi has no built-in for dropped with one warning, and Claude-only fields left out without one.
 */
export function claudeFrontmatter(
	frontmatter: Record<string, unknown>,
	warn: (message: string) => void,
): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(frontmatter)) {
		if (CLAUDE_ONLY_FIELDS.includes(key)) continue;
		out[key] = key === "tools" || key === "disallowedTools" ? claudeTools(value, key, warn) : value;
	}
	return out;
}

function claudeTools(value: unknown, field: string, warn: (message: string) => void): unknown {
	const items = Array.isArray(value)
		? value.map((item) => String(item).trim())
		: typeof value === "string"
			? value.split(",").map((item) => item.trim())
			: undefined;
	if (!items) return value;
	const kept: string[] = [];
	const dropped: string[] = [];
	for (const item of items.filter((name) => name !== "")) {
		const pi = Object.hasOwn(CLAUDE_TOOL_NAMES, item) ? CLAUDE_TOOL_NAMES[item] : undefined;
		if (pi) {
			if (!kept.includes(pi)) kept.push(pi);
		} else if (item === "*" || Object.values(CLAUDE_TOOL_NAMES).includes(item)) kept.push(item);
		else dropped.push(item);
	}
	if (dropped.length > 0 && field === "tools") {
		warn(
			`\`tools\` names ${dropped.map((name) => `\`${name}\``).join(", ")}, which pi has no built-in for; the child goes without ${dropped.length > 1 ? "them" : "it"}`,
		);
	}
	// Every listed tool dropped: no tools, as listed, not all of them (which an absent `tools` would mean).
	return kept.length > 0 ? kept : "none";
}
