/**
 * What a `workflow` call returns once its run started: the run handed to the background (its id now, its end
 * reported later), or awaited and its outcome made the result the model sees.
 */

import type { AgentToolResult } from "@earendil-works/pi-coding-agent";
import { stripLocation, toWorkflowError, WorkflowError } from "../errors.ts";
import type { RunRegistry } from "../host/registry.ts";
import { completionMessage, runText, startedResult, type WorkflowRunMessage } from "../pi/runs/messages.ts";
import type { ToolRun, ToolRunOutcome } from "../pi/runs/tool-run.ts";
import { summarizeWorkflowProgress, type WorkflowProgressDetails, workflowProgressResult } from "../progress/index.ts";

/** How a started run ends for its call. */
export interface CallEnding {
	/** The call's signal: Esc stops the run until it goes to the background. */
	signal?: AbortSignal;
	/** Hand the run to the background once it is recorded. */
	background: boolean;
	/** The session's live runs. */
	registry: RunRegistry;
	/** Delivers a background run's completion message. */
	notify?: (message: WorkflowRunMessage) => void;
	/** The run's snapshot file, read when it ends, for the completion message. */
	snapshotPath: () => string | undefined;
	/** Only for a resumed run: whether it resumes with an edited script. */
	resume?: { edited: boolean };
	/** Text added to an awaited run's result (why it ran blocking, agent file warnings). */
	notes: string;
}

/** The call's result for a started run: its id when it went to the background, else how it ended. */
export async function endToolCall(run: ToolRun, ending: CallEnding): Promise<AgentToolResult<WorkflowProgressDetails>> {
	const { signal, registry } = ending;
	// Esc on this call stops the run until it goes to the background (from then on only `stop` does).
	const stopOnAbort = () => run.stop(signal?.reason);
	signal?.addEventListener("abort", stopOnAbort, { once: true });
	if (signal?.aborted) stopOnAbort();
	if (ending.background) {
		const started = await toBackground(run, ending, stopOnAbort);
		if (started) return started;
		// The run ended, was stopped or could not be recorded before it could go to the background: report it here.
	}

	run.recorded.then((id) => {
		if (id !== undefined) registry.add(run.live(id, false));
	});
	let outcome: ToolRunOutcome;
	try {
		outcome = await run.finished;
	} catch (error) {
		throw toWorkflowError(error);
	} finally {
		signal?.removeEventListener("abort", stopOnAbort);
	}
	return outcomeResult(outcome, ending.notes);
}

/** The run handed to the background once it is recorded; undefined when it ended or was stopped before that. */
async function toBackground(
	run: ToolRun,
	{ signal, registry, notify, snapshotPath, resume }: CallEnding,
	stopOnAbort: () => void,
): Promise<AgentToolResult<WorkflowProgressDetails> | undefined> {
	const id = await Promise.race([run.recorded, run.finished.then(() => undefined)]);
	if (id === undefined || signal?.aborted) return undefined;
	signal?.removeEventListener("abort", stopOnAbort);
	const live = run.live(id, true);
	registry.add(live);
	run.finished.then(
		(outcome) => {
			// A run stopped because the session is ending must not start a turn on it.
			if (registry.closing) return;
			try {
				notify?.(completionMessage(outcome, snapshotPath()));
			} catch {
				// The session is gone (pi exited mid-run): the run's record says how it ended.
			}
		},
		() => undefined,
	);
	return startedResult(live, resume);
}

/** An awaited run's outcome as the call's result; failed and stopped runs are `isError`. */
function outcomeResult(outcome: ToolRunOutcome, notes: string): AgentToolResult<WorkflowProgressDetails> {
	const { result, saved, envelope, summary } = outcome;
	// The runtime checks the header and args before any child starts (and parses the script once); those
	// author errors (stage `before_start`) fail the tool call itself, with their line:column.
	const early = result.error;
	// The static pass's findings carry `details.diagnostics`, whatever their code (`agent_options_invalid`, …).
	const staticFailure = Array.isArray(early?.details?.diagnostics);
	if (early && result.counts.calls === 0 && (early.stage === "before_start" || staticFailure)) {
		throw new WorkflowError(early.code, stripLocation(early.message), {
			...(early.line !== undefined && early.column !== undefined
				? { location: { line: early.line, column: early.column } }
				: {}),
			...(early.details ? { details: early.details } : {}),
		});
	}
	// The model reads what children and tools wrote as data: fenced, naming where it came from. Its headline leaves
	// the run's error to its fence; people's (details.summary, pi's tool view) keeps it.
	const tail = runText(result, saved) + notes;
	const toolResult = workflowProgressResult(envelope, summary + tail, {
		fenceData: true,
		modelSummary: summarizeWorkflowProgress(envelope, { fenceData: true }) + tail,
	});
	if (saved.runId) toolResult.details.runId = saved.runId;
	return result.status === "completed" ? toolResult : { ...toolResult, isError: true };
}
