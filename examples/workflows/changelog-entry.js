// Write the changelog entry for one area of a release: draft it from the area's commits and diff, and when the
// change is breaking, have a second agent check the migration note against the diff. Runs alone, or as the child of
// release-notes.js (which calls it once per area with `workflow()`).
// Args: area (a name), paths (the files or folders of that area), since (git ref of the last release).
// Cost: 1 agent, 2 when the change is breaking.
export const meta = {
	name: "changelog-entry",
	description: "Changelog entry for one area since a git ref, with a checked migration note when it breaks things",
	whenToUse: "Writing the release notes of one area; release-notes.js calls it for every area",
	phases: [
		{ title: "draft", detail: "read the commits and diff of the area" },
		{ title: "check", detail: "only for breaking changes: is the migration note right?" },
	],
	args: {
		type: "object",
		properties: {
			area: { type: "string", minLength: 1 },
			paths: { type: "array", items: { type: "string" }, minItems: 1 },
			since: { type: "string", minLength: 1, description: "git ref, e.g. v1.4.0" },
		},
		required: ["area", "paths", "since"],
		additionalProperties: false,
	},
};

const ENTRY = {
	type: "object",
	properties: {
		title: { type: "string" },
		entry: { type: "string", description: "markdown bullets for users, not commit messages" },
		breaking: { type: "boolean" },
		migration: { type: "string", description: "what users must change; empty when not breaking" },
	},
	required: ["title", "entry", "breaking", "migration"],
};
const CHECK = {
	type: "object",
	properties: { accurate: { type: "boolean" }, migration: { type: "string", description: "the corrected note" } },
	required: ["accurate", "migration"],
};

const { area, paths, since } = args;
const scope = paths.join(" ");
const gitLog = `git log ${since}..HEAD -- ${scope}`;
const gitDiff = `git diff ${since}..HEAD -- ${scope}`;

phase("draft");
const draft = await agent(
	`Draft the changelog entry for the "${area}" area. Read \`${gitLog}\` and \`${gitDiff}\`. ` +
		"Write for users: what changed for them, not how. " +
		"Say whether anything breaks existing users, and if so how they migrate.",
	{ label: `draft ${area}`, schema: ENTRY, tools: ["read", "bash", "grep"] },
);
// Throwing fails this workflow; the parent's workflow() call then throws, and its parallel() slot becomes null.
if (draft === null) throw new Error(`No changelog entry for ${area}: the drafting agent failed`);

phase("check");
let migration = draft.migration;
if (draft.breaking) {
	const check = await agent(
		`Check this migration note for the "${area}" area against \`${gitDiff}\`. ` +
			`Would a user who follows it end up with working code? Correct it if not.\n\n${draft.migration}`,
		{ label: `check ${area}`, schema: CHECK, tools: ["read", "bash", "grep"] },
	);
	if (check !== null && !check.accurate) {
		log(`corrected the migration note of ${area}`);
		migration = check.migration;
	}
}

return { area, title: draft.title, entry: draft.entry, breaking: draft.breaking, migration };
