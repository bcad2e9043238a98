/**
 * What a real run leaves in its folder to look back at: the event log (every progress event and the runner's own
 * lines, by session, across a failure and a resume) and each child's conversation as a pi session file. The
 * children are real pi sessions on the faux provider; the run is composed as the tool and the CLI compose it
 * (`DurableRun` with the pi runner's `runFolder` and `record`).
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listAvailableAgentTypes, loadAgentTypes } from "../../src/agents/agent-types.ts";
import type { ChildRecordEvent } from "../../src/children/child-record.ts";
import { ChildControls } from "../../src/children/controls.ts";
import { DurableRun, type DurableSource } from "../../src/host/durable-run.ts";
import { createRunStore, type EventLogLine, listConversations, type RunStore } from "../../src/runs/index.ts";
import type { WorkflowRunResult } from "../../src/runtime/core/types.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { agentFile } from "../agents/agent-files.ts";
import { createRunnerFixture, type RunnerFixture } from "../children/runner-fixture.ts";
import { fauxAssistantMessage, untilAborted } from "../helpers/faux.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const SCRIPT = `export const meta = { name: "logged", description: "phases, a failure and a resume" };
phase("scan");
const [api, docs] = await parallel([
	() => agent("Scan the api", { label: "scan api" }),
	() => agent("Scan the docs", { label: "scan docs", agent: "watched" }),
]);
const cli = await agent("Scan the cli", { label: "scan cli" });
phase("sum");
log("scanned", { api, docs, cli });
if (cli === null) throw new Error("the cli scan failed");
return await agent("Sum up: " + [api, docs, cli].join(" / "), { label: "sum" });`;

const RATE_429 = '429 {"type":"error","error":{"type":"rate_limit_error","message":"rate limited"}}';
const error = (errorMessage: string) => fauxAssistantMessage([], { stopReason: "error", errorMessage });

let fx: RunnerFixture;
let root: string;
let store: RunStore;
beforeEach(async () => {
	fx = await createRunnerFixture();
	root = mkdtempSync(join(tmpdir(), "wf-record-runs-"));
	store = createRunStore({ cwd: fx.dirs.cwd, root });
	// Long enough that a loaded machine's session start is not a stall; the first attempt is silent on purpose.
	fx.dirs.write(".pi/agents/watched.md", agentFile("stall_ms: 2000"));
});
afterEach(() => {
	fx.teardown();
	rmSync(root, { recursive: true, force: true });
});

/** One session of the run, composed as the tool and the CLI compose it. */
async function runOnce(durable: DurableRun): Promise<WorkflowRunResult> {
	const source: DurableSource = { script: SCRIPT, filename: "logged.js" };
	const types = loadAgentTypes({ cwd: fx.dirs.cwd, agentDir: fx.dirs.agentDir }).types;
	const runner = fx.runner({
		agentTypes: types,
		piRetry: { maxRetries: 2, baseDelayMs: 1 },
		runFolder: () => durable.runFolder(),
		record: (event) => durable.logEvent(event),
	});
	const result = await runWorkflowScript(durable.original?.script ?? SCRIPT, {
		agentRunner: runner,
		filename: "logged.js",
		cwd: fx.dirs.cwd,
		agentTypes: listAvailableAgentTypes(types),
		journal: durable.journal,
		onProgress: (event) => durable.progress(event, source),
	});
	await durable.finish(result);
	return result;
}

const ofCall = (events: EventLogLine[], label: string) => events.filter((e) => e.label === label);

