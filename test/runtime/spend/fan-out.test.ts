/**
 * `confirmFanOut`: before one `parallel()`/`pipeline()` call starts more agents than the threshold, the host is asked
 * once per run, with what the run spent so far; a no throws `fanout_declined` into the script and stops the run.
 */
import { describe, expect, it } from "vitest";
import { runWorkflowScript, type WorkflowFanOutInfo, type WorkflowRunOptions } from "../../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

async function run(body: string, answers: boolean[], options: Partial<WorkflowRunOptions> = {}) {
	const fake = createFakeRunner(() => ({ text: "ok", costUsd: 0.02 }));
	const asked: Omit<WorkflowFanOutInfo, "signal">[] = [];
	const result = await runWorkflowScript(`${HEADER}${body}`, {
		agentRunner: fake.runner,
		fanOutThreshold: 5,
		confirmFanOut: async ({ signal: _signal, ...info }) => {
			asked.push(info);
			return answers.shift() ?? false;
		},
		...options,
	});
	return { result, asked, prompts: fake.requests.map((request) => request.prompt) };
}

const WIDE = (n: number, name = "item") =>
	`parallel(Array.from({ length: ${n} }, (_, i) => () => agent("${name} " + i)))`;

describe("confirmFanOut", () => {
	it("accepted: asked once with the count and what the run spent so far; later large calls are not asked again", async () => {
		const { result, asked, prompts } = await run(
			`await agent("warm up"); await agent("warm up 2");\nconst a = await ${WIDE(8)};\nconst b = await ${WIDE(9, "more")};\nreturn [a.length, b.length];`,
			[true],
		);
		expect(result.status).toBe("completed");
		expect(result.value).toEqual([8, 9]);
		expect(prompts).toHaveLength(2 + 8 + 9);
		expect(asked).toEqual([
			{
				kind: "parallel",
				items: 8,
				agents: 8,
				workflow: "t",
				agentsRun: 2,
				spent: { usd: 0.04 },
				averageUsd: 0.02,
			},
		]);
	});

	it("declined: that call throws fanout_declined before any of its agents starts, and the run is stopped", async () => {
		const { result, asked, prompts } = await run(`await agent("first");\nreturn await ${WIDE(6)};`, [false]);
		expect(asked).toHaveLength(1);
		expect(prompts).toEqual(["first"]);
		expect(result.status).toBe("stopped");
		expect(result.error).toMatchObject({
			code: "fanout_declined",
			line: 3,
			message:
				"Not started: `parallel()` with 6 items. The person running the workflow declined to start that many agents at once; the run stops here with its finished calls saved. Split the work into smaller calls, or resume the run and answer yes (3:22)",
			details: { kind: "parallel", items: 6, agents: 6 },
		});
	});

	it("declined and caught: the script goes on, and a later large call throws without asking again", async () => {
		const { result, asked } = await run(
			`const tries = [];\nfor (const n of [6, 7]) { try { await ${WIDE(7)}; tries.push("ran"); } catch (e) { tries.push(e.code); } }\nconst small = await ${WIDE(3, "small")};\nreturn [tries, small.length];`,
			[false],
		);
		expect(asked).toHaveLength(1);
		expect(result.status).toBe("completed");
		expect(result.value).toEqual([["fanout_declined", "fanout_declined"], 3]);
	});

	it("pipeline: counts items times stages", async () => {
		const { asked } = await run(
			`return await pipeline([1, 2, 3], (x) => agent("plan " + x), (plan) => agent("do " + plan));`,
			[true],
		);
		expect(asked).toEqual([expect.objectContaining({ kind: "pipeline", items: 3, agents: 6, agentsRun: 0 })]);
	});

	it("two large calls at once share the one question", async () => {
		const { asked, result } = await run(
			`return (await Promise.all([${WIDE(6, "a")}, ${WIDE(6, "b")}])).flat().length;`,
			[true],
		);
		expect(asked).toHaveLength(1);
		expect(result.value).toBe(12);
	});

	it("not asked at or below the threshold, with a threshold of 0, or without a host that asks", async () => {
		const at = await run(`return (await ${WIDE(5)}).length;`, []);
		expect([at.asked, at.result.value]).toEqual([[], 5]);
		const never = await run(`return (await ${WIDE(40)}).length;`, [], { fanOutThreshold: 0 });
		expect([never.asked, never.result.value]).toEqual([[], 40]);
		const fake = createFakeRunner();
		const unasked = await runWorkflowScript(`${HEADER}return (await ${WIDE(40)}).length;`, {
			agentRunner: fake.runner,
		});
		expect(unasked.value).toBe(40);
	});

	it("a host whose question fails counts as a no, saying why", async () => {
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}return await ${WIDE(30)};`, {
			agentRunner: fake.runner,
			confirmFanOut: async () => {
				throw new Error("no terminal");
			},
		});
		expect(fake.requests).toEqual([]);
		expect(result.error?.code).toBe("fanout_declined");
		expect(result.error?.message).toContain(
			"It needs a yes from the person running the workflow, and the question could not be asked (no terminal)",
		);
	});

	it("stopping the run while the question is open stops it as cancelled", async () => {
		const controller = new AbortController();
		const fake = createFakeRunner();
		const result = await runWorkflowScript(`${HEADER}return await ${WIDE(30)};`, {
			agentRunner: fake.runner,
			signal: controller.signal,
			confirmFanOut: (info) =>
				new Promise((resolve) => {
					info.signal.addEventListener("abort", () => resolve(false), { once: true });
					controller.abort("the person pressed Esc");
				}),
		});
		expect(fake.requests).toEqual([]);
		expect(result.status).toBe("stopped");
		expect(result.error?.code).toBe("cancelled");
	});
});
