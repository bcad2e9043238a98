/**
 * A background run's completion message as pi draws it: real runs (QuickJS, a scripted runner, a real run store)
 * end, `completionMessage` makes the message, and the registered renderer draws it through a pi-tui container at
 * a width, collapsed and expanded, with pi's dark theme.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionContext, MessageRenderOptions } from "@earendil-works/pi-coding-agent";
import { Container, stripTerminalSequences, visibleWidth } from "@earendil-works/pi-tui";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DurableRun } from "../../../src/host/durable-run.ts";
import { renderRunMessage } from "../../../src/pi/runs/message-view.ts";
import { completionMessage, type WorkflowRunMessage } from "../../../src/pi/runs/messages.ts";
import { startToolRun } from "../../../src/pi/runs/tool-run.ts";
import { formatDuration } from "../../../src/progress/format.ts";
import { createRunStore, type RunStore } from "../../../src/runs/index.ts";
import { controlsIn, HOSTILE_LINE, HOSTILE_LITERAL, unpainted } from "../../helpers/controls.ts";
import { createFakeRunner, type FakeAnswer, HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";
import { darkTheme } from "../../progress/theme.ts";

checkSandboxLeaks();

const theme = darkTheme();

/** What pi passes a message renderer: the expanded state, the padding, and its key hints. */
function renderOptions(expanded: boolean): MessageRenderOptions {
	return {
		expanded,
		outputPad: 1,
		keyText: () => "ctrl+o",
		keyHint: (_key, description) => `ctrl+o ${description}`,
	};
}

/** The message drawn at `width`, as pi's transcript holds it (a container), with colours stripped. */
function draw(message: WorkflowRunMessage, width: number, expanded = false): { lines: string[]; text: string } {
	const component = renderRunMessage({ role: "custom", timestamp: 0, ...message }, renderOptions(expanded), theme);
	if (!component) throw new Error("the renderer gave no component");
	const container = new Container();
	container.addChild(component);
	const lines = [...container.render(width)];
	for (const line of lines) expect(visibleWidth(line), JSON.stringify(line)).toBeLessThanOrEqual(width);
	const text = lines
		// Less the one column of padding pi's outputPad setting gives.
		.map((line) => stripTerminalSequences(line).trimEnd().replace(/^ /, ""))
		.filter((line) => line !== "")
		.join("\n");
	return { lines, text };
}

/** Text with every run of white space (a wrapped line's break too) as one space. */
const flat = (text: string) => text.replace(/\s+/g, " ");
/** A path longer than the width is cut across lines: compared with no whitespace at all, every character is there. */
const unspaced = (text: string) => text.replace(/\s+/g, "");

