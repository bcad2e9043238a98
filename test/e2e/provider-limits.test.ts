/**
 * Provider limits end to end: real pi child sessions on the faux provider, the real runtime and queue, and a real
 * run store in a temp folder. A child that is rate limited waits (with pi's own retry on and off) and completes; a
 * provider's time is honoured; a usage limit past the run's bound stops the run, and a resume runs only the rest;
 * a fallback model answers and the census says so; errors that are not limits still fail at once (a refused key or
 * a spent quota stops the run: provider-stop.test.ts).
 */
import { join } from "node:path";
import { getAgentDir } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createParentSession, type ParentSession } from "../../scripts/parent-session.ts";
import { loadAgentTypes } from "../../src/agents/agent-types.ts";
import { createPiAgentRunner, type PiAgentRunnerOptions } from "../../src/children/agent-runner.ts";
import type { WorkflowProgressDetails } from "../../src/progress/index.ts";
import { createWorkflowProgressTracker } from "../../src/progress/index.ts";
import { createRunStore } from "../../src/runs/index.ts";
import type { WorkflowProgressEvent, WorkflowRunOptions } from "../../src/runtime/index.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { createFauxHarness, type FauxHarness, fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { tempStore } from "../runs/support.ts";

checkSandboxLeaks();

const HEADER = `export const meta = { name: "limits", description: "provider limits" };\n`;
const ANTHROPIC_429 =
	'429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50,000 input tokens per minute."},"request_id":"req_011"}';
const OPENAI_429_40MS =
	'429: {"message":"Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 30000, Requested 900. Please try again in 40ms.","type":"tokens","param":null,"code":"rate_limit_exceeded"}';
const CODEX_USAGE = "You have hit your ChatGPT usage limit (plus plan). Try again in ~42 min.";
const BAD_REQUEST =
	'400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0: text content blocks must be non-empty"}}';
const error = (errorMessage: string) => fauxAssistantMessage([], { stopReason: "error", errorMessage });
/** Waits of milliseconds when the provider names no time, so the run's waits are short; tests assert recorded waits. */
const TINY_BACKOFF = { baseMs: 5, maxMs: 20 };

let faux: FauxHarness;
beforeEach(async () => {
	faux = await createFauxHarness();
});
afterEach(() => {
	faux.dispose();
});

function piRunner(options: Partial<PiAgentRunnerOptions> = {}) {
	return createPiAgentRunner({
		cwd: faux.agentDir,
		agentDir: faux.agentDir,
		modelRuntime: faux.modelRuntime,
		defaultModel: faux.model,
		agentTypes: loadAgentTypes({ cwd: faux.agentDir, agentDir: faux.agentDir }).types,
		...options,
	});
}

async function run(source: string, options: Partial<WorkflowRunOptions> & Pick<WorkflowRunOptions, "agentRunner">) {
	const events: WorkflowProgressEvent[] = [];
	const result = await runWorkflowScript(`${HEADER}${source}`, {
		providerBackoff: TINY_BACKOFF,
		...options,
		onProgress: (event) => events.push(event),
	});
	const waits = events.flatMap((e) => (e.type === "provider_wait_started" ? [e] : []));
	return { result, events, waits };
}

