/**
 * A provider's refusal (quota, a key) through the runtime with a scripted runner: no other child starts, the children
 * already running finish and keep their answers, and then the run stops as `stopped`, code `provider_limit`, naming
 * the provider, its message and what to do.
 */
import { describe, expect, it } from "vitest";
import type {
	WorkflowAgentResult,
	WorkflowAgentRunner,
	WorkflowProgressEvent,
	WorkflowProviderStop,
} from "../../../src/runtime/index.ts";
import { runWorkflowScript } from "../../../src/runtime/index.ts";
import { HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const CREDIT =
	'400 {"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}';
const QUOTA: WorkflowProviderStop = { kind: "quota", provider: "anthropic", message: CREDIT };
const FAN_OUT = `${HEADER}return await parallel(Array.from({ length: 10 }, (_, i) => () => agent("task " + i)));`;

/** A promise and the function that resolves it. */
function signalled(): { promise: Promise<void>; fire: () => void } {
	let fire = () => {};
	const promise = new Promise<void>((resolve) => {
		fire = resolve;
	});
	return { promise, fire };
}

const answer = (prompt: string, agentType: string, text: string): WorkflowAgentResult => ({
	id: prompt,
	type: agentType,
	status: "completed",
	result: text,
});

describe("a provider's refusal", () => {
	it("alone in the queue: the run stops at once and no other child starts", async () => {
		const started: string[] = [];
		const runner: WorkflowAgentRunner = async (request) => {
			started.push(request.prompt);
			return { id: "0", type: request.agentType, status: "failed", error: CREDIT, providerStop: QUOTA };
		};
		const events: WorkflowProgressEvent[] = [];
		const result = await runWorkflowScript(FAN_OUT, {
			agentRunner: runner,
			concurrency: 1,
			onProgress: (event) => events.push(event),
		});
		expect(started).toEqual(["task 0"]);
		expect(result.status).toBe("stopped");
		expect(result.error?.code).toBe("provider_limit");
		expect(result.error?.message).toBe(
			`Stopped: provider \`anthropic\` refused \`task 0\` for quota or billing (${CREDIT}), which no wait lifts: no other agent started. Every finished agent is kept: add credit or raise the plan's quota with anthropic, then resume the run`,
		);
		expect(result.error?.details).toEqual({
			kind: "quota",
			terminal: true,
			provider: "anthropic",
			message: CREDIT,
			call: "task 0",
		});
		// The refused call is stopped (code provider_limit, as a wait past its bound is); the others never started.
		expect(result.counts).toEqual({ calls: 10, started: 1, completed: 0, failed: 1, skipped: 9 });
		expect(result.failures[0]).toMatchObject({ label: "task 0", code: "provider_limit" });
		expect(
			events.filter((e) => e.type === "agent_started").map((e) => e.type === "agent_started" && e.label),
		).toEqual(["task 0"]);
		expect(events.some((e) => e.type === "provider_wait_started")).toBe(false);
	});

	it("children already running finish and keep their answers; then the run stops, and nothing else started", async () => {
		const started: string[] = [];
		const othersRunning = signalled();
		const refusalNoted = signalled();
		// The refusal comes once all ten are queued, so all ten are counted as the test means (a call reaching the host
		// after it is refused before queueing: the next test).
		const allQueued = signalled();
		let queued = 0;
		const runner: WorkflowAgentRunner = async (request) => {
			started.push(request.prompt);
			if (started.length === 4) othersRunning.fire();
			if (request.prompt === "task 0") {
				await othersRunning.promise;
				await allQueued.promise;
				return { id: "0", type: request.agentType, status: "failed", error: CREDIT, providerStop: QUOTA };
			}
			await refusalNoted.promise;
			return answer(request.prompt, request.agentType, `done: ${request.prompt}`);
		};
		const events: WorkflowProgressEvent[] = [];
		const result = await runWorkflowScript(FAN_OUT, {
			agentRunner: runner,
			concurrency: 4,
			onProgress: (event) => {
				events.push(event);
				if (event.type === "agent_queued" && ++queued === 10) allQueued.fire();
				if (event.type === "log" && event.message.includes("refused")) refusalNoted.fire();
			},
		});
		expect(started).toEqual(["task 0", "task 1", "task 2", "task 3"]);
		expect(result.status).toBe("stopped");
		expect(result.error?.code).toBe("provider_limit");
		expect(result.error?.message).toContain(
			"which no wait lifts: no other agent started, and the 3 already running finished first. Every finished agent is kept",
		);
		// Those queued behind them never started: skipped, with the run's reason.
		expect(result.counts).toEqual({ calls: 10, started: 4, completed: 3, failed: 1, skipped: 6 });
		expect(result.failures.map((f) => [f.label, f.code]).sort()).toEqual(
			[0, 4, 5, 6, 7, 8, 9].map((i) => [`task ${i}`, "provider_limit"]),
		);
		const log = events.find((e) => e.type === "log" && e.message.includes("refused"));
		expect(log).toMatchObject({
			level: "warn",
			message:
				"`task 0`: provider `anthropic` refused it (quota or billing); no other agent starts, and the run stops once the 3 running finish",
		});
		const finished = events.flatMap((e) => (e.type === "agent_finished" ? [e.label] : []));
		expect(finished.sort()).toEqual(["task 1", "task 2", "task 3"]);
	});

	it("a call that reaches the host after the refusal has the same failure entry as one queued behind it", async () => {
		// Both calls reach the host together; "late" compiles its schema (in the schema worker) while "task 0", the only
		// call running, is refused and stops the run: by the time it is compiled the run is stopping.
		const script = `${HEADER}
const late = agent("late", { label: "late", schema: { type: "object", properties: { n: { type: "integer" } } } });
return await Promise.allSettled([late, agent("task 0")]);`;
		const result = await runWorkflowScript(script, {
			agentRunner: async (request) => ({
				id: "0",
				type: request.agentType,
				status: "failed",
				error: CREDIT,
				providerStop: QUOTA,
			}),
		});
		expect(result.status).toBe("stopped");
		// Usually "late" never queues (skipped); on a machine where its schema compiles first it reaches the runner and
		// is refused too. Either way every call that did not answer has its entry, with the run's reason.
		expect(result.counts).toMatchObject({ calls: 2, completed: 0 });
		expect(result.failures).toHaveLength(result.counts.failed + result.counts.skipped);
		expect(result.failures.map((f) => [f.label, f.code]).sort()).toEqual([
			["late", "provider_limit"],
			["task 0", "provider_limit"],
		]);
		// The script's first call: index 0, where it was written.
		expect(result.failures.find((f) => f.label === "late")).toMatchObject({
			kind: "agent",
			index: 0,
			agentType: "general-purpose",
			line: 3,
		});
	});

	it("a refused key says to fix the key; a runner's stop of an unknown kind is a failed child", async () => {
		const key: WorkflowProviderStop = {
			kind: "auth",
			provider: "openai",
			message: "401: Incorrect API key provided",
		};
		const refused = await runWorkflowScript(`${HEADER}return await agent("a");`, {
			agentRunner: async (request) => ({
				id: "a",
				type: request.agentType,
				status: "failed",
				error: key.message,
				providerStop: key,
			}),
		});
		expect(refused.status).toBe("stopped");
		expect(refused.error?.message).toBe(
			"Stopped: provider `openai` refused `a` for its API key (401: Incorrect API key provided), which no wait lifts: no other agent started. Every finished agent is kept: fix the API key (set it again, or log in anew), then resume the run",
		);
		const odd = await runWorkflowScript(`${HEADER}return await agent("a");`, {
			agentRunner: async (request) =>
				({
					id: "a",
					type: request.agentType,
					status: "failed",
					error: "boom",
					providerStop: { kind: "weather", message: "boom" },
				}) as unknown as WorkflowAgentResult,
		});
		expect(odd.status).toBe("failed");
		expect(odd.failures).toEqual([expect.objectContaining({ cause: "boom" })]);
	});
});
