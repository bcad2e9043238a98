/**
 * The run's dollar cap with a person to ask (`onCostCap`): the run parks at the cap (no new child starts, running
 * ones finish and count), a raise goes on where it was, a stop or a failed question ends it `stopped` and
 * resumable; earlier sessions' spend (`priorCostUsd`) counts against the cap.
 */
import { describe, expect, it } from "vitest";
import {
	runWorkflowScript,
	type WorkflowCostCapInfo,
	type WorkflowProgressEvent,
	type WorkflowRunOptions,
} from "../../../src/runtime/index.ts";
import { createFakeRunner, type FakeAnswer, HEADER } from "../../helpers/fake-runner.ts";
import { memoryJournal } from "../../helpers/memory-journal.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

/** Five steps in a row, each a child that costs $0.10. */
const STEPS = `const out = [];\nfor (const n of [1, 2, 3, 4, 5]) out.push(await agent("step " + n));\nreturn out;`;
const dime = (request: { prompt: string }): FakeAnswer => ({ text: request.prompt, costUsd: 0.1 });

async function run(
	body: string,
	answer: (request: { prompt: string }) => FakeAnswer,
	options: Partial<WorkflowRunOptions>,
) {
	const fake = createFakeRunner(answer);
	const events: WorkflowProgressEvent[] = [];
	const result = await runWorkflowScript(`${HEADER}${body}`, {
		agentRunner: fake.runner,
		onProgress: (event) => events.push(event),
		...options,
	});
	const logs = events.flatMap((event) => (event.type === "log" ? [event.message] : []));
	return { result, fake, events, logs };
}

describe("onCostCap: the run parks at its cap and asks", () => {
	it("a raise continues the same run where it was, every finished result kept", async () => {
		const asked: Omit<WorkflowCostCapInfo, "signal">[] = [];
		const { result, fake, logs } = await run(STEPS, dime, {
			budget: { costUsd: 0.2 },
			onCostCap: async ({ signal, ...info }) => {
				asked.push(info);
				return 1;
			},
		});
		expect(asked).toEqual([{ workflow: "t", spentUsd: 0.2, capUsd: 0.2, agentsRun: 2 }]);
		expect(fake.requests.map((request) => request.prompt)).toEqual([
			"step 1",
			"step 2",
			"step 3",
			"step 4",
			"step 5",
		]);
		expect(result.status).toBe("completed");
		expect(result.value).toEqual(["step 1", "step 2", "step 3", "step 4", "step 5"]);
		expect(result.cost.usd).toBeCloseTo(0.5, 10);
		expect(logs).toEqual([
			"Cost cap reached: $0.20 of $0.20 spent. No new agent starts until the cap is raised; agents already running finish",
			"Cost cap raised to $1.00: the run goes on",
		]);
	});

	it("while the person is asked no new child starts; children already running finish and count", async () => {
		let startedWhenAsked = -1;
		const fake = createFakeRunner((request) =>
			request.prompt === "slow"
				? { text: "slow", costUsd: 0.05, delayMs: 60 }
				: { text: request.prompt, costUsd: 0.3 },
		);
		const events: WorkflowProgressEvent[] = [];
		const result = await runWorkflowScript(
			`${HEADER}return await parallel([() => agent("slow"), () => agent("fast"), () => agent("late 1"), () => agent("late 2")]);`,
			{
				agentRunner: fake.runner,
				concurrency: 2,
				budget: { costUsd: 0.25 },
				onProgress: (event) => events.push(event),
				onCostCap: async (info) => {
					startedWhenAsked = fake.requests.length;
					// Let the slow child finish while the question is open: it counts, and nothing else starts.
					const slowDone = () => events.some((event) => event.type === "agent_finished" && event.label === "slow");
					while (!slowDone()) await new Promise((resolve) => setTimeout(resolve, 5));
					expect(fake.requests.length).toBe(startedWhenAsked);
					expect(info.spentUsd).toBeCloseTo(0.3, 10);
					return 5;
				},
			},
		);
		expect(startedWhenAsked).toBe(2);
		expect(result.status).toBe("completed");
		expect(result.value).toEqual(["slow", "fast", "late 1", "late 2"]);
		expect(result.cost.usd).toBeCloseTo(0.95, 10);
	});

	it("a stop ends the run `stopped` (cost_cap) with its finished calls saved; a resume with a higher cap goes on", async () => {
		const journal = memoryJournal();
		const first = await run(STEPS, dime, { journal, budget: { costUsd: 0.2 }, onCostCap: async () => undefined });
		expect(first.result.status).toBe("stopped");
		expect(first.result.error?.code).toBe("cost_cap");
		expect(first.result.error?.message).toContain("$0.20 of $0.20 spent, and the person chose to stop");
		expect(journal.entries.size).toBe(2);
		const second = await run(STEPS, dime, { journal, budget: { costUsd: 0.3, priorCostUsd: 0.2 } });
		expect(second.fake.requests.map((request) => request.prompt)).toEqual(["step 3"]);
		expect(second.result.status).toBe("stopped");
		expect(second.result.error?.message).toContain("$0.30 of $0.30 spent");
	});

	it.each([
		[async () => 0.1, "the new cap (0.1) is not a dollar amount above $0.20"],
		[
			async () => {
				throw new Error("no terminal");
			},
			"the question could not be asked (no terminal)",
		],
	])("an answer that cannot raise the cap stops the run: %#", async (onCostCap, why) => {
		const { result, fake } = await run(STEPS, dime, { budget: { costUsd: 0.2 }, onCostCap });
		expect(fake.requests).toHaveLength(2);
		expect(result.status).toBe("stopped");
		expect(result.error?.message).toContain(`$0.20 of $0.20 spent, and ${why}.`);
	});

	it("earlier sessions' spend counts against the cap and in budget.cost, not in this session's cost", async () => {
		const { result, fake } = await run(
			`await agent("a"); const c = budget.cost; return [c.limit, c.spent(), c.remaining()];`,
			dime,
			{ budget: { costUsd: 1, priorCostUsd: 0.5 } },
		);
		expect(fake.requests).toHaveLength(1);
		expect(result.value).toEqual([1, 0.6, 0.4]);
		expect(result.cost).toEqual({ usd: 0.1 });
	});

	it("a phase's dollar cap is the script's: it still throws budget_exhausted, which the script can catch", async () => {
		const { result } = await run(
			`return await phase("p", { budget: { costUsd: 0.1 } }, async () => {\n  await agent("a");\n  try { await agent("b"); } catch (error) { return error.code; }\n});`,
			dime,
			{ budget: { costUsd: 5 }, onCostCap: async () => 10 },
		);
		expect(result.value).toBe("budget_exhausted");
	});

	it.each([
		[
			{ budget: { priorCostUsd: -1 } },
			"Expected `budget.priorCostUsd` to be a number of dollars from 0, got `-1` (number)",
		],
		[{ onCostCap: 5 }, "Expected `onCostCap` to be a function, got number"],
	])("on %j: throws a TypeError at once", async (options, message) => {
		await expect(
			runWorkflowScript(`${HEADER}return 1;`, {
				agentRunner: createFakeRunner().runner,
				...(options as Partial<WorkflowRunOptions>),
			}),
		).rejects.toThrow(message);
	});
});
