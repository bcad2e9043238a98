/** `tool()` steps in the envelope, the progress text and the widget: running ones as `$ cmd · 1s`, finished ones counted and logged. */
import { stripTerminalSequences } from "@earendil-works/pi-tui";
import { describe, expect, it } from "vitest";
import {
	createWorkflowProgressTracker,
	formatWorkflowProgress,
	type WorkflowProgressEnvelope,
} from "../../src/progress/index.ts";
import { widgetLines } from "../../src/progress/widget.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

describe("progress of tool() steps", () => {
	it("shows a running step as its command, then counts it and logs `$ cmd · time · exit N`", async () => {
		const tracker = createWorkflowProgressTracker();
		let during: WorkflowProgressEnvelope | undefined;
		const result = await runWorkflowScript(
			`${HEADER}await tool("bash", { command: "npm test" });\ntry { await tool("nope", {}); } catch {}\nreturn 1;`,
			{
				agentRunner: createFakeRunner().runner,
				onProgress: (event) => tracker.updateFromProgressEvent(event),
				tools: {
					bash: async () => {
						during = tracker.getEnvelope();
						return { output: "1 failed", isError: true, details: { exit_code: 1 } };
					},
				},
			},
		);
		expect(result.value).toBe(1);
		expect(during?.toolSteps?.running).toEqual([expect.objectContaining({ name: "bash", label: "npm test" })]);
		const now = (during?.toolSteps?.running[0]?.startedAt ?? 0) + 2500;
		const lines = widgetLines(during as WorkflowProgressEnvelope, now, (_style, t) => t).map((line) =>
			stripTerminalSequences(line),
		);
		expect(lines).toContain("  $ npm test · 2.5s");
		expect(formatWorkflowProgress(during as WorkflowProgressEnvelope, { now })).toContain(
			"Tool steps: 0 done, 1 running\n  $ npm test · 2.5s",
		);
		const after = tracker.getEnvelope();
		expect(after.toolSteps).toEqual({ running: [], done: 1, errors: 1, failed: 1 });
		const text = formatWorkflowProgress(after);
		expect(text).toContain("Tool steps: 1 done (1 with errors, 1 failed)");
		expect(text).toMatch(/\$ npm test · \d+\.\ds · exit 1/);
	});
});
