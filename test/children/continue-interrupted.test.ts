/**
 * Issue 47: an interrupted child goes on from its last finished turn. Real pi sessions on the faux provider, in a
 * recorded run: a child of several tool-using turns is stopped in its fourth model request (the run aborted), then
 * the run is resumed; the resumed child's first request carries the earlier turns and the "interrupted" message, and
 * its tokens are those of the new turns only. A stall retry continues the same way; a tool call whose result was never
 * recorded is named.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { interruptedMessage, lastFinishedTurn } from "../../src/children/continuation.ts";
import { ChildControls } from "../../src/children/controls.ts";
import { DurableRun } from "../../src/host/durable-run.ts";
import { runReportText } from "../../src/report/index.ts";
import { createRunStore, listConversations, type RunStore } from "../../src/runs/index.ts";
import type { WorkflowProgressEvent } from "../../src/runtime/core/events.ts";
import type { WorkflowRunResult } from "../../src/runtime/core/types.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { type FauxRequest, fauxAssistantMessage, fauxToolCall, untilAborted } from "../helpers/faux.ts";
import { createRunnerFixture, type RunnerFixture } from "./runner-fixture.ts";

const HEADER = 'export const meta = { name: "notes", description: "one long child" };\n';

/** Every conversation message the model was sent (not the system prompt), as `role: text` (tool calls by name). */
function transcript(request: FauxRequest): string[] {
	return request.messages
		.filter((message) => (message.role as string) !== "system")
		.map((message) => {
			const content = message.content;
			const text =
				typeof content === "string"
					? content
					: content
							.map((part) => ("text" in part ? part.text : part.type === "toolCall" ? `[${part.name}]` : ""))
							.join("");
			return `${message.role}: ${text}`;
		});
}

const write = (n: number) =>
	fauxAssistantMessage([fauxToolCall("write", { path: `note${n}.txt`, content: `note ${n}\n` })], {
		stopReason: "toolUse",
	});

/** A kept conversation file's session entries (its header aside). */
function entriesOf(
	file: string,
): { id?: string; type: string; message?: { role: string; usage?: { output: number } } }[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.slice(1)
		.filter(Boolean)
		.map((line) => JSON.parse(line));
}

/** Output tokens of the model replies in `later` that are not in `earlier`: the replies the later session got. */
function newOutputTokens(earlier: string, later: string): number {
	const seen = new Set(entriesOf(earlier).map((entry) => entry.id));
	let sum = 0;
	for (const entry of entriesOf(later)) {
		if (seen.has(entry.id) || entry.type !== "message" || entry.message?.role !== "assistant") continue;
		sum += entry.message.usage?.output ?? 0;
	}
	return sum;
}

let fx: RunnerFixture;
let root: string;
let store: RunStore;
beforeAll(async () => {
	fx = await createRunnerFixture();
	root = mkdtempSync(join(tmpdir(), "wf-interrupted-"));
	store = createRunStore({ cwd: fx.dirs.cwd, root });
});
afterAll(() => {
	fx.teardown();
	rmSync(root, { recursive: true, force: true });
});

/** One session of a recorded run of `source`, as the tool composes it. */
async function recorded(
	durable: DurableRun,
	source: string,
	signal?: AbortSignal,
	events: WorkflowProgressEvent[] = [],
	options: { maxProviderWaitMs?: number; continueInterrupted?: boolean } = {},
): Promise<WorkflowRunResult> {
	const runner = fx.runner({
		runFolder: () => durable.runFolder(),
		record: (event) => durable.logEvent(event),
		piRetry: false,
	});
	const result = await runWorkflowScript(durable.original?.script ?? source, {
		...options,
		agentRunner: runner,
		filename: "notes.js",
		cwd: fx.dirs.cwd,
		journal: durable.journal,
		...(signal ? { signal } : {}),
		onProgress: (event) => {
			events.push(event);
			durable.progress(event, { script: source, filename: "notes.js" });
		},
	});
	await durable.finish(result);
	return result;
}

