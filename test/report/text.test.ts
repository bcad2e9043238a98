/**
 * `--text` keeps a terminal safe and readable: control characters from a label, an error or a log cannot reach it
 * (they show as `^[` and the like), each bar is as wide as asked and scaled to its session, and a run without a log
 * still lists its calls.
 */
import { describe, expect, it } from "vitest";
import type { RunEventLog } from "../../src/report/event-log.ts";
import { buildReportModel, renderReportText } from "../../src/report/index.ts";
import type { RunInfo } from "../../src/runs/index.ts";

const INFO: RunInfo = {
	version: 1,
	id: "wf-20261201-101530-k3f9x2",
	createdAt: "2026-12-01T10:15:30.000Z",
	cwd: "/p",
	script: "",
	meta: { name: "esc\u001b[2Jape", description: "d" },
};

const call = { key: "k#0", index: 0, label: "red\u001b[31m label\u0007", agentType: "general-purpose" };

function log(): RunEventLog {
	const lines: [number, Record<string, unknown>][] = [
		[0, { type: "run_start", meta: INFO.meta, cwd: "/p" }],
		[0, { type: "agent_queued", ...call, promptPreview: "p", hasSchema: false }],
		[250, { type: "agent_started", ...call, attempt: 1 }],
		[
			1000,
			{
				type: "agent_failed",
				...call,
				error: "bad\r\n\u001b]0;title\u0007 thing",
				thrown: false,
				skipped: false,
				durationMs: 750,
			},
		],
		[
			1000,
			{
				type: "run_end",
				status: "failed",
				failures: [],
				counts: {},
				usage: { total: 0 },
				cost: { usd: 0 },
				durationMs: 1000,
			},
		],
	];
	return {
		sessions: [{ session: 1, time: 0, resumed: false }],
		events: lines.map(([time, event]) => ({ ...event, time, session: 1 })) as unknown as RunEventLog["events"],
		dropped: 3,
		problems: [],
	};
}

describe("renderReportText", () => {
	it("shows control characters as ^[ and the like, scales the bar to the session and says what the log dropped", () => {
		const text = renderReportText(buildReportModel({ info: INFO, status: "failed", journal: [], log: log() }), {
			width: 20,
		});
		// biome-ignore lint/suspicious/noControlCharactersInRegex: what must not be there
		expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
		const lines = text.split("\n");
		expect(lines[0]).toBe(
			"esc^[[2Jape · wf-20261201-101530-k3f9x2 · failed · 1.0s · 0 completed, 1 failed, 0 skipped of 1 calls · 0 tokens · 1 attempt",
		);
		expect(lines).toContain("! The event log dropped 3 events (its size bound): some bars or marks may be missing.");
		// A quarter queued, three quarters running and failed.
		expect(lines.find((line) => line.includes("#1 red"))).toBe(
			"    #1 red^[[31m label^G |·····✗✗✗✗✗✗✗✗✗✗✗✗✗✗✗| failed 750ms · bad ^[]0;title^G thing",
		);
	});
});
