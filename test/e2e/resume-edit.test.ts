/**
 * A resume with a fix, through a real parent pi session (faux provider, the extension loaded through pi's resource
 * loader): the failed run's result and `workflow_runs` status name the run's script file; the model edits that
 * file and resumes with its path; the calls it left alone replay, the one it rewrote runs, and the run's log (so
 * the tool result) says which recorded call it missed and what differs.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createParentSession, type ParentSession } from "../../scripts/parent-session.ts";
import type { WorkflowProgressDetails } from "../../src/progress/index.ts";
import { createFauxHarness, type FauxHarness, fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";

const PARENT_TASK = "Please run the release workflow";
const SCRIPT = `export const meta = { name: "release", description: "Notes, then a summary" };
const notes = await parallel(["api", "cli"].map((x) => () => agent("Note on " + x, { label: "note " + x })));
const summary = await agent("Summarize the two notes: " + notes.join(" | "), { label: "summarize" });
return summary.text.trim();`;

function call(tool: string, args: Parameters<typeof fauxToolCall>[1]) {
	return fauxAssistantMessage([fauxToolCall(tool, args)], { stopReason: "toolUse" });
}

describe("a resume with an edit, in a real pi session", () => {
	let harness: FauxHarness;
	let cwd: string;
	let parent: ParentSession;

	beforeEach(async () => {
		harness = await createFauxHarness();
		cwd = mkdtempSync(join(tmpdir(), "wf-resume-edit-"));
	});
	afterEach(() => {
		parent?.dispose();
		harness.dispose();
		rmSync(cwd, { recursive: true, force: true });
	});

	function toolTexts(name: string): string[] {
		return parent.toolEvents.flatMap((event) =>
			event.type === "tool_execution_end" && event.toolName === name
				? [(event.result as { content: Array<{ text?: string }> }).content.map((part) => part.text).join("\n")]
				: [],
		);
	}

	function workflowDetails(): WorkflowProgressDetails[] {
		return parent.toolEvents.flatMap((event) =>
			event.type === "tool_execution_end" && event.toolName === "workflow"
				? [(event.result as { details: WorkflowProgressDetails }).details]
				: [],
		);
	}

	it("points at the run's script file; an edit of it resumes, replaying what it left alone and saying what it missed", async () => {
		let runId = "";
		let scriptPath = "";
		harness.route(PARENT_TASK, [
			call("workflow", { script: SCRIPT }),
			fauxAssistantMessage("it failed"),
			() => call("workflow_runs", { action: "status", runId }),
			fauxAssistantMessage("read the status"),
			() => call("workflow", { resume: runId, path: scriptPath }),
			fauxAssistantMessage("resumed"),
		]);
		harness.route("Note on api", [fauxAssistantMessage("api: two endpoints added")]);
		harness.route("Note on cli", [fauxAssistantMessage("cli: one flag renamed")]);
		harness.route("Summarize the two notes", [fauxAssistantMessage("Two changes.")]);
		harness.route("Summarise both notes", [fauxAssistantMessage("Two changes, one breaking.")]);
		parent = await createParentSession({
			cwd,
			agentDir: harness.agentDir,
			modelRuntime: harness.modelRuntime,
			model: harness.model,
		});

		await parent.session.prompt(PARENT_TASK);
		const failed = toolTexts("workflow")[0] ?? "";
		runId = workflowDetails()[0]?.runId ?? "";
		scriptPath = /read (\S+script\.js), change only what is wrong/.exec(failed)?.[1] ?? "";
		expect(failed).toContain(
			`To fix the script first: read ${scriptPath}, change only what is wrong, and resume with workflow({ resume: "${runId}", path: "${scriptPath}" })`,
		);
		expect(scriptPath.endsWith(join(runId, "script.js"))).toBe(true);
		expect(readFileSync(scriptPath, "utf8")).toBe(SCRIPT);

		await parent.session.prompt("What is its status?");
		const status = toolTexts("workflow_runs")[0] ?? "";
		expect(status).toContain(`Run ${runId} (release): failed`);
		expect(status).toContain(`Resume: workflow({ resume: "${runId}" })`);
		expect(status).toContain(`resume with workflow({ resume: "${runId}", path: "${scriptPath}" })`);

		// The model's edit: the bug fixed, and the summarize prompt rewritten too (which costs its replay).
		writeFileSync(
			scriptPath,
			SCRIPT.replace("summary.text.trim()", "summary.trim()").replace(
				"Summarize the two notes",
				"Summarise both notes",
			),
		);
		await parent.session.prompt("Fix it and resume");
		const resumed = toolTexts("workflow")[1] ?? "";
		expect(workflowDetails()[1]).toMatchObject({
			runId,
			envelope: { status: "completed", result: "Two changes, one breaking." },
		});
		expect(resumed).toMatch(
			/^Workflow release completed in [\d.]+m?s: 3 agents: 2 replayed from the journal, 1 ran \(1 completed\), [\d.]+k? tokens, cost unknown\n/,
		);
		expect(resumed).toContain(
			"warn: Resume: `summarize` (#3) runs again instead of replaying: the nearest recorded call not matched so far, `summarize` (#3 then), has another prompt from character 8:",
		);
		// Only the rewritten call reached a child.
		expect(harness.requests.filter((request) => request.task.startsWith("Note on"))).toHaveLength(2);
		expect(existsSync(scriptPath)).toBe(true);
	});
});
