/**
 * The host API's `evaluateWorkflows`: an eval written in code, its trials run by the caller's runner (real pi
 * sessions on the faux provider), each a recorded run in the run store, graded by a grader script, kept in the eval
 * store so `--list` and a resume find it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPiAgentRunner } from "../../src/children/agent-runner.ts";
import { evalsRoot, exitCodeOf, listEvals } from "../../src/eval/index.ts";
import { evaluateWorkflows } from "../../src/pi.ts";
import { createRunStore } from "../../src/runs/index.ts";
import { type AgentDirs, createAgentDirs } from "../agents/agent-files.ts";
import { createFauxHarness, type FauxHarness, fauxAssistantMessage } from "../helpers/faux.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

let faux: FauxHarness;
let dirs: AgentDirs;

beforeAll(async () => {
	faux = await createFauxHarness();
	dirs = createAgentDirs();
	// Children asked to `echo w` answer W; any other task gets a shrug.
	faux.route(
		/^echo /,
		Array.from({ length: 40 }, () => (request) => fauxAssistantMessage(request.task.slice(5).toUpperCase())),
	);
	faux.route(
		/^say /,
		Array.from({ length: 40 }, () => fauxAssistantMessage("no idea")),
	);
	dirs.write(
		"weak.js",
		`export const meta = { name: "weak", description: "right on one case in four" };\nreturn await agent((args.n % 4 === 0 ? "echo " : "say ") + args.word);\n`,
	);
	dirs.write(
		"strong.js",
		`export const meta = { name: "strong", description: "right on every case" };\nreturn await agent("echo " + args.word);\n`,
	);
	dirs.write(
		"grade.js",
		`export const meta = { name: "grade", description: "the word in capitals" };\nreturn { pass: String(args.output).includes(args.case.expect), reason: String(args.output) };\n`,
	);
});
afterAll(() => {
	faux.dispose();
	dirs.dispose();
});

describe("evaluateWorkflows", () => {
	it("runs each case through each arm as recorded runs, grades them, and keeps the eval", async () => {
		const runner = createPiAgentRunner({
			cwd: dirs.cwd,
			agentDir: dirs.agentDir,
			modelRuntime: faux.modelRuntime,
			defaultModel: faux.model,
		});
		const seen: string[] = [];
		const card = await evaluateWorkflows(
			{
				name: "host-ab",
				cases: Array.from({ length: 4 }, (_, n) => ({ id: `c${n}`, args: { n, word: `w${n}` }, expect: `W${n}` })),
				arms: { A: { workflow: "weak.js" }, B: { workflow: "strong.js" } },
				trials: 2,
				grader: "grade.js",
			},
			{
				cwd: dirs.cwd,
				agentDir: dirs.agentDir,
				agentRunner: runner,
				onTrial: (trial, finished, planned) => seen.push(`${finished}/${planned} ${trial.arm} ${trial.caseId}`),
			},
		);
		expect(card).toMatchObject({ name: "host-ab", planned: 16, finished: 16, baseline: "A", ungraded: [] });
		expect(card.arms.A?.passRate).toBe(0.25);
		expect(card.arms.B?.passRate).toBe(1);
		expect(seen.map((line) => line.split(" ")[0])).toEqual(Array.from({ length: 16 }, (_, i) => `${i + 1}/16`));
		expect(card.trials.find((t) => t.arm === "A" && t.caseId === "c1")?.grade).toEqual({
			pass: false,
			reason: "no idea",
			costUsd: 0,
		});
		// Every trial is a run of the run store, its output the script's value.
		const runs = await createRunStore({ cwd: dirs.cwd, root: `${dirs.agentDir}/workflow-runs` }).list();
		expect(runs.map((run) => run.id).sort()).toEqual(card.trials.map((trial) => trial.runId).sort());
		expect(exitCodeOf(card)).toBe(card.comparisons[0]?.verdict === "worse" ? 1 : 0);
		expect(await listEvals(evalsRoot(dirs.agentDir))).toEqual([
			expect.objectContaining({ id: card.evalId, name: "host-ab", planned: 16, finished: 16 }),
		]);
	}, 120_000);
});
