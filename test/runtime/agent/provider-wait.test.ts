/**
 * Provider limits through the runtime with a scripted runner: a limited attempt is a wait, not a failure; the queue
 * pauses (no child starts during a wait); the provider's time is honoured; the bound stops the run; retries are kept.
 */
import { describe, expect, it } from "vitest";
import type {
	WorkflowAgentRequest,
	WorkflowAgentRunner,
	WorkflowProgressEvent,
	WorkflowProviderLimit,
} from "../../../src/runtime/index.ts";
import { createWorkflowQueue, runWorkflowScript } from "../../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const RATE: WorkflowProviderLimit = { kind: "rate_limit", message: "429 rate limit exceeded" };
/** Backoff of milliseconds, so a test's waits are short; what is asserted is the recorded wait, never elapsed time. */
const TINY = { baseMs: 5, maxMs: 40 };

/** Answers each prompt with a limit for its first `limited` attempts, then with text. */
function limitedFor(limited: Record<string, number>, limit = RATE) {
	const seen = new Map<string, number>();
	return createFakeRunner((request: WorkflowAgentRequest) => {
		const n = (seen.get(request.prompt) ?? 0) + 1;
		seen.set(request.prompt, n);
		return n <= (limited[request.prompt] ?? 0) ? { limit } : `done: ${request.prompt}`;
	});
}

/** A promise and the function that resolves it. */
function signalled(): { promise: Promise<void>; fire: () => void } {
	let fire = () => {};
	const promise = new Promise<void>((resolve) => {
		fire = resolve;
	});
	return { promise, fire };
}

function record() {
	const events: WorkflowProgressEvent[] = [];
	return { events, onProgress: (event: WorkflowProgressEvent) => events.push(event) };
}

