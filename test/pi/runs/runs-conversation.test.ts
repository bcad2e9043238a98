/**
 * A child's conversation read back after its run, from `/workflows`: the run → a child → its conversation, drawn in
 * the TUI with pi's own message components (its user message, assistant message and tool-call components, as pi
 * draws a session), as text elsewhere, and `/workflows conversation <runId> [#child]` in any mode. The run is real:
 * children are pi sessions on the faux provider, one of them reading a file with pi's `read` tool.
 */
import { mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@earendil-works/pi-ai";
import { type ExtensionCommandContext, initTheme } from "@earendil-works/pi-coding-agent";
import {
	type Component,
	KeybindingsManager,
	setKeybindings,
	stripTerminalSequences,
	TUI_KEYBINDINGS,
} from "@earendil-works/pi-tui";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { childConversations } from "../../../src/host/child-conversations.ts";
import { DurableRun } from "../../../src/host/durable-run.ts";
import { RunRegistry } from "../../../src/host/registry.ts";
import { createWorkflowsCommand } from "../../../src/pi/commands/workflows-command.ts";
import { messageComponents } from "../../../src/pi/runs/conversation-view.ts";
import { createRunStore, type RunStore } from "../../../src/runs/index.ts";
import { runWorkflowScript } from "../../../src/runtime/index.ts";
import { createRunnerFixture, type RunnerFixture } from "../../children/runner-fixture.ts";
import { controlsIn, HOSTILE, HOSTILE_BLOCK, unpainted } from "../../helpers/controls.ts";
import { fauxAssistantMessage, fauxText, fauxToolCall } from "../../helpers/faux.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";
import { darkTheme } from "../../progress/theme.ts";

checkSandboxLeaks();

const SCRIPT = `export const meta = { name: "notes", description: "read a file, then answer" };
const notes = await agent("Read notes.txt and say what it is about", { label: "read notes" });
const missing = await agent("Say what the plan is", { label: "the plan" });
return { notes, missing };`;

let fx: RunnerFixture;
let root: string;
let store: RunStore;
let keybindings: KeybindingsManager;
beforeAll(() => {
	// What pi's interactive mode sets up before it draws: its theme and its keys.
	initTheme("dark");
	keybindings = new KeybindingsManager(TUI_KEYBINDINGS);
	setKeybindings(keybindings);
});
beforeEach(async () => {
	fx = await createRunnerFixture();
	root = mkdtempSync(join(tmpdir(), "wf-conv-runs-"));
	store = createRunStore({ cwd: fx.dirs.cwd, root });
});
afterEach(() => {
	fx.teardown();
	rmSync(root, { recursive: true, force: true });
});

/** A finished run whose first child read a file with pi's `read` tool and whose second failed. */
async function finishedRun(): Promise<string> {
	fx.dirs.write("notes.txt", "Quarterly <b>budget</b> notes: travel is over plan.\n");
	fx.faux.route("Read notes.txt", [
		fauxAssistantMessage([fauxToolCall("read", { path: "notes.txt" })], { stopReason: "toolUse" }),
		fauxAssistantMessage("The notes are about the quarterly budget: travel is over plan."),
	]);
	fx.faux.route("Say what the plan is", [
		fauxAssistantMessage([], { stopReason: "error", errorMessage: "boom: no plan" }),
	]);
	const source = { script: SCRIPT, filename: "notes.js" };
	const durable = DurableRun.fresh(store, source);
	const result = await runWorkflowScript(SCRIPT, {
		agentRunner: fx.runner({
			piRetry: false,
			runFolder: () => durable.runFolder(),
			record: (event) => durable.logEvent(event),
		}),
		filename: "notes.js",
		cwd: fx.dirs.cwd,
		journal: durable.journal,
		onProgress: (event) => durable.progress(event, source),
	});
	await durable.finish(result);
	expect(result.status).toBe("completed");
	return (await durable.recorded) as string;
}

/** A person at the TUI: picks `choose` in each select, and keeps what `ui.custom` draws, pressing `keys`. */
function person(mode: "tui" | "print", choose: (options: string[]) => string | undefined, keys: string[] = []) {
	const shown: string[] = [];
	const offered: string[][] = [];
	const screens: string[][] = [];
	// A short terminal: the conversation is longer than a page.
	const tui = { requestRender: () => {}, terminal: { rows: 12 } };
	const ctx = {
		cwd: fx.dirs.cwd,
		mode,
		ui: {
			notify: (text: string) => shown.push(text),
			select: async (_title: string, options: string[]) => {
				offered.push(options);
				return choose(options);
			},
			custom: async (factory: (...args: unknown[]) => Component & { handleInput(data: string): void }) => {
				let finished = false;
				const component = factory(tui, darkTheme(), keybindings, () => {
					finished = true;
				});
				const draw = () => component.render(100).map((line) => stripTerminalSequences(line).trimEnd());
				screens.push(draw());
				for (const key of keys) {
					component.handleInput(key);
					if (finished) break;
					screens.push(draw());
				}
				if (!finished) throw new Error("the conversation view did not close");
			},
		},
	} as unknown as ExtensionCommandContext;
	return { ctx, shown, offered, screens };
}

function command() {
	return createWorkflowsCommand({ registry: new RunRegistry(), storeFor: () => store });
}

describe("/workflows → a run → a child's conversation", () => {
	it("the TUI offers the ended run's conversations and draws one with pi's components, scrolling, Esc closes", async () => {
		const id = await finishedRun();
		const esc = "\x1b";
		const pageDown = "\x1b[6~";
		const at = person(
			"tui",
			(options) => options.find((o) => o.startsWith(id)) ?? options.find((o) => o.includes("#1 read notes")),
			["e", pageDown, "G", esc],
		);
		await command().handler("", at.ctx);
		expect(at.offered[1]).toEqual([
			"The run: its phases, agents and failures",
			"Report: write its timeline as one HTML file",
			"Changes: what each child wrote, edited and ran",
			expect.stringMatching(/^Conversation: #1 read notes · completed · faux\/faux-1 · first run · \d+\.\d KB$/),
			expect.stringMatching(/^Conversation: #2 the plan · failed · faux\/faux-1 · first run · \d+(\.\d)? KB$/),
		]);
		const [first, expanded, paged] = at.screens;
		const page = first.join("\n");
		expect(first[0]).toMatch(/^#1 read notes · completed/);
		expect(first[1]).toMatch(/\/children\/000-read-notes-1\.jsonl$/);
		// pi's components: the user's message, then the read tool's call as pi draws it, its output collapsed.
		expect(page).toContain("Read notes.txt and say what it is about");
		expect(page).toContain("read notes.txt");
		expect(page).not.toContain("Quarterly");
		expect(first.at(-1)).toMatch(/^↑↓ PgUp PgDn Home End · e expands tool output · Esc closes · 1-8 of \d+ lines$/);
		// Expanded, as pi's ctrl+o: the file's text, its markup drawn as text; PgDn then End go down to the answer.
		expect(expanded.at(-1)).toContain("e collapses tool output");
		const rest = at.screens.slice(1).flat().join("\n");
		expect(rest).toContain("Quarterly <b>budget</b> notes: travel is over plan.");
		expect(rest).toContain("The notes are about the quarterly budget: travel is over plan.");
		// PgDn moves a page, held at the last one: the window ends at the last line.
		const [, from, to, of] = /closes · (\d+)-(\d+) of (\d+) lines/.exec(paged.at(-1) ?? "") ?? [];
		expect(Number(from)).toBeGreaterThan(1);
		expect([Number(to) - Number(from) + 1, Number(to)]).toEqual([8, Number(of)]);
	});

	it("pi's components draw a child's texts with their escapes visible: the theme's colours are the only escapes", () => {
		const messages = [
			{ role: "user", content: `Task${HOSTILE}`, timestamp: 0 },
			fauxAssistantMessage([fauxText(`Answer${HOSTILE}`)]),
		] as Message[];
		const components = messageComponents(messages, () => {
			throw new Error("no tool calls here");
		});
		const lines = components.flatMap((component) => component.render(120)).map(unpainted);
		expect(controlsIn(lines.join("\n"))).toEqual([]);
		const text = lines.map((line) => stripTerminalSequences(line).trim()).join("\n");
		expect(text).toContain(`Task${HOSTILE_BLOCK}`);
		expect(text).toContain(`Answer${HOSTILE_BLOCK}`);
	});

	it("choosing the run itself shows what it says of itself, as before", async () => {
		const id = await finishedRun();
		const at = person("tui", (options) => options.find((o) => o.startsWith(id)) ?? options[0]);
		await command().handler("", at.ctx);
		expect(at.shown.join("\n")).toContain(`Run ${id} (notes): completed`);
		expect(at.screens).toEqual([]);
	});

	it("/workflows conversation <runId> lists them; with #child shows its last session as text outside the TUI", async () => {
		const id = await finishedRun();
		const at = person("print", () => undefined);
		await command().handler(`conversation ${id}`, at.ctx);
		expect(at.shown[0]).toMatch(new RegExp(`^Run ${id}\\nChildren's conversations \\(pi session files`));
		expect(at.shown[0]).toMatch(
			/#2 the plan · failed · faux\/faux-1 · first run · .*\n\s+\/.*\/children\/001-the-plan-1\.jsonl/,
		);
		await command().handler(`conversation ${id} #2`, at.ctx);
		expect(at.shown[1]).toContain("── user\nSay what the plan is");
		expect(at.shown[1]).toContain("── assistant (error: boom: no plan)");
		await command().handler(`conversation ${id} #1`, at.ctx);
		expect(at.shown[2]).toContain("── read\nQuarterly <b>budget</b> notes: travel is over plan.");
		expect(at.shown[2]).toContain('→ read {"path":"notes.txt"}');
		await command().handler(`conversation ${id} #8`, at.ctx);
		expect(at.shown[3]).toBe(
			`/workflows: Run ${id} kept no conversation for \`#8\`. Kept: #1 read notes, #2 the plan`,
		);
	});

	it("a conversation file that is now a link is listed as refused and never read through it", async () => {
		const id = await finishedRun();
		const { dir } = await store.open(id);
		const outside = join(root, "elsewhere.jsonl");
		writeFileSync(
			outside,
			'{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n{"type":"message","id":"m","parentId":null,"message":{"role":"user","content":"SECRET","timestamp":1}}\n',
		);
		const file = join(dir, "children", "000-read-notes-1.jsonl");
		renameSync(file, `${file}.kept`);
		symlinkSync(outside, file);
		// What `pi-workflows runs <id>` and /workflows list: the link is named, not followed.
		const listed = await childConversations(await store.open(id));
		expect(listed.map((c) => [c.index, c.refused])).toEqual([
			[0, `is now a link (to ${outside})`],
			[1, undefined],
		]);
		const at = person("print", () => undefined);
		await command().handler(`conversation ${id}`, at.ctx);
		expect(at.shown[0]).toContain(
			`#1 read notes · completed · faux/faux-1 · first run · refused: is now a link (to ${outside})`,
		);
		await command().handler(`conversation ${id} #1`, at.ctx);
		expect(at.shown[1]).toBe(
			`/workflows: The conversation ${file} is now a link (to ${outside}): a run's conversations are read only from its own folder, never through a link or from a FIFO. Remove what stands there and put the run's file back, or open the file it points to yourself`,
		);
		expect(at.shown.join("\n")).not.toContain("SECRET");
	});
});
