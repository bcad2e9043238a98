/**
 * Saved workflows as commands, with the real starter (real runtime, real run store) and a scripted runner: which
 * names get a command and which clash (pi's built-ins, another extension's, our own), re-registering, a run started
 * in the background whose completion message goes to `notify`, a missing argument asked for where there are
 * dialogs and the usage elsewhere, `/workflows run` for a clashing name, and a bundled workflow run by name.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ExtensionAPI, ExtensionCommandContext, RegisteredCommand } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RunRegistry } from "../../../src/host/registry.ts";
import {
	PI_BUILTIN_COMMANDS,
	registerSavedWorkflowCommands,
	runSavedWorkflow,
	type SavedCommandsOptions,
	workflowsRunCompletions,
	workflowsRunSubcommand,
} from "../../../src/pi/commands/saved-commands.ts";
import { createWorkflowsCommand } from "../../../src/pi/commands/workflows-command.ts";
import type { WorkflowRunMessage } from "../../../src/pi/runs/messages.ts";
import { createWorkflowQueue } from "../../../src/runtime/core/queue.ts";
import { createWorkflowStarter } from "../../../src/tool/workflow-tool.ts";
import { createFakeRunner } from "../../helpers/fake-runner.ts";
import { ROOT } from "../../helpers/package.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";
import { until } from "../../helpers/until.ts";

checkSandboxLeaks();

const ECHO = `export const meta = {
	name: "echo-args",
	description: "Echo a word",
	args: {
		type: "object",
		properties: { word: { type: "string", description: "what to echo" }, times: { type: "integer" } },
		required: ["word"],
		additionalProperties: false,
	},
};
const answer = await agent("echo " + args.word);
return { answer, times: args.times ?? 1 };
`;

/** A command context whose dialogs answer from `answers` and which records every notification. */
function commandContext(cwd: string, mode: "tui" | "json", answers: (string | undefined)[] = []) {
	const shown: { text: string; level: string }[] = [];
	const asked: string[] = [];
	const ctx = {
		cwd,
		mode,
		hasUI: mode === "tui",
		ui: {
			notify: (text: string, level = "info") => shown.push({ text, level }),
			input: async (title: string) => {
				asked.push(title);
				return answers.shift();
			},
			setWidget: () => {},
			setStatus: () => {},
		},
	} as unknown as ExtensionCommandContext;
	return { ctx, shown, asked };
}

/** The slice of pi's API the registration uses: commands by name, and what `getCommands` would list. */
function fakePi(others: { name: string; source: "extension" | "prompt" | "skill"; path: string }[] = []) {
	const commands = new Map<string, Omit<RegisteredCommand, "name" | "sourceInfo">>();
	const pi = {
		registerCommand: (name: string, command: Omit<RegisteredCommand, "name" | "sourceInfo">) => {
			commands.set(name, command);
		},
		getCommands: () => [
			...others.map((o) => ({ name: o.name, source: o.source, sourceInfo: { path: o.path } })),
			...[...commands.keys()].map((name) => ({ name, source: "extension", sourceInfo: { path: "ours" } })),
		],
	} as unknown as Pick<ExtensionAPI, "registerCommand" | "getCommands">;
	return { pi, commands };
}

