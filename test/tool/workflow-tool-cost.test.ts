/**
 * The `workflow` tool's cost settings: the question before a large fan-out (asked in the TUI only, once, with what
 * the run spent), the session's default cap and threshold, and `maxCostUsd` winning over the session's default.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionToolContext } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWorkflowQueue } from "../../src/runtime/core/queue.ts";
import { fanOutQuestion } from "../../src/tool/fan-out-question.ts";
import { createWorkflowTool, type WorkflowSessionDefaults } from "../../src/tool/workflow-tool.ts";
import { createFakeRunner } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const script = (n: number) =>
	`export const meta = { name: "wide", description: "d" };\nawait agent("scout");\nconst all = await parallel(Array.from({ length: ${n} }, (_, i) => () => agent("item " + i)));\nreturn all.length;`;

describe("workflow tool: cost and the fan-out question", () => {
	let cwd: string;
	let agentDir: string;
	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-cost-project-"));
		agentDir = mkdtempSync(join(tmpdir(), "wf-cost-agent-"));
	});
	afterEach(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(agentDir, { recursive: true, force: true });
	});

	function setUp(mode: "tui" | "print" | "rpc", answer: boolean, defaults: WorkflowSessionDefaults = {}) {
		const asked: { title: string; message: string }[] = [];
		const selects: { title: string; options: string[] }[] = [];
		const ctx = {
			cwd,
			mode,
			hasUI: mode !== "print",
			ui: {
				setWidget: () => {},
				setStatus: () => {},
				confirm: async (title: string, message: string) => {
					asked.push({ title, message });
					return answer;
				},
				select: async (title: string, options: string[]) => {
					selects.push({ title, options });
					return options[0];
				},
			},
		} as unknown as ExtensionToolContext;
		const fake = createFakeRunner(() => ({ text: "ok", costUsd: 0.05 }));
		const tool = createWorkflowTool({
			queue: createWorkflowQueue(),
			agentDir,
			createRunner: async () => fake.runner,
			defaults: () => defaults,
		});
		const call = (params: Parameters<typeof tool.execute>[1]) => tool.execute("c", params, undefined, undefined, ctx);
		return { asked, selects, fake, call };
	}

	it("in the TUI, above the threshold: asked once with the count and the spend so far; yes runs them all", async () => {
		const { asked, fake, call } = setUp("tui", true);
		const result = await call({ script: script(30) });
		expect(result.isError).toBeUndefined();
		expect(result.details.envelope?.result).toBe(30);
		expect(fake.requests).toHaveLength(31);
		expect(asked).toEqual([
			{
				title: "Workflow wide: start 30 agents?",
				message:
					"It is about to start parallel() with 30 items. So far: $0.05 over 1 agent (about $0.05 each). At that rate 30 more cost about $1.50. Yes goes on (you are not asked again in this run); No stops the workflow here, with its finished calls saved.",
			},
		]);
	});

	it("in the TUI, declined: none of them starts and the run is stopped, saying why and how to go on", async () => {
		const { fake, call } = setUp("tui", false);
		const result = await call({ script: script(30) });
		expect(result.isError).toBe(true);
		expect(fake.requests.map((request) => request.prompt)).toEqual(["scout"]);
		expect(result.details.envelope?.status).toBe("stopped");
		expect(result.details.envelope?.error?.code).toBe("fanout_declined");
		expect(JSON.stringify(result.content)).toContain("Resume with workflow({ resume:");
	});

	it("in print and RPC modes: never asked", async () => {
		for (const mode of ["print", "rpc"] as const) {
			const { asked, call } = setUp(mode, false);
			const result = await call({ script: script(30) });
			expect(result.details.envelope?.result).toBe(30);
			expect(asked).toEqual([]);
		}
	});

	it("the session's threshold: asked above it; 0 never asks", async () => {
		const low = setUp("tui", true, { confirmAgents: 3 });
		await low.call({ script: script(4) });
		expect(low.asked).toHaveLength(1);
		const never = setUp("tui", false, { confirmAgents: 0 });
		const result = await never.call({ script: script(60) });
		expect(never.asked).toEqual([]);
		expect(result.details.envelope?.result).toBe(60);
	});

	it("the session's cap applies to runs that give none; maxCostUsd wins over it", async () => {
		const capped = setUp("print", true, { maxCostUsd: 0.1 });
		// One child at a time, so the cap stops the very next one.
		const refused = await capped.call({ script: script(4), concurrency: 1 });
		expect(refused.details.envelope?.totals.costLimitUsd).toBe(0.1);
		expect(capped.fake.requests.map((request) => request.prompt)).toEqual(["scout", "item 0"]);
		// No one to ask in print mode: the run stops at its cap, resumable, rather than failing.
		expect(refused.details.envelope?.status).toBe("stopped");
		expect(refused.details.envelope?.error?.code).toBe("cost_cap");
		expect(refused.details.envelope?.error?.message).toContain(
			"Stopped at the run's cost cap: $0.10 of $0.10 spent, and no one is here to raise it.",
		);
		// The call that resumes it names the higher total it needs: the same cap would start nothing.
		expect(JSON.stringify(refused.content)).toMatch(
			/Resume with workflow\(\{ resume: \\"wf-[^"\\]+\\", maxCostUsd: 0\.2 \}\) \(maxCostUsd is the run's total cap\)/,
		);
		const raised = setUp("print", true, { maxCostUsd: 0.1 });
		const done = await raised.call({ script: script(4), maxCostUsd: 10 });
		expect(done.details.envelope?.totals.costLimitUsd).toBe(10);
		expect(raised.fake.requests).toHaveLength(5);
		expect(done.details.envelope?.totals.cost).toEqual({ usd: 0.25 });
	});
});

describe("workflow tool: the run's cost cap with a person present", () => {
	let cwd: string;
	let agentDir: string;
	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-cap-project-"));
		agentDir = mkdtempSync(join(tmpdir(), "wf-cap-agent-"));
	});
	afterEach(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(agentDir, { recursive: true, force: true });
	});

	it("in the TUI at the cap: asked what was spent of which cap; a raise picked goes on where the run was", async () => {
		const dialogs: { title: string; options: string[] }[] = [];
		const ctx = {
			cwd,
			mode: "tui",
			hasUI: true,
			ui: {
				setWidget: () => {},
				setStatus: () => {},
				select: async (title: string, options: string[]) => {
					dialogs.push({ title, options });
					return options[0];
				},
			},
		} as unknown as ExtensionToolContext;
		const fake = createFakeRunner((request) => ({ text: request.prompt, costUsd: 0.1 }));
		const tool = createWorkflowTool({
			queue: createWorkflowQueue(),
			agentDir,
			createRunner: async () => fake.runner,
		});
		const steps = `export const meta = { name: "steps", description: "d" };\nconst out = [];\nfor (const n of [1, 2, 3]) out.push(await agent("step " + n));\nreturn out;`;
		const result = await tool.execute("c", { script: steps, maxCostUsd: 0.2 }, undefined, undefined, ctx);
		expect(dialogs).toEqual([
			{
				title: "Workflow steps reached its cost cap. Spent $0.20 of the $0.20 cap; what the rest costs is not known. No new agent starts until you answer; agents already running finish. Raise the cap to go on where the run is, or stop (the run stays resumable).",
				options: ["Raise the cap to $0.40", "Raise it to another amount…", "Stop here (the run stays resumable)"],
			},
		]);
		expect(fake.requests.map((request) => request.prompt)).toEqual(["step 1", "step 2", "step 3"]);
		expect(result.details.envelope?.status).toBe("completed");
		expect(result.details.envelope?.result).toEqual(["step 1", "step 2", "step 3"]);
		expect(result.details.envelope?.totals.costLimitUsd).toBe(0.4);
	});
});

describe("fanOutQuestion", () => {
	it("a pipeline before any agent ran, under a cap", () => {
		const question = fanOutQuestion({
			kind: "pipeline",
			items: 20,
			agents: 60,
			workflow: "migrate",
			agentsRun: 0,
			spent: { usd: 0 },
			costLimitUsd: 2,
			signal: new AbortController().signal,
		});
		expect(question).toEqual({
			title: "Workflow migrate: start 60 agents?",
			message:
				"It is about to start pipeline() with 20 items (up to 60 agents). So far: no agent has run yet. The run's cap is $2.00. Yes goes on (you are not asked again in this run); No stops the workflow here, with its finished calls saved.",
		});
	});

	it("a spend with an unknown part says so", () => {
		const { message } = fanOutQuestion({
			kind: "parallel",
			items: 40,
			agents: 40,
			workflow: "w",
			agentsRun: 3,
			spent: { usd: 0.3, unpriced: 2 },
			averageUsd: 0.1,
			signal: new AbortController().signal,
		});
		expect(message).toContain(
			"So far: $0.30 + unknown over 3 agents (about $0.10 each). At that rate 40 more cost about $4.00.",
		);
	});

	it("an estimate from earlier runs: after what the run spent, before the cap", () => {
		const { message } = fanOutQuestion(
			{
				kind: "parallel",
				items: 30,
				agents: 30,
				workflow: "wide",
				agentsRun: 0,
				spent: { usd: 0 },
				costLimitUsd: 2,
				signal: new AbortController().signal,
			},
			"These 30 agents: estimated $0.60–$1.20.",
		);
		expect(message).toBe(
			"It is about to start parallel() with 30 items. So far: no agent has run yet. These 30 agents: estimated $0.60–$1.20. The run's cap is $2.00. Yes goes on (you are not asked again in this run); No stops the workflow here, with its finished calls saved.",
		);
	});
});
