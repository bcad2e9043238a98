// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the scripts under test hold template substitutions.
/**
 * A dry run warns of an `ask()` question built from an agent's answer: the sampled answer is short, but a real one
 * is bounded only by what the model writes, and a question past the limit fails the run at that `ask()` after the
 * agent was paid for. A question with the answer in `details`, or built from `args`, gets no such warning.
 */
import { describe, expect, it } from "vitest";
import { dryRunWorkflowScript } from "../../../src/runtime/index.ts";
import { HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const WARNING =
	'`ask()` question #1 ("Apply this plan? [dry run] answer of agent call #1 (plan)") is built from the answer of agent call #1 (`plan`): a real answer can be longer than the 2,000 characters a question may have, which fails the run at this `ask()` after the agent was paid for. Keep the question short and pass the answer as `details` (up to 65,536 characters): `ask("Apply this plan?", { details: plan })`';

async function warnings(body: string): Promise<string[]> {
	const { plan } = await dryRunWorkflowScript(`${HEADER}${body}`, { args: { task: "rename" } });
	expect(plan.status, JSON.stringify(plan.error)).toBe("completed");
	return plan.warnings;
}

describe("a dry run's ask() built from an agent's answer", () => {
	it("warns, naming the question, the call and what to write instead", async () => {
		expect(
			await warnings(
				'const plan = await agent("Plan it", { label: "plan" });\nreturn await ask(`Apply this plan?\\n${plan}`, { default: "no" });',
			),
		).toEqual([WARNING]);
	});

	it("says nothing when the answer is in details, or the question is built from args", async () => {
		expect(
			await warnings(
				'const plan = await agent("Plan it", { label: "plan" });\nreturn await ask("Apply this plan?", { details: plan, default: "no" });',
			),
		).toEqual([]);
		expect(await warnings('return await ask("Rename " + args.task + "?", { default: "no" });')).toEqual([]);
	});
});
