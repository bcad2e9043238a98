// Summarize a change in one line, for a changelog or a commit message. Ships a cassette
// (change-summary.cassette.json): `pi-workflows verify review-kit:change-summary` replays it offline.
export const meta = {
	name: "change-summary",
	description: "Summarize a change in one line for a changelog",
	args: {
		type: "object",
		properties: { change: { type: "string", minLength: 1 } },
		required: ["change"],
		additionalProperties: false,
	},
};

const line = await agent(`Summarize this change in one line of at most 80 characters:\n\n${args.change}`, {
	label: "summary",
});
return { summary: line.trim() };
