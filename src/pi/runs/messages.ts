/**
 * What the session is told about durable runs: where a run is kept and how to resume it, the answer a background
 * call returns at once, and the one message a background run sends when it ends.
 */
import type { AgentToolResult } from "@earendil-works/pi-coding-agent";
import { callNumber } from "../../errors.ts";
import { resumeCall } from "../../host/cost-cap.ts";
import type { DurableOutcome } from "../../host/durable-run.ts";
import type { LiveRun } from "../../host/registry.ts";
import { fixText, savedResults } from "../../host/views.ts";
import { agentsText, oneLine, summarizeWorkflowProgress } from "../../progress/format.ts";
import { type WorkflowProgressDetails, workflowProgressResult } from "../../progress/index.ts";
import type { WorkflowRunResult } from "../../runtime/core/types.ts";
import type { ToolRunOutcome } from "./tool-run.ts";

/** Custom message type of a background run's completion message. */
export const RUN_MESSAGE_TYPE = "workflow-run";

/** Bytes of text a completion message carries; the whole result is in the run's snapshot file. */
const MESSAGE_TEXT_BYTES = 16 * 1024;

/** What a completion message's renderer draws (the model reads `content`); every list is bounded. */
export interface WorkflowRunMessageDetails {
	runId?: string;
	/** "running" for a background run's question (it waits for an answer). */
	status: WorkflowRunResult["status"] | "running";
	summary: string;
	/** Where the whole result is. */
	snapshot?: string;
	/** `meta.name`. */
	name?: string;
	durationMs?: number;
	/** "4 agents (4 completed)", or what a resume replayed and what ran. */
	agents?: string;
	tokens?: number;
	/** The first lines of the result as JSON; `resultLines` is how many it has in all. */
	result?: string[];
	resultLines?: number;
	error?: string;
	/** The census: a line per failure (the first few), then how many more. */
	failures?: string[];
	/** Branches isolated children's changes were kept on, a line each (the first few). */
	branches?: string[];
	/** Where the run is kept and, when it did not complete, the call that resumes it and how to fix the script. */
	next?: string[];
}

/** A message for `pi.sendMessage`. */
export interface WorkflowRunMessage {
	customType: string;
	content: string;
	display: boolean;
	details: WorkflowRunMessageDetails;
}

/** Lines of the result, failures and branches a completion message's details keep, and characters per line. */
const DETAIL_LINES = { result: 20, failures: 10, branches: 10, chars: 240 };

/** Where the run is kept and, when it did not complete, the exact call that resumes it. */
export function runText(result: WorkflowRunResult, saved: DurableOutcome): string {
	if (!saved.runId) {
		return saved.problem ? `\nThe run could not be saved (${saved.problem}); it cannot be resumed.` : "";
	}
	const id = saved.runId;
	const problem = saved.problem ? ` (saving was incomplete: ${saved.problem})` : "";
	if (result.status === "completed") return `\nRun \`${id}\`${problem}.`;
	if (saved.saved === 0 && saved.unfinished) {
		const children = saved.unfinished === 1 ? "1 unfinished child" : `${saved.unfinished} unfinished children`;
		return `\nRun \`${id}\`: no agent result was saved${problem}, but the conversation of ${children} was, which a resume goes on from. Resume with ${resumeCall(id, result.error)}.\n${fixText(id, saved.script)}`;
	}
	if (saved.saved === 0) {
		return `\nRun \`${id}\`: no agent result was saved${problem}; run the workflow again to retry.`;
	}
	return `\nRun \`${id}\`: ${savedResults(saved.saved)} saved${problem}. Resume with ${resumeCall(id, result.error)} to replay them and run the rest.\n${fixText(id, saved.script)}`;
}

/** What a `background: true` call returns at once; a resume says it is one (and whether its script was edited). */
export function startedResult(live: LiveRun, resume?: { edited: boolean }): AgentToolResult<WorkflowProgressDetails> {
	const { id } = live;
	const envelope = live.envelope();
	const head = resume
		? `Resumed run \`${id}\` of workflow \`${live.name}\` in the background${resume.edited ? " with an edited script" : ""}: its saved agent results replay, the rest run; a message arrives in this session when it ends.`
		: `Started workflow \`${live.name}\` in the background as run \`${id}\`; a message arrives in this session when it ends.`;
	const text = [
		head,
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
	// The model's headline leaves the run's error to its fence (it is often a child's words); details keep it.
	const head = `Background workflow run${saved.runId ? ` \`${saved.runId}\`` : ""} ended: ${summarizeWorkflowProgress(envelope, { fenceData: true })}${kept}`;
	const where = snapshot ? `\nThe whole result is in ${snapshot}.` : "";
	const bounded = workflowProgressResult(envelope, head + where, {
		maxTextBytes: MESSAGE_TEXT_BYTES,
		fenceData: true,
	});
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
			...runDetails(outcome, kept),
		},
	};
}

/** The parts of a run the completion message's renderer lays out, each cut to `DETAIL_LINES`. */
function runDetails(outcome: ToolRunOutcome, kept: string): Omit<WorkflowRunMessageDetails, "status" | "summary"> {
	const { envelope, result } = outcome;
	const cut = (line: string) =>
		line.length > DETAIL_LINES.chars ? `${line.slice(0, DETAIL_LINES.chars - 1)}…` : line;
	const json = result.value !== undefined ? (JSON.stringify(result.value, null, 2) ?? "") : "";
	const lines = json === "" ? [] : json.split("\n");
	const failures = envelope.failures.map((failure) => {
		const name =
			failure.kind === "agent"
				? `${callNumber(failure.index)} ${failure.label ?? ""}`
				: `${failure.kind}[${failure.index}]`;
		return cut(`${oneLine(name)}: ${oneLine(failure.cause)}`);
	});
	const branches = (envelope.branches ?? []).map((branch) =>
		cut(
			`${branch.branch} · ${callNumber(branch.index)} ${oneLine(branch.label)} · ${branch.fileCount} file${branch.fileCount === 1 ? "" : "s"}`,
		),
	);
	const more = (list: string[], limit: number) =>
		list.length > limit ? [...list.slice(0, limit), `… ${list.length - limit} more`] : list;
	return {
		...(envelope.meta?.name ? { name: envelope.meta.name } : {}),
		durationMs: envelope.duration,
		agents: agentsText(envelope),
		tokens: envelope.totals.tokens,
		...(lines.length > 0 ? { result: lines.slice(0, DETAIL_LINES.result).map(cut), resultLines: lines.length } : {}),
		...(envelope.error ? { error: cut(oneLine(envelope.error.message)) } : {}),
		...(failures.length > 0 ? { failures: more(failures, DETAIL_LINES.failures) } : {}),
		...(branches.length > 0 ? { branches: more(branches, DETAIL_LINES.branches) } : {}),
		...(kept.trim() ? { next: kept.trim().split("\n") } : {}),
	};
}
