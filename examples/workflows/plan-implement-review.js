// Plan a change, implement it, review it, and loop (revise the plan from the review, implement again) until the
// reviewer approves or a bound is hit: maxRounds, the run's agent-call budget, or its token budget.
// Args: task, maxRounds (default 3).
// Cost: 3 agents per round (plan or revise, implement, review): 3 to 3 × maxRounds, and never a round the budget
// cannot finish.
export const meta = {
	name: "plan-implement-review",
	description: "Plan → implement → review, looping on the review's issues for a bounded number of rounds",
	whenToUse: "A change big enough to plan first, where you want a reviewer to sign off before it is done",
	phases: [
		{ title: "plan", detail: "round 1: plan; later rounds: revise from the review" },
		{ title: "implement", detail: "carry out the plan" },
		{ title: "review", detail: "approve, or list blocking issues" },
	],
	args: {
		type: "object",
		properties: {
			task: { type: "string", minLength: 1 },
			maxRounds: { type: "integer", minimum: 1, maximum: 6, default: 3 },
		},
		required: ["task"],
		additionalProperties: false,
	},
};

const PLAN = {
	type: "object",
	properties: { steps: { type: "array", items: { type: "string" }, minItems: 1 }, tests: { type: "string" } },
	required: ["steps", "tests"],
};
const REVIEW = {
	type: "object",
	properties: {
		approved: { type: "boolean" },
		issues: {
			type: "array",
			items: {
				type: "object",
				properties: { severity: { type: "string", enum: ["blocker", "major", "minor"] }, detail: { type: "string" } },
				required: ["severity", "detail"],
			},
		},
	},
	required: ["approved", "issues"],
};
const READ_ONLY = ["read", "grep", "find", "ls"];
const CALLS_PER_ROUND = 3;

const { task } = args;
const maxRounds = args.maxRounds ?? 3;
const asList = (items) => items.map((item, i) => `${i + 1}. ${item}`).join("\n");

let plan = null;
let review = null;
let work = null;
let rounds = 0;
let stoppedBecause = "max rounds";

for (let round = 1; round <= maxRounds; round++) {
	// Start a round only if the budget can pay for all of it. A token round is estimated from the rounds so far.
	const tokensPerRound = rounds > 0 ? budget.tokens.spent() / rounds : 0;
	if (budget.agentCalls.remaining < CALLS_PER_ROUND) {
		stoppedBecause = "agent call budget";
		break;
	}
	if (budget.tokens.remaining() <= tokensPerRound) {
		stoppedBecause = "token budget";
		break;
	}
	rounds = round;
	const tokensLeft = budget.tokens.total === null ? null : budget.tokens.remaining();
	log(`round ${round}`, { agentCallsLeft: budget.agentCalls.remaining, tokensLeft });

	phase("plan");
	const blocking = review ? review.issues.filter((issue) => issue.severity !== "minor") : [];
	plan = await agent(
		plan === null
			? `Plan this change: ${task}\nRead the code it touches. Give small ordered steps and how to test the result.`
			: `Revise the plan for: ${task}\nCurrent plan:\n${asList(plan.steps)}\nThe reviewer found:\n${asList(blocking.map((i) => `[${i.severity}] ${i.detail}`))}\nGive the steps that fix these, in order.`,
		{ label: `plan r${round}`, schema: PLAN, tools: READ_ONLY },
	);
	if (plan === null) {
		stoppedBecause = "planner failed";
		break;
	}

	phase("implement");
	work = await agent(`Implement: ${task}\nFollow these steps:\n${asList(plan.steps)}\nTest it: ${plan.tests}\nReply with what you changed.`, {
		label: `implement r${round}`,
		retries: 1,
	});
	if (work === null) {
		stoppedBecause = "implementer failed";
		break;
	}

	phase("review");
	review = await agent(
		`Review the change made for: ${task}\nThe implementer says:\n${work}\nRead the diff and run the tests. Approve only if nothing blocker or major is left.`,
		{ label: `review r${round}`, schema: REVIEW, tools: [...READ_ONLY, "bash"] },
	);
	if (review?.approved) {
		stoppedBecause = "approved";
		break;
	}
	// A failed review is not an approval: the next round re-checks the change.
	if (review === null) review = { approved: false, issues: [{ severity: "major", detail: "the review failed; re-check" }] };
}

return { task, approved: stoppedBecause === "approved", stoppedBecause, rounds, plan, work, review };
