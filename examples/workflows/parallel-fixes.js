// Fix several independent problems at once, each fixer in its own git worktree (`isolation: "worktree"`), so their
// edits never collide; then one agent merges the branches the fixers kept, or reports the conflicts.
// A fixer's changes are committed on its own branch when it ends (`workflows/<run id>/<label>`); the script never
// sees that metadata (`agent()` gives the child's answer), so each fixer reports the branch its prompt names.
// Args: fixes (the problems: title, detail, optional files to start from), merge (false keeps the branches unmerged).
// Cost: one fixer per fix + 1 merger when a fixer kept changes.
export const meta = {
	name: "parallel-fixes",
	description: "Independent fixes in parallel, one git worktree each, then one agent merges the kept branches",
	whenToUse: "Several unrelated problems to fix in one repository at once, without fixers editing the same tree",
	phases: [
		{ title: "fix", detail: "one fixer per problem, each in its own worktree and branch" },
		{ title: "merge", detail: "one agent merges the kept branches, or reports conflicts" },
	],
	args: {
		type: "object",
		properties: {
			fixes: {
				type: "array",
				minItems: 1,
				maxItems: 20,
				items: {
					type: "object",
					properties: {
						title: { type: "string", minLength: 1 },
						detail: { type: "string" },
						files: { type: "array", items: { type: "string" } },
					},
					required: ["title"],
					additionalProperties: false,
				},
			},
			merge: { type: "boolean", default: true, description: "Merge the kept branches into the current branch" },
		},
		required: ["fixes"],
		additionalProperties: false,
	},
};

const FIX = {
	type: "object",
	properties: {
		status: { type: "string", enum: ["fixed", "not-a-bug", "gave-up"] },
		summary: { type: "string" },
		branch: { type: "string" },
	},
	required: ["status", "summary", "branch"],
};
const MERGE = {
	type: "object",
	properties: {
		merged: { type: "array", items: { type: "string" } },
		conflicts: {
			type: "array",
			items: {
				type: "object",
				properties: { branch: { type: "string" }, files: { type: "array", items: { type: "string" } } },
				required: ["branch", "files"],
			},
		},
		missing: { type: "array", items: { type: "string" } },
	},
	required: ["merged", "conflicts", "missing"],
};

const fixes = args.fixes;
const merge = args.merge ?? true;

const fix = (f, i) =>
	agent(
		`Fix this problem: ${f.title}\n\n${f.detail ?? ""}\n` +
			(f.files?.length ? `Start with: ${f.files.join(", ")}\n` : "") +
			"\nChange only what this fix needs, and do not commit: what you change is committed for you when you finish. " +
			"Answer with status (fixed, not-a-bug or gave-up), a one-line summary, and `branch`: the branch named above.",
		{ label: `fix ${i + 1}: ${f.title}`, schema: FIX, isolation: "worktree" },
	);

phase("fix");
log(`fixing ${fixes.length} problems, each in its own worktree`);
const answers = await parallel(fixes.map((f, i) => () => fix(f, i)));
const results = fixes.map((f, i) => ({
	title: f.title,
	status: answers[i]?.status ?? "failed",
	summary: answers[i]?.summary ?? null,
	branch: answers[i]?.status === "fixed" ? answers[i].branch : null,
}));
const kept = results.filter((r) => r.branch);
log(`${kept.length} of ${fixes.length} fixes kept on branches`, { branches: kept.map((r) => r.branch) });

phase("merge");
let merged = null;
if (merge && kept.length > 0) {
	const list = kept.map((r) => `- ${r.branch}: ${r.title} (${r.summary})`).join("\n");
	merged = await agent(
		`Merge these branches into the current branch of this repository, one at a time, in this order:\n${list}\n\n` +
			"For each: check it exists (`git rev-parse --verify <branch>`; list it as missing if not), then " +
			"`git merge --no-ff --no-edit <branch>`. If a merge conflicts, run `git merge --abort`, leave that branch " +
			"unmerged and report it with its conflicting files; never resolve a conflict by guessing. Delete no branch.",
		{ label: "merge", schema: MERGE, tools: ["bash", "read"] },
	);
	if (merged === null) log("the merger failed: the branches are kept, unmerged", { branches: kept.map((r) => r.branch) });
	else if (merged.conflicts.length > 0) log("some branches conflict", merged.conflicts);
}

const mergedSet = new Set(merged?.merged ?? []);
return {
	fixes: results,
	merged: merged?.merged ?? [],
	conflicts: merged?.conflicts ?? [],
	missing: merged?.missing ?? [],
	unmerged: kept.map((r) => r.branch).filter((b) => !mergedSet.has(b)),
};
