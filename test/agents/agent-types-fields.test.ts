import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUILTIN_TOOL_NAMES, loadAgentTypes } from "../../src/agents/agent-types.ts";
import { type AgentDirs, agentFile, createAgentDirs } from "./agent-files.ts";

let dirs: AgentDirs;
beforeEach(() => {
	dirs = createAgentDirs();
});
afterEach(() => {
	dirs.dispose();
});

/** Loads one project file `x.md` with these frontmatter lines; returns its type and the warnings. */
function loadOne(frontmatter: string, body?: string) {
	const path = dirs.write(".pi/agents/x.md", agentFile(frontmatter, body));
	const { types, warnings } = loadAgentTypes({ cwd: dirs.cwd, agentDir: dirs.agentDir });
	const type = types.get("x");
	if (!type) throw new Error(`x did not load: ${warnings.join("; ")}`);
	return { type, warnings, path };
}

describe("loadAgentTypes: tools", () => {
	it.each([
		["absent", "description: d", [...BUILTIN_TOOL_NAMES], true],
		["a comma list", "tools: read, grep, find", ["read", "grep", "find"], false],
		["a YAML list", "tools: [read, bash]", ["read", "bash"], false],
		["a block YAML list", "tools:\n  - ls\n  - read", ["ls", "read"], false],
		["none", "tools: none", [], false],
		["empty", 'tools: ""', [], false],
		["all", "tools: all", [...BUILTIN_TOOL_NAMES], true],
		["ALL (any case)", "tools: ALL", [...BUILTIN_TOOL_NAMES], true],
		["*", 'tools: "*"', [...BUILTIN_TOOL_NAMES], true],
		["* with extras", 'tools: "*, read"', [...BUILTIN_TOOL_NAMES], true],
		["a session tool by name", "tools: read, lookup_ticket", ["read", "lookup_ticket"], false],
	])("tools %s → %j", (_label, frontmatter, expected, all) => {
		const { type, warnings } = loadOne(frontmatter);
		expect(type.tools).toEqual(expected);
		expect(type.allSessionTools === true).toBe(all);
		expect(warnings).toEqual([]);
	});

	it("drops our own tools with a warning naming the file: children never get them", () => {
		const { type, warnings, path } = loadOne("tools: read, workflow, workflow_runs");
		expect(type.tools).toEqual(["read"]);
		expect(warnings).toEqual([
			`Agent file ${path}: \`tools\` names \`workflow\`, which workflow children never get; ignoring it`,
			`Agent file ${path}: \`tools\` names \`workflow_runs\`, which workflow children never get; ignoring it`,
		]);
	});

	it("ignores a tools value that is neither a string nor a list, with a warning, and keeps the default", () => {
		const { type, warnings, path } = loadOne("tools: 42");
		expect(type.tools).toEqual([...BUILTIN_TOOL_NAMES]);
		expect(warnings).toEqual([
			`Agent file ${path}: \`tools\` must be a comma list or a YAML list of tool names; ignoring 42`,
		]);
	});
});

describe("loadAgentTypes: disallowed_tools", () => {
	it("removes tools from the default set", () => {
		const { type } = loadOne("disallowed_tools: write, edit");
		expect(type.tools).toEqual(["read", "bash", "grep", "find", "ls"]);
		expect(type.disallowedTools).toEqual(["write", "edit"]);
	});

	it("removes tools from an explicit list", () => {
		const { type } = loadOne("tools: read, bash, write\ndisallowed_tools: [write]");
		expect(type.tools).toEqual(["read", "bash"]);
	});

	it("none disallows nothing", () => {
		expect(loadOne("disallowed_tools: none").type.disallowedTools).toEqual([]);
	});
});

describe("loadAgentTypes: thinking", () => {
	it.each(["off", "minimal", "low", "medium", "high", "xhigh"])("accepts %s", (level) => {
		const { type, warnings } = loadOne(`thinking: ${level}`);
		expect(type.thinking).toBe(level);
		expect(warnings).toEqual([]);
	});

	it("accepts any case", () => {
		expect(loadOne("thinking: High").type.thinking).toBe("high");
	});

	it("drops an invalid level with a warning; the type still loads", () => {
		const { type, warnings, path } = loadOne("thinking: extreme");
		expect(type.thinking).toBeUndefined();
		expect(warnings).toEqual([
			`Agent file ${path}: \`thinking\` must be one of off, minimal, low, medium, high, xhigh, max; ignoring "extreme"`,
		]);
	});
});

