import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listAvailableAgentTypes, loadAgentTypes, resolveAgentType } from "../../src/agents/agent-types.ts";
import { WorkflowError } from "../../src/errors.ts";
import { agentTypeLines } from "../../src/tool/description.ts";
import { createRunnerFixture } from "../children/runner-fixture.ts";
import { fauxAssistantMessage } from "../helpers/faux.ts";
import { type AgentDirs, agentFile, createAgentDirs } from "./agent-files.ts";

let dirs: AgentDirs;
beforeEach(() => {
	dirs = createAgentDirs();
});
afterEach(() => {
	dirs.dispose();
});

function load() {
	return loadAgentTypes({ cwd: dirs.cwd, agentDir: dirs.agentDir });
}

describe("agent files: aliases and package", () => {
	it("an alias selects the type, is a name scripts may use, and is listed in the tool description", () => {
		dirs.write(".pi/agents/scout.md", agentFile("description: Recon\naliases: explorer, code-scout"));
		const { types, warnings } = load();
		expect(warnings).toEqual([]);
		expect(resolveAgentType(types, "explorer").name).toBe("scout");
		expect(resolveAgentType(types, "code-scout").name).toBe("scout");
		expect(listAvailableAgentTypes(types)).toEqual(["code-scout", "explorer", "general-purpose", "scout"]);
		expect(agentTypeLines(types.values())).toContain("  scout (or explorer, code-scout): Recon");
	});

	it("YAML block-list aliases work as a comma list does", () => {
		dirs.write(".pi/agents/scout.md", agentFile("aliases:\n  - explorer\n  - finder"));
		expect(resolveAgentType(load().types, "finder").name).toBe("scout");
	});

	it("an alias two types declare: a warning when read, and an error naming both when used", () => {
		const a = dirs.write(".pi/agents/scout.md", agentFile("aliases: finder"));
		const b = dirs.write(".pi/agents/seeker.md", agentFile("aliases: finder"));
		const { types, warnings } = load();
		expect(warnings).toEqual([expect.stringContaining("`finder` is declared by both `scout`")]);
		const error = (() => {
			try {
				resolveAgentType(types, "finder");
			} catch (thrown) {
				return thrown;
			}
		})() as WorkflowError;
		expect(error).toBeInstanceOf(WorkflowError);
		expect(error.code).toBe("agent_type_unknown");
		expect(error.message).toContain(`\`scout\` (${a})`);
		expect(error.message).toContain(`\`seeker\` (${b})`);
		// Each type's own name still works.
		expect(resolveAgentType(types, "seeker").name).toBe("seeker");
	});

	it("an alias that is another type's name: that type wins, with a warning", () => {
		dirs.write(".pi/agents/scout.md", agentFile("aliases: reviewer"));
		dirs.write(".pi/agents/reviewer.md", agentFile("description: The reviewer"));
		const { types, warnings } = load();
		expect(resolveAgentType(types, "reviewer").name).toBe("reviewer");
		expect(warnings).toEqual([expect.stringContaining("alias `reviewer` is the name of agent type `reviewer`")]);
	});

	it("package: registers `<package>.<name>`", () => {
		dirs.write(".pi/agents/scout.md", agentFile("name: scout\npackage: code-analysis"));
		const { types } = load();
		expect(types.has("code-analysis.scout")).toBe(true);
		expect(types.has("scout")).toBe(false);
		expect(agentTypeLines(types.values()).join("\n")).toContain("code-analysis.scout");
	});

	it("a child run through an alias reports the type's own name", async () => {
		const fx = await createRunnerFixture();
		try {
			fx.dirs.write(".pi/agents/scout.md", agentFile("tools: none\naliases: explorer", "SCOUT-BODY"));
			fx.faux.route("Look", [fauxAssistantMessage("seen")]);
			const result = await fx.runner()(fx.request({ prompt: "Look", agentType: "explorer" }), fx.context());
			expect(result).toMatchObject({ type: "scout", status: "completed" });
			expect(fx.faux.requests[0].systemPrompt.startsWith("SCOUT-BODY")).toBe(true);
		} finally {
			fx.teardown();
		}
	});
});

