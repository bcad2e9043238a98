import { describe, expect, it } from "vitest";
import { callLabelled, type Route, runExample } from "./harness.ts";

const FILE = "plan-implement-review.js";
const TASK = "Add a --json flag to the CLI";

const PLANS: Route = {
	when: { label: /^plan r/ },
	answer: (_request, n) => ({ structured: { steps: [`step A${n + 1}`, `step B${n + 1}`], tests: "npm test -- cli" } }),
};
const IMPLEMENT: Route = { when: { label: /^implement r/ }, answer: (request) => `changed cli.ts (${request.label})` };
const REJECT = {
	structured: {
		approved: false,
		issues: [
			{ severity: "blocker", detail: "--json prints a trailing comma" },
			{ severity: "minor", detail: "flag name could be shorter" },
		],
	},
};
const APPROVE = { structured: { approved: true, issues: [] } };
const rejectAlways: Route = { when: { label: /^review r/ }, answer: REJECT };

describe("plan-implement-review.js", () => {
	it("loops plan → implement → review until approved, feeding the review's blocking issues into the next plan", async () => {
		const review: Route = { when: { label: /^review r/ }, answer: (_, n) => (n === 0 ? REJECT : APPROVE) };
		const run = await runExample(FILE, { args: { task: TASK }, routes: [PLANS, IMPLEMENT, review] });
		expect(run.runner.unmatched).toEqual([]);
		expect(run.calls.map((c) => [c.label, c.phase])).toEqual([
			["plan r1", "plan"],
			["implement r1", "implement"],
			["review r1", "review"],
			["plan r2", "plan"],
			["implement r2", "implement"],
			["review r2", "review"],
		]);
		expect(callLabelled(run, "plan r1").prompt).toContain(`Plan this change: ${TASK}`);
		expect(callLabelled(run, "implement r1").prompt).toContain(
			"Follow these steps:\n1. step A1\n2. step B1\nTest it: npm test -- cli",
		);
		expect(callLabelled(run, "review r1").prompt).toContain("The implementer says:\nchanged cli.ts (implement r1)");
		const revise = callLabelled(run, "plan r2").prompt;
		expect(revise).toContain(
			"Current plan:\n1. step A1\n2. step B1\nThe reviewer found:\n1. [blocker] --json prints a trailing comma\n",
		);
		expect(revise).not.toContain("flag name");
		expect(callLabelled(run, "implement r2").prompt).toContain("1. step A2");
		expect(run.result.value).toMatchObject({
			approved: true,
			stoppedBecause: "approved",
			rounds: 2,
			work: "changed cli.ts (implement r2)",
		});
	});

	it("stops after maxRounds when the reviewer never approves", async () => {
		const run = await runExample(FILE, {
			args: { task: TASK, maxRounds: 2 },
			routes: [PLANS, IMPLEMENT, rejectAlways],
		});
		expect(run.calls).toHaveLength(6);
		expect(run.result.value).toMatchObject({ approved: false, stoppedBecause: "max rounds", rounds: 2 });
	});

	it("does not start a round the agent-call budget cannot finish", async () => {
		const run = await runExample(FILE, {
			args: { task: TASK, maxRounds: 5 },
			budget: { maxAgentCalls: 8 },
			routes: [PLANS, IMPLEMENT, rejectAlways],
		});
		expect(run.result.status).toBe("completed");
		expect(run.calls).toHaveLength(6);
		expect(run.result.value).toMatchObject({ stoppedBecause: "agent call budget", rounds: 2 });
		expect(run.logs.map((l) => l.data)).toEqual([
			{ agentCallsLeft: 8, tokensLeft: null },
			{ agentCallsLeft: 5, tokensLeft: null },
		]);
	});

	it("does not start a round when the tokens left are fewer than a round has cost so far", async () => {
		// Every child spends 40 tokens: a round costs 120. 250 pays for two rounds, leaving 10.
		const spend = (route: Route): Route => ({
			...route,
			answer: (request, n) => {
				const answer = typeof route.answer === "function" ? route.answer(request, n) : route.answer;
				return typeof answer === "string" ? { text: answer, tokens: 40 } : { ...answer, tokens: 40 };
			},
		});
		const run = await runExample(FILE, {
			args: { task: TASK, maxRounds: 5 },
			budget: { tokens: 250 },
			routes: [PLANS, IMPLEMENT, rejectAlways].map(spend),
		});
		expect(run.result.value).toMatchObject({ stoppedBecause: "token budget", rounds: 2 });
		expect(run.logs.map((l) => l.data)).toEqual([
			{ agentCallsLeft: 1000, tokensLeft: 250 },
			{ agentCallsLeft: 997, tokensLeft: 130 },
		]);
	});

	it("retries a failed implementer once, then stops and says why", async () => {
		const broken: Route = { when: { label: /^implement r/ }, answer: { fail: "edit conflict" } };
		const run = await runExample(FILE, { args: { task: TASK }, routes: [PLANS, broken] });
		expect(run.runner.requests.filter((r) => r.label === "implement r1")).toHaveLength(2);
		expect(run.result.value).toMatchObject({
			approved: false,
			stoppedBecause: "implementer failed",
			rounds: 1,
			review: null,
		});
		expect(run.result.failures).toEqual([expect.objectContaining({ label: "implement r1", phase: "implement" })]);
	});
});