describe("saved workflows as commands", () => {
	let cwd: string;
	let agentDir: string;
	let options: SavedCommandsOptions;
	let messages: WorkflowRunMessage[];
	let fake: ReturnType<typeof createFakeRunner>;

	const save = (file: string, text: string) => {
		mkdirSync(join(cwd, ".pi", "workflows"), { recursive: true });
		writeFileSync(join(cwd, ".pi", "workflows", file), text);
	};

	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-saved-cmd-project-"));
		agentDir = mkdtempSync(join(tmpdir(), "wf-saved-cmd-agent-"));
		messages = [];
		fake = createFakeRunner((request) => `said ${request.prompt.replace("echo ", "")}`);
		options = {
			starter: createWorkflowStarter({
				queue: createWorkflowQueue(),
				agentDir,
				registry: new RunRegistry(),
				createRunner: async () => fake.runner,
			}),
			agentDir,
			notify: (message) => messages.push(message),
			ownCommands: ["workflows"],
		};
	});
	afterEach(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(agentDir, { recursive: true, force: true });
	});

	it("registers one per saved workflow, bundled ones included; a clash keeps its owner and is warned about by name", () => {
		save("echo.js", ECHO);
		save("model.js", `export const meta = { name: "model", description: "d" };\nreturn 1;\n`);
		save("review.js", `export const meta = { name: "review", description: "d" };\nreturn 1;\n`);
		save("mine.js", `export const meta = { name: "workflows", description: "d" };\nreturn 1;\n`);
		save("deploy.js", `export const meta = { name: "deploy", description: "d" };\nreturn 1;\n`);
		// One pi answers without listing it.
		save("debug.js", `export const meta = { name: "debug", description: "d" };\nreturn 1;\n`);
		const { pi, commands } = fakePi([
			{ name: "review:1", source: "extension", path: "/ext/review.ts" },
			{ name: "deploy", source: "prompt", path: "/prompts/deploy.md" },
		]);
		const mine = new Set<string>();
		const report = registerSavedWorkflowCommands(pi, cwd, options, mine);
		expect(report.registered).toEqual(
			expect.arrayContaining(["echo-args", "map-reduce-summary", "review-and-fix", "test-triage"]),
		);
		expect([...commands.keys()]).not.toEqual(expect.arrayContaining(["model"]));
		expect(commands.has("review")).toBe(false);
		expect(commands.has("deploy")).toBe(false);
		expect(commands.has("workflows")).toBe(false);
		expect(commands.has("debug")).toBe(false);
		expect(report.warnings).toEqual([
			`Saved workflow \`debug\` (${join(cwd, ".pi", "workflows", "debug.js")}) has no command of its own: /debug is a pi built-in command. Run it with /workflows run debug`,
			`Saved workflow \`deploy\` (${join(cwd, ".pi", "workflows", "deploy.js")}) has no command of its own: /deploy is a prompt template (/prompts/deploy.md). Run it with /workflows run deploy`,
			`Saved workflow \`model\` (${join(cwd, ".pi", "workflows", "model.js")}) has no command of its own: /model is a pi built-in command. Run it with /workflows run model`,
			`Saved workflow \`review\` (${join(cwd, ".pi", "workflows", "review.js")}) has no command of its own: /review is an extension command (/ext/review.ts). Run it with /workflows run review`,
			`Saved workflow \`workflows\` (${join(cwd, ".pi", "workflows", "mine.js")}) has no command of its own: /workflows is this extension's own command. Run it with /workflows run workflows`,
		]);
		expect(commands.get("echo-args")?.description).toBe("Workflow (project): Echo a word");
		// A second session start (a reload, a new session) registers the same names again: ours are not clashes.
		const again = registerSavedWorkflowCommands(pi, cwd, options, mine);
		expect(again.registered).toEqual(report.registered);
		expect(again.warnings).toEqual(report.warnings);
	});

	it("PI_BUILTIN_COMMANDS is pi's own list: BUILTIN_SLASH_COMMANDS and the commands its interactive mode answers", async () => {
		// pi exports neither, so its files are read: a pi update that adds a command fails here until the list has it.
		const dist = join(ROOT, "node_modules", "@earendil-works", "pi-coding-agent", "dist");
		const { BUILTIN_SLASH_COMMANDS } = (await import(
			pathToFileURL(join(dist, "core", "slash-commands.js")).href
		)) as {
			BUILTIN_SLASH_COMMANDS: { name: string }[];
		};
		const interactive = readFileSync(join(dist, "modes", "interactive", "interactive-mode.js"), "utf8");
		const answered = [...interactive.matchAll(/text === "\/([a-z-]+)"/g)].map((match) => match[1]);
		expect(BUILTIN_SLASH_COMMANDS.length).toBeGreaterThan(20);
		expect(answered.length).toBeGreaterThan(20);
		const pis = new Set([...BUILTIN_SLASH_COMMANDS.map((command) => command.name), ...answered]);
		expect([...PI_BUILTIN_COMMANDS].sort()).toEqual([...pis].sort());
	});

	it("completes arguments from the schema", async () => {
		save("echo.js", ECHO);
		const { pi, commands } = fakePi();
		registerSavedWorkflowCommands(pi, cwd, options, new Set());
		const complete = commands.get("echo-args")?.getArgumentCompletions;
		expect(await complete?.("word=hi t")).toEqual([
			{ value: "word=hi times=", label: "times=", description: "integer" },
		]);
	});

	it("/workflows run completes the saved names, then the named workflow's arguments", async () => {
		save("echo.js", ECHO);
		const { pi } = fakePi();
		const report = registerSavedWorkflowCommands(pi, cwd, options, new Set());
		const command = createWorkflowsCommand({
			registry: new RunRegistry(),
			storeFor: () => {
				throw new Error("not used");
			},
			subcommands: { run: workflowsRunSubcommand(options) },
			completions: { run: workflowsRunCompletions(() => report.saved) },
		});
		expect(await command.getArgumentCompletions?.("r")).toEqual([
			{ value: "run ", label: "run" },
			{ value: "report ", label: "report" },
			{ value: "restart ", label: "restart" },
		]);
		expect(await command.getArgumentCompletions?.("run ec")).toEqual([
			{ value: "run echo-args ", label: "echo-args", description: "Echo a word" },
		]);
		expect(await command.getArgumentCompletions?.("run echo-args word=x t")).toEqual([
			{ value: "run echo-args word=x times=", label: "times=", description: "integer" },
		]);
		expect(await command.getArgumentCompletions?.("run nothing-like-it ")).toBeNull();
	});

	it("/name key=value starts a background run at once; its completion message goes to notify", async () => {
		save("echo.js", ECHO);
		const { ctx, shown } = commandContext(cwd, "tui");
		await runSavedWorkflow("echo-args", "word=alpha times=2", ctx, options);
		expect(shown[0]?.level).toBe("info");
		expect(shown[0]?.text).toMatch(/^Started workflow `echo-args` in the background as run `wf-[^`]+`/);
		await until(() => messages.length === 1, "the completion message");
		expect(messages[0]?.details.status).toBe("completed");
		expect(messages[0]?.content).toContain('"answer": "said alpha"');
		expect(messages[0]?.content).toContain('"times": 2');
		expect(fake.requests.map((request) => request.prompt)).toEqual(["echo alpha"]);
	});

	it("/name … --dry-run shows the plan at once: no runner is asked, nothing is recorded, no args asked for", async () => {
		save("echo.js", ECHO);
		const { ctx, shown, asked } = commandContext(cwd, "tui");
		await runSavedWorkflow("echo-args", "word=alpha --dry-run", ctx, options);
		expect(shown).toHaveLength(1);
		expect(shown[0]?.level).toBe("info");
		expect(shown[0]?.text).toContain("Dry run of echo-args: no model was called, no file written, nothing recorded.");
		expect(shown[0]?.text).toContain("Totals: 1 agent call, widest fan-out 1");
		expect(shown[0]?.text).toContain("Returns: { answer: string, times: number }");
		// The estimate follows the plan; this session names no model and the project has no runs to go by.
		expect(shown[0]?.text).toContain(
			"\n\nEstimated cost: no estimate for 1 call\nBasis: no estimate: no earlier calls like these and no model known",
		);
		const bare = commandContext(cwd, "json");
		await runSavedWorkflow("echo-args", "--dry-run", bare.ctx, options);
		expect(bare.shown[0]?.text).toContain("No args were given: the run used a sample value of the meta.args schema:");
		expect(asked).toEqual([]);
		expect(fake.requests).toEqual([]);
		expect(messages).toEqual([]);
		expect(readdirSync(agentDir)).toEqual([]);
	});

	it("a missing required argument: asked for with a dialog where there is one, then the run starts", async () => {
		save("echo.js", ECHO);
		const { ctx, shown, asked } = commandContext(cwd, "tui", ["beta"]);
		await runSavedWorkflow("echo-args", "times=3", ctx, options);
		expect(asked).toEqual(["/echo-args: word (string)"]);
		expect(shown[0]?.text).toMatch(/^Started workflow `echo-args`/);
		await until(() => messages.length === 1, "the completion message");
		expect(messages[0]?.content).toContain('"answer": "said beta"');
	});

	it("a missing argument cancelled in the dialog, or with no dialogs at all: nothing starts, the usage is shown", async () => {
		save("echo.js", ECHO);
		const usage =
			"Usage: /echo-args word=<string> [times=<integer>]\n   or: /echo-args {JSON args}\n  word: required; what to echo";
		const tui = commandContext(cwd, "tui", [undefined]);
		await runSavedWorkflow("echo-args", "", tui.ctx, options);
		expect(tui.shown).toEqual([
			{ text: `/echo-args: not started, \`word\` was not given.\n${usage}`, level: "info" },
		]);
		const json = commandContext(cwd, "json");
		await runSavedWorkflow("echo-args", "times=1", json.ctx, options);
		expect(json.shown).toEqual([
			{ text: `/echo-args: missing required argument \`word\`\n${usage}`, level: "error" },
		]);
		expect(fake.requests).toEqual([]);
	});

	it("arguments the schema refuses: the run's args_invalid, with the usage", async () => {
		save("echo.js", ECHO);
		const { ctx, shown } = commandContext(cwd, "tui");
		await runSavedWorkflow("echo-args", '{"word": 5}', ctx, options);
		expect(shown).toHaveLength(1);
		expect(shown[0]?.level).toBe("error");
		expect(shown[0]?.text).toMatch(/^\/echo-args: The args do not match `meta.args` of workflow `echo-args`/);
		expect(shown[0]?.text).toContain("`args.word` must be string");
		expect(shown[0]?.text).toContain("Usage: /echo-args word=<string>");
		expect(fake.requests).toEqual([]);
	});

	it("/workflows run <name> runs a workflow whose name clashed; without a name it lists the saved ones", async () => {
		save("model.js", `export const meta = { name: "model", description: "d" };\nreturn await agent("echo clash");\n`);
		const run = workflowsRunSubcommand(options);
		const { ctx, shown } = commandContext(cwd, "tui");
		await run("model", ctx);
		await until(() => messages.length === 1, "the completion message");
		expect(messages[0]?.content).toContain("said clash");
		await run("", ctx);
		expect(shown.at(-1)?.text).toMatch(
			/^Usage: \/workflows run <name> \[args\]\. Saved workflows: map-reduce-summary, model, /,
		);
		await run("nope", ctx);
		expect(shown.at(-1)?.text).toMatch(
			/^\/nope: No saved workflow named `nope`\. Saved: map-reduce-summary, model, /,
		);
	});

	it("a bundled workflow by name through the tool's starter, and a project one of the same name wins over it", async () => {
		const bundled = createFakeRunner(() => ({ structured: { summary: "the gist", keyPoints: ["k"] } }));
		const starter = createWorkflowStarter({
			queue: createWorkflowQueue(),
			agentDir,
			createRunner: async () => bundled.runner,
		});
		const { ctx } = commandContext(cwd, "json");
		const result = await starter.start({ name: "map-reduce-summary", args: { documents: ["a.md"] } }, { ctx });
		expect(result.isError).toBeUndefined();
		expect(result.details?.envelope?.status).toBe("completed");
		expect(bundled.requests.map((request) => request.label)).toEqual(["map a.md"]);
		save(
			"mine.js",
			`export const meta = { name: "map-reduce-summary", description: "mine" };\nreturn "project wins";\n`,
		);
		const mine = await starter.start({ name: "map-reduce-summary" }, { ctx });
		expect(mine.content[0]?.type === "text" && mine.content[0].text).toContain("project wins");
	});
	it("a Claude Code workflow in .claude/workflows runs by name through the tool's starter and as /name", async () => {
		mkdirSync(join(cwd, ".claude", "workflows"), { recursive: true });
		writeFileSync(
			join(cwd, ".claude", "workflows", "claude-echo.js"),
			`export const meta = { name: "claude-echo", description: "From Claude Code" };\nreturn await agent("echo claude");\n`,
		);
		const { ctx } = commandContext(cwd, "json");
		const result = await options.starter.start({ name: "claude-echo" }, { ctx });
		expect(result.details?.envelope?.status).toBe("completed");
		expect(result.content[0]?.type === "text" && result.content[0].text).toContain("said claude");
		const { pi, commands } = fakePi();
		const mine = new Set<string>();
		const report = registerSavedWorkflowCommands(pi, cwd, options, mine);
		expect(report.registered).toContain("claude-echo");
		expect(commands.get("claude-echo")?.description).toBe("Workflow (claude-project): From Claude Code");
		const command = commandContext(cwd, "tui");
		await runSavedWorkflow("claude-echo", "", command.ctx, options);
		expect(command.shown[0]?.text).toMatch(/^Started workflow `claude-echo` in the background as run `wf-[^`]+`/);
		await until(() => messages.length === 1, "the completion message");
		expect(messages[0]?.content).toContain("said claude");
		// Ours wins a name both have, and the listing says so.
		save("echo.js", `export const meta = { name: "claude-echo", description: "ours" };\nreturn "pi wins";\n`);
		const again = registerSavedWorkflowCommands(pi, cwd, options, mine);
		expect(again.warnings).toContain(
			`Saved workflow \`claude-echo\` is in Claude Code's ${join(cwd, ".claude", "workflows", "claude-echo.js")} and in ${join(cwd, ".pi", "workflows", "echo.js")}; \`claude-echo\` runs ${join(cwd, ".pi", "workflows", "echo.js")} (pi's folders come first)`,
		);
		expect(commands.get("claude-echo")?.description).toBe("Workflow (project): ours");
		const ours = await options.starter.start({ name: "claude-echo" }, { ctx });
		expect(ours.content[0]?.type === "text" && ours.content[0].text).toContain("pi wins");
	});
});
