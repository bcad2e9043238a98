/**
 * docs/runs-render.txt stays true. `scripts/render-workflows.sh` drives pi in tmux; this takes the same steps
 * through a real pi session (the same scripted parent and children, test/fixtures/faux-background-extension.ts,
 * children answering when the test lets them), with a person's TUI that keeps each dialog open until answered,
 * and checks that every dialog, message and notice the file shows is what pi shows now: each is drawn with pi's
 * own components (its selector, its custom-message box) and compared with run ids, times, token counts and temp
 * paths left out (and sizes on disk). The excerpts in docs/children.md marked as taken from the file must be lines of it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "@earendil-works/pi-ai";
import {
	CustomMessageComponent,
	ExtensionSelectorComponent,
	type ExtensionUIContext,
	getMarkdownTheme,
	initTheme,
	type MessageRenderer,
} from "@earendil-works/pi-coding-agent";
import {
	type Component,
	KeybindingsManager,
	Markdown,
	setKeybindings,
	stripTerminalSequences,
	Text,
	TUI_KEYBINDINGS,
} from "@earendil-works/pi-tui";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createParentSession, type ParentSession } from "../../scripts/parent-session.ts";
import { describeWorkflowCall } from "../../src/tool/render.ts";
import { type ChildWait, renderReply } from "../fixtures/faux-background-extension.ts";
import { createFauxHarness, type FauxHarness } from "../helpers/faux.ts";
import { until } from "../helpers/until.ts";
import { darkTheme } from "../progress/theme.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const DOC = readFileSync(join(ROOT, "docs", "runs-render.txt"), "utf8");
/** The docs page that quotes the file (its steering section). */
const PAGE = readFileSync(join(ROOT, "docs", "children.md"), "utf8");
/** The pane's width in the script. */
const WIDTH = 110;
const STALE =
	"docs/runs-render.txt is out of date: run scripts/render-workflows.sh (it needs tmux) and commit the file";

/** The file's sections by title. */
function sections(): Map<string, string> {
	const out = new Map<string, string>();
	const parts = DOC.split(/^=== (.+) ===$/m);
	for (let i = 1; i < parts.length; i += 2) out.set(parts[i] ?? "", parts[i + 1] ?? "");
	return out;
}

/**
 * Text as the comparison sees it: run ids, ISO times, durations, token counts and paths of two or more parts
 * replaced by markers, idle times left out (they depend on when a person looked), and all white space (a wrapped
 * line's break too) one space.
 */
function normalize(text: string): string {
	return stripTerminalSequences(text)
		.replace(/wf-\d{8}-\d{6}-[0-9a-z]{6}/g, "wf-<id>")
		.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z/g, "<time>")
		.replace(/(?<![\w/])\/[^\s"]*\/[^\s"]*/g, "<path>")
		.replace(/[,·] idle (\d+(\.\d+)?(ms|s)|\d+m \d\ds)/g, "")
		.replace(/\b\d+(\.\d+)?[kM]? (tok|tokens)\b/g, "<n> $2")
		.replace(/\b\d+(\.\d+)? (B|KiB|MiB|GiB)\b/g, "<size>")
		.replace(/\b(\d+(\.\d+)?(ms|s)|\d+m \d\ds|\d+h \d\dm)\b/g, "<t>")
		.replace(/\s+/g, " ")
		.trim();
}

/** A component's lines at the pane's width, less the rules pi draws around dialogs. */
function drawn(component: Component): string {
	return component
		.render(WIDTH)
		.map((line) => stripTerminalSequences(line).trimEnd())
		.filter((line) => !/^─+$/.test(line))
		.join("\n");
}

/** A dialog as pi's selector draws it (a confirm is a selector of Yes and No under its title and message). */
function dialogText(dialog: Dialog): string {
	return drawn(
		new ExtensionSelectorComponent(
			dialog.title,
			dialog.options,
			() => {},
			() => {},
		),
	);
}

interface Dialog {
	title: string;
	options: string[];
	answer(choice: string | boolean | undefined): void;
}

