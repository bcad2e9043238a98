/**
 * Claude Code's folders, in temp dirs: `.claude/workflows` and `~/.claude/workflows` found as saved workflows after
 * ours, `.claude/agents` and `~/.claude/agents` as agent types after ours (Claude's frontmatter read: tools as a
 * comma list of Claude's names, model), each clash said once, and the `workflows.claudeDirs` setting turning them off.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadAgentTypes } from "../../src/agents/agent-types.ts";
import { claudeDirsSetting, claudeHome } from "../../src/agents/claude-dirs.ts";
import { loadSavedWorkflows, resolveScriptSource } from "../../src/host/script-source.ts";

let cwd: string;
let agentDir: string;
let home: string;
beforeEach(() => {
	cwd = mkdtempSync(join(tmpdir(), "wf-claude-project-"));
	agentDir = mkdtempSync(join(tmpdir(), "wf-claude-agent-"));
	home = mkdtempSync(join(tmpdir(), "wf-claude-home-"));
});
afterEach(() => {
	for (const dir of [cwd, agentDir, home]) rmSync(dir, { recursive: true, force: true });
});

function write(dir: string, file: string, text: string): string {
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, file), text);
	return join(dir, file);
}

const workflow = (name: string, description: string) =>
	`export const meta = { name: "${name}", description: "${description}" };\nreturn 1;\n`;

describe(".claude/workflows", () => {
	it("project and global ones are found after ours; ours win a name, and the warning says which file runs", () => {
		const claudeProject = write(join(cwd, ".claude", "workflows"), "a.js", workflow("from-claude", "project"));
		write(join(home, "workflows"), "b.js", workflow("from-claude", "global"));
		write(join(home, "workflows"), "c.js", workflow("claude-global-only", "global"));
		const clash = write(join(cwd, ".claude", "workflows"), "d.js", workflow("shared", "claude"));
		const ours = write(join(agentDir, "workflows"), "shared.js", workflow("shared", "ours"));
		const found = loadSavedWorkflows({ cwd, agentDir, bundledDir: false, claude: { cwd, home } });
		expect([...found.byName.values()].map((w) => [w.name, w.scope, w.meta.description]).sort()).toEqual([
			["claude-global-only", "claude-global", "global"],
			["from-claude", "claude-project", "project"],
			["shared", "global", "ours"],
		]);
		expect(found.byName.get("from-claude")?.filename).toBe(claudeProject);
		expect(found.warnings).toEqual([
			`Saved workflow \`shared\` is in Claude Code's ${clash} and in ${ours}; \`shared\` runs ${ours} (pi's folders come first)`,
		]);
		const resolved = resolveScriptSource({ name: "from-claude" }, { cwd, agentDir, claude: { cwd, home } });
		expect(resolved).toMatchObject({ filename: claudeProject, origin: "saved:from-claude" });
	});

	it("the off switch: `claude: false`, or `workflows.claudeDirs: false` in the project's or pi's settings", () => {
		write(join(cwd, ".claude", "workflows"), "a.js", workflow("from-claude", "project"));
		const names = (claude?: false) => [
			...loadSavedWorkflows({
				cwd,
				agentDir,
				bundledDir: false,
				...(claude === false ? { claude } : {}),
			}).byName.keys(),
		];
		expect(names()).toEqual(["from-claude"]);
		expect(names(false)).toEqual([]);
		write(agentDir, "settings.json", JSON.stringify({ workflows: { claudeDirs: false } }));
		expect(names()).toEqual([]);
		// The project's settings win over pi's global ones, and may name one kind only.
		write(join(cwd, ".pi"), "settings.json", JSON.stringify({ workflows: { claudeDirs: { agents: false } } }));
		expect(claudeDirsSetting(cwd, agentDir, "agents")).toBe(false);
		expect(claudeDirsSetting(cwd, agentDir, "workflows")).toBe(false);
		write(join(cwd, ".pi"), "settings.json", JSON.stringify({ workflows: { claudeDirs: { workflows: true } } }));
		expect(names()).toEqual(["from-claude"]);
	});

	it("Claude Code's home is $CLAUDE_CONFIG_DIR, else ~/.claude", () => {
		expect(claudeHome({ CLAUDE_CONFIG_DIR: home })).toBe(home);
		expect(claudeHome({})).toMatch(/[/\\]\.claude$/);
	});

	it("a name no folder has says where to put workflows", () => {
		expect(() =>
			resolveScriptSource({ name: "nothing" }, { cwd, agentDir, bundledDir: false, claude: false }),
		).toThrow(
			"No saved workflow named `nothing`. None are saved: put workflow files in .pi/workflows/ (or Claude Code's .claude/workflows/)",
		);
	});
});

describe(".claude/agents", () => {
	const REVIEWER = `---
name: reviewer
description: Reviews code
tools: Read, Grep, Glob, WebFetch, mcp__github__search
model: sonnet
color: blue
---
You review code and say what is wrong.
`;

	it("Claude's frontmatter is read: tools by Claude's names as pi's, the rest dropped with a warning; model kept", () => {
		const path = write(join(cwd, ".claude", "agents"), "reviewer.md", REVIEWER);
		const { types, warnings } = loadAgentTypes({ cwd, agentDir, claude: { cwd, home } });
		const reviewer = types.get("reviewer");
		expect(reviewer).toMatchObject({
			name: "reviewer",
			description: "Reviews code",
			tools: ["read", "grep", "find"],
			model: "sonnet",
			source: "claude-project",
			path,
			systemPrompt: "You review code and say what is wrong.",
		});
		expect(reviewer?.allSessionTools).toBeUndefined();
		expect(warnings).toEqual([
			`Agent file ${path}: \`tools\` names \`WebFetch\`, \`mcp__github__search\`, which pi has no built-in for; the child goes without them`,
		]);
	});

	it("global ones too; ours win a name, with a warning; the off switch leaves them out", () => {
		write(join(home, "agents"), "scout.md", "---\nname: scout\ndescription: Finds things\n---\nFind.\n");
		const claude = write(join(cwd, ".claude", "agents"), "reviewer.md", REVIEWER);
		const ours = write(
			join(cwd, ".pi", "agents"),
			"reviewer.md",
			"---\nname: reviewer\ndescription: ours\n---\nOurs.\n",
		);
		const { types, warnings } = loadAgentTypes({ cwd, agentDir, claude: { cwd, home } });
		expect(types.get("scout")?.source).toBe("claude-global");
		expect(types.get("reviewer")).toMatchObject({ description: "ours", source: "project", path: ours });
		expect(warnings).toContain(
			`Agent type \`reviewer\` is defined by Claude Code's ${claude} and by ${ours}; using ${ours} (pi's folders come first)`,
		);
		const off = loadAgentTypes({ cwd, agentDir, claude: false });
		expect(off.types.has("scout")).toBe(false);
		write(agentDir, "settings.json", JSON.stringify({ workflows: { claudeDirs: { agents: false } } }));
		expect(loadAgentTypes({ cwd, agentDir }).types.has("reviewer")).toBe(true);
		expect(loadAgentTypes({ cwd, agentDir }).types.get("reviewer")?.source).toBe("project");
		rmSync(ours);
		expect(loadAgentTypes({ cwd, agentDir }).types.has("reviewer")).toBe(false);
	});
});
