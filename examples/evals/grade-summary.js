// Grades one run of map-reduce-summary for the summary-focus eval: it passes when the run completed with a single
// summary (every level merged) that names each word the case expects; the score is the share of words it names.
// Args: the grader's (case, output, status, error, costUsd, durationMs, runId); case.expect is a list of words.
// Cost: no agent calls.
export const meta = {
	name: "grade-summary",
	description: "Passes a summary that merged into one and names every word the case expects",
};

const words = Array.isArray(args.case.expect) ? args.case.expect : [];
if (args.status !== "completed" || !args.output?.summary) {
	return { pass: false, score: 0, reason: args.status === "completed" ? "no single summary" : `the run ${args.status}` };
}
const text = `${args.output.summary} ${(args.output.keyPoints ?? []).join(" ")}`.toLowerCase();
const named = words.filter((word) => text.includes(String(word).toLowerCase()));
const missing = words.filter((word) => !named.includes(word));
return {
	pass: missing.length === 0,
	score: words.length > 0 ? named.length / words.length : 1,
	reason: missing.length === 0 ? "names every expected word" : `does not name ${missing.join(", ")}`,
};
