/**
 * A provider's refusal end to end: real pi child sessions on the faux provider, the real runtime and queue, and a
 * real run store in a temp folder. A billing error on the first child of a fan-out of 50 starts no other child; the
 * run stops, resumable, naming the provider and its message; once the account is "fixed", the resume runs the rest
 * and keeps what had finished. A fallback model on another model takes over a refused one, as it does for a limit.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadAgentTypes } from "../../src/agents/agent-types.ts";
import { createPiAgentRunner, type PiAgentRunnerOptions } from "../../src/children/agent-runner.ts";
import type { WorkflowProgressEvent } from "../../src/runtime/index.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { createFauxHarness, type FauxHarness, fauxAssistantMessage } from "../helpers/faux.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { tempStore } from "../runs/support.ts";

checkSandboxLeaks();

const HEADER = `export const meta = { name: "stops", description: "provider stops" };\n`;
const CREDIT =
	'400 {"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}';
const AUTH_401 = '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}';
const BAD_SCHEMA = `400: {"message":"Invalid schema for function 'get_billing_info': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'account'.","type":"invalid_request_error","param":"tools[0].function.parameters","code":"invalid_function_parameters"}`;
const BAD_PATH =
	'400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.401.content.0.tool_result: content cannot be empty"}}';
const error = (errorMessage: string) => fauxAssistantMessage([], { stopReason: "error", errorMessage });

let faux: FauxHarness;
beforeEach(async () => {
	faux = await createFauxHarness();
});
afterEach(() => {
	faux.dispose();
});

/** The pi runner on the faux provider, counting the child sessions it opens. */
function piRunner(sessions: string[], options: Partial<PiAgentRunnerOptions> = {}) {
	return createPiAgentRunner({
		cwd: faux.agentDir,
		agentDir: faux.agentDir,
		modelRuntime: faux.modelRuntime,
		defaultModel: faux.model,
		agentTypes: loadAgentTypes({ cwd: faux.agentDir, agentDir: faux.agentDir }).types,
		hooks: { onSessionCreated: (_session, request) => sessions.push(request.prompt) },
		...options,
	});
}

