// Fix several problems at once, each fixer in its own git worktree, then gate each kept branch with the project's
// tests run by `tool("bash", …)` (no agent, the real exit code) and merge only the branches that passed.
// The gate uses `replay: false`: a resumed run runs the tests again on today's tree instead of trusting a record.
// In pi the commands go through the session's permission hooks; on the command line, pass --allow-tools bash.
// Args: fixes (title, detail), test (the test command, default "npm test"), merge (false only reports).
// Cost: one fixer per fix; the gates and merges are tool steps, not agents.
export const meta = {
	name: "gated-fixes",
	description: "Fixes in parallel worktrees, each branch gated by the test command, only passing branches merged",
	whenToUse: "Several independent fixes where nothing may be merged unless the tests pass on its branch",
	phases: [
		{ title: "fix", detail: "one fixer per problem, each in its own worktree and branch" },
		{ title: "gate", detail: "the test command on each kept branch, in a throwaway worktree" },
		{ title: "merge", detail: "git merge of each branch that passed" },
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
					properties: { title: { type: "string", minLength: 1 }, detail: { type: "string" } },
					required: ["title"],
					additionalProperties: false,
				},
			},
			test: { type: "string", minLength: 1, default: "npm test" },
			merge: { type: "boolean", default: true },
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
const test = args.test ?? "npm test";
const merge = args.merge ?? true;
// A branch name goes into a shell command: only the characters git branch names of ours use.
const SAFE_BRANCH = /^[A-Za-z0-9._/-]+$/;

phase("fix");
const answers = await parallel(
	args.fixes.map(
		(f, i) => () =>
			agent(
				`Fix this problem: ${f.title}\n\n${f.detail ?? ""}\n\nChange only what this fix needs and do not commit. ` +
					"Answer with status (fixed, not-a-bug or gave-up), a one-line summary, and `branch`: the branch named above.",
				{ label: `fix ${i + 1}: ${f.title}`, schema: FIX, isolation: "worktree" },
			),
	),
);
const kept = args.fixes
	.map((f, i) => ({ title: f.title, answer: answers[i] }))
	.filter((r) => r.answer?.status === "fixed" && SAFE_BRANCH.test(r.answer.branch))
	.map((r) => ({ title: r.title, branch: r.answer.branch }));
log(`${kept.length} of ${args.fixes.length} fixes kept on branches`);

phase("gate");
const gated = [];
for (const [i, k] of kept.entries()) {
	const dir = `.gate-${i}`;
	const run = await tool(
		"bash",
		{
			command:
				`git worktree add --detach ${dir} ${k.branch} >/dev/null && (cd ${dir} && ${test}); ` +
				`code=$?; git worktree remove --force ${dir}; exit $code`,
		},
		{ label: `gate ${k.branch}`, replay: false },
	);
	gated.push({ ...k, passed: !run.isError, exit: run.details?.exit_code ?? null, tail: run.output.slice(-400) });
}
const passed = gated.filter((g) => g.passed);
log(`${passed.length} of ${gated.length} branches passed \`${test}\``);

phase("merge");
const merged = [];
const unmerged = [];
for (const g of passed) {
	if (!merge) break;
	const result = await tool("bash", { command: `git merge --no-ff --no-edit ${g.branch}` }, { label: `merge ${g.branch}` });
	if (result.isError) {
		await tool("bash", { command: "git merge --abort" }, { replay: false });
		unmerged.push(g.branch);
	} else merged.push(g.branch);
}

return {
	gated: gated.map(({ title, branch, passed, exit }) => ({ title, branch, passed, exit })),
	failedTests: gated.filter((g) => !g.passed).map(({ branch, tail }) => ({ branch, tail })),
	merged,
	unmerged,
};
