import { appendFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { EventLogEvent, RunRecord } from "../../src/runs/index.ts";
import { tempStore } from "./support.ts";

async function newRecord(): Promise<RunRecord> {
	return tempStore().store.create({ script: "" });
}

function logLines(record: RunRecord): Record<string, unknown>[] {
	return readFileSync(join(record.dir, "events.jsonl"), "utf8")
		.split("\n")
		.filter((line) => line !== "")
		.map((line) => JSON.parse(line));
}

let clock = 1_700_000_000_000;
function event(type: string, fields: Record<string, unknown> = {}): EventLogEvent {
	return { type, time: ++clock, ...fields };
}

describe("record.eventLog()", () => {
	it("writes a session_start, then each event with its session, in order; nothing before a flush or close", async () => {
		const record = await newRecord();
		const log = await record.eventLog({ flushMs: 60_000 });
		expect(log.session).toBe(1);
		log.append(event("phase_start", { phase: "scan" }));
		log.append(event("log", { level: "warn", message: "careful" }));
		log.append(event("phase_end", { phase: "scan" }));
		// Buffered: appending did not write (no write, let alone a sync, per event).
		expect(readFileSync(join(record.dir, "events.jsonl"), "utf8")).toBe("");
		await log.close();
		const lines = logLines(record);
		expect(lines.map((line) => [line.type, line.session])).toEqual([
			["session_start", 1],
			["phase_start", 1],
			["log", 1],
			["phase_end", 1],
		]);
		expect(lines[0]).toMatchObject({ resumed: false });
		expect(lines[1]).toMatchObject({ phase: "scan" });
		expect(statSync(join(record.dir, "events.jsonl")).mode & 0o777).toBe(0o600);
	});

	it("flush() writes the buffer while the session goes on; a second session is numbered 2 and says it resumed", async () => {
		const record = await newRecord();
		const first = await record.eventLog({ flushMs: 60_000 });
		first.append(event("run_start"));
		await first.flush();
		expect(logLines(record).map((line) => line.type)).toEqual(["session_start", "run_start"]);
		first.append(event("run_end", { status: "failed" }));
		await first.close();
		const second = await record.eventLog();
		expect(second.session).toBe(2);
		second.append(event("run_start"));
		second.append(event("run_end", { status: "completed" }));
		await second.close();
		const read = await record.readEventLog();
		expect(read.found).toBe(true);
		expect(read.sessions.map((s) => [s.session, s.resumed, s.events, s.dropped])).toEqual([
			[1, false, 2, 0],
			[2, true, 2, 0],
		]);
		expect(read.sessions.every((s) => typeof s.ended === "number")).toBe(true);
		expect(read.events.map((line) => `${line.session}:${line.type}`)).toEqual([
			"1:run_start",
			"1:run_end",
			"2:run_start",
			"2:run_end",
		]);
		expect(read.problems).toEqual([]);
		expect(read.torn).toBe(false);
	});

	it("a torn last line is left out by the reader and cut before the next session appends", async () => {
		const record = await newRecord();
		const log = await record.eventLog();
		log.append(event("phase_start", { phase: "a" }));
		await log.close();
		appendFileSync(join(record.dir, "events.jsonl"), '{"type":"phase_end","pha');
		const torn = await record.readEventLog();
		expect(torn.torn).toBe(true);
		expect(torn.problems).toEqual([]);
		expect(torn.events.map((line) => line.type)).toEqual(["phase_start"]);
		const next = await record.eventLog();
		next.append(event("phase_end", { phase: "a" }));
		await next.close();
		const read = await record.readEventLog();
		expect(read.torn).toBe(false);
		expect(read.problems).toEqual([]);
		expect(read.events.map((line) => `${line.session}:${line.type}`)).toEqual(["1:phase_start", "2:phase_end"]);
	});

	it("bad lines in the middle are problems with their line number; the rest is read", async () => {
		const record = await newRecord();
		const good = JSON.stringify({ type: "log", time: 1, session: 1, level: "info", message: "x" });
		writeFileSync(
			join(record.dir, "events.jsonl"),
			[
				JSON.stringify({ type: "session_start", time: 1, session: 1, resumed: false }),
				"not json",
				JSON.stringify({ type: "log", session: 1 }),
				JSON.stringify({ type: "log", time: 1, session: 0 }),
				good,
				"",
			].join("\n"),
		);
		const read = await record.readEventLog();
		expect(read.problems.map((p) => [p.line, p.reason.split(" (")[0]])).toEqual([
			[2, "not JSON"],
			[3, "`time` is not a number"],
			[4, "`session` is not a positive integer"],
		]);
		expect(read.events).toHaveLength(1);
	});

	it("slow marks whose durations are not numbers are problems, and the well-formed one is read", async () => {
		const record = await newRecord();
		const call = { time: 1, session: 1, key: "k", index: 0, label: "read file" };
		writeFileSync(
			join(record.dir, "events.jsonl"),
			[
				JSON.stringify({ type: "session_start", time: 1, session: 1, resumed: false }),
				JSON.stringify({ type: "call_slow", ...call, elapsedMs: 6000, usualMs: "1m" }),
				JSON.stringify({ type: "run_slow", time: 1, session: 1, usualMs: 1000 }),
				JSON.stringify({ type: "call_slow", ...call, label: undefined, elapsedMs: 6000, usualMs: 1000 }),
				JSON.stringify({ type: "call_slow", ...call, elapsedMs: 6000, usualMs: 1000 }),
				"",
			].join("\n"),
		);
		const read = await record.readEventLog();
		expect(read.problems.map((p) => [p.line, p.reason.split(" (")[0]])).toEqual([
			[2, "`usualMs` is not a number"],
			[3, "`elapsedMs` is missing"],
			[4, "`label` is missing"],
		]);
		expect(read.events.map((e) => [e.type, e.elapsedMs, e.usualMs])).toEqual([["call_slow", 6000, 1000]]);
	});

	it("a run recorded before the log existed: found is false, nothing else", async () => {
		const record = await newRecord();
		const read = await record.readEventLog();
		expect(read).toMatchObject({ found: false, sessions: [], events: [], dropped: 0, problems: [], torn: false });
	});

	it("the bound drops what does not fit, counts it by kind, and keeps lifecycle lines after chatter stops", async () => {
		const record = await newRecord();
		const maxBytes = 8 * 1024;
		const log = await record.eventLog({ maxBytes, flushMs: 60_000 });
		const chatter = () => event("agent_child", { key: "k", child: { status: "active", activity: "x".repeat(200) } });
		// Chatter alone fills three quarters of the bound, then is dropped…
		for (let i = 0; i < 100; i++) log.append(chatter());
		const afterChatter = log.dropped;
		expect(afterChatter).toBeGreaterThan(0);
		// …while lifecycle lines still fit, up to the bound itself.
		for (let i = 0; i < 10; i++) log.append(event("agent_finished", { key: `k${i}`, resultPreview: "ok" }));
		expect(log.dropped).toBe(afterChatter);
		for (let i = 0; i < 100; i++) log.append(event("agent_queued", { key: `q${i}`, promptPreview: "y".repeat(100) }));
		await log.close();
		const size = statSync(join(record.dir, "events.jsonl")).size;
		const read = await record.readEventLog();
		const kept = read.events.filter((line) => line.type === "agent_child").length;
		const keptQueued = read.events.filter((line) => line.type === "agent_queued").length;
		expect(read.events.filter((line) => line.type === "agent_finished")).toHaveLength(10);
		expect(kept + (afterChatter as number)).toBe(100);
		expect(keptQueued).toBeLessThan(100);
		expect(read.dropped).toBe(log.dropped);
		expect(read.dropped).toBe(100 - kept + 100 - keptQueued);
		expect(read.sessions[0].dropped).toBe(read.dropped);
		// The first drop is said at once (a crash still leaves a trace of it), the rest at most once a minute and at close.
		const droppedLines = logLines(record).filter((line) => line.type === "events_dropped");
		expect(droppedLines).toHaveLength(2);
		const byKind: Record<string, number> = {};
		for (const line of droppedLines) {
			expect(line.session).toBe(1);
			for (const [kind, n] of Object.entries(line.kinds as Record<string, number>))
				byKind[kind] = (byKind[kind] ?? 0) + n;
		}
		expect(byKind).toEqual({ agent_child: 100 - kept, agent_queued: 100 - keptQueued });
		// The bound holds for events; only the small events_dropped lines may go past it.
		const chatterBytes = read.events
			.filter((line) => line.type === "agent_child")
			.reduce((sum, line) => sum + JSON.stringify(line).length + 1, 0);
		expect(chatterBytes).toBeLessThanOrEqual(maxBytes * 0.75);
		expect(size).toBeLessThan(maxBytes + 1024);
	});

	it("a line too long loses its bulky fields (named in cut), and one that cannot be JSON is dropped, counted", async () => {
		const record = await newRecord();
		const log = await record.eventLog();
		log.append(event("run_end", { status: "completed", result: "z".repeat(200_000) }));
		const cyclic: Record<string, unknown> = {};
		cyclic.self = cyclic;
		log.append(event("log", { level: "warn", message: "m", data: cyclic }));
		await log.close();
		const read = await record.readEventLog();
		expect(read.events).toHaveLength(1);
		expect(read.events[0]).toMatchObject({ type: "run_end", status: "completed", cut: ["result"] });
		expect(read.events[0].result).toBeUndefined();
		expect(read.dropped).toBe(1);
	});
});
