/**
 * `ask()` through the `workflow` tool: a dialog for a run in the foreground (select with choices, input without),
 * a background run's question answered by `/workflows answer` and by `workflow_runs answer`, and print mode, where
 * nobody can answer (the default, or ask_unavailable).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionCommandContext, ExtensionToolContext } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RunRegistry } from "../../../src/host/registry.ts";
import { createWorkflowsCommand } from "../../../src/pi/commands/workflows-command.ts";
import type { WorkflowRunMessage } from "../../../src/pi/runs/messages.ts";
import { createWorkflowRunsTool } from "../../../src/pi/runs/runs-tool.ts";
import { createRunStore } from "../../../src/runs/index.ts";
import { createWorkflowQueue } from "../../../src/runtime/core/queue.ts";
import { createWorkflowTool } from "../../../src/tool/workflow-tool.ts";
import { controlsIn, HOSTILE, HOSTILE_BLOCK, HOSTILE_LINE, HOSTILE_LITERAL } from "../../helpers/controls.ts";
import { createFakeRunner } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";
import { until } from "../../helpers/until.ts";

checkSandboxLeaks();

const script = (body: string) => `export const meta = { name: "asker", description: "d" };\n${body}`;

interface Dialog {
	kind: "select" | "input";
	title: string;
	options?: string[];
	placeholder?: string;
	opts?: { signal?: AbortSignal; timeout?: number };
}

describe("ask() in a pi session", () => {
	let cwd: string;
	let agentDir: string;
	let registry: RunRegistry;
	let messages: WorkflowRunMessage[];
	let dialogs: Dialog[];
	let statuses: Map<string, string>;

	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-ask-project-"));
		agentDir = mkdtempSync(join(tmpdir(), "wf-ask-agent-"));
		registry = new RunRegistry();
		messages = [];
		dialogs = [];
		statuses = new Map();
	});
	afterEach(async () => {
		await registry.stopAll("test over");
		rmSync(cwd, { recursive: true, force: true });
		rmSync(agentDir, { recursive: true, force: true });
	});

	/** A tool context as pi gives one; its dialogs answer with `answer(dialog)`. */
	function context(mode: "tui" | "print", answer: (dialog: Dialog) => string | undefined = () => undefined) {
		const record = (dialog: Dialog) => {
			dialogs.push(dialog);
			return Promise.resolve(answer(dialog));
		};
		return {
			cwd,
			mode,
			hasUI: mode !== "print",
			ui: {
				setWidget: () => {},
				setStatus: (key: string, text: string | undefined) =>
					text === undefined ? statuses.delete(key) : statuses.set(key, text),
				notify: () => {},
				select: (title: string, options: string[], opts?: Dialog["opts"]) =>
					record({ kind: "select", title, options, ...(opts ? { opts } : {}) }),
				input: (title: string, placeholder?: string, opts?: Dialog["opts"]) =>
					record({
						kind: "input",
						title,
						...(placeholder !== undefined ? { placeholder } : {}),
						...(opts ? { opts } : {}),
					}),
			},
		} as unknown as ExtensionToolContext & ExtensionCommandContext;
	}

	function tool() {
		const fake = createFakeRunner();
		return createWorkflowTool({
			queue: createWorkflowQueue(),
			agentDir,
			registry,
			notify: (message) => messages.push(message),
			createRunner: async () => fake.runner,
		});
	}

	const text = (result: { content: { type: string; text?: string }[] }) =>
		result.content.map((part) => part.text ?? "").join("\n");

	it("in the foreground with choices: a select dialog with the choices, its signal and the timeout", async () => {
		const ctx = context("tui", () => "ship");
		const result = await tool().execute(
			"c1",
			{ script: script(`return await ask("Ship or hold?", { choices: ["ship", "hold"], timeoutMs: 60000 });`) },
			undefined,
			undefined,
			ctx,
		);
		expect(dialogs).toEqual([
			{
				kind: "select",
				title: "Workflow asker asks: Ship or hold?",
				options: ["ship", "hold"],
				opts: { signal: expect.any(AbortSignal), timeout: 60000 },
			},
		]);
		expect(result.isError).toBeUndefined();
		expect(result.details.envelope?.result).toBe("ship");
	});

	it("in the foreground: the script's escapes show as ^[ and ^G in the dialog; the choice comes back as written", async () => {
		const ctx = context("tui", (dialog) => dialog.options?.[0]);
		const result = await tool().execute(
			"c1",
			{
				script: script(
					`const bad = ${HOSTILE_LITERAL};\nreturn await ask("Delete the production database?" + bad, { choices: ["yes" + bad, "no"] });`,
				),
			},
			undefined,
			undefined,
			ctx,
		);
		const shown = HOSTILE_BLOCK;
		expect(dialogs).toMatchObject([
			{
				kind: "select",
				title: `Workflow asker asks: Delete the production database?${shown}`,
				options: [`yes${shown}`, "no"],
			},
		]);
		expect(result.details.envelope?.result).toBe(`yes${HOSTILE}`);
	});

	it("in the foreground without choices: an input whose empty answer takes the default", async () => {
		const ctx = context("tui", () => "");
		const result = await tool().execute(
			"c1",
			{ script: script(`return "name: " + (await ask("Branch name?", { default: "main" }));`) },
			undefined,
			undefined,
			ctx,
		);
		expect(dialogs).toMatchObject([
			{ kind: "input", title: "Workflow asker asks: Branch name?", placeholder: "main" },
		]);
		expect(result.details.envelope?.result).toBe("name: main");
	});

	it("in the foreground, Esc with no default: ask_unavailable saying it was dismissed", async () => {
		const ctx = context("tui", () => undefined);
		const result = await tool().execute(
			"c1",
			{ script: script(`return await ask("Go?");`) },
			undefined,
			undefined,
			ctx,
		);
		expect(result.isError).toBe(true);
		expect(result.details.envelope?.error).toMatchObject({
			code: "ask_unavailable",
			message:
				'Nobody can answer `ask("Go?")` here: the question was dismissed (Esc) without an answer. Give the question a `default`, or pass the answer in `args` and ask only when it is missing (2:17)',
		});
	});

	it("in print mode nobody can answer: the default, else ask_unavailable naming the mode; no dialog", async () => {
		const ctx = context("print", () => "never");
		const withDefault = await tool().execute(
			"c1",
			{ script: script(`return await ask("Go?", { default: "no" });`) },
			undefined,
			undefined,
			ctx,
		);
		expect(withDefault.details.envelope?.result).toBe("no");
		const without = await tool().execute(
			"c2",
			{ script: script(`return await ask("Go?");`) },
			undefined,
			undefined,
			ctx,
		);
		expect(without.details.envelope?.error?.message).toBe(
			'Nobody can answer `ask("Go?")` here: pi runs in print mode, where no one can answer a question. Give the question a `default`, or pass the answer in `args` and ask only when it is missing (2:17)',
		);
		expect(dialogs).toEqual([]);
	});

	/** Starts a background run that asks; resolves once it waits, with its id. */
	async function waitingRun(ctx: ExtensionToolContext) {
		const started = await tool().execute(
			"c1",
			{
				script: script(`const a = await ask("Colour?", { choices: ["Red", "Green"] });\nreturn "picked " + a;`),
				background: true,
			},
			undefined,
			undefined,
			ctx,
		);
		const runId = started.details.runId ?? "";
		await until(() => (registry.get(runId)?.questions?.list().length ?? 0) === 1, "the question to be open");
		await until(() => messages.length === 1, "the question's message");
		return runId;
	}

	it("in the background: one message, the status line, then `/workflows answer` settles it", async () => {
		const ctx = context("tui");
		const runId = await waitingRun(ctx);
		expect(dialogs).toEqual([]);
		expect(messages[0]?.content).toBe(
			`Background workflow run \`${runId}\` (asker) is waiting for the person's answer: Colour? (Red / Green)\nAsk the person, then answer with /workflows answer ${runId} <answer>, or workflow_runs({ action: "answer", runId: "${runId}", answer }). Do not answer for them.`,
		);
		await until(() => [...statuses.values()].some((s) => s.includes("waiting for you: Colour?")), "the status line");
		expect(registry.get(runId)?.envelope().questions?.[0]?.question).toBe("Colour?");

		const command = createWorkflowsCommand({
			registry,
			storeFor: (dir) => createRunStore({ cwd: dir, root: join(agentDir, "workflow-runs") }),
		});
		const shown: string[] = [];
		const commandCtx = {
			...ctx,
			ui: { ...ctx.ui, notify: (t: string) => shown.push(t) },
		} as unknown as ExtensionCommandContext;
		await command.handler(`answer ${runId} blue`, commandCtx);
		expect(shown.pop()).toBe(
			'/workflows: "blue" is not one of the choices of "Colour?": answer one of "Red", "Green"',
		);
		await command.handler("answer green", commandCtx);
		expect(shown.pop()).toBe(`Answered "Colour?" of run ${runId}: Green`);
		await until(() => messages.length === 2, "the completion message");
		expect(messages[1]?.content).toContain("picked Green");
	});

	it("in the background: choosing the run in /workflows asks its question first", async () => {
		const ctx = context("tui");
		const runId = await waitingRun(ctx);
		const command = createWorkflowsCommand({
			registry,
			storeFor: (dir) => createRunStore({ cwd: dir, root: join(agentDir, "workflow-runs") }),
		});
		const shown: string[] = [];
		const picks: string[][] = [];
		const commandCtx = {
			...ctx,
			ui: {
				...ctx.ui,
				notify: (t: string) => shown.push(t),
				// The first list is the runs (the live one first), the second the question's choices.
				select: async (_title: string, options: string[]) => {
					picks.push(options);
					return picks.length === 1 ? options[0] : "Green";
				},
			},
		} as unknown as ExtensionCommandContext;
		await command.handler("", commandCtx);
		expect(picks[0]?.[0]).toMatch(
			new RegExp(`^${runId} · asker · running \\(background\\) · .* · waiting for you: Colour\\?$`),
		);
		expect(picks[1]).toEqual(["Red", "Green"]);
		expect(shown).toEqual([`Answered "Colour?" of run ${runId}: Green`]);
		await until(() => messages.length === 2, "the completion message");
		expect(messages[1]?.content).toContain("picked Green");
	});

	it("in the background: its message, status line, /workflows row and question dialog show the script's escapes as ^[ and ^G", async () => {
		const ctx = context("tui");
		const started = await tool().execute(
			"c1",
			{
				script: script(
					`const bad = ${HOSTILE_LITERAL};\nreturn await ask("Delete the production database?" + bad, { choices: ["yes" + bad, "no"] });`,
				),
				background: true,
			},
			undefined,
			undefined,
			ctx,
		);
		const runId = started.details.runId ?? "";
		await until(() => messages.length === 1, "the question's message");
		const shown = HOSTILE_BLOCK;
		expect(controlsIn(messages[0]?.content ?? "")).toEqual([]);
		expect(messages[0]?.content).toContain(`Delete the production database?${shown} (yes${shown} / no)`);
		expect(messages[0]?.details.summary).toBe(`waiting for you: Delete the production database?${shown}`);
		await until(() => [...statuses.values()].some((s) => s.includes("waiting for you")), "the status line");
		for (const status of statuses.values()) expect(controlsIn(status)).toEqual([]);

		const command = createWorkflowsCommand({
			registry,
			storeFor: (dir) => createRunStore({ cwd: dir, root: join(agentDir, "workflow-runs") }),
		});
		const asked: { title: string; options: string[] }[] = [];
		const commandCtx = {
			...ctx,
			ui: {
				...ctx.ui,
				notify: () => {},
				select: async (title: string, options: string[]) => {
					asked.push({ title, options });
					return options[0];
				},
			},
		} as unknown as ExtensionCommandContext;
		await command.handler("", commandCtx);
		for (const dialog of asked) expect(controlsIn(`${dialog.title}\n${dialog.options.join("\n")}`)).toEqual([]);
		expect(asked[0]?.options[0]).toContain(`waiting for you: Delete the production database?${HOSTILE_LINE}`);
		expect(asked[1]).toEqual({
			title: `Run ${runId} asks: Delete the production database?${shown}`,
			options: [`yes${shown}`, "no"],
		});
		// The person picked the choice as shown: the script gets it as it wrote it.
		await until(() => messages.length === 2, "the completion message");
		expect(messages[1]?.content).toContain(JSON.stringify(`yes${HOSTILE}`));
	});

	it("details: shown under the question in the dialog, the background message, `/workflows answer` and its menu, escapes visible", async () => {
		const body = `const bad = ${HOSTILE_LITERAL};\nreturn await ask("Apply this plan?", { choices: ["apply", "stop"], details: "1. Edit a.ts\\n2. Edit b.ts" + bad });`;
		const shownDetails = `1. Edit a.ts\n2. Edit b.ts${HOSTILE_BLOCK}`;
		const foreground = context("tui", () => "apply");
		const result = await tool().execute("c1", { script: script(body) }, undefined, undefined, foreground);
		expect(dialogs).toEqual([
			expect.objectContaining({ kind: "select", title: `Workflow asker asks: Apply this plan?\n\n${shownDetails}` }),
		]);
		expect(result.details.envelope?.result).toBe("apply");

		const ctx = context("tui");
		const started = await tool().execute("c2", { script: script(body), background: true }, undefined, undefined, ctx);
		const runId = started.details.runId ?? "";
		await until(() => messages.length === 1, "the question's message");
		expect(controlsIn(messages[0]?.content ?? "")).toEqual([]);
		expect(messages[0]?.content).toContain(
			`is waiting for the person's answer: Apply this plan? (apply / stop)\n${shownDetails}\nAsk the person`,
		);
		const command = createWorkflowsCommand({
			registry,
			storeFor: (dir) => createRunStore({ cwd: dir, root: join(agentDir, "workflow-runs") }),
		});
		const shown: string[] = [];
		const titles: string[] = [];
		const commandCtx = {
			...ctx,
			ui: {
				...ctx.ui,
				notify: (t: string) => shown.push(t),
				select: async (title: string, options: string[]) => {
					titles.push(title);
					return titles.length === 1 ? options[0] : "stop";
				},
			},
		} as unknown as ExtensionCommandContext;
		await command.handler("answer", commandCtx);
		expect(shown.pop()).toBe(
			`Waiting for an answer:\n${runId}: Apply this plan? (apply / stop)\n${shownDetails}\nAnswer with /workflows answer [runId] <answer>`,
		);
		await command.handler("", commandCtx);
		expect(titles[1]).toBe(`Run ${runId} asks: Apply this plan?\n\n${shownDetails}`);
		await until(() => messages.length === 2, "the completion message");
	});

	it("in the background: the model relays the answer with workflow_runs answer", async () => {
		const ctx = context("tui");
		const runId = await waitingRun(ctx);
		const runs = createWorkflowRunsTool({
			registry,
			storeFor: (dir) => createRunStore({ cwd: dir, root: join(agentDir, "workflow-runs") }),
		});
		const answered = await runs.execute("r1", { action: "answer", runId, answer: "Red" }, undefined, undefined, ctx);
		expect(text(answered)).toBe(`Answered "Colour?" of run ${runId}: Red`);
		await until(() => messages.length === 2, "the completion message");
		expect(messages[1]?.content).toContain("picked Red");
		await expect(
			runs.execute(
				"r2",
				{ action: "answer", runId: "wf-20261201-000000-nope00", answer: "Red" },
				undefined,
				undefined,
				ctx,
			),
		).rejects.toThrow("Run wf-20261201-000000-nope00 is not running in this session");
	});
});
