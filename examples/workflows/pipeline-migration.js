// Apply one migration file by file. Each file flows through analyse → change → check on its own (pipeline: no
// barrier, so a fast file is checked while a slow one is still being analysed). A file whose agent fails is reported
// with the stage it reached, never dropped.
// Args: files (paths), migration (what to change), check (command the checker runs; default `npx tsc --noEmit`).
// Cost: up to 3 agents per file (analyse, change, check); a file that needs no change costs 1.
export const meta = {
	name: "pipeline-migration",
	description: "Migrate many files through analyse → change → check, each file on its own, failures reported",
	whenToUse: "A mechanical change across many files (API rename, library swap) where each file can be done alone",
	phases: [
		{ title: "analyse", detail: "does this file need the change, and how" },
		{ title: "change", detail: "edit the file" },
		{ title: "check", detail: "run the check, judge this file only" },
		{ title: "report", detail: "migrated, unchanged, check-failed and failed files" },
	],
	args: {
		type: "object",
		properties: {
			files: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 500, uniqueItems: true },
			migration: { type: "string", minLength: 1, description: "e.g. replace moment with date-fns" },
			check: { type: "string", default: "npx tsc --noEmit" },
		},
		required: ["files", "migration"],
		additionalProperties: false,
	},
};

const ANALYSIS = {
	type: "object",
	properties: { needed: { type: "boolean" }, plan: { type: "string" } },
	required: ["needed", "plan"],
};
const CHANGE = {
	type: "object",
	properties: { changed: { type: "boolean" }, summary: { type: "string" } },
	required: ["changed", "summary"],
};
const CHECK = {
	type: "object",
	properties: { ok: { type: "boolean" }, output: { type: "string", description: "the errors in this file, if any" } },
	required: ["ok", "output"],
};

const { files, migration } = args;
const check = args.check ?? "npx tsc --noEmit";
// Which stage each file reached, so that a file that ends as null is reported with where it stopped.
const reached = files.map(() => "analyse");

// The stages. Each gets (previous stage's value, the file, its index); null ends the file's run (reported below).
// Stages overlap in time, so a global phase() would be wrong for most calls: each call names its phase instead.
async function analyseStage(file) {
	const analysis = await agent(
		`Migration: ${migration}\nRead ${file}. Does it need this migration? If so, plan the edit.`,
		{ label: `analyse ${file}`, phase: "analyse", schema: ANALYSIS, tools: ["read", "grep", "find", "ls"] },
	);
	return analysis && { file, ...analysis };
}

async function changeStage(analysis, file, i) {
	if (!analysis.needed) return { file, status: "unchanged" };
	reached[i] = "change";
	const change = await agent(
		`Migration: ${migration}\nApply it to ${file} only, following this plan:\n${analysis.plan}`,
		{ label: `change ${file}`, phase: "change", schema: CHANGE },
	);
	return change && { file, status: change.changed ? "changed" : "unchanged", summary: change.summary };
}

async function checkStage(changed, file, i) {
	if (changed.status === "unchanged") return changed;
	reached[i] = "check";
	const verdict = await agent(
		`Run \`${check}\` and judge ${file} only: other files may be mid-migration, ignore their errors. ` +
			`${file} was just changed: ${changed.summary}`,
		{ label: `check ${file}`, phase: "check", schema: CHECK, tools: ["read", "bash"] },
	);
	return verdict && { ...changed, status: verdict.ok ? "migrated" : "check-failed", output: verdict.output };
}

log(`migrating ${files.length} files`, { migration, check });
const results = await pipeline(files, analyseStage, changeStage, checkStage);

phase("report");
const report = results.map((result, i) => result ?? { file: files[i], status: "failed", stage: reached[i] });
const byStatus = (status) => report.filter((r) => r.status === status);
const failed = byStatus("failed");
const checkFailed = byStatus("check-failed");
for (const item of [...failed, ...checkFailed]) log(`${item.file}: ${item.status}`, { stage: item.stage ?? "check" });
log("migration done", { migrated: byStatus("migrated").length, unchanged: byStatus("unchanged").length });

return {
	migration,
	migrated: byStatus("migrated").map((r) => ({ file: r.file, summary: r.summary })),
	unchanged: byStatus("unchanged").map((r) => r.file),
	checkFailed: checkFailed.map((r) => ({ file: r.file, output: r.output })),
	failed: failed.map((r) => ({ file: r.file, stage: r.stage })),
};
