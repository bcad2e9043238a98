/**
 * The run's dollar cap as its record keeps it: `spend.json` holds the cap and each session's spend; a resume that
 * names no cap keeps the record's and counts what earlier sessions spent (so it stops at the record's total); a
 * resume that names one names the run's total as well (the same total starts nothing); a raise is recorded. The run is composed as the CLI composes it
 * (`startDurableRun`, `recordedCostBudget`, `recordRaises`), with a scripted runner: pi is not the point here.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
	askCostCapAsText,
	type CostCapAsk,
	costCapQuestion,
	parseCap,
	recordedCostBudget,
	recordRaises,
	suggestedCaps,
} from "../../src/host/cost-cap.ts";
import { RunRegistry } from "../../src/host/registry.ts";
import { startDurableRun } from "../../src/host/start-run.ts";
import { describeRun, listRuns } from "../../src/host/views.ts";
import { createWorkflowProgressTracker, formatWorkflowProgress } from "../../src/progress/index.ts";
import { loadRunReport, renderReportText } from "../../src/report/index.ts";
import { createRunStore } from "../../src/runs/index.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { createFakeRunner } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const SCRIPT = `export const meta = { name: "steps", description: "five priced steps" };
const out = [];
for (const n of [1, 2, 3, 4, 5]) out.push(await agent("step " + n));
return out;`;

let cwd: string;
let runsRoot: string;
beforeEach(() => {
	cwd = mkdtempSync(join(tmpdir(), "wf-cap-project-"));
	runsRoot = mkdtempSync(join(tmpdir(), "wf-cap-runs-"));
});
afterEach(() => {
	rmSync(cwd, { recursive: true, force: true });
	rmSync(runsRoot, { recursive: true, force: true });
});

/** One session of the run, each step a child that costs $0.10. */
async function session(options: { resume?: string; maxCostUsd?: number; ask?: CostCapAsk }) {
	const start = await startDurableRun({
		cwd,
		runsRoot,
		...(options.resume ? { resume: options.resume } : {}),
		script: () => (options.resume ? undefined : { source: SCRIPT, filename: "steps.js" }),
	});
	const fake = createFakeRunner((request) => ({ text: request.prompt, costUsd: 0.1 }));
	const tracker = createWorkflowProgressTracker();
	const budget = recordedCostBudget(start.durable, options.maxCostUsd);
	const result = await runWorkflowScript(start.source.script, {
		agentRunner: fake.runner,
		filename: start.source.filename,
		cwd,
		budget,
		...(options.ask ? { onCostCap: recordRaises(start.durable, options.ask) } : {}),
		...start.runOptions((event) => tracker.updateFromProgressEvent(event)),
	});
	const { envelope } = tracker.complete(result);
	const outcome = await start.finish(result, envelope);
	const runId = outcome.runId as string;
	const spend = JSON.parse(readFileSync(join(runsRoot, ...(await runDir(runId)), "spend.json"), "utf8"));
	return { result, prompts: fake.requests.map((request) => request.prompt), runId, spend, budget, envelope };
}

async function runDir(runId: string): Promise<string[]> {
	const record = await createRunStore({ cwd, root: runsRoot }).open(runId);
	return [record.dir.slice(runsRoot.length + 1)];
}

