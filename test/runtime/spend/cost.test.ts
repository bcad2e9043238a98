/**
 * Dollar costs through the runtime, with a scripted runner reporting what its children cost: summed per call (every
 * attempt), per phase and per run; unknown prices kept apart; a replay costs nothing and says what it saved; the
 * run's cap and `budget.cost`, the overshoot bound, and a resume with a higher cap.
 */
import { describe, expect, it } from "vitest";
import {
	runWorkflowScript,
	type WorkflowAgentRequest,
	type WorkflowProgressEvent,
	type WorkflowRunOptions,
} from "../../../src/runtime/index.ts";
import { createFakeRunner, type FakeAnswer, HEADER } from "../../helpers/fake-runner.ts";
import { memoryJournal } from "../../helpers/memory-journal.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

async function run(
	body: string,
	answer: (request: WorkflowAgentRequest) => FakeAnswer,
	options: Partial<WorkflowRunOptions> = {},
) {
	const fake = createFakeRunner(answer);
	const events: WorkflowProgressEvent[] = [];
	const result = await runWorkflowScript(`${HEADER}${body}`, {
		agentRunner: fake.runner,
		onProgress: (event) => events.push(event),
		...options,
	});
	const finished = events.filter((event) => event.type === "agent_finished");
	return { result, events, fake, finished };
}

describe("cost of a run", () => {
	it("sums every attempt of a call, every call of a run, and says which model each child ran on", async () => {
		let attempts = 0;
		const { result, finished, events } = await run(
			`const a = await agent("flaky", { retries: 1 }); const b = await agent("steady"); return [a, b];`,
			(request) => {
				if (request.prompt === "flaky" && attempts++ === 0) {
					return { fail: "provider error", costUsd: 0.01, model: "p/cheap" };
				}
				return { text: "ok", costUsd: 0.02, model: "p/cheap" };
			},
		);
		expect(result.status).toBe("completed");
		expect(finished.map((event) => [event.label, event.cost, event.model])).toEqual([
			["flaky", { usd: 0.03 }, "p/cheap"],
			["steady", { usd: 0.02 }, "p/cheap"],
		]);
		expect(result.cost).toEqual({ usd: 0.05 });
		expect(result.replayedCost).toBeUndefined();
		expect(events.at(-1)).toMatchObject({ type: "run_end", cost: { usd: 0.05 } });
	});

	it("a failed call's cost counts too", async () => {
		const { result, events } = await run(`return await agent("doomed");`, () => ({
			fail: "provider down",
			costUsd: 0.004,
		}));
		expect(events.find((event) => event.type === "agent_failed")).toMatchObject({ cost: { usd: 0.004 } });
		expect(result.cost).toEqual({ usd: 0.004 });
	});

	it("replies of a model with no price stay unknown, never $0, beside the priced ones", async () => {
		const { result, finished } = await run(
			`return await parallel([() => agent("free"), () => agent("paid")]);`,
			(request) => (request.prompt === "free" ? { text: "x", unpriced: 2 } : { text: "y", costUsd: 0.5 }),
		);
		expect(finished.find((event) => event.label === "free")?.cost).toEqual({ usd: 0, unpriced: 2 });
		expect(result.cost).toEqual({ usd: 0.5, unpriced: 2 });
	});

	it("a replayed call costs nothing now, reports what it cost when it ran, and the journal keeps it", async () => {
		const journal = memoryJournal();
		const body = `const a = await agent("first"); const b = await agent("second"); return [a, b, budget.cost.spent()];`;
		const first = await run(body, (request) => ({ text: request.prompt, costUsd: 0.03, model: "p/m" }), {
			journal,
		});
		expect(first.result.value).toEqual(["first", "second", 0.06]);
		expect([...journal.entries.values()].map((entry) => [entry.label, entry.cost, entry.model])).toEqual([
			["first", { usd: 0.03 }, "p/m"],
			["second", { usd: 0.03 }, "p/m"],
		]);
		// The script now makes a third call: the first two replay, the third runs.
		const second = await run(
			`${body.replace("return [a, b,", 'const c = await agent("third"); return [a, b, c,')}`,
			(request) => ({ text: request.prompt, costUsd: 0.01 }),
			{ journal },
		);
		expect(second.fake.requests.map((request) => request.prompt)).toEqual(["third"]);
		expect(second.result.value).toEqual(["first", "second", "third", 0.01]);
		expect(second.finished.map((event) => [event.label, event.cached === true, event.cost])).toEqual([
			["first", true, { usd: 0.03 }],
			["second", true, { usd: 0.03 }],
			["third", false, { usd: 0.01 }],
		]);
		expect(second.result.cost).toEqual({ usd: 0.01 });
		expect(second.result.replayedCost).toEqual({ usd: 0.06 });
	});
});

