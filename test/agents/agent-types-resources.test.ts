import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionTools } from "../../src/children/session-tools.ts";
import { createRunnerFixture, type RunnerFixture } from "../children/runner-fixture.ts";
import { fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";
import { agentFile } from "./agent-files.ts";

let fx: RunnerFixture;
beforeEach(async () => {
	fx = await createRunnerFixture();
});
afterEach(() => {
	fx.teardown();
});

/** An extension that registers `fixture_search`, whose answer names the extension, so a test sees which one ran. */
function searchExtension(answer: string): string {
	return `export default function (pi) {
	pi.registerTool({
		name: "fixture_search",
		label: "Fixture search",
		description: "Searches the fixture",
		parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
		async execute(_id, params) {
			return { content: [{ type: "text", text: ${JSON.stringify(answer)} + " for " + params.q }], details: {} };
		},
	});
}
`;
}

/** A parent session that has a `fixture_search` of its own: calls to it are recorded. */
function parentWithSearch(calls: string[]): SessionTools {
	return {
		list: () => [
			{
				name: "fixture_search",
				label: "parent search",
				description: "parent's",
				parameters: { type: "object" } as never,
			},
		],
		async execute(name) {
			calls.push(name);
			return { content: [{ type: "text", text: "PARENT-ANSWER" }], details: undefined };
		},
	};
}

const searchThenAnswer = [
	fauxAssistantMessage([fauxToolCall("fixture_search", { q: "auth" })], { stopReason: "toolUse" }),
	(request: { last: { text: string } }) => fauxAssistantMessage(`found: ${request.last.text}`),
];

describe("agent files: the child's own extensions", () => {
	it("subagent_only_extensions: the child calls the tool in its own session, not through the parent's bridge", async () => {
		fx.dirs.write(".pi/agents/tools/search.ts", searchExtension("CHILD-EXTENSION"));
		fx.dirs.write(
			".pi/agents/scout.md",
			agentFile("tools: read, fixture_search\nsubagent_only_extensions: ./tools/search.ts"),
		);
		fx.faux.route("Find auth", searchThenAnswer);
		fx.faux.route("Plain", [fauxAssistantMessage("plain")]);
		const parentCalls: string[] = [];
		const runner = fx.runner({ sessionTools: parentWithSearch(parentCalls) });
		const result = await runner(fx.request({ prompt: "Find auth", agentType: "scout" }), fx.context());
		expect(result).toMatchObject({ status: "completed", result: "found: CHILD-EXTENSION for auth", toolUses: 1 });
		expect(result.warnings).toBeUndefined();
		expect(fx.faux.requests[0].tools.sort()).toEqual(["fixture_search", "read"]);
		expect(parentCalls).toEqual([]);
		// Another type of the same runner does not load it.
		const plain = await runner(
			fx.request({ prompt: "Plain", agentType: "general-purpose", tools: ["read"] }),
			fx.context(),
		);
		expect(plain.status).toBe("completed");
		expect(fx.faux.requests[2].tools).toEqual(["read"]);
	});

	it("without a parent session at all (a command or CLI run): the camelCase `subagentOnlyExtensions` tool works", async () => {
		fx.dirs.write(".pi/agents/tools/search.ts", searchExtension("ALONE"));
		fx.dirs.write(
			".pi/agents/scout.md",
			agentFile("tools:\n  - fixture_search\nsubagentOnlyExtensions:\n  - ./tools/search.ts"),
		);
		fx.faux.route("Find auth", searchThenAnswer);
		const result = await fx.runner()(fx.request({ prompt: "Find auth", agentType: "scout" }), fx.context());
		expect(result).toMatchObject({ status: "completed", result: "found: ALONE for auth" });
		expect(fx.faux.requests[0].tools).toEqual(["fixture_search"]);
	});

	it("`extensions:` listed with `tools` absent: the child gets pi's tools and the extension's", async () => {
		fx.dirs.write("ext/search.ts", searchExtension("LISTED"));
		fx.dirs.write(".pi/agents/scout.md", agentFile("extensions: ../../ext/search.ts"));
		fx.faux.route("Check", [fauxAssistantMessage("ok")]);
		await fx.runner()(fx.request({ prompt: "Check", agentType: "scout" }), fx.context());
		expect(fx.faux.requests[0].tools).toContain("fixture_search");
		expect(fx.faux.requests[0].tools).toContain("read");
	});

	it("`extensions:` empty: no extensions, and a tool only an extension would give is a warning", async () => {
		fx.dirs.write(".pi/agents/bare.md", agentFile("extensions:\ntools: read, fixture_search"));
		fx.faux.route("Check", [fauxAssistantMessage("ok")]);
		const result = await fx.runner()(fx.request({ prompt: "Check", agentType: "bare" }), fx.context());
		expect(result.status).toBe("completed");
		expect(fx.faux.requests[0].tools).toEqual(["read"]);
		expect(result.warnings?.join("\n")).toContain("`fixture_search`, which this session does not have");
	});

	it("an extension that does not exist: a failed child naming the file, in its warnings too, and no model request", async () => {
		const path = fx.dirs.write(
			".pi/agents/broken.md",
			agentFile("tools: fixture_search\nsubagent_only_extensions: ./tools/missing.ts"),
		);
		const result = await fx.runner()(fx.request({ prompt: "Check", agentType: "broken" }), fx.context());
		expect(result.status).toBe("failed");
		expect(result.noRetry).toBe(true);
		expect(result.error).toContain(`agent type \`broken\` (${path})`);
		expect(result.error).toContain("tools/missing.ts");
		expect(result.warnings?.join("\n")).toContain("tools/missing.ts");
		expect(fx.faux.requests).toEqual([]);
	});

	it("an extension that throws while loading: a failed child naming the file", async () => {
		fx.dirs.write(".pi/agents/tools/bad.ts", "throw new Error('boom at load');\n");
		fx.dirs.write(".pi/agents/broken.md", agentFile("subagent_only_extensions: ./tools/bad.ts"));
		const result = await fx.runner()(fx.request({ prompt: "Check", agentType: "broken" }), fx.context());
		expect(result.status).toBe("failed");
		expect(result.error).toContain("tools/bad.ts");
		expect(fx.faux.requests).toEqual([]);
	});
});

describe("agent files: skills", () => {
	function writeSkill(dir: string, name: string): void {
		fx.dirs.write(
			`${dir}/${name}/SKILL.md`,
			`---\nname: ${name}\ndescription: The ${name} skill\n---\n\nDo ${name}.\n`,
		);
	}

	it("a named skill from skill_path is in the child's prompt; a missing one is a warning naming it", async () => {
		writeSkill(".pi/agents/skills", "safe-bash");
		writeSkill(".pi/agents/skills", "unasked");
		fx.dirs.write(
			".pi/agents/skilled.md",
			agentFile("tools: read\nskills: safe-bash, no-such-skill\nskill_path: ./skills"),
		);
		fx.faux.route("Check", [fauxAssistantMessage("ok")]);
		const result = await fx.runner()(fx.request({ prompt: "Check", agentType: "skilled" }), fx.context());
		const prompt = fx.faux.requests[0].systemPrompt;
		expect(prompt).toContain("<name>safe-bash</name>");
		expect(prompt).not.toContain("unasked");
		expect(result.warnings).toEqual([expect.stringContaining("names skill `no-such-skill`, which was not found")]);
	});

	it("inherit_skills: pi's discovered skills (.pi/skills) reach the child; off, they do not", async () => {
		writeSkill(".pi/skills", "project-skill");
		fx.dirs.write(".pi/agents/heir.md", agentFile("tools: read\ninheritSkills: true"));
		fx.dirs.write(".pi/agents/plain.md", agentFile("tools: read"));
		fx.faux.route("Check", [fauxAssistantMessage("ok"), fauxAssistantMessage("ok")]);
		await fx.runner()(fx.request({ prompt: "Check", agentType: "heir" }), fx.context());
		await fx.runner()(fx.request({ prompt: "Check", agentType: "plain" }), fx.context());
		expect(fx.faux.requests[0].systemPrompt).toContain("<name>project-skill</name>");
		expect(fx.faux.requests[1].systemPrompt).not.toContain("project-skill");
	});

	it("an append type (general-purpose too) inherits pi's skills catalog by default", async () => {
		writeSkill(".pi/skills", "project-skill");
		fx.faux.route("Check", [fauxAssistantMessage("ok")]);
		await fx.runner()(fx.request({ prompt: "Check", agentType: "general-purpose" }), fx.context());
		expect(fx.faux.requests[0].systemPrompt).toContain("<name>project-skill</name>");
	});

	it("skills with no reading tool: the child gets `read` to open them", async () => {
		writeSkill(".pi/agents/skills", "safe-bash");
		fx.dirs.write(".pi/agents/skilled.md", agentFile("tools: none\nskills: safe-bash\nskillPath: ./skills"));
		fx.faux.route("Check", [fauxAssistantMessage("ok")]);
		await fx.runner()(fx.request({ prompt: "Check", agentType: "skilled" }), fx.context());
		expect(fx.faux.requests[0].tools).toEqual(["read"]);
	});
});

describe("agent files: project and global context", () => {
	beforeEach(() => {
		fx.dirs.write("AGENTS.md", "PROJECT-RULE-42");
		fx.dirs.write("~/AGENTS.md", "GLOBAL-RULE-7");
	});

	async function promptOf(frontmatter: string): Promise<string> {
		fx.dirs.write(".pi/agents/ctx.md", agentFile(frontmatter, "BODY"));
		fx.faux.route("Check", [fauxAssistantMessage("ok")]);
		await fx.runner()(fx.request({ prompt: "Check", agentType: "ctx" }), fx.context());
		return fx.faux.requests[0].systemPrompt;
	}

	it("replace with inherit_project_context: the project's AGENTS.md, not the global one", async () => {
		const prompt = await promptOf("tools: none\ninherit_project_context: true");
		expect(prompt.startsWith("BODY")).toBe(true);
		expect(prompt).toContain("PROJECT-RULE-42");
		expect(prompt).not.toContain("GLOBAL-RULE-7");
	});

	it("replace with both (camelCase): project and global context", async () => {
		const prompt = await promptOf("tools: none\ninheritProjectContext: true\ninheritGlobalContext: true");
		expect(prompt).toContain("PROJECT-RULE-42");
		expect(prompt).toContain("GLOBAL-RULE-7");
	});

	it("append, by default (as before): the project's and the global context files", async () => {
		const prompt = await promptOf("prompt_mode: append\ntools: none");
		expect(prompt).toContain("GLOBAL-RULE-7");
		expect(prompt).toContain("PROJECT-RULE-42");
	});

	it("append with inherit_project_context: false and inherit_global_context: false: no context files", async () => {
		const prompt = await promptOf(
			"systemPromptMode: append\ntools: none\ninherit_project_context: false\ninherit_global_context: false",
		);
		expect(prompt).toMatch(/^You are a coding assistant running inside pi/);
		expect(prompt).not.toContain("PROJECT-RULE-42");
		expect(prompt).not.toContain("GLOBAL-RULE-7");
	});
});