describe("a provider's refusal, end to end", () => {
	it("a billing error on the first child of a fan-out of 50 starts no other child; the resume runs the rest", async () => {
		const { store } = tempStore();
		const source = `${HEADER}const plan = await agent("plan the work");\nconst done = await parallel(Array.from({ length: 50 }, (_, i) => () => agent("task " + i)));\nreturn { plan, done: done.length, first: done[0], last: done[49] };`;
		const record = await store.create({ script: source, meta: { name: "stops", description: "d" } });
		faux.route("plan the work", [fauxAssistantMessage("the plan")]);
		faux.route(/^task 0$/, [error(CREDIT), fauxAssistantMessage("done 0")]);
		faux.route(
			/^task \d+$/,
			Array.from({ length: 49 }, () => (r) => fauxAssistantMessage(`done ${r.task.slice(5)}`)),
		);

		const sessions: string[] = [];
		let lock = await record.acquire();
		let journal = await record.journal();
		const first = await runWorkflowScript(source, { agentRunner: piRunner(sessions), journal, concurrency: 1 });
		await record.writeSnapshot(first);
		await journal.close();
		await lock.release();
		// One session for the plan, and one for the fan-out: its first child, refused.
		expect(sessions).toEqual(["plan the work", "task 0"]);
		expect(faux.requests.map((r) => r.task)).toEqual(["plan the work", "task 0"]);
		expect(first.status).toBe("stopped");
		expect(first.error?.code).toBe("provider_limit");
		expect(first.error?.message).toBe(
			`Stopped: provider \`faux\` refused \`task 0\` for quota or billing (${CREDIT}), which no wait lifts: no other agent started. Every finished agent is kept: add credit or raise the plan's quota with faux, then resume the run`,
		);
		expect(first.error?.details).toMatchObject({ kind: "quota", terminal: true, provider: "faux", message: CREDIT });
		expect(first.counts).toMatchObject({ calls: 51, started: 2, completed: 1, failed: 1, skipped: 49 });
		expect(await record.readSnapshot()).toMatchObject({ status: "stopped", error: { code: "provider_limit" } });

		// Credit added: the resume replays the plan from the journal and runs the 50.
		lock = await record.acquire();
		journal = await record.journal();
		expect(journal.size).toBe(1);
		sessions.length = 0;
		const events: WorkflowProgressEvent[] = [];
		const resumed = await runWorkflowScript(source, {
			agentRunner: piRunner(sessions),
			journal,
			concurrency: 4,
			onProgress: (e) => events.push(e),
		});
		await journal.close();
		await lock.release();
		expect(resumed).toMatchObject({
			status: "completed",
			value: { plan: "the plan", done: 50, first: "done 0", last: "done 49" },
		});
		expect(sessions).toHaveLength(50);
		expect(sessions).not.toContain("plan the work");
		expect(events.flatMap((e) => (e.type === "agent_finished" && e.cached ? [e.label] : []))).toEqual([
			"plan the work",
		]);
		expect(faux.pendingReplies()).toBe(0);
	});

	it("a bad request naming billing and a 401 path fails only its child; the other three finish", async () => {
		const sessions: string[] = [];
		faux.route(/^task 1$/, [error(BAD_SCHEMA)]);
		faux.route(/^task 2$/, [error(BAD_PATH)]);
		faux.route(/^task \d$/, [
			(r) => fauxAssistantMessage(`done ${r.task}`),
			(r) => fauxAssistantMessage(`done ${r.task}`),
		]);
		const result = await runWorkflowScript(
			`${HEADER}return await parallel([0, 1, 2, 3].map((i) => () => agent("task " + i)));`,
			{ agentRunner: piRunner(sessions), concurrency: 1 },
		);
		expect(result).toMatchObject({
			status: "completed",
			value: ["done task 0", null, null, "done task 3"],
		});
		expect(result.error).toBeUndefined();
		expect(sessions).toEqual(["task 0", "task 1", "task 2", "task 3"]);
		// Failed at once: one request each, no wait, no retry.
		expect(faux.requests.map((r) => r.task)).toEqual(["task 0", "task 1", "task 2", "task 3"]);
		expect(result.failures.filter((f) => f.kind === "agent").map((f) => [f.label, f.cause])).toEqual([
			["task 1", expect.stringContaining("get_billing_info")],
			["task 2", expect.stringContaining("messages.401.content")],
		]);
	});

	it("a refused key with pi's retry on: one request, and the run stops naming the key", async () => {
		const sessions: string[] = [];
		faux.route("summarize", [error(AUTH_401)]);
		const result = await runWorkflowScript(`${HEADER}return await agent("summarize the notes");`, {
			agentRunner: piRunner(sessions, { piRetry: { maxRetries: 3, baseDelayMs: 1 } }),
		});
		expect(result.status).toBe("stopped");
		expect(result.error?.message).toContain(
			"Stopped: provider `faux` refused `summarize the notes` for its API key (",
		);
		expect(result.error?.details).toMatchObject({ kind: "auth", provider: "faux", message: AUTH_401 });
		expect(faux.requests).toHaveLength(1);
	});

	it("a refused model gives way to a fallback model before any tool work; the run goes on", async () => {
		const sessions: string[] = [];
		faux.route((r) => r.model === "faux/faux-1", [error(CREDIT)]);
		faux.route((r) => r.model === "faux/faux-think", [fauxAssistantMessage("answered by the fallback")]);
		const events: WorkflowProgressEvent[] = [];
		const result = await runWorkflowScript(
			`${HEADER}return await agent("summarize the notes", { label: "notes", fallbackModels: ["faux/faux-think"] });`,
			{ agentRunner: piRunner(sessions), onProgress: (e) => events.push(e) },
		);
		expect(result).toMatchObject({ status: "completed", value: "answered by the fallback" });
		expect(result.fallbacks).toEqual([
			expect.objectContaining({ label: "notes", model: "faux/faux-think", limited: ["faux/faux-1"] }),
		]);
		expect(sessions).toEqual(["summarize the notes", "summarize the notes"]);
		expect(
			events.some(
				(e) =>
					e.type === "log" &&
					e.message.includes("`faux/faux-1` met a provider limit (quota) before any tool work"),
			),
		).toBe(true);
	});
});