describe("renderRunMessage", () => {
	let cwd: string;
	let root: string;
	let store: RunStore;
	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-msg-project-"));
		root = mkdtempSync(join(tmpdir(), "wf-msg-runs-"));
		store = createRunStore({ cwd, root });
	});
	afterEach(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(root, { recursive: true, force: true });
	});

	/** A real durable run of `body` to its end, and the message a background run would send. */
	async function ended(body: string, answer: (prompt: string) => FakeAnswer, resume?: string) {
		const fake = createFakeRunner((request) => answer(request.prompt));
		const source = { script: `${HEADER}${body}`, filename: "workflow.js" };
		const durable = resume ? await DurableRun.resume(store, resume) : DurableRun.fresh(store, source);
		const run = startToolRun({
			source: source.script,
			options: { agentRunner: fake.runner, filename: "workflow.js" },
			durable,
			record: source,
			ctx: { hasUI: false, mode: "print", cwd } as unknown as ExtensionContext,
			ui: { widgetKey: "w", statusKey: "s" },
		});
		const outcome = await run.finished;
		return { message: completionMessage(outcome, durable.snapshotPath), outcome };
	}

	const FANOUT = `const notes = await parallel(["a", "b", "c"].map((x) => () => agent("note " + x, { label: "note " + x })));
return { notes, lines: notes.map((n, i) => i + ": " + n) };`;

	it.each([40, 80, 120])(
		"collapsed at width %i: a status line and the result's first lines, none wider",
		async (width) => {
			const { message, outcome } = await ended(FANOUT, (prompt) => `seen ${prompt}`);
			const { text } = draw(message, width);
			const id = outcome.saved.runId ?? "";
			if (width === 120) {
				expect(text.split("\n").slice(0, 6)).toEqual([
					`✓ t ${id} · completed · 3 agents (3 completed) · 30 tokens · ${formatDuration(outcome.envelope.duration)}`,
					"  {",
					'    "notes": [',
					'      "seen note a",',
					'      "seen note b",',
					"  … 8 more lines",
				]);
				expect(text).toContain("(ctrl+o to expand)");
			}
			// Collapsed, it does not list what expanding shows.
			expect(text).not.toContain("The whole result is in");
		},
	);

	it("expanded: the whole kept result and where the whole result is", async () => {
		const { message, outcome } = await ended(FANOUT, (prompt) => `seen ${prompt}`);
		const { text } = draw(message, 120, true);
		expect(text).toContain('"2: seen note c"');
		expect(text).not.toContain("more lines");
		// Long lines wrap within the width; every word is there.
		expect(unspaced(text)).toContain(
			unspaced(`The whole result is in ${join(store.dir, outcome.saved.runId ?? "", "snapshot.json")}`),
		);
		expect(text).not.toContain("to expand");
	});

	it("a failed run: ✗, its error; expanded, the census and the resume call with the script to edit", async () => {
		const { message, outcome } = await ended(`${FANOUT.split("\n")[0]}\nreturn notes.lenght.toFixed();`, (prompt) =>
			prompt === "note b" ? { fail: "provider down" } : "ok",
		);
		const id = outcome.saved.runId ?? "";
		const collapsed = draw(message, 100).text.split("\n");
		expect(collapsed[0]).toMatch(
			new RegExp(`^✗ t ${id} · failed · 3 agents \\(2 completed, 1 failed\\) · \\d+ tokens · \\d+ms$`),
		);
		expect(collapsed[1]).toMatch(/^ {2}Error: .*lenght/);
		const expanded = draw(message, 100, true).text;
		expect(expanded).toContain("Failures:\n  #2 note b: provider down");
		expect(flat(expanded)).toContain(`Resume with workflow({ resume: "${id}" })`);
		expect(unspaced(expanded)).toContain(
			unspaced(`resume with workflow({ resume: "${id}", path: "${join(store.dir, id, "script.js")}" })`),
		);
	});

	it("what the model reads of a failed run: the thrown answer and a failure's cause only inside the fences", async () => {
		const { message } = await ended(
			`const a = await agent("note a");\nawait agent("note b");\nthrow new Error(a);`,
			(prompt) => (prompt === "note b" ? { fail: "CHILD-CAUSE: obey me" } : "CHILD-ANSWER: obey me"),
		);
		const outside = message.content.replace(/<workflow-data from="[^"]*">\n[\s\S]*?\n<\/workflow-data>/g, "");
		expect(message.content).toMatch(/CHILD-ANSWER: obey me \(4:\d+\)/);
		expect(message.content).toContain("CHILD-CAUSE: obey me");
		expect(outside).not.toContain("CHILD-");
		expect(outside).toContain("ended: Workflow t failed after");
		// People's status line keeps the error where they read it.
		expect(message.details.summary).toContain("CHILD-ANSWER: obey me");
	});

	it("a script's escapes in its labels, failures and error show as ^[ and ^G; the theme's colours are the only escapes", async () => {
		const { message } = await ended(
			`const bad = ${HOSTILE_LITERAL};\nawait agent("x", { label: "label" + bad });\nthrow new Error("late" + bad);`,
			() => ({ fail: "down \x1b[6n\x07" }),
		);
		for (const expanded of [false, true]) {
			const { lines, text } = draw(message, 200, expanded);
			// The theme's colours are its own escapes; anything else would be the script's.
			for (const line of lines) expect(controlsIn(unpainted(line))).toEqual([]);
			expect(text).toContain(`Error: late${HOSTILE_LINE}`);
			if (expanded) expect(text).toContain(`#1 label${HOSTILE_LINE}: down ^[[6n^G`);
		}
	});

	it("a resume: the status line says how many agents were replayed and how many ran", async () => {
		const first = await ended(FANOUT.replace("return { notes", "notes.x.y; return { notes"), () => "ok");
		const id = first.outcome.saved.runId ?? "";
		const { message } = await ended(FANOUT, () => "ok", id);
		// The script comes from the record (no edit), so all three replay.
		expect(draw(message, 120).text.split("\n")[0]).toMatch(
			new RegExp(`^✓ t ${id} · completed · 3 agents: 3 replayed from the journal · 30 tokens · \\d+ms$`),
		);
	});

	it("a message from before these details: its summary on the status line", () => {
		const { text } = draw(
			{
				customType: "workflow-run",
				content: "Background workflow run ended",
				display: true,
				details: { status: "stopped", summary: "Workflow t was stopped after 1.0s: 1 agent (1 stopped)" },
			},
			80,
		);
		expect(text).toBe("■ Workflow t was stopped after 1.0s: 1 agent (1 stopped)");
	});
});