describe("agent files: seed 001's spelling", () => {
	it("every camelCase name sets the same field as ours", () => {
		const path = dirs.write(
			".pi/agents/x.md",
			agentFile(
				[
					"displayName: Ex",
					"tools: read, bash, grep",
					"excludeTools: bash",
					"systemPromptMode: append",
					"maxTurns: 4",
					"stallMs: 1000",
					"subagentOnlyExtensions: ./tools/a.ts",
					"inheritSkills: true",
					"skill: one",
					"skillPath: ./skills",
					"inheritProjectContext: false",
					"inheritGlobalContext: true",
					"timeoutMs: 900000",
					"toolTimeoutMs: 600000",
				].join("\n"),
			),
		);
		const { types } = load();
		const here = dirname(path);
		expect(types.get("x")).toMatchObject({
			displayName: "Ex",
			tools: ["read", "grep"],
			disallowedTools: ["bash"],
			promptMode: "append",
			maxTurns: 4,
			stallMs: 1000,
			subagentOnlyExtensions: [join(here, "tools/a.ts")],
			inheritSkills: true,
			skills: ["one"],
			skillPath: [join(here, "skills")],
			inheritProjectContext: false,
			inheritGlobalContext: true,
			timeoutMs: 900000,
			toolTimeoutMs: 600000,
		});
	});

	it("disallowedTools is excludeTools' other spelling; ours wins when both are given, with a warning", () => {
		dirs.write(
			".pi/agents/x.md",
			agentFile("tools: read, bash, edit\ndisallowedTools: edit\ndisallowed_tools: bash"),
		);
		const { types, warnings } = load();
		expect(types.get("x")?.disallowedTools).toEqual(["bash"]);
		expect(warnings).toEqual([expect.stringContaining("using `disallowed_tools` and ignoring `disallowedTools`")]);
	});

	it("block lists work for tools, extensions and skills", () => {
		dirs.write(
			".pi/agents/x.md",
			agentFile("tools:\n- read\n- grep\nextensions:\n  - ./a.ts\n  - ./b.ts\nskills:\n  - one\n  - two"),
		);
		const type = load().types.get("x");
		expect(type?.tools).toEqual(["read", "grep"]);
		expect(type?.extensions?.map((path) => path.split("/").pop())).toEqual(["a.ts", "b.ts"]);
		expect(type?.skills).toEqual(["one", "two"]);
	});

	it("fields we do not support: one warning per file naming them all; fallbackModels is not among them", () => {
		const path = dirs.write(
			".pi/agents/x.md",
			agentFile(
				"output: context.md\nasync: true\nacceptance: checked\nfallbackModels: a/b, c/d\nfallback_models: e/f",
			),
		);
		dirs.write(".pi/agents/y.md", agentFile("advertise: true"));
		const { types, warnings } = load();
		expect(types.has("x")).toBe(true);
		expect(warnings).toEqual([
			`Agent file ${path}: ignoring fields a workflow child does not use: \`output\`, \`async\`, \`acceptance\``,
			expect.stringContaining("ignoring field a workflow child does not use: `advertise`"),
		]);
	});

	it("a named extension that does not exist is a warning when the files are read", () => {
		dirs.write(".pi/agents/x.md", agentFile("extensions: ./nope.ts"));
		expect(load().warnings).toEqual([expect.stringContaining("nope.ts` does not exist")]);
	});
});

describe("agent files: seed 001's full example", () => {
	it("loads, gives the type what it asks for, and names in one line what a workflow child ignores", () => {
		const path = dirs.write(
			".pi/agents/scout.md",
			`---
name: scout
package: code-analysis
description: Fast codebase recon
advertise: true
aliases: explorer, code-scout
tools: read, grep, find, ls, bash
excludeTools: bash
extensions:
subagentOnlyExtensions: ./tools/child-only-search.ts
model: claude-haiku-4-5
fallbackModels: openai-codex/gpt-5.6-luna:low, anthropic/claude-sonnet-4
thinking: high
systemPromptMode: replace
inheritProjectContext: false
inheritGlobalContext: false
inheritSkills: false
skills: safe-bash, review-checklist
skillPath: ./skills, ../shared-skills
output: context.md
defaultReads: context.md
defaultProgress: true
async: true
timeoutMs: 900000
toolTimeoutMs: 600000
acceptance: {"level":"none","reason":"lightweight lookup"}
acceptanceRole: read-only
completionGuard: false
interactive: true
maxSubagentDepth: 1
allowNestedSubagents: true
---

Your system prompt goes here.
`,
		);
		dirs.write(".pi/agents/tools/child-only-search.ts", "export default function () {}\n");
		const { types, warnings } = load();
		const here = dirname(path);
		expect(resolveAgentType(types, "explorer")).toMatchObject({
			name: "code-analysis.scout",
			aliases: ["explorer", "code-scout"],
			tools: ["read", "grep", "find", "ls"],
			disallowedTools: ["bash"],
			extensions: [],
			subagentOnlyExtensions: [join(here, "tools/child-only-search.ts")],
			model: "claude-haiku-4-5",
			thinking: "high",
			promptMode: "replace",
			inheritProjectContext: false,
			inheritGlobalContext: false,
			inheritSkills: false,
			skills: ["safe-bash", "review-checklist"],
			skillPath: [join(here, "skills"), join(here, "../shared-skills")],
			timeoutMs: 900000,
			toolTimeoutMs: 600000,
		});
		expect(warnings).toEqual([
			`Agent file ${path}: ignoring fields a workflow child does not use: \`advertise\`, \`output\`, \`defaultReads\`, \`defaultProgress\`, \`async\`, \`acceptance\`, \`acceptanceRole\`, \`completionGuard\`, \`interactive\`, \`maxSubagentDepth\`, \`allowNestedSubagents\``,
		]);
	});
});

describe("agent files: `context`", () => {
	it("reads fresh, fork and fork-or-fresh (and `contextMode:`); another value is a warning and the type starts fresh", () => {
		dirs.write(".pi/agents/a.md", agentFile("context: fork"));
		dirs.write(".pi/agents/b.md", agentFile("contextMode: Fork-or-fresh"));
		dirs.write(".pi/agents/c.md", agentFile("context: fresh"));
		const path = dirs.write(".pi/agents/d.md", agentFile("context: inherit"));
		const { types, warnings } = load();
		expect(["a", "b", "c", "d"].map((name) => types.get(name)?.context)).toEqual([
			"fork",
			"fork-or-fresh",
			"fresh",
			undefined,
		]);
		expect(warnings).toEqual([
			`Agent file ${path}: \`context\` must be \`fresh\`, \`fork\` or \`fork-or-fresh\`; ignoring "inherit" (children start fresh)`,
		]);
	});
});
