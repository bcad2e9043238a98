/**
 * Which project agent files are read, by pi's project trust (src/pi/agents/project-trust.ts): the session's
 * decision when pi gated the project, the saved one, `defaultProjectTrust`, a command line's override; and what an
 * untrusted project's children do not get (its skills).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type LoadAgentTypesOptions, loadAgentTypes, resolveAgentType } from "../../src/agents/agent-types.ts";
import { createRunnerFixture, type RunnerFixture } from "../children/runner-fixture.ts";
import { fauxAssistantMessage } from "../helpers/faux.ts";
import { type AgentDirs, agentFile, createAgentDirs, trustProject } from "./agent-files.ts";

let dirs: AgentDirs | undefined;
let fx: RunnerFixture | undefined;
afterEach(() => {
	dirs?.dispose();
	dirs = undefined;
	fx?.teardown();
	fx = undefined;
});

/** An undecided project with a `.pi/agents/general-purpose.md` that loads an extension. */
function codeProject(): AgentDirs {
	dirs = createAgentDirs({ trusted: false });
	dirs.write(".pi/agents/general-purpose.md", agentFile("extensions: ./evil.ts", "You obey."));
	return dirs;
}

function load(project: AgentDirs, trust?: LoadAgentTypesOptions["trust"]) {
	return loadAgentTypes({ cwd: project.cwd, agentDir: project.agentDir, ...(trust ? { trust } : {}) });
}

/** Where `general-purpose` came from: the project's file when it was read, else the built-in. */
function defaultFrom(project: AgentDirs, trust?: LoadAgentTypesOptions["trust"]): string {
	return resolveAgentType(load(project, trust).types, "general-purpose").source;
}

describe("project agent files and pi's project trust", () => {
	it("undecided, with a code field: not read, the built-in stays, one warning names the file and how to trust", () => {
		const project = codeProject();
		const file = join(project.cwd, ".pi", "agents", "general-purpose.md");
		const { types, warnings, projectTrusted } = load(project);
		expect(projectTrusted).toBe(false);
		expect(resolveAgentType(types, "general-purpose").source).toBe("builtin");
		expect(warnings).toEqual([
			`Not reading this project's agent files (${file}): the project has not been trusted (no saved decision). ` +
				"Agent files can load code into pi (`extensions`) and files into children (`skills`), so they follow pi's " +
				`project trust. To use them, trust the project: \`pi -a\` for one run, \`/trust\` in pi (saved in ${join(project.agentDir, "trust.json")}), ` +
				"or `pi-workflows run --approve`",
		]);
	});

	it("the user's own global file of that name is used instead of the skipped one", () => {
		const project = codeProject();
		project.write("~/agents/general-purpose.md", agentFile("description: mine"));
		expect(defaultFrom(project)).toBe("global");
	});

	it("undecided, with prompt-only files and nothing pi gates: read, as pi trusts such a project", () => {
		dirs = createAgentDirs({ trusted: false });
		dirs.write(".pi/agents/reviewer.md", agentFile("tools: read"));
		const result = load(dirs);
		expect(result.projectTrusted).toBe(true);
		expect(resolveAgentType(result.types, "reviewer").source).toBe("project");
	});

	it.each([
		["a saved trusted decision", (p: AgentDirs) => trustProject(p.agentDir, p.cwd), undefined, "project"],
		["a saved untrusted decision", (p: AgentDirs) => trustProject(p.agentDir, p.cwd, false), undefined, "builtin"],
		[
			'defaultProjectTrust: "always"',
			(p: AgentDirs) => writeFileSync(join(p.agentDir, "settings.json"), '{ "defaultProjectTrust": "always" }'),
			undefined,
			"project",
		],
		[
			"--approve over a saved no",
			(p: AgentDirs) => trustProject(p.agentDir, p.cwd, false),
			{ override: true },
			"project",
		],
		[
			"--no-approve over a saved yes",
			(p: AgentDirs) => trustProject(p.agentDir, p.cwd),
			{ override: false },
			"builtin",
		],
		["a session that declined", () => undefined, { session: false }, "builtin"],
		// pi found nothing of its own to gate, so the session's "trusted" is its default, not a decision.
		["a session trusted by default", () => undefined, { session: true }, "builtin"],
		[
			"a session that trusted a project pi gates",
			(p: AgentDirs) => p.write(".pi/settings.json", "{}"),
			{ session: true },
			"project",
		],
	] as const)("%s decides", (_name, arrange, trust, source) => {
		const project = codeProject();
		arrange(project);
		expect(defaultFrom(project, trust)).toBe(source);
	});

	it("an untrusted project's children do not get its skills, as pi would not load them", async () => {
		fx = await createRunnerFixture();
		const { dirs: project } = fx;
		project.write(".pi/skills/project-skill/SKILL.md", "---\nname: project-skill\ndescription: d\n---\n\nDo it.\n");
		trustProject(project.agentDir, project.cwd, false);
		fx.faux.route("Check", [fauxAssistantMessage("ok"), fauxAssistantMessage("ok")]);
		await fx.runner()(fx.request({ prompt: "Check" }), fx.context());
		trustProject(project.agentDir, project.cwd, true);
		await fx.runner()(fx.request({ prompt: "Check" }), fx.context());
		expect(fx.faux.requests[0].systemPrompt).not.toContain("project-skill");
		expect(fx.faux.requests[1].systemPrompt).toContain("<name>project-skill</name>");
	});
});
