/**
 * What the session is told about durable runs: where a run is kept and how to resume it, the answer a background
 * call returns at once, and the one message a background run sends when it ends.
 */
import type { AgentToolResult } from "@earendil-works/pi-coding-agent";
import { type WorkflowProgressDetails, workflowProgressResult } from "../../progress/index.ts";
import type { WorkflowRunResult } from "../../runtime/types.ts";
import type { DurableOutcome } from "./durable-run.ts";
import type { LiveRun } from "./registry.ts";
import type { ToolRunOutcome } from "./tool-run.ts";

/** Custom message type of a background run's completion message. */
const RUN_MESSAGE_TYPE = "workflow-run";

/** Bytes of text a completion message carries; the whole result is in the run's snapshot file. */
const MESSAGE_TEXT_BYTES = 16 * 1024;

/** A message for `pi.sendMessage`. */
export interface WorkflowRunMessage {
	customType: string;
	content: string;
	display: boolean;
	details: { runId?: string; status: WorkflowRunResult["status"]; summary: string; snapshot?: string };
}

/** "1 agent result is", "9 agent results are": how many a run's journal holds, for "… saved". */
export function savedResults(count: number): string {
	return count === 1 ? "1 agent result is" : `${count} agent results are`;
}

/** Where the run is kept and, when it did not complete, the exact call that resumes it. */
export function runText(result: WorkflowRunResult, saved: DurableOutcome): string {
	if (!saved.runId) {
		return saved.problem ? `\nThe run could not be saved (${saved.problem}); it cannot be resumed.` : "";
	}
	const id = saved.runId;
	const problem = saved.problem ? ` (saving was incomplete: ${saved.problem})` : "";
	if (result.status === "completed") return `\nRun \`${id}\`${problem}.`;
	if (saved.saved === 0) {
		return `\nRun \`${id}\`: no agent result was saved${problem}; run the workflow again to retry.`;
	}
	return `\nRun \`${id}\`: ${savedResults(saved.saved)} saved${problem}. Resume with workflow({ resume: "${id}" }) to replay them and run the rest.\n${fixText(id, saved.script)}`;
}

/**
 * How to resume with a fix: edit the run's own script file (so unchanged calls stay byte for byte the same and
 * replay) and resume with its path; without the file, any edited `script`, `path` or `name`.
 */
export function fixText(id: string, script: string | undefined): string {
	if (!script) return "To resume with an edited script, add `script`, `path` or `name` to that call.";
	return `To fix the script first: read ${script}, change only what is wrong, and resume with workflow({ resume: "${id}", path: "${script}" }); an agent() call replays only when its prompt and options are byte for byte the recorded ones.`;
}

/** What a `background: true` call returns at once. */
export function startedResult(live: LiveRun): AgentToolResult<WorkflowProgressDetails> {
	const { id } = live;
	const envelope = live.envelope();
	const text = [
		`Started workflow \`${live.name}\` in the background as run \`${id}\`; a message arrives in this session when it ends.`,
		`Watch it: /workflows, or workflow_runs({ action: "status", runId: "${id}" }).`,
		`Stop it: workflow_runs({ action: "stop", runId: "${id}" }). If it fails or is stopped: workflow({ resume: "${id}" }).`,
	].join("\n");
	return { content: [{ type: "text", text }], details: { summary: text, envelope, runId: id } };
}

/** The one message a background run sends when it ends: status, summary, a bounded result, census, usage, resume. */
export function completionMessage(outcome: ToolRunOutcome, snapshot: string | undefined): WorkflowRunMessage {
	const { result, saved, envelope, summary } = outcome;
	// The first line names the run already: a completed, fully saved run needs no second line saying where it is.
	const kept = result.status === "completed" && saved.runId && !saved.problem ? "" : runText(result, saved);
	const head = `Background workflow run${saved.runId ? ` \`${saved.runId}\`` : ""} ended: ${summary}${kept}`;
	const where = snapshot ? `\nThe whole result is in ${snapshot}.` : "";
	const bounded = workflowProgressResult(envelope, head + where, { maxTextBytes: MESSAGE_TEXT_BYTES });
	const text = bounded.content.map((part) => part.text).join("\n");
	return {
		customType: RUN_MESSAGE_TYPE,
		content: text,
		display: true,
		details: {
			...(saved.runId ? { runId: saved.runId } : {}),
			status: result.status,
			summary,
			...(snapshot ? { snapshot } : {}),
		},
	};
}
