/**
 * An eval blames its failing trials (issue 45.4): each against a passing trial of its case (its own arm's first),
 * in the scorecard's data and text, and each arm's summary counts which calls were decisive. Trials are real runs on
 * pi sessions with the faux provider; every other `draft` answer is bad.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPiAgentRunner } from "../../src/children/agent-runner.ts";
import { evaluateWorkflows } from "../../src/eval/evaluate-workflows.ts";
import { scorecardText } from "../../src/eval/index.ts";
import { type AgentDirs, createAgentDirs } from "../agents/agent-files.ts";
import { createFauxHarness, type FauxHarness, fauxAssistantMessage } from "../helpers/faux.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

let faux: FauxHarness;
let dirs: AgentDirs;

beforeAll(async () => {
	faux = await createFauxHarness();
	dirs = createAgentDirs();
	let drafts = 0;
	faux.route(
		/^research /,
		Array.from({ length: 20 }, () => (request) => fauxAssistantMessage(`notes on ${request.task.slice(9)}`)),
	);
	faux.route(
		/^draft /,
		Array.from({ length: 20 }, () => () => fauxAssistantMessage(++drafts % 2 === 0 ? "BAD draft" : "a good draft")),
	);
	faux.route(
		/^check /,
		Array.from({ length: 20 }, () => fauxAssistantMessage("ok")),
	);
	dirs.write(
		"write.js",
		`export const meta = { name: "write", description: "research, draft, check" };
const notes = await agent("research " + args.topic, { label: "research" });
const draft = await agent("draft " + args.topic + " from: " + notes, { label: "draft" });
const verdict = await agent("check " + args.topic + " against: " + notes, { label: "check" });
return { notes, draft, verdict };
`,
	);
	dirs.write(
		"grade.js",
		`export const meta = { name: "grade", description: "no bad draft" };
return { pass: args.status === "completed" && !String(args.output.draft).includes("BAD") };
`,
	);
});
afterAll(() => {
	faux.dispose();
	dirs.dispose();
});

describe("eval blames its failing trials", () => {
	it("names the decisive call of each failing trial, and counts them per arm", async () => {
		const card = await evaluateWorkflows(
			{
				name: "blame",
				cases: [{ id: "parsers", args: { topic: "parsers" } }],
				arms: { A: { workflow: "write.js" } },
				trials: 4,
				concurrency: 1,
				grader: "grade.js",
			},
			{
				cwd: dirs.cwd,
				agentDir: dirs.agentDir,
				agentRunner: createPiAgentRunner({
					cwd: dirs.cwd,
					agentDir: dirs.agentDir,
					modelRuntime: faux.modelRuntime,
					defaultModel: faux.model,
				}),
			},
		);
		expect(card.arms.A?.passRate).toBe(0.5);
		const failing = card.trials.filter((trial) => trial.grade?.pass === false);
		expect(card.blame?.trials.map((blame) => [blame.trial, blame.decisive, blame.against?.arm])).toEqual(
			failing.map((trial) => [trial.trial, ["draft"], "A"]),
		);
		expect(card.blame?.arms.A).toEqual({ failing: 2, blamed: 2, decisive: { draft: 2 } });
		const text = scorecardText(card);
		expect(text).toContain("Blame, arm A: `draft` decided 2 of 2 failing trials");
		expect(text).toContain(
			`  A parsers #${failing[0]?.trial}: failed because of \`draft\`: swapping its answer passes; \`research\`, \`check\` did not matter (against A #`,
		);
	}, 120_000);
});
