/**
 * What a run ended with → its result (`assembleRunResult`, a pure function), and the `run_end` event made from it.
 * One row per way a run ends; the census is a real one, driven through its own methods.
 */
import { describe, expect, it } from "vitest";
import { cancelledError, WorkflowError } from "../../../src/errors.ts";
import { assembleRunResult, Census, type RunFacts } from "../../../src/runtime/core/census.ts";
import type { WorkflowCutOff, WorkflowMeta, WorkflowRunResult } from "../../../src/runtime/core/types.ts";
import { runEndEvent } from "../../../src/runtime/run/run.ts";

const META: WorkflowMeta = { name: "t", description: "test workflow" };
const CUT: WorkflowCutOff = { kind: "agent", name: "review", filename: "workflow.js", line: 3, column: 1, index: 0 };

/** A census of `completed` answered calls and `failed` failed ones, and `abandoned` attempts runners let go. */
function census(completed: number, failed: number, abandoned = 0): Census {
	const tally = new Census();
	for (let i = 0; i < completed; i++) {
		tally.call();
		tally.started();
		tally.completed({ input: 4, output: 6, total: 10 }, { usd: 0.01 });
	}
	for (let i = 0; i < failed; i++) {
		tally.call();
		tally.started();
		tally.failed(
			{ kind: "agent", index: completed + i, cause: "provider down", filename: "workflow.js", line: 2, column: 9 },
			{ skipped: false },
		);
	}
	if (abandoned > 0) tally.abandoned(abandoned);
	return tally;
}

function facts(overrides: Partial<RunFacts>): RunFacts {
	return {
		meta: META,
		pending: 0,
		census: census(1, 0),
		droppedLogs: 0,
		cutOff: [],
		filename: "workflow.js",
		cwd: "/work",
		durationMs: 42,
		...overrides,
	};
}

interface Row {
	name: string;
	facts: RunFacts;
	expected: Partial<WorkflowRunResult>;
	/** Fields the result must not have. */
	absent: (keyof WorkflowRunResult)[];
}

const ROWS: Row[] = [
	{
		name: "completed: the value, meta and tallies, nothing optional",
		facts: facts({ value: { a: 1 } }),
		expected: {
			status: "completed",
			value: { a: 1 },
			meta: META,
			counts: { calls: 1, started: 1, completed: 1, failed: 0, skipped: 0 },
			usage: { input: 4, output: 6, total: 10 },
			cost: { usd: 0.01 },
			failures: [],
			droppedLogs: 0,
			durationMs: 42,
		},
		absent: ["error", "cutOff", "tools", "replayedCost", "fallbacks", "matches", "providerWaits"],
	},
	{
		name: "failed with a coded error: the error at its position, no value",
		facts: facts({
			error: new WorkflowError("script_error", "TypeError: x is null (4:14)", {
				location: { line: 4, column: 14 },
			}),
		}),
		expected: {
			status: "failed",
			error: {
				code: "script_error",
				stage: "guest",
				message: "TypeError: x is null (4:14)",
				line: 4,
				column: 14,
			},
		},
		absent: ["value"],
	},
	{
		name: "cancelled: stopped, not failed",
		facts: facts({ error: cancelledError("Esc") }),
		expected: {
			status: "stopped",
			error: { code: "cancelled", stage: "host", message: "The workflow was cancelled: Esc" },
		},
		absent: ["value"],
	},
	{
		name: "timed out: failed with the limit in details",
		facts: facts({
			error: new WorkflowError("timed_out", "The workflow ran past its deadline (limit: 100 ms)", {
				details: { limit: 100 },
			}),
		}),
		expected: {
			status: "failed",
			error: {
				code: "timed_out",
				stage: "host",
				message: "The workflow ran past its deadline (limit: 100 ms)",
				details: { limit: 100 },
			},
		},
		absent: ["value"],
	},
	{
		name: "budget exhausted: failed, the script's value dropped",
		facts: facts({
			value: "partial",
			error: new WorkflowError("budget_exhausted", "The run's token budget is spent"),
		}),
		expected: {
			status: "failed",
			error: { code: "budget_exhausted", stage: "guest", message: "The run's token budget is spent" },
		},
		absent: ["value"],
	},
	{
		name: "fan-out declined: stopped",
		facts: facts({ error: new WorkflowError("fanout_declined", "declined") }),
		expected: { status: "stopped", error: { code: "fanout_declined", stage: "host", message: "declined" } },
		absent: [],
	},
	{
		name: "returned before its calls ended: failed, the value kept, the cut-off work listed",
		facts: facts({
			value: { done: true },
			error: new WorkflowError("not_awaited", "The script returned before 1 call ended"),
			cutOff: [CUT],
		}),
		expected: {
			status: "failed",
			value: { done: true },
			error: { code: "not_awaited", stage: "guest", message: "The script returned before 1 call ended" },
			cutOff: [CUT],
		},
		absent: [],
	},
	{
		name: "every agent failed: failed with agents_failed, the value kept",
		facts: facts({ value: [null, null], census: census(0, 2) }),
		expected: {
			status: "failed",
			value: [null, null],
			error: {
				code: "agents_failed",
				stage: "child",
				message: "Both `agent()` calls failed: provider down (2:9)",
				line: 2,
				column: 9,
				details: {
					failed: 2,
					skipped: 0,
					calls: 2,
					causes: [{ cause: "provider down", count: 2, sites: ["2:9"] }],
				},
			},
		},
		absent: [],
	},
	{
		name: "runner calls that ignored abort: an internal error counting them",
		facts: facts({ value: 1, pending: 2 }),
		expected: {
			status: "failed",
			error: {
				code: "internal",
				stage: "host",
				message: "2 agent runner call(s) ignored abort and were abandoned",
				details: { abandoned: 2 },
			},
		},
		absent: ["value"],
	},
	{
		name: "abandoned attempts alone: completed",
		facts: facts({ value: 1, census: census(1, 0, 3) }),
		expected: { status: "completed", value: 1 },
		absent: ["error"],
	},
	{
		name: "abandoned attempts beside another error: counted in its details, its position kept",
		facts: facts({
			census: census(1, 0, 3),
			pending: 1,
			error: new WorkflowError("timed_out", "late", { location: { line: 7, column: 2 }, details: { limit: 5 } }),
		}),
		expected: {
			status: "failed",
			error: {
				code: "timed_out",
				stage: "host",
				message: "late (7:2)",
				line: 7,
				column: 2,
				details: { limit: 5, abandoned: 4 },
			},
		},
		absent: [],
	},
	{
		name: "provider waits and dropped logs: reported as given",
		facts: facts({ value: 1, droppedLogs: 3, providerWaits: { count: 2, totalMs: 900 } }),
		expected: { status: "completed", droppedLogs: 3, providerWaits: { count: 2, totalMs: 900 } },
		absent: ["error"],
	},
];

