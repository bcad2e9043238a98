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
				properties: {
					severity: { type: "string", enum: ["blocker", "major", "minor"] },
					detail: { type: "string" },
				},
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

const makePlan = (round, previous, review) => {
	if (previous === null) {
		return agent(
			`Plan this change: ${task}\nRead the code it touches. Give small ordered steps and how to test the result.`,
			{ label: `plan r${round}`, schema: PLAN, tools: READ_ONLY },
		);
	}
	const blocking = review.issues.filter((i) => i.severity !== "minor").map((i) => `[${i.severity}] ${i.detail}`);
	return agent(
		`Revise the plan for: ${task}\nCurrent plan:\n${asList(previous.steps)}\n` +
			`The reviewer found:\n${asList(blocking)}\nGive the steps that fix these, in order.`,
		{ label: `plan r${round}`, schema: PLAN, tools: READ_ONLY },
	);
};
// `retries: 1`: an implementer that fails (provider error, timeout) gets one more try before the loop gives up.
const implement = (round, plan) =>
	agent(
		`Implement: ${task}\nFollow these steps:\n${asList(plan.steps)}\nTest it: ${plan.tests}\n` +
			"Reply with what you changed.",
		{ label: `implement r${round}`, retries: 1 },
	);
const reviewWork = (round, work) =>
	agent(
		`Review the change made for: ${task}\nThe implementer says:\n${work}\n` +
			"Read the diff and run the tests. Approve only if nothing blocker or major is left.",
		{ label: `review r${round}`, schema: REVIEW, tools: [...READ_ONLY, "bash"] },
	);

// Start a round only if the budget can pay for all of it; a round's tokens are estimated from the rounds so far.
function budgetStop(roundsDone) {
	if (budget.agentCalls.remaining < CALLS_PER_ROUND) return "agent call budget";
	const tokensPerRound = roundsDone > 0 ? budget.tokens.spent() / roundsDone : 0;
	if (budget.tokens.remaining() <= tokensPerRound) return "token budget";
	return null;
}

let plan = null;
let work = null;
let review = null;
let rounds = 0;
let stoppedBecause = "max rounds";
for (let round = 1; round <= maxRounds; round++) {
	const stop = budgetStop(rounds);
	if (stop) {
		stoppedBecause = stop;
		break;
	}
	rounds = round;
	const tokensLeft = budget.tokens.total === null ? null : budget.tokens.remaining();
	log(`round ${round}`, { agentCallsLeft: budget.agentCalls.remaining, tokensLeft });

	plan = await phase("plan", () => makePlan(round, plan, review));
	if (plan === null) {
		stoppedBecause = "planner failed";
		break;
	}
	work = await phase("implement", () => implement(round, plan));
	if (work === null) {
		stoppedBecause = "implementer failed";
		break;
	}
	// A failed review (null) is not an approval: the next round plans from a request to re-check.
	review = (await phase("review", () => reviewWork(round, work))) ?? {
		approved: false,
		issues: [{ severity: "major", detail: "the review failed; re-check the change" }],
	};
	if (review.approved) {
		stoppedBecause = "approved";
		break;
	}
}

return { task, approved: stoppedBecause === "approved", stoppedBecause, rounds, plan, work, review };
