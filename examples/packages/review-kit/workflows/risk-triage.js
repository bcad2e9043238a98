// Rate a change's risk (low, medium, high) with a reason, from two independent reviewers; the higher rating wins.
export const meta = {
	name: "risk-triage",
	description: "Rate a change's risk from two independent reviewers; the higher rating wins",
	args: {
		type: "object",
		properties: { change: { type: "string", minLength: 1 } },
		required: ["change"],
		additionalProperties: false,
	},
};

const RATING = {
	type: "object",
	properties: { risk: { enum: ["low", "medium", "high"] }, reason: { type: "string" } },
	required: ["risk", "reason"],
};
const ORDER = ["low", "medium", "high"];
const ratings = await parallel(
	["correctness", "operations"].map((angle) => () =>
		agent(`Rate the ${angle} risk of this change as low, medium or high, with one reason:\n\n${args.change}`, {
			label: `rate ${angle}`,
			schema: RATING,
		}),
	),
);
return ratings.filter(Boolean).reduce((worst, rating) => (ORDER.indexOf(rating.risk) > ORDER.indexOf(worst.risk) ? rating : worst));
