import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkflowError } from "../../src/errors.ts";
import { agentFile } from "../agents/agent-files.ts";
import { fauxAssistantMessage } from "../helpers/faux.ts";
import { createRunnerFixture, type RunnerFixture } from "./runner-fixture.ts";

let fx: RunnerFixture;
beforeEach(async () => {
	fx = await createRunnerFixture();
	fx.faux.route("Check", [fauxAssistantMessage("checked")]);
});
afterEach(() => {
	fx.teardown();
});

/** Runs one call of `agentType` with these request fields; returns the result and the provider's request. */
async function runOne(agentType: string, overrides: Parameters<RunnerFixture["request"]>[0] = {}) {
	const result = await fx.runner()(fx.request({ prompt: "Check it", agentType, ...overrides }), fx.context());
	expect(fx.faux.requests).toHaveLength(1);
	return { result, seen: fx.faux.requests[0] };
}

describe("createPiAgentRunner: agent types", () => {
	it("a custom agent's prompt and tool allowlist reach the child", async () => {
		fx.dirs.write(
			".pi/agents/auditor.md",
			agentFile("description: Security auditor\ntools: read, grep", "You are a security auditor. Report CVEs."),
		);
		const { result, seen } = await runOne("auditor");
		expect(result).toMatchObject({ type: "auditor", status: "completed", result: "checked" });
		expect(seen.systemPrompt.startsWith("You are a security auditor. Report CVEs.")).toBe(true);
		expect(seen.tools.sort()).toEqual(["grep", "read"]);
	});

	it("prompt_mode replace: the body is the whole prompt, without pi's default prompt or the project's AGENTS.md", async () => {
		fx.dirs.write("AGENTS.md", "PROJECT-RULE-42");
		fx.dirs.write(".pi/agents/terse.md", agentFile("tools: none", "Answer in one word."));
		const { seen } = await runOne("terse");
		expect(seen.systemPrompt).toMatch(/^Answer in one word\.\n\n<cwd>\n/);
		expect(seen.systemPrompt).not.toContain("PROJECT-RULE-42");
		expect(seen.tools).toEqual([]);
	});

	it("prompt_mode append: pi's default prompt with the body as its addendum, and the project's AGENTS.md", async () => {
		fx.dirs.write("AGENTS.md", "PROJECT-RULE-42");
		fx.dirs.write(".pi/agents/twin.md", agentFile("prompt_mode: append\ntools: read", "APPENDED-BODY"));
		const { seen } = await runOne("twin");
		expect(seen.systemPrompt).toMatch(/^You are a coding assistant running inside pi/);
		expect(seen.systemPrompt).toContain("<addendum>\nAPPENDED-BODY\n</addendum>");
		expect(seen.systemPrompt).toContain("PROJECT-RULE-42");
	});

	it("the built-in general-purpose type appends its note to pi's default prompt", async () => {
		const { seen } = await runOne("general-purpose");
		expect(seen.systemPrompt).toContain("You are a sub-agent started by a workflow script.");
		expect(seen.systemPrompt.startsWith("You are a sub-agent")).toBe(false);
	});

	it("disallowed_tools also removes tools a call asks for", async () => {
		fx.dirs.write(".pi/agents/reader.md", agentFile("disallowed_tools: write, edit"));
		const { seen } = await runOne("reader", { tools: ["read", "write"] });
		expect(seen.tools).toEqual(["read"]);
	});

	it("a disabled type is refused with agent_type_unknown", async () => {
		fx.dirs.write(".pi/agents/off.md", agentFile("enabled: false"));
		const error = await fx
			.runner()(fx.request({ agentType: "off" }), fx.context())
			.catch((thrown: unknown) => thrown);
		expect(error).toBeInstanceOf(WorkflowError);
		expect((error as WorkflowError).code).toBe("agent_type_unknown");
		expect(fx.faux.requests).toEqual([]);
	});
});

describe("createPiAgentRunner: model and thinking", () => {
	it("without an agent-file or call model: the parent's model", async () => {
		const { seen } = await runOne("general-purpose");
		expect(seen.model).toBe("faux/faux-1");
	});

	it("the call's model and thinking fill what the agent file leaves open", async () => {
		const { seen } = await runOne("general-purpose", { model: "faux/faux-think", thinking: "high" });
		expect(seen).toMatchObject({ model: "faux/faux-think", thinking: "high" });
	});

	it("the agent file's model and thinking win over the call's", async () => {
		fx.dirs.write(".pi/agents/deep.md", agentFile("model: faux/faux-think\nthinking: low"));
		const { seen } = await runOne("deep", { model: "faux/faux-1", thinking: "high" });
		expect(seen).toMatchObject({ model: "faux/faux-think", thinking: "low" });
	});

	it("a `:thinking` suffix on the agent file's model sets the thinking level", async () => {
		fx.dirs.write(".pi/agents/deep.md", agentFile("model: faux/faux-think:medium"));
		const { seen } = await runOne("deep");
		expect(seen).toMatchObject({ model: "faux/faux-think", thinking: "medium" });
	});

	it("an agent file's model pi cannot resolve: throws agent_options_invalid naming the file", async () => {
		const path = fx.dirs.write(".pi/agents/ghost.md", agentFile("model: no-such-model-anywhere"));
		const error = await fx
			.runner()(fx.request({ agentType: "ghost" }), fx.context())
			.catch((thrown: unknown) => thrown);
		expect((error as WorkflowError).code).toBe("agent_options_invalid");
		expect((error as WorkflowError).message).toContain(
			`Agent type \`ghost\` (${path}) names model \`no-such-model-anywhere\``,
		);
	});
});