describe("the run's cap: budget.costUsd", () => {
	it("budget.cost has the cap, what was spent and what is left; without a cap: null and Infinity", async () => {
		const body = `await agent("a"); const c = budget.cost; return [c.limit, c.spent(), c.remaining() === Infinity ? "inf" : c.remaining()];`;
		const capped = await run(body, () => ({ text: "x", costUsd: 0.25 }), { budget: { costUsd: 1 } });
		expect(capped.result.value).toEqual([1, 0.25, 0.75]);
		const open = await run(body, () => ({ text: "x", costUsd: 0.25 }));
		expect(open.result.value).toEqual([null, 0.25, "inf"]);
	});

	it("once spent with no one to ask: no new agent starts and the run stops `stopped` (cost_cap), not failed", async () => {
		const { result, fake } = await run(
			`await agent("a"); await agent("b");\nawait agent("c");`,
			() => ({ text: "x", costUsd: 0.3 }),
			{ budget: { costUsd: 0.5 } },
		);
		expect(fake.requests.map((request) => request.prompt)).toEqual(["a", "b"]);
		expect(result.status).toBe("stopped");
		expect(result.error).toMatchObject({
			code: "cost_cap",
			message:
				"Stopped at the run's cost cap: $0.60 of $0.50 spent, and no one is here to raise it. Every finished agent is kept: resume the run with a higher cap, the run's total for all its sessions (the `workflow` tool's `maxCostUsd`, `pi-workflows resume --max-cost`, `budget.costUsd`; the same total starts nothing), and its finished calls replay at no cost",
			details: { limit: 0.5, spent: 0.6, unit: "usd" },
		});
		expect(result.cost).toEqual({ usd: 0.6 });
	});

	it("calls waiting in the queue when the cap is reached never start; running ones finish and count, within concurrency − 1 children over", async () => {
		const concurrency = 3;
		const each = 0.1;
		const cap = 0.25;
		const { result, fake, finished } = await run(
			`return await parallel(Array.from({ length: 12 }, (_, i) => () => agent("job " + i)));`,
			() => ({ text: "done", costUsd: each, delayMs: 30 }),
			{ concurrency, budget: { costUsd: cap } },
		);
		const started = fake.requests.length;
		// A child starts only while the spend is under the cap: the first three, then one per finished child until
		// the spend reaches the cap; what runs then finishes and counts.
		expect(started).toBeLessThan(12);
		expect(started).toBeLessThanOrEqual(Math.ceil(cap / each) + concurrency - 1);
		expect(finished).toHaveLength(started);
		expect(result.cost.usd).toBeCloseTo(started * each, 10);
		expect(result.cost.usd).toBeLessThanOrEqual(cap + concurrency * each);
		expect(result.status).toBe("stopped");
		expect(result.error?.code).toBe("cost_cap");
	});

	it("a resume with a higher cap goes on where the first run stopped, its replays costing nothing", async () => {
		const journal = memoryJournal();
		const body = `const out = [];\nfor (const n of [1, 2, 3, 4, 5]) out.push(await agent("step " + n));\nreturn out;`;
		const answer = (request: WorkflowAgentRequest): FakeAnswer => ({ text: request.prompt, costUsd: 0.1 });
		const first = await run(body, answer, { journal, budget: { costUsd: 0.2 } });
		expect(first.result.error?.code).toBe("cost_cap");
		expect(first.result.status).toBe("stopped");
		expect(first.fake.requests.map((request) => request.prompt)).toEqual(["step 1", "step 2"]);

		const second = await run(body, answer, { journal, budget: { costUsd: 0.35 } });
		expect(second.fake.requests.map((request) => request.prompt)).toEqual(["step 3", "step 4", "step 5"]);
		expect(second.result.status).toBe("completed");
		expect(second.result.value).toEqual(["step 1", "step 2", "step 3", "step 4", "step 5"]);
		expect(second.result.cost).toEqual({ usd: 0.3 });
		expect(second.result.replayedCost).toEqual({ usd: 0.2 });
	});

	it("a model with no price does not count against the cap, and the run says so once per model", async () => {
		const { result, events } = await run(
			`await agent("a"); await agent("b"); return budget.cost.spent();`,
			() => ({ text: "x", unpriced: 1, model: "local/free" }),
			{ budget: { costUsd: 0.01 } },
		);
		expect(result.value).toBe(0);
		const warnings = events.filter((event) => event.type === "log" && event.level === "warn");
		expect(warnings.map((event) => (event.type === "log" ? event.message : ""))).toEqual([
			"`a` ran on local/free, which has no known price: what it costs is unknown and does not count against the $0.01 cap",
		]);
	});

	it.each([
		[{ budget: { costUsd: 0 } }, "Expected `budget.costUsd` to be a positive number, got `0` (number)"],
		[{ budget: { costUsd: Number.NaN } }, "Expected `budget.costUsd` to be a positive number, got `NaN` (number)"],
		[{ fanOutThreshold: -1 }, "Expected `fanOutThreshold` to be a whole number, 0 or more, got `-1` (number)"],
	])("on %j: throws a TypeError at once", async (options, message) => {
		await expect(
			runWorkflowScript(`${HEADER}return 1;`, { agentRunner: createFakeRunner().runner, ...options }),
		).rejects.toThrow(message);
	});
});