describe("assembleRunResult()", () => {
	it.each(ROWS)("$name", ({ facts, expected, absent }) => {
		const result = assembleRunResult(facts);
		expect(result).toMatchObject(expected);
		if (expected.error) expect(result.error).toEqual(expected.error);
		for (const key of absent) expect(result, key).not.toHaveProperty(key);
	});

	it("a provider limit outlasting the wait bound stops the run", () => {
		const result = assembleRunResult(facts({ error: new WorkflowError("provider_limit", "rate limited") }));
		expect(result.status).toBe("stopped");
	});

	it("tools, replayed cost, fallbacks and name matches appear once there are any", () => {
		const tally = census(1, 0);
		tally.tools.calls = 2;
		tally.replayed({ input: 1, output: 1, total: 2 }, { usd: 0.5 });
		tally.fallback({ index: 0, key: "k0", label: "review", agentType: "general", model: "b", limited: ["a"] });
		tally.match({ kind: "model", written: "sonnet", resolved: "anthropic/claude-sonnet", how: "a Claude Code name" });
		const result = assembleRunResult(facts({ census: tally, value: 1 }));
		expect(result.tools).toMatchObject({ calls: 2 });
		expect(result.replayedCost).toEqual({ usd: 0.5 });
		expect(result.fallbacks).toHaveLength(1);
		expect(result.matches).toMatchObject([{ written: "sonnet", calls: 1 }]);
	});
});

describe("runEndEvent()", () => {
	it("carries the result's status, value, error and tallies, not meta, dropped logs or cut-off work", () => {
		const result = assembleRunResult(
			facts({
				value: { done: true },
				error: new WorkflowError("not_awaited", "returned early"),
				cutOff: [CUT],
				droppedLogs: 1,
			}),
		);
		expect(runEndEvent(result)).toEqual({
			type: "run_end",
			status: "failed",
			result: { done: true },
			error: { code: "not_awaited", stage: "guest", message: "returned early" },
			failures: [],
			counts: result.counts,
			usage: result.usage,
			cost: result.cost,
			durationMs: 42,
		});
	});
});