/** A person at pi's TUI: dialogs stay open until answered or closed by their signal; notices and widgets kept. */
function person() {
	const dialogs: Dialog[] = [];
	const notices: string[] = [];
	const widgets = new Map<string, unknown>();
	const open = <T>(title: string, options: string[], signal: AbortSignal | undefined, closedAs: T) =>
		new Promise<T>((resolve) => {
			const dialog: Dialog = { title, options, answer: (choice) => resolve(choice as T) };
			signal?.addEventListener("abort", () => resolve(closedAs), { once: true });
			dialogs.push(dialog);
		});
	const ui: Record<string, unknown> = {
		select: (title: string, options: string[], opts?: { signal?: AbortSignal }) =>
			open(title, options, opts?.signal, undefined),
		confirm: (title: string, message: string, opts?: { signal?: AbortSignal }) =>
			open(`${title}\n${message}`, ["Yes", "No"], opts?.signal, false),
		notify: (text: string) => notices.push(text),
		setStatus: () => {},
		setWidget: (key: string, content: unknown) =>
			content === undefined ? widgets.delete(key) : widgets.set(key, content),
	};
	const uiContext = new Proxy(ui, {
		get: (target, key) => (key in target ? target[key as string] : () => undefined),
	}) as unknown as ExtensionUIContext;
	/** What the widgets show now, drawn once. */
	const widgetText = () =>
		[...widgets.values()]
			.map((factory) => {
				if (typeof factory !== "function") return String(factory);
				const component = factory({ requestRender: () => {} }, darkTheme()) as Component & { dispose?(): void };
				const text = drawn(component);
				component.dispose?.();
				return text;
			})
			.join("\n");
	return { uiContext, dialogs, notices, widgetText };
}