describe("the cap in the run record", () => {
	it("a resume with no cap of its own keeps the record's and stops at the record's total; a cap given is the run's total too", async () => {
		const first = await session({ maxCostUsd: 0.2 });
		expect(first.result.status).toBe("stopped");
		expect(first.prompts).toEqual(["step 1", "step 2"]);
		expect(first.spend).toEqual({ capUsd: 0.2, sessions: [{ startedAt: expect.any(String), usd: 0.2 }] });

		// The same cap: what the first session spent counts, so nothing new starts.
		const same = await session({ resume: first.runId });
		expect(same.budget).toEqual({ costUsd: 0.2, priorCostUsd: 0.2 });
		expect(same.prompts).toEqual([]);
		// Replays cost nothing and pass the cap; the first call that would start a child stops the run.
		expect(same.result.counts.replayed).toBe(2);
		expect(same.result.status).toBe("stopped");
		expect(same.result.error?.code).toBe("cost_cap");
		expect(same.result.error?.message).toContain("$0.20 of $0.20 spent");
		expect(same.spend.sessions.map((s: { usd: number }) => s.usd)).toEqual([0.2, 0]);

		// A cap given on the resume is the run's total too: the same $0.20 starts nothing.
		const sameGiven = await session({ resume: first.runId, maxCostUsd: 0.2 });
		expect(sameGiven.budget).toEqual({ costUsd: 0.2, priorCostUsd: 0.2 });
		expect(sameGiven.prompts).toEqual([]);
		expect(sameGiven.result.error?.code).toBe("cost_cap");

		// A higher total, $0.40: what the run spent counts, so two more steps.
		const more = await session({ resume: first.runId, maxCostUsd: 0.4 });
		expect(more.budget.costUsd).toBeCloseTo(0.4, 10);
		expect(more.prompts).toEqual(["step 3", "step 4"]);
		expect(more.spend.capUsd).toBeCloseTo(0.4, 10);

		const views = await listRuns(createRunStore({ cwd, root: runsRoot }), new RunRegistry());
		expect(views[0]?.text).toContain(" · $0.40 of a $0.40 cap in all");
		const detail = await describeRun(createRunStore({ cwd, root: runsRoot }), new RunRegistry(), first.runId);
		expect(detail).toContain("Spent in all: $0.40 of the $0.40 cap, over 4 sessions");
		expect(detail).toContain("Cost: $0.20 this session, $0.40 in all of a $0.40 cap");
	});

	it("/workflows' row of a live run parked at its cap says what it spent of which cap and that it waits", async () => {
		const tracker = createWorkflowProgressTracker();
		const fake = createFakeRunner((request) => ({ text: request.prompt, costUsd: 0.1 }));
		let row = "";
		await runWorkflowScript(SCRIPT, {
			agentRunner: fake.runner,
			budget: { costUsd: 0.15, priorCostUsd: 0.05 },
			onProgress: (event) => tracker.updateFromProgressEvent(event),
			onCostCap: async () => {
				const registry = new RunRegistry();
				registry.add({
					id: "wf-20260101-000000-abcdef",
					name: "steps",
					background: false,
					startedAt: Date.now(),
					envelope: () => tracker.getEnvelope(),
					stop: () => {},
					settled: Promise.resolve(),
				});
				row = (await listRuns(createRunStore({ cwd, root: runsRoot }), registry))[0]?.text ?? "";
				return undefined;
			},
		});
		expect(row).toContain(" · $0.15 of a $0.15 cap in all (reached: waiting for you to raise it)");
	});

	it("after a stop at the cap, nothing says it waits to be raised: the row and the text say the run stops there", async () => {
		// "slow" is still running when the person says stop: the run waits for it before it ends.
		let release: () => void = () => {};
		const slowDone = new Promise<void>((resolve) => {
			release = resolve;
		});
		const tracker = createWorkflowProgressTracker();
		const registry = new RunRegistry();
		registry.add({
			id: "wf-20260101-000000-abcdef",
			name: "steps",
			background: false,
			startedAt: Date.now(),
			envelope: () => tracker.getEnvelope(),
			stop: () => {},
			settled: slowDone,
		});
		const row = async () => (await listRuns(createRunStore({ cwd, root: runsRoot }), registry))[0]?.text ?? "";
		let whileStopping = { row: "", text: "" };
		const runner = createFakeRunner((request) => ({ text: request.prompt, costUsd: 0.1 })).runner;
		const result = await runWorkflowScript(
			`export const meta = { name: "steps", description: "d" };
const slow = agent("slow");
await agent("fast");
await agent("next");
return await slow;`,
			{
				agentRunner: async (request, options) => {
					if (request.prompt === "slow") await slowDone;
					return runner(request, options);
				},
				budget: { costUsd: 0.05 },
				onProgress: (event) => tracker.updateFromProgressEvent(event),
				onCostCap: async () => {
					// Once the run has taken the answer (its continuation runs before the next macrotask), look, then
					// let "slow" end.
					setImmediate(async () => {
						whileStopping = { row: await row(), text: formatWorkflowProgress(tracker.getEnvelope()) };
						release();
					});
					return undefined;
				},
			},
		);
		expect(result.error?.code).toBe("cost_cap");
		expect(whileStopping.row).toContain(" · $0.10 of a $0.05 cap in all (reached: stopping once running agents end)");
		expect(whileStopping.text).toContain("of a $0.05 cap, reached: stopping once running agents end");
		expect(whileStopping.text).not.toContain("waiting");
		const { envelope } = tracker.complete(result);
		const text = formatWorkflowProgress(envelope);
		expect(text).toContain("Cost: $0.20 of a $0.05 cap, reached: the run stopped there");
		expect(text).not.toContain("waiting");
	});

	it("the call the cap stopped is stopped everywhere: the progress, /workflows and the report", async () => {
		const first = await session({ maxCostUsd: 0.2 });
		expect(first.prompts).toEqual(["step 1", "step 2"]);
		const third = first.envelope.agentCalls.find((call) => call.label === "step 3");
		expect(third?.status).toBe("stopped");
		const store = createRunStore({ cwd, root: runsRoot });
		const detail = await describeRun(store, new RunRegistry(), first.runId);
		expect(detail).toMatch(/#3 step 3 \(general-purpose\) · stopped: /);
		// How to go on names a total that starts something: the same $0.20 would not.
		expect(detail).toContain(
			`Resume: workflow({ resume: "${first.runId}", maxCostUsd: 0.4 }) (maxCostUsd is the run's total cap)`,
		);
		const report = await loadRunReport(store, first.runId);
		expect(report.calls.find((call) => call.label === "step 3")?.outcome).toBe("stopped");
		const text = renderReportText(report, { width: 120 });
		expect(text).toContain("2 completed, 0 failed, 1 stopped, 0 skipped of 3 calls");
		expect(text).toMatch(/#3 step 3 \|[ ■]+\| stopped · Stopped at the run's cost cap/);
	});

	it("a raise goes into the record: the next resume holds at the raised cap", async () => {
		const first = await session({ maxCostUsd: 0.2, ask: async () => 0.3 });
		expect(first.prompts).toEqual(["step 1", "step 2", "step 3"]);
		expect(first.result.status).toBe("stopped");
		expect(first.spend.capUsd).toBe(0.3);
		const resumed = await session({ resume: first.runId });
		expect(resumed.budget.costUsd).toBe(0.3);
		expect(resumed.prompts).toEqual([]);
	});
});

describe("the question at the cap", () => {
	const info = (extra: { estimateMoreUsd?: number; unpriced?: number } = {}) => ({
		workflow: "steps",
		spentUsd: 1.2,
		capUsd: 1,
		agentsRun: 6,
		signal: new AbortController().signal,
		...extra,
	});

	it("says what was spent of which cap and, when the host has one, the estimate of the rest", () => {
		expect(costCapQuestion(info({ estimateMoreUsd: 0.8, unpriced: 2 })).message).toBe(
			"Spent $1.20 (and 2 replies of models with no known price) of the $1.00 cap; about $0.80 more to finish (estimate). No new agent starts until you answer; agents already running finish. Raise the cap to go on where the run is, or stop (the run stays resumable).",
		);
		expect(suggestedCaps(info({ estimateMoreUsd: 0.8 }))).toEqual([2.2, 2.4]);
		expect(suggestedCaps(info())).toEqual([2.4]);
	});

	it.each([
		["2", 2],
		["$2.50", 2.5],
		["1.2", undefined],
		["lots", undefined],
		["-3", undefined],
	])("typed %j: %j", (text, cap) => {
		expect(parseCap(text, 1.2)).toBe(cap);
	});

	it("as text: a bad answer is said and asked again; an amount raises, stop stops", async () => {
		const said: string[] = [];
		const answers = ["lots", "3"];
		const questions: string[] = [];
		const ask = askCostCapAsText(
			(question) => {
				questions.push(question.question);
				return answers.shift();
			},
			(line) => said.push(line),
		);
		expect(await ask(info())).toBe(3);
		expect(questions).toHaveLength(2);
		expect(questions[0]).toMatch(/^Workflow steps reached its cost cap\. Spent \$1\.20 of the \$1\.00 cap;/);
		expect(questions[0]).toMatch(/New cap in US dollars such as \$2\.40, or "stop"$/);
		expect(said).toEqual(['"lots" is not a dollar amount above $1.20; give one, or stop']);
		expect(
			await askCostCapAsText(
				() => "stop",
				() => {},
			)(info()),
		).toBeUndefined();
	});
});
