/**
 * The run line of a `workflow` result that did not complete: a run that kept no agent result but the conversation
 * of a child it stopped mid-work is resumable (issue 47), so it says to resume, not to run it again.
 */
import { describe, expect, it } from "vitest";
import { runText } from "../../../src/pi/runs/messages.ts";
import type { WorkflowRunResult } from "../../../src/runtime/core/types.ts";

const stopped = { status: "stopped" } as WorkflowRunResult;
const ID = "wf-20261204-120000-abcdef";
const SCRIPT = "/runs/wf-20261204-120000-abcdef/script.js";

describe("runText", () => {
	it("no result but an unfinished child's conversation: resume it, and how to fix the script first", () => {
		expect(runText(stopped, { runId: ID, saved: 0, unfinished: 2, script: SCRIPT })).toBe(
			`\nRun \`${ID}\`: no agent result was saved, but the conversation of 2 unfinished children was, which a resume goes on from. Resume with workflow({ resume: "${ID}" }).\nTo fix the script first: read ${SCRIPT}, change only what is wrong, and resume with workflow({ resume: "${ID}", path: "${SCRIPT}" }); an agent() call replays only when its prompt and options are byte for byte the recorded ones.`,
		);
	});

	it("nothing at all: run it again", () => {
		expect(runText(stopped, { runId: ID, saved: 0 })).toBe(
			`\nRun \`${ID}\`: no agent result was saved; run the workflow again to retry.`,
		);
	});
});
