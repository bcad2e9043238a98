/**
 * The fold of an event log into calls and bars, for what the real-run tests cannot make happen on their own: a
 * person's restart, skip and message, pi's own retry of a model request, a provider wait, a question, a stopped
 * call, a child replaced without a session line. The lines are the log's format (docs/event-log.md).
 */
import { describe, expect, it } from "vitest";
import type { RunEventLog } from "../../src/report/event-log.ts";
import { foldEvents } from "../../src/report/fold.ts";

const ref = (index: number, label: string) => ({
	key: `k${index}#1`,
	index,
	label,
	agentType: "general-purpose",
	phase: "work",
});

/** A log of one session from `lines` (each `[time, event]`). */
function logOf(lines: [number, Record<string, unknown>][]): RunEventLog {
	return {
		sessions: [{ session: 1, time: 0, resumed: false }],
		events: lines.map(([time, event]) => ({ ...event, time, session: 1 })) as unknown as RunEventLog["events"],
		dropped: 0,
		problems: [],
	};
}

const child = (id: string, status: string) => ({ id, type: "general-purpose", description: "d", status });

describe("foldEvents", () => {
	it("a restart, a skip, a stop and a child replaced without a session line each end an attempt as they should", () => {
		const a = ref(0, "restarted one");
		const b = ref(1, "skipped one");
		const c = ref(2, "stopped one");
		const d = ref(3, "replaced child");
		const folded = foldEvents(
			logOf([
				[0, { type: "run_start", meta: { name: "t", description: "d" }, cwd: "/" }],
				[1, { type: "phase_start", phase: "work" }],
				...[a, b, c, d].map(
					(call) =>
						[2, { type: "agent_queued", ...call, promptPreview: "p", hasSchema: false }] as [
							number,
							Record<string, unknown>,
						],
				),
				[3, { type: "agent_started", ...a, attempt: 1 }],
				[3, { type: "child_transcript", ...a, attempt: 1, path: "children/000-a-1.jsonl" }],
				[4, { type: "agent_child", ...a, child: child("a1", "active") }],
				[10, { type: "child_restarted", ...a }],
				[11, { type: "child_transcript", ...a, attempt: 1, path: "children/000-a-2.jsonl" }],
				[12, { type: "agent_child", ...a, child: child("a2", "active") }],
				[13, { type: "child_steered", ...a, message: "look at <b>x</b>", chars: 15 }],
				[14, { type: "child_model_retry", ...a, attempt: 1, maxAttempts: 3, delayMs: 2000, error: "502" }],
				[
					20,
					{
						type: "agent_finished",
						...a,
						resultPreview: "ok",
						durationMs: 17,
						attempts: 1,
						transcripts: ["children/000-a-1.jsonl", "children/000-a-2.jsonl"],
					},
				],
				[5, { type: "agent_started", ...b, attempt: 1 }],
				[6, { type: "child_skipped", ...b, queued: false }],
				[
					7,
					{
						type: "agent_failed",
						...b,
						error: "skipped by the user",
						thrown: false,
						skipped: false,
						durationMs: 2,
					},
				],
				[8, { type: "agent_started", ...c, attempt: 1 }],
				[
					9,
					{
						type: "agent_failed",
						...c,
						error: "stopped",
						code: "stopped",
						thrown: false,
						skipped: false,
						durationMs: 1,
					},
				],
				[9, { type: "agent_started", ...d, attempt: 1 }],
				[10, { type: "agent_child", ...d, child: { ...child("d1", "failed"), error: "crashed" } }],
				[15, { type: "agent_child", ...d, child: child("d2", "active") }],
				[18, { type: "agent_failed", ...d, error: "no", thrown: false, skipped: false, durationMs: 9 }],
				[21, { type: "phase_end", phase: "work" }],
				[
					22,
					{
						type: "run_end",
						status: "completed",
						failures: [],
						counts: {},
						usage: { total: 0 },
						cost: { usd: 0 },
						durationMs: 22,
					},
				],
			]),
		);
		const bars = (label: string) => {
			const call = folded.calls.find((candidate) => candidate.label === label);
			return call?.bars.map((bar) => `${bar.outcome} ${bar.start}-${bar.end}`);
		};
		expect(bars("restarted one")).toEqual(["queued 2-3", "restarted 3-11", "completed 11-20"]);
		expect(folded.calls.find((call) => call.label === "restarted one")).toMatchObject({
			outcome: "completed",
			attempts: 2,
			transcripts: ["children/000-a-1.jsonl", "children/000-a-2.jsonl"],
		});
		expect(folded.calls.find((call) => call.label === "skipped one")?.outcome).toBe("skipped");
		expect(bars("skipped one")).toEqual(["queued 2-5", "skipped 5-7"]);
		expect(folded.calls.find((call) => call.label === "stopped one")?.outcome).toBe("stopped");
		expect(bars("replaced child")).toEqual(["queued 2-9", "failed 9-15", "failed 15-18"]);
		expect(folded.calls.find((call) => call.label === "replaced child")?.bars[1]?.note).toBe("crashed");
		expect(folded.logs.map((log) => `${log.time} ${log.level} ${log.message}`)).toEqual([
			"10 info `restarted one` (#1): restarted by a person",
			"13 info `restarted one` (#1): a person's message: look at <b>x</b>",
			"14 warn `restarted one` (#1): pi retried a failed model request after 2000 ms: 502",
			"6 info `skipped one` (#2): skipped by a person",
		]);
		expect(folded.sessions[0]?.phases).toEqual([{ name: "work", start: 1, end: 21 }]);
	});

	it("a provider wait and a question are bands; an attempt the log ends before is still running", () => {
		const a = ref(0, "waiting one");
		const folded = foldEvents(
			logOf([
				[0, { type: "agent_queued", ...a, promptPreview: "p", hasSchema: false }],
				[1, { type: "agent_started", ...a, attempt: 1 }],
				[
					2,
					{
						type: "provider_wait_started",
						kind: "rate_limit",
						message: "slow down",
						waitMs: 5,
						until: 7,
						totalWaitMs: 5,
						maxWaitMs: 100,
					},
				],
				[
					3,
					{
						type: "provider_wait_started",
						kind: "rate_limit",
						message: "slower",
						waitMs: 9,
						until: 12,
						totalWaitMs: 9,
						maxWaitMs: 100,
						lengthened: true,
					},
				],
				[12, { type: "provider_wait_ended", outcome: "over", waitedMs: 10, totalWaitMs: 10 }],
				[13, { type: "ask_started", key: "q#0", index: 0, question: "Go on?" }],
				[
					17,
					{
						type: "ask_answered",
						key: "q#0",
						index: 0,
						question: "Go on?",
						answer: "yes",
						source: "person",
						durationMs: 4,
					},
				],
				[20, { type: "log", level: "info", message: "still going" }],
			]),
		);
		expect(folded.sessions[0]?.bands).toEqual([
			{ kind: "wait", start: 2, end: 12, label: "rate_limit: slower" },
			{ kind: "question", start: 13, end: 17, label: "Go on?" },
		]);
		expect(folded.calls[0]?.bars.map((bar) => bar.outcome)).toEqual(["queued", "running"]);
		expect(folded.calls[0]?.bars.at(-1)?.end).toBe(20);
		expect(folded.sessions[0]?.running.map(([time, running, queued]) => `${time}:${running}/${queued}`)).toEqual([
			"0:0/1",
			"1:1/0",
			"20:0/0",
		]);
	});
});