describe("docs/runs-render.txt", () => {
	let harness: FauxHarness;
	let cwd: string;
	let parent: ParentSession;

	beforeAll(() => {
		// What pi's interactive mode sets up: its theme, and the key (pi's default) its hints name.
		initTheme("dark");
		setKeybindings(
			new KeybindingsManager({
				...TUI_KEYBINDINGS,
				"app.tools.expand": { defaultKeys: "ctrl+o", description: "Toggle tool output" },
			}),
		);
	});
	let work: string;
	let agentDirBefore: string | undefined;
	beforeEach(async () => {
		harness = await createFauxHarness();
		// The script's layout (<tmp>/agent, <tmp>/acme-app, a temp dir as short), so record paths are as long as
		// the file's and pi wraps the lines that hold them at the same places.
		work = mkdtempSync("/tmp/wfr-");
		cwd = join(work, "acme-app");
		mkdirSync(cwd);
		agentDirBefore = process.env.PI_CODING_AGENT_DIR;
		process.env.PI_CODING_AGENT_DIR = join(work, "agent");
	});
	afterEach(() => {
		parent?.dispose();
		harness.dispose();
		process.env.PI_CODING_AGENT_DIR = agentDirBefore;
		rmSync(work, { recursive: true, force: true });
	});

	it("the docs' excerpts from it are lines of it", () => {
		const blocks = [...PAGE.matchAll(/<!-- from docs\/runs-render\.txt -->\n```\n([\s\S]*?)```/g)];
		expect(blocks.length).toBeGreaterThanOrEqual(5);
		for (const [, block = ""] of blocks)
			expect(DOC, `an excerpt in docs/children.md is not in the file:\n${block}`).toContain(block);
	});

	it("shows what pi shows now, step by step as the script takes them", { timeout: 60_000 }, async () => {
		const doc = sections();
		/** Checks that section `title` of the file holds `shown` (normalized). */
		const inSection = (title: string, shown: string) => {
			const section = doc.get(title);
			expect(section, `no section "${title}" in docs/runs-render.txt`).toBeDefined();
			expect(normalize(section ?? ""), `${STALE}; pi shows:\n${shown}`).toContain(normalize(shown));
		};
		// Children answer when let go; a stopped one gives up at once.
		const gates = new Map<string, () => void>();
		const wait: ChildWait = (task, signal) =>
			new Promise((resolve) => {
				gates.set(task, () => resolve());
				signal?.addEventListener("abort", () => resolve(), { once: true });
			});
		const letGo = (prefix: string) => {
			for (const [task, go] of gates) {
				if (task.startsWith(prefix)) {
					gates.delete(task);
					go();
				}
			}
		};
		harness.route(
			() => true,
			Array.from(
				{ length: 100 },
				() => (request: { messages: Message[]; signal?: AbortSignal }) =>
					renderReply(request.messages, wait, request.signal),
			),
		);
		parent = await createParentSession({
			cwd,
			agentDir: harness.agentDir,
			modelRuntime: harness.modelRuntime,
			model: harness.model,
		});
		const { uiContext, dialogs, notices, widgetText } = person();
		await parent.session.bindExtensions({ uiContext, mode: "tui" });
		const renderer = parent.session.extensionRunner.getMessageRenderer("workflow-run") as MessageRenderer;
		const nth = async (count: number) => {
			await until(() => dialogs.length >= count, `dialog ${count}`);
			return dialogs[count - 1] as Dialog;
		};
		const calls = () =>
			parent.toolEvents.flatMap((event) =>
				event.type === "tool_execution_start" && event.toolName === "workflow" ? [event.args] : [],
			);
		const results = () =>
			parent.toolEvents.flatMap((event) =>
				event.type === "tool_execution_end" && event.toolName === "workflow"
					? [(event.result as { content: Array<{ text: string }> }).content[0]?.text ?? ""]
					: [],
			);
		const answers = () =>
			parent.session.messages.flatMap((m) =>
				m.role === "assistant"
					? [m.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")]
					: [],
			);
		/** The parent's latest answer as pi's transcript draws it (Markdown). */
		const answer = () => drawn(new Markdown(answers().at(-1) ?? "", 1, 0, getMarkdownTheme()));
		const completions = () => parent.session.messages.filter((m) => m.role === "custom");
		/** The completion message as pi's transcript draws it, collapsed. */
		const completionText = (index: number) =>
			drawn(new CustomMessageComponent(completions()[index] as never, renderer, undefined, 1));
		const runId = () => /as run `(wf-[0-9a-z-]+)`/.exec(results()[0] ?? "")?.[1] ?? "";

		// A run in the background: the call, /workflows, the run's menu, a child's actions.
		await parent.session.prompt("Audit our dependencies in the background");
		await until(() => /#3 p-queue · general-purpose · active/.test(widgetText()), "the three checks at work");
		// The run's plan, made beside it once its first child started: the widget counts against it from then on.
		await until(() => /audit-deps · check · 0 of ~4 agents/.test(widgetText()), "the run's plan");
		const callSection =
			"The call's result, the parent's answer, the run's widget above the editor, its status line below the footer";
		inSection(callSection, `workflow ${describeWorkflowCall(calls()[0] ?? {})}`);
		inSection(callSection, results()[0] ?? "");
		inSection(callSection, answer());

		let command = parent.session.prompt("/workflows");
		const list = await nth(1);
		inSection("/workflows while it runs: the selector", dialogText(list));
		list.answer(list.options[0]);
		const menu = await nth(2);
		inSection("Enter on the running run: its menu", dialogText(menu));
		menu.answer(menu.options[1]);
		const actions = await nth(3);
		inSection("Down and Enter on #1 acorn: what can be done to it", dialogText(actions));
		actions.answer(undefined);
		await command;

		// Its checks done, the run writes its report: stop it from its menu.
		letGo("Check ");
		await until(() => /#4 report · general-purpose · active/.test(widgetText()), "the report at work");
		command = parent.session.prompt("/workflows");
		(await nth(4)).answer((await nth(4)).options[0]);
		(await nth(5)).answer("Stop the run");
		const confirm = await nth(6);
		inSection("Stop the run, from its menu: the confirmation", dialogText(confirm));
		confirm.answer(true);
		await command;
		await until(() => answers().some((text) => text.startsWith("The background run reported back")), "the answer");
		const stoppedSection =
			"After Yes: the run's completion message, the parent's answer, and the run as /workflows now shows it";
		inSection(stoppedSection, completionText(0));
		inSection(stoppedSection, answer());
		inSection(stoppedSection, drawn(new Text(notices.at(-1) ?? "", 1, 0)));

		// Resume it: the checks replay from the journal, the report runs.
		await parent.session.prompt("Resume the audit, in the background");
		expect(calls()[1]).toEqual({ resume: runId(), background: true });
		await until(() => /#4 report · general-purpose · active/.test(widgetText()), "the resumed report at work");
		const resumeSection =
			"The resume: its call, the parent's answer, the widget (the checks replayed, the report running)";
		inSection(resumeSection, `workflow ${describeWorkflowCall(calls()[1] ?? {})}`);
		expect(results()[1]).toMatch(/^Resumed run `wf-[0-9a-z-]+` of workflow `audit-deps` in the background: /);
		inSection(resumeSection, results()[1] ?? "");
		command = parent.session.prompt("/workflows");
		(await nth(7)).answer((await nth(7)).options[0]);
		inSection("Its menu, left open", dialogText(await nth(8)));
		letGo("Write the report");
		await command;
		await until(
			() => completions().length === 2 && answers().at(-1)?.includes("completed") === true,
			"the second answer",
		);
		const endSection =
			"The run ends: its completion message, the parent's answer, and the menu closing to say how it ended";
		inSection(endSection, completionText(1));
		inSection(endSection, answer());
		inSection(endSection, drawn(new Text(notices.at(-1) ?? "", 1, 0)));
		expect(notices.at(-1)).toMatch(/^Run wf-[0-9a-z-]+ ended while this menu was open\.\n/);

		command = parent.session.prompt("/workflows");
		const after = await nth(9);
		inSection("/workflows after it ended", dialogText(after));
		after.answer(undefined);
		await command;
		expect(dialogs).toHaveLength(9);
	});
});
