// Answer a question with a cited brief: split it into angles, research each angle, have independent skeptics vote on
// every claim (majority of the votes cast; a skeptic that fails abstains), then write the brief from what survived.
// Args: question, angles (how many, default 4), skeptics (votes per claim, default 3), maxClaims (default 12).
// Cost: 1 planner + one researcher per angle + maxClaims × skeptics voters + 1 writer: at most 42 by default.
export const meta = {
	name: "research-brief",
	description: "Split a question into angles, research each, cross-check claims by skeptic vote, write a cited brief",
	whenToUse: "A question needs several sources and you want every claim in the answer checked before it is written",
	phases: [
		{ title: "split", detail: "one planner picks the angles" },
		{ title: "research", detail: "one researcher per angle" },
		{ title: "cross-check", detail: "independent skeptics vote on each claim" },
		{ title: "write", detail: "one writer, only supported claims" },
	],
	args: {
		type: "object",
		properties: {
			question: { type: "string", minLength: 1 },
			angles: { type: "integer", minimum: 1, maximum: 8, default: 4 },
			skeptics: { type: "integer", minimum: 1, maximum: 7, default: 3 },
			maxClaims: { type: "integer", minimum: 1, maximum: 40, default: 12 },
		},
		required: ["question"],
		additionalProperties: false,
	},
};

const ANGLES = {
	type: "object",
	properties: {
		angles: {
			type: "array",
			minItems: 1,
			items: {
				type: "object",
				properties: { title: { type: "string" }, question: { type: "string" } },
				required: ["title", "question"],
			},
		},
	},
	required: ["angles"],
};
const FINDINGS = {
	type: "object",
	properties: {
		claims: {
			type: "array",
			items: {
				type: "object",
				properties: { claim: { type: "string" }, source: { type: "string", description: "URL or file:line" } },
				required: ["claim", "source"],
			},
		},
	},
	required: ["claims"],
};
const VOTE = {
	type: "object",
	properties: { verdict: { type: "string", enum: ["supported", "refuted", "unsure"] }, reason: { type: "string" } },
	required: ["verdict", "reason"],
};

const { question } = args;
const maxAngles = args.angles ?? 4;
const skeptics = args.skeptics ?? 3;

const research = (angle) =>
	agent(
		`Research: ${angle.question}\n(Part of the larger question: ${question})\n` +
			"Give each claim with the source you read it in (URL, or file:line in this repository). " +
			"Claims without a source do not count.",
		{ label: `research:${angle.title}`, schema: FINDINGS },
	);
// The skeptic's number in the prompt makes the calls distinct and tells each one it works alone; no randomness.
const vote = (claim, k) =>
	agent(
		`You are skeptic ${k + 1} of ${skeptics}, working alone. Check this claim against its source and one other ` +
			"source you find yourself. Say refuted if it is wrong, unsure if you cannot tell.\n\n" +
			`Claim: ${claim.claim}\nSource: ${claim.source}`,
		{ label: `skeptic ${k + 1}:${claim.id}`, schema: VOTE },
	);

phase("split");
const plan = await agent(
	`Split this question into at most ${maxAngles} independent research angles, each answerable alone:\n\n${question}`,
	{ label: "split", schema: ANGLES },
);
if (plan === null) throw new Error("The planner failed, so there is nothing to research; the failure census says why");
const angles = plan.angles.slice(0, maxAngles);
log("angles", { angles: angles.map((a) => a.title) });

phase("research");
const found = await parallel(angles.map((angle) => () => research(angle)));
const unresearched = angles.filter((_, i) => found[i] === null).map((a) => a.title);
const claims = found
	.flatMap((f, i) => (f?.claims ?? []).map((c) => ({ ...c, angle: angles[i].title })))
	.slice(0, args.maxClaims ?? 12)
	.map((c, i) => ({ ...c, id: `C${i + 1}` }));
log(`${claims.length} claims to cross-check`, { unresearched });

phase("cross-check");
// One flat parallel() for every vote: claim i's votes are slots i*skeptics … (i+1)*skeptics-1.
const ballots = await parallel(claims.flatMap((c) => Array.from({ length: skeptics }, (_, k) => () => vote(c, k))));
// Majority of the votes cast: a skeptic that failed (null) or is unsure abstains; a tie is contested.
const checked = claims.map((c, i) => {
	const votes = ballots.slice(i * skeptics, (i + 1) * skeptics);
	const cast = votes.filter((v) => v !== null && v.verdict !== "unsure");
	const yes = cast.filter((v) => v.verdict === "supported").length;
	const no = cast.length - yes;
	const status = cast.length === 0 ? "unchecked" : yes > no ? "supported" : no > yes ? "refuted" : "contested";
	return { ...c, status, votes: { yes, no, abstained: votes.length - cast.length } };
});
const supported = checked.filter((c) => c.status === "supported");
log("votes counted", { supported: supported.length, dropped: checked.length - supported.length });

phase("write");
const sources = [...new Set(supported.map((c) => c.source))];
const cited = supported.map((c) => `- ${c.claim} [${sources.indexOf(c.source) + 1}]`).join("\n");
const sourceList = sources.map((s, i) => `[${i + 1}] ${s}`).join("\n");
const gaps =
	unresearched.length > 0 ? `\nSay that these angles could not be researched: ${unresearched.join(", ")}.` : "";
const brief =
	supported.length === 0
		? null
		: await agent(
				`Write a brief (at most 400 words) answering: ${question}\n\n` +
					`Use only these checked claims and cite each with its [n]:\n${cited}\n\n` +
					`End with this "Sources" list:\n${sourceList}${gaps}`,
				{ label: "write" },
			);

return { question, brief, sources, claims: checked, unresearched };