describe("provider limits", () => {
	it("a child limited twice is not a failed child: the run waits, tries again, and completes", async () => {
		const fake = limitedFor({ a: 2 });
		const { events, onProgress } = record();
		const result = await runWorkflowScript(`${HEADER}return await agent("a", { label: "A" });`, {
			agentRunner: fake.runner,
			providerBackoff: TINY,
			onProgress,
		});
		expect(result.status).toBe("completed");
		expect(result.value).toBe("done: a");
		expect(result.failures).toEqual([]);
		expect(result.counts).toMatchObject({ completed: 1, failed: 0 });
		expect(fake.requests.map((r) => r.attempt)).toEqual([1, 2, 3]);
		const waits = events.filter((e) => e.type === "provider_wait_started");
		// The backoff doubles with each wait in a row.
		expect(waits.map((e) => e.type === "provider_wait_started" && [e.kind, e.waitMs, e.call?.label])).toEqual([
			["rate_limit", 5, "A"],
			["rate_limit", 10, "A"],
		]);
		expect(
			events
				.filter((e) => e.type === "provider_wait_ended")
				.map((e) => e.type === "provider_wait_ended" && e.outcome),
		).toEqual(["over", "over"]);
		expect(result.providerWaits).toEqual({ count: 2, totalMs: 15 });
	});

	it("the queue really pauses: no child starts during a wait, not even into a slot that frees up", async () => {
		const order: string[] = [];
		const bStarted = signalled();
		const waitStarted = signalled();
		let aTries = 0;
		// "a" meets the limit once "b" runs; "b" ends once the wait has begun, so its slot frees up during the wait.
		const runner: WorkflowAgentRunner = async (request) => {
			order.push(`start ${request.prompt}#${request.attempt}`);
			const answer = (text: string) => ({
				id: request.prompt,
				type: request.agentType,
				status: "completed" as const,
				result: text,
			});
			if (request.prompt === "a" && ++aTries === 1) {
				await bStarted.promise;
				return { id: "a", type: request.agentType, status: "failed", error: RATE.message, providerLimit: RATE };
			}
			if (request.prompt === "b") {
				bStarted.fire();
				await waitStarted.promise;
			}
			return answer(`done: ${request.prompt}`);
		};
		const result = await runWorkflowScript(
			`${HEADER}return await parallel(["a", "b", "c"].map((p) => () => agent(p)));`,
			{
				agentRunner: runner,
				concurrency: 2,
				providerBackoff: { baseMs: 50, maxMs: 50 },
				onProgress: (event) => {
					if (event.type === "provider_wait_started") {
						order.push("wait started");
						waitStarted.fire();
					}
					if (event.type === "provider_wait_ended") order.push("wait ended");
				},
			},
		);
		expect(result.status).toBe("completed");
		expect(result.value).toEqual(["done: a", "done: b", "done: c"]);
		// "c" had a free slot as soon as "b" ended, during the wait; it started only after it.
		expect(order.slice(0, 4)).toEqual(["start a#1", "start b#1", "wait started", "wait ended"]);
		expect(order.slice(4).sort()).toEqual(["start a#2", "start c#1"]);
	});

	it("follows the provider's retry-after: the recorded wait is the time the provider asked for", async () => {
		const fake = limitedFor({ a: 1 }, { kind: "rate_limit", message: "try again in 30ms", retryAfterMs: 30 });
		const { events, onProgress } = record();
		const result = await runWorkflowScript(`${HEADER}return await agent("a");`, {
			agentRunner: fake.runner,
			// A backoff far longer than the provider's time: if it applied, the test would time out.
			providerBackoff: { baseMs: 600_000, maxMs: 600_000 },
			onProgress,
		});
		expect(result.status).toBe("completed");
		const wait = events.find((e) => e.type === "provider_wait_started");
		expect(wait).toMatchObject({ kind: "rate_limit", waitMs: 30, retryAfterMs: 30, totalWaitMs: 30 });
	});

	it("a usage limit that resets after the run's wait bound: stops the run at once as `stopped`, reason provider limit", async () => {
		const limit: WorkflowProviderLimit = {
			kind: "usage_limit",
			message: "You have hit your ChatGPT usage limit (plus plan). Try again in ~42 min.",
			retryAfterMs: 42 * 60_000,
		};
		const fake = limitedFor({ a: 1 }, limit);
		const { events, onProgress } = record();
		const result = await runWorkflowScript(`${HEADER}return await agent("a");`, {
			agentRunner: fake.runner,
			onProgress,
		});
		expect(result.status).toBe("stopped");
		expect(result.error?.code).toBe("provider_limit");
		expect(result.error?.message).toBe(
			"Stopped for a provider limit (usage limit reached: You have hit your ChatGPT usage limit (plus plan). Try again in ~42 min.): the next try is due in 42 min, which would take the run's provider waits past `maxProviderWaitMs` (30 min). Every finished agent is kept: resume the run once the limit lifts, or allow a longer wait",
		);
		expect(result.error?.details).toMatchObject({ kind: "usage_limit", waitMs: 42 * 60_000, maxWaitMs: 30 * 60_000 });
		// It did not wait: no wait was announced, and the call was stopped, not failed.
		expect(events.some((e) => e.type === "provider_wait_started")).toBe(false);
		expect(result.failures).toEqual([expect.objectContaining({ code: "provider_limit" })]);
		expect(fake.requests).toHaveLength(1);
	});

	it("a limit that never lifts: waits until the next wait would pass `maxProviderWaitMs`, then stops", async () => {
		const fake = limitedFor({ a: Number.POSITIVE_INFINITY });
		const { events, onProgress } = record();
		const result = await runWorkflowScript(`${HEADER}return await agent("a");`, {
			agentRunner: fake.runner,
			providerBackoff: { baseMs: 10, maxMs: 40 },
			maxProviderWaitMs: 100,
			onProgress,
		});
		expect(result.status).toBe("stopped");
		expect(result.error?.code).toBe("provider_limit");
		// 10 + 20 + 40 = 70 ms waited; the next 40 would make 110, past 100.
		const waits = events.flatMap((e) => (e.type === "provider_wait_started" ? [e.waitMs] : []));
		expect(waits).toEqual([10, 20, 40]);
		expect(result.error?.details).toMatchObject({ waitMs: 40, totalWaitMs: 70, maxWaitMs: 100 });
		expect(result.providerWaits).toEqual({ count: 3, totalMs: 70 });
		expect(fake.requests).toHaveLength(4);
	});

	it("attempts lost to a limit do not use up `retries`: a failure still gets its one retry", async () => {
		let n = 0;
		const fake = createFakeRunner(() => {
			n++;
			return n === 1 ? { limit: RATE } : n === 2 ? { fail: "boom" } : n === 3 ? { limit: RATE } : "ok";
		});
		const result = await runWorkflowScript(`${HEADER}return await agent("a", { retries: 1 });`, {
			agentRunner: fake.runner,
			providerBackoff: TINY,
		});
		expect(result.status).toBe("completed");
		expect(result.value).toBe("ok");
		expect(fake.requests.map((r) => r.attempt)).toEqual([1, 2, 3, 4]);
	});

	it("a non-transient failure still fails the child at once: no wait, the census keeps the cause", async () => {
		const fake = createFakeRunner(() => ({ fail: '401 {"type":"error","error":{"type":"authentication_error"}}' }));
		const { events, onProgress } = record();
		const result = await runWorkflowScript(`${HEADER}return await agent("a");`, {
			agentRunner: fake.runner,
			onProgress,
		});
		expect(result.status).toBe("failed");
		expect(result.failures[0]?.cause).toContain("authentication_error");
		expect(events.some((e) => e.type === "provider_wait_started")).toBe(false);
		expect(fake.requests).toHaveLength(1);
	});

	it("cancelling the run ends a wait at once", async () => {
		const fake = limitedFor({ a: 1 });
		const controller = new AbortController();
		const { events } = record();
		const result = await runWorkflowScript(`${HEADER}return await agent("a");`, {
			agentRunner: fake.runner,
			// Ten minutes: the run ends only because the cancel ends the wait.
			providerBackoff: { baseMs: 600_000, maxMs: 600_000 },
			signal: controller.signal,
			onProgress: (event) => {
				events.push(event);
				if (event.type === "provider_wait_started") controller.abort("Stopped by the test");
			},
		});
		expect(result.status).toBe("stopped");
		expect(result.error?.code).toBe("cancelled");
		expect(events.find((e) => e.type === "provider_wait_ended")).toMatchObject({ outcome: "stopped" });
		expect(fake.requests).toHaveLength(1);
	});

	it("the run's deadline ends a wait at once", async () => {
		const fake = limitedFor({ a: 1 });
		const result = await runWorkflowScript(`${HEADER}return await agent("a");`, {
			agentRunner: fake.runner,
			providerBackoff: { baseMs: 600_000, maxMs: 600_000 },
			timeoutMs: 50,
		});
		expect(result.status).toBe("failed");
		expect(result.error?.code).toBe("timed_out");
	});

	it("a later limit with a later retry-after lengthens the wait in force, which stays one wait", async () => {
		const bStarted = signalled();
		const waitStarted = signalled();
		const limited = (retryAfterMs: number) => ({
			id: "x",
			type: "general-purpose",
			status: "failed" as const,
			error: RATE.message,
			providerLimit: { ...RATE, retryAfterMs },
		});
		const runner: WorkflowAgentRunner = async (request) => {
			if (request.attempt > 1) return { id: "x", type: request.agentType, status: "completed", result: "ok" };
			if (request.prompt === "a") {
				await bStarted.promise;
				return limited(100);
			}
			bStarted.fire();
			await waitStarted.promise;
			return limited(150);
		};
		const { events, onProgress } = record();
		const result = await runWorkflowScript(`${HEADER}return await parallel([() => agent("a"), () => agent("b")]);`, {
			agentRunner: runner,
			onProgress: (event) => {
				onProgress(event);
				if (event.type === "provider_wait_started") waitStarted.fire();
			},
		});
		expect(result.status).toBe("completed");
		const waits = events.flatMap((e) =>
			e.type === "provider_wait_started"
				? [[e.type, e.lengthened ?? false, e.call?.label]]
				: e.type === "provider_wait_ended"
					? [[e.type]]
					: [],
		);
		expect(waits).toEqual([
			["provider_wait_started", false, "a"],
			["provider_wait_started", true, "b"],
			["provider_wait_ended"],
		]);
		expect(result.providerWaits?.count).toBe(1);
	});

	it("a queue shared by two runs: a wait one run met holds the other's calls too", async () => {
		// One slot: run A's child holds it, so run B's call waits in the queue when A's child meets the limit.
		const queue = createWorkflowQueue({ concurrency: 1, providerBackoff: { baseMs: 20, maxMs: 20 } });
		const aStarted = signalled();
		const bQueued = signalled();
		let aTries = 0;
		const runnerA: WorkflowAgentRunner = async (request) => {
			if (++aTries > 1) return { id: "a", type: request.agentType, status: "completed", result: "done: a" };
			aStarted.fire();
			await bQueued.promise;
			return { id: "a", type: request.agentType, status: "failed", error: RATE.message, providerLimit: RATE };
		};
		const fakeB = createFakeRunner();
		const eventsB: WorkflowProgressEvent[] = [];
		const runA = runWorkflowScript(`${HEADER}return await agent("a");`, { agentRunner: runnerA, queue });
		// B starts once A's child holds the slot, so B's call is the one that waits in the queue.
		await aStarted.promise;
		const resultB = await runWorkflowScript(`${HEADER}return await agent("b");`, {
			agentRunner: fakeB.runner,
			queue,
			onProgress: (event) => {
				eventsB.push(event);
				if (event.type === "agent_queued") bQueued.fire();
			},
		});
		const resultA = await runA;
		expect(resultA).toMatchObject({ status: "completed", value: "done: a" });
		expect(resultB).toMatchObject({ status: "completed", value: "done: b" });
		const types = eventsB
			.map((e) => e.type)
			.filter((type) => type.startsWith("provider_") || type === "agent_started");
		expect(types).toEqual(["provider_wait_started", "provider_wait_ended", "agent_started"]);
		// The wait was A's: B's event names no call of its own.
		const waitB = eventsB.find((e) => e.type === "provider_wait_started");
		expect(waitB).toMatchObject({ kind: "rate_limit", waitMs: 20 });
		expect(waitB && "call" in waitB).toBe(false);
		expect(resultB.providerWaits).toEqual({ count: 1, totalMs: 20 });
	});

	it("the static pass knows `fallbackModels`: a wrong value or a foreign spelling fails before any agent", async () => {
		const fake = createFakeRunner();
		const wrong = await runWorkflowScript(`${HEADER}await agent("x", { fallbackModels: "openai/gpt-5" });`, {
			agentRunner: fake.runner,
		});
		expect(wrong.error).toMatchObject({ code: "agent_options_invalid", line: 2, column: 12 });
		expect(wrong.error?.message).toContain(
			'`agent()` option `fallbackModels` must be a list of at most 8 model names (`provider/id`), got "openai/gpt-5"',
		);
		const foreign = await runWorkflowScript(`${HEADER}await agent("x", { fallback_models: ["openai/gpt-5"] });`, {
			agentRunner: fake.runner,
		});
		expect(foreign.error?.message).toContain(
			"Unknown `agent()` option `fallback_models`. Did you mean `fallbackModels`?",
		);
		expect(fake.requests).toHaveLength(0);
	});

	it("`fallbackModels` reaches the runner and is not part of the call's key (a resume keeps its replays)", async () => {
		const fake = createFakeRunner();
		await runWorkflowScript(`${HEADER}await agent("x"); await agent("x", { fallbackModels: ["m/b"] });`, {
			agentRunner: fake.runner,
		});
		const [plain, withFallbacks] = fake.requests;
		expect(withFallbacks?.fallbackModels).toEqual(["m/b"]);
		// The second identical prompt is the identity's second occurrence: same identity, so a key of its own
		// that differs only by occurrence. Compare with the key a lone call with fallbacks gets.
		const lone = createFakeRunner();
		await runWorkflowScript(`${HEADER}await agent("x", { fallbackModels: ["m/b"] });`, { agentRunner: lone.runner });
		expect(lone.requests[0]?.key).toBe(plain?.key);
	});
});