describe("provider limits, end to end", () => {
	it("pi's retry off: a child answered 429 twice, then an answer, is not a failed child", async () => {
		faux.route("summarize", [error(ANTHROPIC_429), error(ANTHROPIC_429), fauxAssistantMessage("the summary")]);
		const { result, waits } = await run(`return await agent("summarize the notes");`, {
			agentRunner: piRunner({ piRetry: false }),
		});
		expect(result).toMatchObject({ status: "completed", value: "the summary", failures: [] });
		expect(waits.map((w) => [w.kind, w.waitMs, w.call?.label])).toEqual([
			["rate_limit", 5, "summarize the notes"],
			["rate_limit", 10, "summarize the notes"],
		]);
		expect(faux.requests).toHaveLength(3);
	});

	it("pi's retry on: pi retries in the session first; when it gives up, the queue waits once, then it answers", async () => {
		faux.route("summarize", [
			error(ANTHROPIC_429),
			error(ANTHROPIC_429),
			error(ANTHROPIC_429),
			fauxAssistantMessage("the summary"),
		]);
		const { result, waits } = await run(`return await agent("summarize the notes");`, {
			agentRunner: piRunner({ piRetry: { maxRetries: 1, baseDelayMs: 1 } }),
		});
		expect(result).toMatchObject({ status: "completed", value: "the summary", failures: [] });
		// Attempt 1: 429, pi's retry: 429 → the queue's wait. Attempt 2: 429, pi's retry: the answer.
		expect(waits).toHaveLength(1);
		expect(faux.requests).toHaveLength(4);
	});

	it("the provider's retry-after is honoured: the recorded wait is the 40 ms the provider asked for", async () => {
		faux.route("summarize", [error(OPENAI_429_40MS), fauxAssistantMessage("the summary")]);
		const { result, waits } = await run(`return await agent("summarize the notes");`, {
			agentRunner: piRunner({ piRetry: false }),
			// Ten minutes when no time is named: the run could not finish in a test if the provider's time were ignored.
			providerBackoff: { baseMs: 600_000, maxMs: 600_000 },
		});
		expect(result.status).toBe("completed");
		expect(waits).toEqual([
			expect.objectContaining({ kind: "rate_limit", waitMs: 40, retryAfterMs: 40, totalWaitMs: 40 }),
		]);
	});

	it("a usage limit that resets after the wait bound stops the run; a resume runs only what is left", async () => {
		const { store } = tempStore();
		const source = `${HEADER}const a = await agent("task a");\nconst b = await agent("task b");\nconst c = await agent("task c");\nreturn { a, b, c };`;
		const record = await store.create({ script: source, meta: { name: "limits", description: "d" } });
		faux.route("task a", [fauxAssistantMessage("A")]);
		faux.route("task b", [fauxAssistantMessage("B")]);
		faux.route("task c", [error(CODEX_USAGE), fauxAssistantMessage("C")]);

		let lock = await record.acquire();
		let journal = await record.journal();
		const first = await runWorkflowScript(source, { agentRunner: piRunner(), journal });
		await record.writeSnapshot(first);
		await journal.close();
		await lock.release();
		expect(first.status).toBe("stopped");
		expect(first.error?.code).toBe("provider_limit");
		expect(first.error?.message).toMatch(/^Stopped for a provider limit \(usage limit reached: You have hit your/);
		expect(first.error?.details).toMatchObject({ kind: "usage_limit", waitMs: 42 * 60_000 });
		expect(first.counts).toMatchObject({ completed: 2 });
		expect(await record.readSnapshot()).toMatchObject({ status: "stopped", error: { code: "provider_limit" } });

		// The limit has lifted: the resume replays a and b from the journal and runs only c.
		const before = faux.requests.length;
		lock = await record.acquire();
		journal = await record.journal();
		expect(journal.size).toBe(2);
		const events: WorkflowProgressEvent[] = [];
		const resumed = await runWorkflowScript(source, {
			agentRunner: piRunner(),
			journal,
			onProgress: (e) => events.push(e),
		});
		await journal.close();
		await lock.release();
		expect(resumed).toMatchObject({ status: "completed", value: { a: "A", b: "B", c: "C" } });
		expect(faux.requests.slice(before).map((r) => r.task)).toEqual(["task c"]);
		const cached = events.flatMap((e) => (e.type === "agent_finished" && e.cached ? [e.label] : []));
		expect(cached).toEqual(["task a", "task b"]);
	});

	it("a fallback model answers when the model is limited before any tool work; the census and the widget say so", async () => {
		faux.route((r) => r.model === "faux/faux-1", [error(ANTHROPIC_429)]);
		faux.route((r) => r.model === "faux/faux-think", [fauxAssistantMessage("answered by the fallback")]);
		const tracker = createWorkflowProgressTracker();
		const { result, events, waits } = await run(
			`return await agent("summarize the notes", { label: "notes", fallbackModels: ["faux/faux-think"] });`,
			{ agentRunner: piRunner({ piRetry: false }) },
		);
		for (const event of events) tracker.updateFromProgressEvent(event);
		expect(result).toMatchObject({ status: "completed", value: "answered by the fallback" });
		expect(result.fallbacks).toEqual([
			expect.objectContaining({ label: "notes", model: "faux/faux-think", limited: ["faux/faux-1"] }),
		]);
		// No wait: the fallback took over at once.
		expect(waits).toEqual([]);
		expect(tracker.getEnvelope().agentCalls[0]).toMatchObject({
			model: "faux/faux-think",
			fallbackFrom: ["faux/faux-1"],
		});
		expect(events.some((e) => e.type === "log" && e.message.includes("`faux/faux-think` took over"))).toBe(true);
	});

	it("an error that is not a limit still fails the child at once, with pi's retry on", async () => {
		faux.route("summarize", [error(BAD_REQUEST)]);
		const { result, waits } = await run(`return await agent("summarize the notes");`, {
			agentRunner: piRunner({ piRetry: { maxRetries: 3, baseDelayMs: 1 } }),
		});
		expect(result.status).toBe("failed");
		expect(result.failures).toEqual([expect.objectContaining({ cause: BAD_REQUEST })]);
		expect(waits).toEqual([]);
		expect(faux.requests).toHaveLength(1);
	});
});

describe("provider limits through the workflow tool", () => {
	let parent: ParentSession;
	afterEach(() => {
		parent?.dispose();
	});

	it("a run stopped for a provider limit says so and gives the resume call, which runs only what is left", async () => {
		const cwd = tempStore().store.cwd;
		const script = `${HEADER}const a = await agent("task a");\nconst b = await agent("task b");\nreturn { a, b };`;
		const call = (args: Parameters<typeof fauxToolCall>[1]) =>
			fauxAssistantMessage([fauxToolCall("workflow", args)], { stopReason: "toolUse" });
		let runId = "";
		faux.route("Please run the workflow", [
			call({ script, maxProviderWaitMs: 0 }),
			fauxAssistantMessage("it stopped"),
			() => call({ resume: runId }),
			fauxAssistantMessage("resumed"),
		]);
		faux.route("task a", [fauxAssistantMessage("A")]);
		faux.route("task b", [error(CODEX_USAGE), fauxAssistantMessage("B")]);
		parent = await createParentSession({
			cwd,
			agentDir: faux.agentDir,
			modelRuntime: faux.modelRuntime,
			model: faux.model,
		});
		const results = () =>
			parent.toolEvents.flatMap((e) =>
				e.type === "tool_execution_end"
					? [e.result as { content: { text?: string }[]; details: WorkflowProgressDetails }]
					: [],
			);
		await parent.session.prompt("Please run the workflow");
		const stopped = results()[0];
		runId = stopped?.details.runId ?? "";
		const text = stopped?.content[0]?.text ?? "";
		expect(stopped?.details.envelope.status).toBe("stopped");
		expect(text).toContain("Stopped for a provider limit (usage limit reached");
		expect(text).toContain(`1 agent result is saved. Resume with workflow({ resume: "${runId}" })`);

		await parent.session.prompt("go on");
		const resumed = results()[1];
		expect(resumed?.details.envelope.status).toBe("completed");
		expect(faux.requests.filter((r) => r.task === "task a")).toHaveLength(1);
		const snapshot = await (
			await createRunStore({ cwd, root: join(getAgentDir(), "workflow-runs") }).open(runId)
		).readSnapshot();
		expect(snapshot).toMatchObject({ status: "completed", value: { a: "A", b: "B" } });
	});
});
