/**
 * Saving a run's script as a saved workflow, from a real run record: the header's name rewritten in place (every
 * other line as it was), the refusal to overwrite unless asked, the refusal of a script the static pass rejects,
 * and the two ways in: `workflow_runs { action: "save" }` and `/workflows save <runId> [name] [--force]`.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionCommandContext, ExtensionToolContext } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RunRegistry } from "../../../src/host/registry.ts";
import { loadSavedWorkflows } from "../../../src/host/script-source.ts";
import { renameHeader, savedText, saveRunScript } from "../../../src/pi/commands/save-workflow.ts";
import { workflowsSaveSubcommand } from "../../../src/pi/commands/saved-commands.ts";
import { createWorkflowsCommand } from "../../../src/pi/commands/workflows-command.ts";
import { createWorkflowRunsTool } from "../../../src/pi/runs/runs-tool.ts";
import { createRunStore, type RunStore } from "../../../src/runs/index.ts";

const SCRIPT = `// A comment above the header
export const meta = {
	name: "inline-review", // the run's own name
	description: "Review files",
};
const found = await agent("review " + args.file);
return found;
`;

describe("saving a run's script", () => {
	let cwd: string;
	let agentDir: string;
	let store: RunStore;
	const projectFile = (name: string) => join(cwd, ".pi", "workflows", name);

	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-save-project-"));
		agentDir = mkdtempSync(join(tmpdir(), "wf-save-agent-"));
		store = createRunStore({ cwd, root: join(agentDir, "workflow-runs") });
	});
	afterEach(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(agentDir, { recursive: true, force: true });
	});

	const runOf = async (script: string) =>
		(await store.create({ script, meta: { name: "inline-review", description: "Review files" } })).id;

	it("writes .pi/workflows/<name>.js with meta.name set and every other line as the run had it", async () => {
		const runId = await runOf(SCRIPT);
		const saved = await saveRunScript({ store, runId, name: "review-files", agentDir });
		expect(saved).toEqual({ name: "review-files", filename: projectFile("review-files.js"), replaced: false });
		const text = readFileSync(saved.filename, "utf8");
		const before = SCRIPT.split("\n");
		const after = text.split("\n");
		expect(after).toHaveLength(before.length);
		expect(after[2]).toBe('\tname: "review-files", // the run\'s own name');
		expect(after.filter((_, i) => i !== 2)).toEqual(before.filter((_, i) => i !== 2));
		expect(loadSavedWorkflows({ cwd, agentDir, bundledDir: false }).byName.get("review-files")?.scope).toBe(
			"project",
		);
		// Without a name: the run's own.
		const own = await saveRunScript({ store, runId, agentDir });
		expect(own.filename).toBe(projectFile("inline-review.js"));
		expect(readFileSync(own.filename, "utf8")).toBe(SCRIPT);
	});

	it("refuses to overwrite a saved workflow unless asked, also one whose file is named otherwise", async () => {
		const runId = await runOf(SCRIPT);
		mkdirSync(join(cwd, ".pi", "workflows"), { recursive: true });
		const old = `export const meta = { name: "review-files", description: "old" };\nreturn 1;\n`;
		writeFileSync(projectFile("older-name.js"), old);
		await expect(saveRunScript({ store, runId, name: "review-files", agentDir })).rejects.toMatchObject({
			code: "workflow_exists",
			message: `A saved workflow \`review-files\` already exists at ${projectFile("older-name.js")}; nothing was saved. Pass another name, or --force (/workflows save) or overwrite: true (workflow_runs) to replace it`,
		});
		expect(readFileSync(projectFile("older-name.js"), "utf8")).toBe(old);
		expect(existsSync(projectFile("review-files.js"))).toBe(false);
		const replaced = await saveRunScript({ store, runId, name: "review-files", overwrite: true, agentDir });
		expect(replaced).toEqual({ name: "review-files", filename: projectFile("older-name.js"), replaced: true });
		expect(readFileSync(projectFile("older-name.js"), "utf8")).toContain('name: "review-files"');
	});

	it("refuses a script the static pass rejects, at its line:column, and writes nothing", async () => {
		// Before the `return`: after it, the name would be in code that cannot run, which is a warning only.
		const runId = await runOf(SCRIPT.replace("return found;", 'await agnet("typo");\nreturn found;'));
		const refused = saveRunScript({ store, runId, name: "broken", agentDir });
		await expect(refused).rejects.toMatchObject({ code: "name_undeclared" });
		await expect(refused).rejects.toThrow(
			/^Run wf-[^']+'s script does not pass the check, so it was not saved \(1 problem\(s\)\); fix it and resume the run, or save another run:\n.*broken\.js:7:7 `agnet` is not defined\. Did you mean `agent`\?$/,
		);
		expect(existsSync(projectFile("broken.js"))).toBe(false);
	});

	it("refuses a name that is not a file or command name, and an unknown run", async () => {
		const runId = await runOf(SCRIPT);
		await expect(saveRunScript({ store, runId, name: "../escape", agentDir })).rejects.toMatchObject({
			code: "args_invalid",
		});
		await expect(saveRunScript({ store, runId: "wf-nope", agentDir })).rejects.toMatchObject({
			code: expect.stringMatching(/^run_(not_found|id_invalid)$/),
		});
	});

	it("renameHeader() leaves a script whose header it cannot read as it is", () => {
		expect(renameHeader("not a workflow(", "x")).toBe("not a workflow(");
		expect(renameHeader(`export const meta = { "name": 'a', description: "d" };`, "b")).toBe(
			`export const meta = { "name": "b", description: "d" };`,
		);
	});

	describe("through workflow_runs and /workflows", () => {
		const save = async (request: { cwd: string; runId: string; name?: string; overwrite?: boolean }) =>
			savedText(await saveRunScript({ ...request, store, agentDir }), request.runId);

		it('workflow_runs { action: "save" }: saves, then refuses the same name, then replaces with overwrite', async () => {
			const runId = await runOf(SCRIPT);
			const tool = createWorkflowRunsTool({ registry: new RunRegistry(), storeFor: () => store, save });
			const ctx = { cwd } as ExtensionToolContext;
			const call = (params: Record<string, unknown>) =>
				tool.execute("t", { action: "save", runId, ...params } as never, undefined, undefined, ctx);
			const first = await call({ name: "kept" });
			expect(first.content[0]).toEqual({
				type: "text",
				text: `Saved run ${runId}'s script as saved workflow \`kept\`: ${projectFile("kept.js")}. Run it with /kept (or /workflows run kept), or workflow({ name: "kept" }).`,
			});
			await expect(call({ name: "kept" })).rejects.toMatchObject({ code: "workflow_exists" });
			const again = await call({ name: "kept", overwrite: true });
			expect(again.content[0]?.type === "text" && again.content[0].text).toMatch(/^Replaced run /);
		});

		it("refuses the name of a pi built-in command or of ours, listing the reserved names, and writes nothing", async () => {
			const reserved =
				"settings, model, tree, thinking, scoped-models, export, import, share, bug, copy, name, session, changelog, hotkeys, fork, clone, trust, login, logout, new, compact, resume, reload, quit, debug, arminsayshi, dementedelves, workflows";
			const runId = await runOf(SCRIPT);
			const tool = createWorkflowRunsTool({ registry: new RunRegistry(), storeFor: () => store, save });
			const ctx = { cwd } as ExtensionToolContext;
			const call = (params: Record<string, unknown>) =>
				tool.execute("t", { action: "save", runId, ...params } as never, undefined, undefined, ctx);
			await expect(call({ name: "reload" })).rejects.toMatchObject({
				code: "args_invalid",
				message: `Cannot save run ${runId} as \`reload\`: /reload is a pi built-in command, which would run instead of the workflow. Reserved names: ${reserved}. Give another name (/workflows save ${runId} <name>, or \`name\` of workflow_runs)`,
			});
			// Asked to replace, too: the command would still be pi's.
			await expect(call({ name: "workflows", overwrite: true })).rejects.toMatchObject({
				message: expect.stringContaining(
					"/workflows is this extension's own command, which would run instead of the workflow",
				),
			});
			// The run's own name is checked as a given one is.
			const named = (
				await store.create({
					script: SCRIPT.replace('"inline-review"', '"model"'),
					meta: { name: "model", description: "d" },
				})
			).id;
			await expect(saveRunScript({ store, runId: named, agentDir })).rejects.toMatchObject({
				message: expect.stringMatching(/^Cannot save run .* as `model`: \/model is a pi built-in command/),
			});
			expect(existsSync(join(cwd, ".pi", "workflows"))).toBe(false);
		});

		it("/workflows save <runId> [name] [--force]", async () => {
			const runId = await runOf(SCRIPT);
			const shown: { text: string; level: string }[] = [];
			const ctx = {
				cwd,
				mode: "tui",
				ui: { notify: (text: string, level: string) => shown.push({ text, level }) },
			} as unknown as ExtensionCommandContext;
			const command = createWorkflowsCommand({
				registry: new RunRegistry(),
				storeFor: () => store,
				subcommands: { save: workflowsSaveSubcommand(save) },
			});
			await command.handler(`save ${runId} kept`, ctx);
			expect(shown.at(-1)).toEqual({
				level: "info",
				text: expect.stringMatching(/^Saved run .* as saved workflow `kept`/),
			});
			await command.handler(`save ${runId} kept`, ctx);
			expect(shown.at(-1)).toEqual({
				level: "error",
				text: expect.stringMatching(
					/^\/workflows save: A saved workflow `kept` already exists at .*kept\.js; nothing was saved/,
				),
			});
			await command.handler(`save ${runId} kept --force`, ctx);
			expect(shown.at(-1)?.text).toMatch(/^Replaced run /);
			await command.handler("save", ctx);
			expect(shown.at(-1)).toEqual({
				level: "error",
				text: "Usage: /workflows save <runId> [name] [--force]. The run id is in /workflows; --force replaces a saved workflow of that name",
			});
			expect(await command.getArgumentCompletions?.("sa")).toEqual([{ value: "save ", label: "save" }]);
		});
	});
});