describe("loadAgentTypes: max_turns", () => {
	it.each([
		["max_turns: 30", 30],
		['max_turns: "7"', 7],
		["max_turns: 0", undefined],
		["description: d", undefined],
	])("%s → %s", (frontmatter, expected) => {
		const { type, warnings } = loadOne(frontmatter);
		expect(type.maxTurns).toBe(expected);
		expect(warnings).toEqual([]);
	});

	it.each(["-1", "2.5", "many"])("max_turns: %s is dropped with a warning", (value) => {
		const { type, warnings, path } = loadOne(`max_turns: ${value}`);
		expect(type.maxTurns).toBeUndefined();
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatch(
			`Agent file ${path}: \`max_turns\` must be a non-negative integer (0 = unlimited); ignoring`,
		);
	});
});

describe("loadAgentTypes: prompt_mode", () => {
	it("defaults to replace", () => {
		expect(loadOne("description: d").type.promptMode).toBe("replace");
	});

	it("accepts append", () => {
		expect(loadOne("prompt_mode: append").type.promptMode).toBe("append");
	});

	it("falls back to replace for another value, with a warning", () => {
		const { type, warnings, path } = loadOne("prompt_mode: prepend");
		expect(type.promptMode).toBe("replace");
		expect(warnings).toEqual([
			`Agent file ${path}: \`prompt_mode\` must be \`replace\` or \`append\`; using \`replace\` instead of "prepend"`,
		]);
	});
});

describe("loadAgentTypes: other fields", () => {
	it("reads model, description, display_name and the body as the system prompt", () => {
		const { type } = loadOne(
			"description: Security reviewer\ndisplay_name: Auditor\nmodel: anthropic/claude-opus-4-6:high",
			"You audit code.\n\nReport findings.",
		);
		expect(type).toMatchObject({
			description: "Security reviewer",
			displayName: "Auditor",
			model: "anthropic/claude-opus-4-6:high",
			systemPrompt: "You audit code.\n\nReport findings.",
			enabled: true,
		});
	});

	it("description falls back to the type name", () => {
		expect(loadOne("tools: read").type.description).toBe("x");
	});

	it.each([
		["enabled: false", false],
		["enabled: true", true],
	])("%s → enabled %s", (frontmatter, expected) => {
		expect(loadOne(frontmatter).type.enabled).toBe(expected);
	});

	it("a non-boolean enabled value keeps the type enabled, with a warning", () => {
		const { type, warnings, path } = loadOne('enabled: "false"');
		expect(type.enabled).toBe(true);
		expect(warnings).toEqual([
			`Agent file ${path}: \`enabled\` must be true or false; ignoring "false" (the type stays enabled)`,
		]);
	});
});

describe("loadAgentTypes: stall_ms", () => {
	it.each([
		["absent", "description: d", undefined],
		["a number", "stall_ms: 120000", 120_000],
		["0 (no watchdog) is kept", "stall_ms: 0", 0],
		["a numeric string", 'stall_ms: "90000"', 90_000],
	])("stall_ms %s → %j", (_label, frontmatter, expected) => {
		const { type, warnings } = loadOne(frontmatter);
		expect(type.stallMs).toBe(expected);
		expect(warnings).toEqual([]);
	});

	it.each([["-5"], ["1.5"], ["soon"]])("stall_ms %s is ignored with a warning naming the file", (value) => {
		const { type, warnings, path } = loadOne(`stall_ms: ${value}`);
		expect(type.stallMs).toBeUndefined();
		expect(warnings).toEqual([
			`Agent file ${path}: \`stall_ms\` must be a whole number of milliseconds (0 = no stall watchdog); ignoring ${JSON.stringify(Number.isNaN(Number(value)) ? value : Number(value))}`,
		]);
	});
});

describe("loadAgentTypes: fallback_models", () => {
	it.each([
		["absent", "description: d", undefined],
		[
			"a comma list",
			"fallback_models: anthropic/claude-sonnet-4, openai/gpt-5:low",
			["anthropic/claude-sonnet-4", "openai/gpt-5:low"],
		],
		[
			"a YAML list",
			"fallback_models:\n  - openai/gpt-5\n  - google/gemini-2.5-pro",
			["openai/gpt-5", "google/gemini-2.5-pro"],
		],
		["the camelCase name", "fallbackModels: [openai/gpt-5]", ["openai/gpt-5"]],
		["empty", 'fallback_models: ""', undefined],
	])("fallback_models %s → %j", (_label, frontmatter, expected) => {
		const { type, warnings } = loadOne(frontmatter);
		expect(type.fallbackModels).toEqual(expected);
		expect(warnings).toEqual([]);
	});

	it("a value that is not a list of names is ignored with a warning naming the file", () => {
		const { type, warnings, path } = loadOne("fallback_models: 42");
		expect(type.fallbackModels).toBeUndefined();
		expect(warnings).toEqual([
			`Agent file ${path}: \`fallback_models\` must be a comma list or a YAML list of models (\`provider/id\`); ignoring 42`,
		]);
	});
});