describe("a run's record to look back at", () => {
	it("the event log: lines in order, numbered by session, with the runner's own lines; conversations linked", async () => {
		fx.faux.route("Scan the api", [error(RATE_429), fauxAssistantMessage("api ok")]);
		fx.faux.route("Scan the docs", [untilAborted(), fauxAssistantMessage("docs ok")]);
		fx.faux.route("Scan the cli", [error("boom: the cli scanner crashed"), fauxAssistantMessage("cli ok")]);
		fx.faux.route("Sum up", [fauxAssistantMessage("all fine")]);

		const first = DurableRun.fresh(store, { script: SCRIPT, filename: "logged.js" });
		const failed = await runOnce(first);
		expect(failed.status).toBe("failed");
		const runId = (await first.recorded) as string;
		const record = await store.open(runId);

		const one = await record.readEventLog();
		expect(one.found).toBe(true);
		expect(one.sessions.map((s) => [s.session, s.resumed])).toEqual([[1, false]]);
		const types = one.events.map((e) => e.type);
		expect(types[0]).toBe("run_start");
		expect(types.at(-1)).toBe("run_end");
		expect(one.events.every((e) => e.session === 1)).toBe(true);
		// In the order they happened: times never go back.
		for (let i = 1; i < one.events.length; i++) {
			expect(one.events[i].time).toBeGreaterThanOrEqual(one.events[i - 1].time);
		}
		expect(types.indexOf("phase_start")).toBeLessThan(types.indexOf("agent_queued"));
		expect(one.events.find((e) => e.type === "run_end")).toMatchObject({ status: "failed" });
		// The failure, with its conversation.
		const cli = ofCall(one.events, "scan cli");
		expect(cli.map((e) => e.type).filter((t) => t !== "agent_child")).toEqual([
			"agent_queued",
			"agent_started",
			"child_transcript",
			"agent_failed",
		]);
		const cliFailed = cli.find((e) => e.type === "agent_failed");
		expect(cliFailed).toMatchObject({
			error: "boom: the cli scanner crashed",
			transcripts: ["children/002-scan-cli-1.jsonl"],
		});
		// The stall retry: two sessions of the same call, the watchdog's line between them.
		const docs = ofCall(one.events, "scan docs").filter((e) => e.type !== "agent_child");
		expect(docs.map((e) => e.type)).toEqual([
			"agent_queued",
			"agent_started",
			"child_transcript",
			"child_stalled",
			"child_transcript",
			"agent_finished",
		]);
		expect(docs[3]).toMatchObject({ retried: true, key: docs[0].key, index: 1 });
		expect(docs[5].transcripts).toEqual(["children/001-scan-docs-1.jsonl", "children/001-scan-docs-2.jsonl"]);
		// pi's own retry of the 429, inside the child's session.
		expect(ofCall(one.events, "scan api").find((e) => e.type === "child_model_retry")).toMatchObject({
			attempt: 1,
			error: RATE_429,
		});

		// A crash mid-line would leave a torn tail: the reader leaves it out, the resume cuts it.
		appendFileSync(join(record.dir, "events.jsonl"), '{"type":"agent_child","time":');
		const torn = await record.readEventLog();
		expect(torn.torn).toBe(true);
		expect(torn.events).toEqual(one.events);
		expect(torn.problems).toEqual([]);

		// The resume: a second session of the same log; the replayed calls keep their conversations.
		const second = await DurableRun.resume(store, runId);
		const done = await runOnce(second);
		expect(done.status).toBe("completed");
		const two = await record.readEventLog();
		expect(two.sessions.map((s) => [s.session, s.resumed, typeof s.ended])).toEqual([
			[1, false, "number"],
			[2, true, "number"],
		]);
		expect(two.events.slice(0, one.events.length)).toEqual(one.events);
		const resumed = two.events.slice(one.events.length);
		expect(resumed.every((e) => e.session === 2)).toBe(true);
		const replayedApi = resumed.find((e) => e.type === "agent_finished" && e.label === "scan api");
		expect(replayedApi).toMatchObject({ cached: true, transcripts: ["children/000-scan-api-1.jsonl"] });
		const rerunCli = resumed.find((e) => e.type === "agent_finished" && e.label === "scan cli");
		expect(rerunCli).toMatchObject({ transcripts: ["children/002-scan-cli-2.jsonl"] });
		expect(resumed.find((e) => e.type === "run_end")).toMatchObject({ status: "completed" });
		expect(two.dropped).toBe(0);
		expect(two.problems).toEqual([]);
		expect(two.torn).toBe(false);

		// Every conversation is a private pi session file that pi's own SessionManager reads back.
		const files = await listConversations(record.dir);
		expect(files.map((f) => f.path)).toEqual([
			"children/000-scan-api-1.jsonl",
			"children/001-scan-docs-1.jsonl",
			"children/001-scan-docs-2.jsonl",
			"children/002-scan-cli-1.jsonl",
			"children/002-scan-cli-2.jsonl",
			"children/003-sum-1.jsonl",
		]);
		expect(statSync(join(record.dir, "children")).mode & 0o777).toBe(0o700);
		for (const file of files) expect(statSync(join(record.dir, file.path)).mode & 0o777).toBe(0o600);
		const sum = SessionManager.open(join(record.dir, "children/003-sum-1.jsonl"));
		const messages = sum.buildSessionContext().messages;
		const user = messages.find((m) => m.role === "user");
		expect(JSON.stringify(user)).toContain("Sum up: api ok / docs ok / cli ok");
		const answer = messages.filter((m) => m.role === "assistant").at(-1);
		expect(JSON.stringify(answer)).toContain("all fine");
		// The session id in the file is the child's id the events name.
		const sumFinished = resumed.find((e) => e.type === "agent_finished" && e.label === "sum");
		expect(sum.getSessionId()).toBe(sumFinished?.agentId);
		const failedCli = SessionManager.open(join(record.dir, "children/002-scan-cli-1.jsonl"));
		const last = failedCli.buildSessionContext().messages.at(-1) as { stopReason?: string; errorMessage?: string };
		expect(last).toMatchObject({ stopReason: "error", errorMessage: "boom: the cli scanner crashed" });
		expect(readFileSync(join(record.dir, "events.jsonl"), "utf8").endsWith("\n")).toBe(true);

		// A resume let go of before anything happened (its script refused before it started) adds no session.
		const untouched = readFileSync(join(record.dir, "events.jsonl"), "utf8");
		await (await DurableRun.resume(store, runId)).abandon();
		expect(readFileSync(join(record.dir, "events.jsonl"), "utf8")).toBe(untouched);
	});

	it("the bound: a run that says more than it holds keeps its lifecycle, drops chatter first, and counts every drop", async () => {
		const script = `export const meta = { name: "chatty", description: "more than the log holds" };
phase("all");
for (let i = 0; i < 150; i++) log("note " + i + " ".repeat(300));
const out = await parallel(["a", "b", "c", "d", "e", "f"].map((x) => () => agent("Say " + x, { label: "say " + x })));
return out.join("");`;
		fx.faux.route(
			"Say",
			Array.from({ length: 6 }, () => fauxAssistantMessage("x")),
		);
		const source = { script, filename: "chatty.js" };
		const durable = DurableRun.fresh(store, source, { eventLog: { maxBytes: 40 * 1024 } });
		const emitted: Record<string, number> = {};
		const count = (type: string) => {
			emitted[type] = (emitted[type] ?? 0) + 1;
		};
		const result = await runWorkflowScript(script, {
			agentRunner: fx.runner({
				runFolder: () => durable.runFolder(),
				record: (event) => {
					count(event.type);
					durable.logEvent(event);
				},
			}),
			filename: "chatty.js",
			cwd: fx.dirs.cwd,
			journal: durable.journal,
			onProgress: (event) => {
				count(event.type);
				durable.progress(event, source);
			},
		});
		await durable.finish(result);
		expect(result.status).toBe("completed");
		const record = await store.open((await durable.recorded) as string);
		const read = await record.readEventLog();
		expect(read.dropped).toBeGreaterThan(0);
		expect(read.sessions[0].dropped).toBe(read.dropped);
		const kept: Record<string, number> = {};
		for (const event of read.events) kept[event.type] = (kept[event.type] ?? 0) + 1;
		// Nothing lost without a count: for every kind, what is in the file plus what was dropped is what was emitted.
		for (const [type, n] of Object.entries(emitted)) {
			expect(`${type}: ${(kept[type] ?? 0) + (read.droppedByType[type] ?? 0)}`).toBe(`${type}: ${n}`);
		}
		// Chatter went first: the run's start and end, its phase, and every call's start and end are all there.
		expect(Object.keys(read.droppedByType).filter((type) => type !== "log" && type !== "agent_child")).toEqual([]);
		for (const type of ["run_start", "phase_start", "agent_queued", "agent_started", "agent_finished", "run_end"]) {
			expect(`${type}: ${kept[type]}`).toBe(`${type}: ${emitted[type]}`);
		}
		expect(statSync(join(record.dir, "events.jsonl")).size).toBeLessThan(40 * 1024 + 1024);
	});

	it("a person's steer, pause, restart and skip of a running child are lines of the log, in order, naming the call", async () => {
		fx.faux.route("Say hello", [untilAborted(), untilAborted(), untilAborted()]);
		const controls = new ChildControls();
		const lines: ChildRecordEvent[] = [];
		const folder = join(root, "run-folder");
		const runner = fx.runner({ controls, runFolder: async () => folder, record: (line) => lines.push(line) });
		const call = fx.request({ key: "k-hello", index: 4, label: "say hello", phase: "greet" });
		const running = runner(call, fx.context());
		const sessions = () => lines.filter((line) => line.type === "child_transcript").length;
		await until(() => fx.faux.requests.length === 1);
		const control = controls.get("k-hello");
		if (!control) throw new Error("the child is not registered");
		await control.steer("also say goodbye");
		control.pause();
		control.restart();
		await until(() => fx.faux.requests.length === 2 && sessions() === 2);
		controls.get("k-hello")?.skip();
		const result = await running;
		expect(result).toMatchObject({ status: "stopped", error: "skipped by the user" });
		expect(lines.map((line) => line.type)).toEqual([
			"child_transcript",
			"child_steered",
			"child_paused",
			"child_restarted",
			"child_transcript",
			"child_skipped",
		]);
		for (const line of lines) {
			expect(line).toMatchObject({
				key: "k-hello",
				index: 4,
				label: "say hello",
				agentType: "general-purpose",
				phase: "greet",
			});
			expect(typeof line.time).toBe("number");
		}
		expect(lines[1]).toMatchObject({ message: "also say goodbye", chars: 16 });
		expect(lines[5]).toMatchObject({ queued: false });
		expect(result.transcripts).toEqual(["children/004-say-hello-1.jsonl", "children/004-say-hello-2.jsonl"]);
		// Each attempt's conversation as pi kept it: the task, and the turn the restart stopped.
		const first = SessionManager.open(join(folder, "children/004-say-hello-1.jsonl"));
		const messages = first.buildSessionContext().messages;
		expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
		expect(JSON.stringify(messages[1])).toContain("Say hello");
		expect(messages[2]).toMatchObject({ stopReason: "aborted" });
	});
});

async function until(condition: () => boolean): Promise<void> {
	while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