/** A reply that stops the run (as a host going away would) and stays busy until the child is stopped. */
function stopsTheRun(stop: AbortController) {
	return (request: FauxRequest) => {
		stop.abort(new Error("the host went away"));
		return (untilAborted() as (r: FauxRequest) => Promise<ReturnType<typeof write>>)(request);
	};
}

/** A recorded run of `source` stopped in its child's third model request, after two finished turns: its id. */
async function interruptedRun(source: string, task: string): Promise<string> {
	const stop = new AbortController();
	fx.faux.route(task, [write(1), write(2), stopsTheRun(stop)]);
	const first = DurableRun.fresh(store, { script: source, filename: "notes.js" });
	expect((await recorded(first, source, stop.signal)).status).not.toBe("completed");
	return (await first.recorded) as string;
}

describe("an interrupted child goes on from its last finished turn (issue 47)", () => {
	it("a resume continues the child's conversation: earlier turns sent, an interrupted message, new tokens only", async () => {
		const task = "Write six notes, one a turn";
		const source = `${HEADER}return await agent(${JSON.stringify(task)}, { label: "writer" });`;
		const stop = new AbortController();
		fx.faux.route(task, [
			write(1),
			write(2),
			write(3),
			(request) => {
				stop.abort(new Error("the host went away"));
				return (untilAborted() as (r: FauxRequest) => Promise<ReturnType<typeof write>>)(request);
			},
		]);
		const first = DurableRun.fresh(store, { script: source, filename: "notes.js" });
		const stopped = await recorded(first, source, stop.signal);
		expect(stopped.status).not.toBe("completed");
		const runId = (await first.recorded) as string;
		const record = await store.open(runId);
		for (const n of [1, 2, 3]) expect(existsSync(join(fx.dirs.cwd, `note${n}.txt`))).toBe(true);

		const before = fx.faux.requests.length;
		fx.faux.route(task, [write(4), write(5), write(6), fauxAssistantMessage("six notes written")]);
		const events: WorkflowProgressEvent[] = [];
		const resumed = await recorded(await DurableRun.resume(store, runId), source, undefined, events);
		expect(resumed).toMatchObject({ status: "completed", value: "six notes written" });

		const asked = fx.faux.requests.slice(before);
		// Only the remaining turns were made, and the first of them started from turns 1–3.
		expect(asked).toHaveLength(4);
		const sent = transcript(asked[0] as FauxRequest);
		expect(sent.slice(0, 7)).toEqual([
			`user: ${task}`,
			"assistant: [write]",
			expect.stringMatching(/^toolResult: /),
			"assistant: [write]",
			expect.stringMatching(/^toolResult: /),
			"assistant: [write]",
			expect.stringMatching(/^toolResult: /),
		]);
		expect(sent).toHaveLength(8);
		expect(sent[7]).toMatch(/^user: This task was interrupted after 3 finished turns/);
		expect(sent[7]).toContain("Go on from where you stopped");

		// The call's tokens are the new turns' (the earlier three are counted once, in the session that made them).
		const finished = events.find((event) => event.type === "agent_finished");
		const files = (await listConversations(record.dir)).map((file) => file.path);
		expect(files).toHaveLength(2);
		expect((finished as { transcripts?: string[] }).transcripts).toEqual([files[1]]);
		const earlierFile = join(record.dir, files[0] as string);
		const laterFile = join(record.dir, files[1] as string);
		const newOutput = newOutputTokens(earlierFile, laterFile);
		expect(newOutput).toBeGreaterThan(0);
		expect((finished as { usage?: { output: number } }).usage?.output).toBe(newOutput);
		// The break is in the record: the event log's transcript line and the result's warning say where it went on.
		// The earlier replies the new session holds, which it did not pay for again: the result says how many tokens.
		const held = new Set(entriesOf(laterFile).map((entry) => entry.id));
		const saved = entriesOf(earlierFile)
			.filter((entry) => held.has(entry.id) && entry.message?.role === "assistant")
			.reduce((sum, entry) => {
				const usage = entry.message?.usage as Record<string, number>;
				return sum + usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
			}, 0);
		expect(saved).toBeGreaterThan(0);
		// The run's result says how many children went on, and the tokens that saved.
		expect(resumed.counts.continued).toBe(1);
		expect(resumed.continuedTokens).toBe(saved);
		// The report shows the break on the call's lane.
		const report = (await runReportText(store, runId)).split("\n");
		expect(report.filter((line) => line.includes("#1 writer"))).toEqual([
			expect.stringMatching(/#1 writer .* stopped /),
			expect.stringMatching(
				/#1 writer .* completed .* · ↻ continued after an interruption at turn 4 \(\d+(\.\d)?k tokens not paid again\)$/,
			),
			expect.stringMatching(
				/^ {2}#1 writer: it did not finish in the first run .*: it went on from its 3 finished turns$/,
			),
		]);
		const logged = events.flatMap((event) => (event.type === "log" ? [event.message] : []));
		expect(logged).toContain(
			`\`writer\`: continued after an interruption at turn 4: its 3 finished turns (${files[0]}, ${saved.toLocaleString("en-US")} tokens) were not run again`,
		);
	});

	it("a stall retry goes on from the stalled attempt's finished turns, with the stall's note", async () => {
		const task = "Write two notes, then think";
		fx.faux.route(task, [write(7), write(8), untilAborted(), fauxAssistantMessage("two notes, then thought")]);
		const runDir = mkdtempSync(join(tmpdir(), "wf-interrupted-run-"));
		try {
			const before = fx.faux.requests.length;
			const result = await fx.runner({ runFolder: async () => runDir })(
				fx.request({ key: "stall-call", prompt: task, label: "thinker", stallMs: 1500 }),
				fx.context(),
			);
			expect(result).toMatchObject({ status: "completed", result: "two notes, then thought" });
			const asked = fx.faux.requests.slice(before);
			expect(asked).toHaveLength(4);
			const sent = transcript(asked[3] as FauxRequest);
			expect(sent.slice(0, 5)).toEqual([
				`user: ${task}`,
				"assistant: [write]",
				expect.stringMatching(/^toolResult: /),
				"assistant: [write]",
				expect.stringMatching(/^toolResult: /),
			]);
			expect(sent).toHaveLength(6);
			expect(sent[5]).toMatch(/^user: This task was interrupted after 2 finished turns/);
			expect(sent[5]).toContain("Note: an earlier attempt at this task was stopped after");
			expect(result.warnings).toEqual(
				expect.arrayContaining([expect.stringMatching(/^continued after an interruption at turn 3: /)]),
			);
		} finally {
			rmSync(runDir, { recursive: true, force: true });
		}
	});

	it("continueInterrupted: false starts the resumed child afresh; so does an edited call (another key)", async () => {
		const task = "Write notes, but start clean";
		const source = `${HEADER}return await agent(${JSON.stringify(task)}, { label: "clean", continueInterrupted: false });`;
		const clean = await interruptedRun(source, task);
		let before = fx.faux.requests.length;
		fx.faux.route(task, [fauxAssistantMessage("clean start")]);
		expect(await recorded(await DurableRun.resume(store, clean), source)).toMatchObject({ value: "clean start" });
		expect(transcript(fx.faux.requests[before] as FauxRequest)).toEqual([`user: ${task}`]);

		const old = "Write notes, edited later";
		const edited = await interruptedRun(`${HEADER}return await agent(${JSON.stringify(old)});`, old);
		const record = await store.open(edited);
		const task2 = "Write notes, edited now";
		const source2 = `${HEADER}return await agent(${JSON.stringify(task2)});`;
		writeFileSync(join(record.dir, "script.js"), source2);
		before = fx.faux.requests.length;
		fx.faux.route(task2, [fauxAssistantMessage("edited start")]);
		expect(await recorded(await DurableRun.resume(store, edited), source2)).toMatchObject({ value: "edited start" });
		expect(transcript(fx.faux.requests[before] as FauxRequest)).toEqual([`user: ${task2}`]);
	});

	it("the run-wide continueInterrupted: false starts every interrupted child of the resume afresh", async () => {
		const tasks = ["Write notes, first of two", "Write notes, second of two"];
		const source = `${HEADER}return await parallel(${JSON.stringify(tasks)}.map((task) => () => agent(task)));`;
		const stop = new AbortController();
		let waiting = 0;
		const second = (request: FauxRequest) => {
			if (++waiting === 2) stop.abort(new Error("the host went away"));
			return (untilAborted() as (r: FauxRequest) => Promise<ReturnType<typeof write>>)(request);
		};
		for (const task of tasks) fx.faux.route(task, [write(1), second]);
		const first = DurableRun.fresh(store, { script: source, filename: "notes.js" });
		expect((await recorded(first, source, stop.signal)).status).not.toBe("completed");
		const runId = (await first.recorded) as string;

		const before = fx.faux.requests.length;
		for (const task of tasks) fx.faux.route(task, [fauxAssistantMessage(`fresh: ${task}`)]);
		const resumed = await recorded(await DurableRun.resume(store, runId), source, undefined, [], {
			continueInterrupted: false,
		});
		expect(resumed).toMatchObject({ status: "completed", value: tasks.map((task) => `fresh: ${task}`) });
		const sent = fx.faux.requests.slice(before).map((request) => transcript(request));
		expect(sent.sort()).toEqual(tasks.map((task) => [`user: ${task}`]).sort());
		expect(resumed.counts.continued ?? 0).toBe(0);
	});

	it("a kept conversation replaced by a link is not followed: the child starts afresh, warned with the file and why", async () => {
		const task = "Write notes, then find a link";
		const source = `${HEADER}return await agent(${JSON.stringify(task)}, { label: "linked" });`;
		const runId = await interruptedRun(source, task);
		const record = await store.open(runId);
		const [kept] = await listConversations(record.dir);
		const file = join(record.dir, kept?.path as string);
		const elsewhere = join(root, "elsewhere.jsonl");
		writeFileSync(elsewhere, readFileSync(file));
		rmSync(file);
		symlinkSync(elsewhere, file);
		const before = fx.faux.requests.length;
		fx.faux.route(task, [fauxAssistantMessage("fresh start")]);
		const events: WorkflowProgressEvent[] = [];
		const resumed = await recorded(await DurableRun.resume(store, runId), source, undefined, events);
		expect(resumed).toMatchObject({ status: "completed", value: "fresh start" });
		expect(transcript(fx.faux.requests[before] as FauxRequest)).toEqual([`user: ${task}`]);
		const logged = events.flatMap((event) => (event.type === "log" ? [event.message] : []));
		expect(logged).toContain(
			`\`linked\`: the conversation of its interrupted attempt, ${file}, is now a link (to ${elsewhere}): it started afresh`,
		);
	});

	it("a usage limit past maxProviderWaitMs stops the run; its resume goes on from the turns before the limit", async () => {
		const task = "Write notes until the provider says no";
		const source = `${HEADER}return await agent(${JSON.stringify(task)}, { label: "limited" });`;
		const limit = fauxAssistantMessage([], {
			stopReason: "error",
			errorMessage:
				'429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}',
		});
		fx.faux.route(task, [write(1), write(2), limit]);
		const first = DurableRun.fresh(store, { script: source, filename: "notes.js" });
		const stopped = await recorded(first, source, undefined, [], { maxProviderWaitMs: 0 });
		expect(stopped).toMatchObject({ status: "stopped", error: { code: "provider_limit" } });
		const runId = (await first.recorded) as string;

		const before = fx.faux.requests.length;
		fx.faux.route(task, [fauxAssistantMessage("went on after the limit")]);
		const resumed = await recorded(await DurableRun.resume(store, runId), source);
		expect(resumed).toMatchObject({ status: "completed", value: "went on after the limit" });
		const sent = transcript(fx.faux.requests[before] as FauxRequest);
		expect(sent).toHaveLength(6);
		expect(sent[5]).toMatch(/^user: This task was interrupted after 2 finished turns/);
	});

	it("a person's restart starts the child afresh: a restart is asked for to drop what it did", async () => {
		const task = "Write notes until restarted";
		const controls = new ChildControls();
		fx.faux.route(task, [
			write(1),
			(request) => {
				controls.get("restart-call")?.restart();
				return (untilAborted() as (r: FauxRequest) => Promise<ReturnType<typeof write>>)(request);
			},
			fauxAssistantMessage("started over"),
		]);
		const runDir = mkdtempSync(join(tmpdir(), "wf-interrupted-run-"));
		try {
			const before = fx.faux.requests.length;
			const result = await fx.runner({ runFolder: async () => runDir, controls })(
				fx.request({ key: "restart-call", prompt: task, label: "restarted" }),
				fx.context(),
			);
			expect(result).toMatchObject({ status: "completed", result: "started over" });
			expect(transcript(fx.faux.requests.at(-1) as FauxRequest)).toEqual([`user: ${task}`]);
			expect(fx.faux.requests.length - before).toBe(3);
		} finally {
			rmSync(runDir, { recursive: true, force: true });
		}
	});

	it("a dropped turn whose first tool's result was recorded: that one ran, the other may have", () => {
		const entry = (id: string, message: Record<string, unknown>) =>
			JSON.stringify({ type: "message", id, parentId: null, timestamp: "2026-12-04T12:00:00.000Z", message });
		const call = (id: string, name: string, args: Record<string, unknown>) => ({
			type: "toolCall",
			id,
			name,
			arguments: args,
		});
		const reply = (calls: unknown[]) => ({
			role: "assistant",
			content: calls,
			stopReason: "toolUse",
			usage: { input: 10, output: 5 },
		});
		const result = (toolCallId: string) => ({ role: "toolResult", toolCallId, content: [], isError: false });
		const lines = [
			entry("a", { role: "user", content: "Deploy" }),
			entry("b", reply([call("t1", "read", { path: "plan.md" })])),
			entry("c", result("t1")),
			entry("d", reply([call("t2", "write", { path: "deploy.log" }), call("t3", "bash", { command: "deploy" })])),
			entry("e", result("t2")),
		];
		const cut = lastFinishedTurn(lines);
		expect(cut).toEqual({
			lines: lines.slice(0, 3),
			turns: 1,
			started: ['`bash` {"command":"deploy"}'],
			ran: ['`write` {"path":"deploy.log"}'],
			savedTokens: 15,
		});
		expect(interruptedMessage(cut as NonNullable<typeof cut>)).toBe(
			'This task was interrupted after 1 finished turn (the session running it stopped), and you are going on with it in a new session. These tool calls were started in the interrupted turn, but their results were not recorded, so they may or may not have run: `bash` {"command":"deploy"}. Check what they did (a file may already be changed) before doing them again. These tool calls of the interrupted turn ran, but their results were dropped with it: `write` {"path":"deploy.log"}. Go on from where you stopped: do not redo the finished work above.',
		);
		// A conversation that ended in an answer was not interrupted.
		expect(
			lastFinishedTurn([
				...lines.slice(0, 3),
				entry("f", { role: "assistant", content: [{ type: "text", text: "done" }], stopReason: "stop" }),
			]),
		).toBeUndefined();
	});
});
