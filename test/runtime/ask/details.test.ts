/**
 * `ask(question, { details })`: material shown with a short question (a plan, a diff), bounded on its own, given to
 * the host's handler, and part of the question's identity in the journal (an answer given to one plan never
 * replays for another).
 */
import { describe, expect, it } from "vitest";
import {
	checkWorkflowScript,
	runWorkflowScript,
	type WorkflowQuestion,
	type WorkflowRunOptions,
} from "../../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { memoryJournal } from "../../helpers/memory-journal.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

async function run(body: string, options: Partial<WorkflowRunOptions> = {}) {
	const asked: WorkflowQuestion[] = [];
	const result = await runWorkflowScript(`${HEADER}${body}`, {
		agentRunner: createFakeRunner((request) => ({ text: request.prompt.endsWith("B") ? "plan B" : PLAN })).runner,
		ask: (question) => {
			asked.push(question);
			return "apply";
		},
		...options,
	});
	return { result, asked };
}

/** A plan of some 7 KB, as a planner writes one. */
const PLAN = Array.from(
	{ length: 120 },
	(_, i) => `${i + 1}. Change src/module-${i}.ts so that it does the thing`,
).join("\n");

describe("ask() details", () => {
	it("a 7 KB plan goes in details with a short question: the handler gets both, the answer comes back", async () => {
		expect(PLAN.length).toBeGreaterThan(6000);
		const { result, asked } = await run(
			`const plan = await agent("Plan");\nreturn await ask("Apply this plan?", { choices: ["apply", "stop"], details: plan });`,
		);
		expect(result).toMatchObject({ status: "completed", value: "apply" });
		expect(asked).toEqual([expect.objectContaining({ question: "Apply this plan?", details: PLAN })]);
	});

	it("a question too long says to put the material in details", async () => {
		const { result } = await run(`const plan = await agent("Plan");\nawait ask(\`Apply this plan?\\n\${plan}\`);`);
		expect(result.error).toMatchObject({
			code: "ask_options_invalid",
			message: `\`ask()\` question is ${PLAN.length + 17} characters (limit: 2000). Keep the question short and put the material in the \`details\` option (up to 65,536 characters): \`ask("Apply this plan?", { details: plan })\` (3:10)`,
		});
	});

	it("details past 65,536 characters, or not a string, are refused naming the option", async () => {
		const long = await run(`await ask("Apply?", { details: "x".repeat(70000) });`);
		expect(long.result.error).toMatchObject({
			code: "ask_options_invalid",
			message:
				"`ask()` option `details` is 70000 characters (limit: 65,536). Show a summary, and let the person read the rest where it is written (a file, the run's report) (2:10)",
		});
		const wrong = await run(`await ask("Apply?", { details: { plan: 1 } });`);
		expect(wrong.result.error?.message).toBe('`ask()` option `details` must be a string, got {"plan":1} (2:10)');
	});

	it("is part of the question's identity: the same plan replays its answer, another plan is asked again", async () => {
		const journal = memoryJournal();
		const body = (prompt: string) =>
			`const plan = await agent("${prompt}");\nreturn await ask("Apply this plan?", { details: plan });`;
		const first = await run(body("Plan"), { journal });
		expect(first.asked).toHaveLength(1);
		const same = await run(body("Plan"), { journal });
		expect(same.asked).toEqual([]);
		expect(same.result.value).toBe("apply");
		const other = await run(body("Plan B"), { journal });
		expect(other.asked).toEqual([expect.objectContaining({ details: "plan B" })]);
	});

	it("check (the static pass) refuses a literal details that is not a string, at the call", () => {
		const report = checkWorkflowScript(`${HEADER}await ask("Apply?", { details: 42 });`);
		expect(report.diagnostics.map((d) => `${d.line}:${d.column} ${d.code} ${d.message}`)).toEqual([
			"2:10 ask_options_invalid `ask()` option `details` must be a string, got 42",
		]);
	});
});
