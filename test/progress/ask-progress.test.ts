/** An open `ask()` question in the envelope, the progress text, the summary, the widget and the status line. */
import { stripTerminalSequences } from "@earendil-works/pi-tui";
import { describe, expect, it } from "vitest";
import {
	createWorkflowProgressTracker,
	formatWorkflowProgress,
	summarizeWorkflowProgress,
	type WorkflowProgressEnvelope,
} from "../../src/progress/index.ts";
import { visibleSignature } from "../../src/progress/ui.ts";
import { widgetLines } from "../../src/progress/widget.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

describe("progress of a run waiting on ask()", () => {
	it("shows 'waiting for you: <question>' while it waits, not as an agent call, and drops it once answered", async () => {
		const tracker = createWorkflowProgressTracker();
		let waiting: WorkflowProgressEnvelope | undefined;
		const result = await runWorkflowScript(
			`${HEADER}const a = await agent("draft");\nconst go = await ask("Ship the draft?", { choices: ["yes", "no"], default: "no" });\nreturn go;`,
			{
				agentRunner: createFakeRunner().runner,
				onProgress: (event) => tracker.updateFromProgressEvent(event),
				ask: () => {
					waiting = tracker.getEnvelope();
					return "yes";
				},
			},
		);
		expect(result.value).toBe("yes");
		expect(waiting?.questions).toEqual([
			expect.objectContaining({ question: "Ship the draft?", choices: ["yes", "no"], default: "no", index: 0 }),
		]);
		// One agent call: the question is not counted among them.
		expect(waiting?.totals.agents.total).toBe(1);
		const text = formatWorkflowProgress(waiting as WorkflowProgressEnvelope);
		expect(text.split("\n")[1]).toBe("Waiting for you: Ship the draft? (yes / no; default: no)");
		expect(summarizeWorkflowProgress(waiting as WorkflowProgressEnvelope)).toMatch(
			/: 1 agent \(1 completed\), 10 tokens; waiting for you: Ship the draft\?$/,
		);
		const lines = widgetLines(waiting as WorkflowProgressEnvelope, Date.now(), (_style, t) => t).map((line) =>
			stripTerminalSequences(line),
		);
		expect(lines[1]).toBe("  ? Waiting for you: Ship the draft? (yes / no; default: no)");
		const after = tracker.getEnvelope();
		expect(after.questions).toBeUndefined();
		expect(visibleSignature(after)).not.toBe(visibleSignature(waiting as WorkflowProgressEnvelope));
		expect(formatWorkflowProgress(after)).not.toContain("Waiting for you");
	});
});
