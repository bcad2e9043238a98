/**
 * The dry run's side of pi (`setUpDryPi`): agent types from the agent files, the model each call would run on named
 * as the real run picks it (agent file, call, tier, meta.model, then --model or pi's settings), the read-only tools
 * `--allow-tools` names, and nothing read that needs credentials or written anywhere.
 */
import { readdirSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setUpDryPi } from "../../src/cli/pi-host.ts";
import type { WorkflowAgentRequest } from "../../src/runtime/core/types.ts";
import { type AgentDirs, createAgentDirs } from "../agents/agent-files.ts";

let dirs: AgentDirs;
beforeEach(() => {
	dirs = createAgentDirs();
	dirs.write(
		"~/agents/scout.md",
		"---\nname: scout\ndescription: looks around\nmodel: anthropic/claude-haiku-4-5\n---\nLook.\n",
	);
	dirs.write("~/settings.json", JSON.stringify({ defaultProvider: "openai", defaultModel: "gpt-5" }));
	dirs.write("notes.txt", "dry notes\n");
});
afterEach(() => dirs.dispose());

const request = (overrides: Partial<WorkflowAgentRequest>): WorkflowAgentRequest => ({
	key: "k",
	index: 0,
	attempt: 1,
	prompt: "p",
	agentType: "general-purpose",
	label: "l",
	description: "l",
	cwd: dirs.cwd,
	...overrides,
});

describe("setUpDryPi", () => {
	it("names each call's model as a run would pick it, lists the agent types, and writes nothing", () => {
		const before = readdirSync(dirs.agentDir, { recursive: true }).sort();
		const pi = setUpDryPi({ cwd: dirs.cwd, agentDir: dirs.agentDir });
		expect(pi.agentTypes).toEqual(expect.arrayContaining(["general-purpose", "scout"]));
		expect(pi.modelOf(request({ agentType: "scout", model: "x/y" }))).toBe("anthropic/claude-haiku-4-5");
		expect(pi.modelOf(request({ model: "x/y", defaultModel: "m/meta" }))).toBe("x/y");
		expect(pi.modelOf(request({ tier: "small", defaultModel: "m/meta" }))).toBe("tier small");
		expect(pi.modelOf(request({ defaultModel: "m/meta" }))).toBe("m/meta");
		expect(pi.modelOf(request({}))).toBe("openai/gpt-5");
		const flagged = setUpDryPi({ cwd: dirs.cwd, agentDir: dirs.agentDir, model: "faux/faux-1" });
		expect(flagged.modelOf(request({}))).toBe("faux/faux-1");
		expect(readdirSync(dirs.agentDir, { recursive: true }).sort()).toEqual(before);
	});

	it("lends only the read-only tools --allow-tools names, as a real run has them, which read for real", async () => {
		expect(Object.keys(setUpDryPi({ cwd: dirs.cwd, agentDir: dirs.agentDir }).readTools)).toEqual([]);
		const pi = setUpDryPi({ cwd: dirs.cwd, agentDir: dirs.agentDir, allowTools: ["read", "ls", "bash"] });
		expect(Object.keys(pi.readTools).sort()).toEqual(["ls", "read"]);
		const read = await pi.readTools.read?.({ path: "notes.txt" }, new AbortController().signal);
		expect(read?.output).toContain("dry notes");
	});
});
