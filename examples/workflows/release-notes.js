// Release notes for everything since a git ref: one agent splits the changes into areas, then a child workflow
// (changelog-entry.js, called by path with `workflow()`) writes each area's entry, and one agent assembles the notes.
// The child path resolves against the run's cwd, not this file's folder: the default `./changelog-entry.js` works
// with cwd = examples/workflows; from a project root pass `child: "examples/workflows/changelog-entry.js"`, or, with
// both files saved in .pi/workflows/, `child: "changelog-entry"` (a saved workflow's name, for the `workflow` tool).
// Args: since (git ref), version (heading), child (path or saved name of the child workflow).
// Cost: 1 splitter + 1–2 agents per area (in the child) + 1 writer.
export const meta = {
	name: "release-notes",
	description: "Release notes since a git ref: split into areas, a child workflow per area, then assemble",
	whenToUse: "Before tagging a release, to turn the commits since the last tag into notes users can read",
	phases: [
		{ title: "gather", detail: "split the changes into areas" },
		{ title: "entries", detail: "changelog-entry.js once per area, in parallel" },
		{ title: "assemble", detail: "one writer, breaking changes first" },
	],
	args: {
		type: "object",
		properties: {
			since: { type: "string", minLength: 1, description: "git ref of the last release, e.g. v1.4.0" },
			version: { type: "string", default: "Unreleased" },
			child: { type: "string", default: "./changelog-entry.js" },
		},
		required: ["since"],
		additionalProperties: false,
	},
};

const AREAS = {
	type: "object",
	properties: {
		areas: {
			type: "array",
			items: {
				type: "object",
				properties: { name: { type: "string" }, paths: { type: "array", items: { type: "string" }, minItems: 1 } },
				required: ["name", "paths"],
			},
		},
	},
	required: ["areas"],
};

const { since } = args;
const version = args.version ?? "Unreleased";
const child = args.child ?? "./changelog-entry.js";

phase("gather");
const found = await agent(
	`Run \`git diff --stat ${since}..HEAD\` and \`git log --oneline ${since}..HEAD\`. ` +
		"Split the changes into user-facing areas (at most 8), each with the paths it covers. " +
		"Leave out changes users cannot see (CI, internal refactors).",
	{ label: "split into areas", schema: AREAS, tools: ["bash", "read"] },
);
if (found === null) throw new Error("Could not split the changes into areas; the failure census says why");
if (found.areas.length === 0) return { version, notes: null, entries: [], missing: [] };
log(`${found.areas.length} areas`, { areas: found.areas.map((a) => a.name) });

phase("entries");
// Each child run shares this run's queue, budget and census; a child that throws leaves a null slot.
const entryFor = (area) => workflow(child, { area: area.name, paths: area.paths, since });
const entries = await parallel(found.areas.map((area) => () => entryFor(area)));
const missing = found.areas.filter((_, i) => entries[i] === null).map((a) => a.name);
const written = entries.filter((e) => e !== null);
if (written.length === 0)
	throw new Error(`No area got an entry (is \`${child}\` right for cwd ${cwd}?); see the census`);
if (missing.length > 0) log("some areas have no entry", { missing });

phase("assemble");
const section = (e) =>
	e.breaking ? `### ${e.title} (breaking)\n${e.entry}\nMigration: ${e.migration}` : `### ${e.title}\n${e.entry}`;
const ordered = [...written.filter((e) => e.breaking), ...written.filter((e) => !e.breaking)];
const notes = await agent(
	`Write the release notes for ${version} from these entries. Keep their order (breaking changes first), ` +
		`tighten the wording, add a two-sentence overview on top. Markdown only.\n\n${ordered.map(section).join("\n\n")}`,
	{ label: "assemble notes", tools: [] },
);

return { version, notes, entries: written, missing };
