/**
 * How a child's ended session maps to its status (`childStatus`): each row is one way a session can end, and the
 * status, error, provider limit and warnings a user then sees.
 */
import { describe, expect, it } from "vitest";
import { type ChildStatus, childStatus, type SessionEnding } from "../../src/children/child-status.ts";
import { assistantEnding } from "./assistant-message.ts";

const NOW = Date.UTC(2025, 0, 1);

const last = assistantEnding;

const RATE_LIMITED = "429 Too Many Requests. Please try again in 30s.";
const WRAP_UP = "reached max_turns (3) and was told to wrap up";
const CUT_OFF = "the answer was cut off at the model's output limit";
const NO_SUBMIT = "the child did not call submit_result";

const ROWS: [string, SessionEnding, ChildStatus][] = [
	["an answer", { last: last("stop"), answered: true }, { status: "completed", warnings: [] }],
	["no answer", { last: last("stop"), answered: false }, { status: "failed", error: "empty answer", warnings: [] }],
	[
		"the caller stopped it, whatever the last reply says",
		{ stoppedBy: "cancelled by the user", last: last("error", "boom"), answered: true },
		{ status: "stopped", error: "cancelled by the user", warnings: [] },
	],
	[
		"past max_turns and the grace turns",
		{ turnLimit: { state: "exceeded", maxTurns: 3 }, last: last("aborted"), answered: true },
		{
			status: "failed",
			error: "stopped after max_turns (3) and the grace turns without a final answer",
			warnings: [],
		},
	],
	[
		"told to wrap up, then answered",
		{ turnLimit: { state: "steered", maxTurns: 3 }, last: last("stop"), answered: true },
		{ status: "completed", warnings: [WRAP_UP] },
	],
	[
		"within max_turns",
		{ turnLimit: { state: "within", maxTurns: 3 }, last: last("stop"), answered: true },
		{ status: "completed", warnings: [] },
	],
	[
		"a provider error that is not a limit",
		{ last: last("error", "500 internal server error"), answered: false },
		{ status: "failed", error: "500 internal server error", warnings: [] },
	],
	[
		"a refused key: a stop, naming the provider",
		{ last: last("error", "401 invalid x-api-key"), answered: false },
		{
			status: "failed",
			error: "401 invalid x-api-key",
			providerStop: { kind: "auth", provider: "anthropic", message: "401 invalid x-api-key" },
			warnings: [],
		},
	],
	[
		"a provider error without a message",
		{ last: last("error"), answered: false },
		{ status: "failed", error: "provider error", warnings: [] },
	],
	[
		"a rate limit, after the wrap-up",
		{ turnLimit: { state: "steered", maxTurns: 3 }, last: last("error", RATE_LIMITED), answered: true },
		{
			status: "failed",
			error: RATE_LIMITED,
			providerLimit: { kind: "rate_limit", retryAfterMs: 30_000, message: RATE_LIMITED },
			warnings: [WRAP_UP],
		},
	],
	[
		"aborted (a pause nobody resumed)",
		{ last: last("aborted", "paused"), answered: false },
		{ status: "stopped", error: "paused", warnings: [] },
	],
	[
		"aborted without a message",
		{ last: last("aborted"), answered: true },
		{ status: "stopped", error: "aborted", warnings: [] },
	],
	[
		"cut off at the output limit",
		{ last: last("length"), answered: true },
		{ status: "completed", warnings: [CUT_OFF] },
	],
	[
		"cut off with nothing said",
		{ last: last("length"), answered: false },
		{ status: "failed", error: "empty answer", warnings: [CUT_OFF] },
	],
	[
		"structured output submitted, no text",
		{ last: last("stop"), schema: "submitted", answered: false },
		{ status: "completed", warnings: [] },
	],
	[
		"structured output not submitted, no text: the runtime retries with feedback",
		{ last: last("stop"), schema: "missing", answered: false },
		{ status: "completed", warnings: [NO_SUBMIT] },
	],
	[
		"cut off before submitting",
		{ last: last("length"), schema: "missing", answered: true },
		{ status: "completed", warnings: [CUT_OFF, NO_SUBMIT] },
	],
	["no reply at all", { answered: false }, { status: "failed", error: "empty answer", warnings: [] }],
];

describe("childStatus", () => {
	it.each(ROWS)("%s", (_name, ending, expected) => {
		expect(childStatus(ending, NOW)).toEqual(expected);
	});
});
