// Triage a red test suite: one agent runs it and lists the failures, one classifier per failing test finds its
// cause, failures are grouped by cause in code, each fixable group gets one fix attempt, and a last run confirms.
// Args: command (default `npm test`), maxTests (classifiers, default 30), maxGroups (fix attempts, default 5).
// Cost: 1 runner + one classifier per failing test (≤ maxTests) + one fixer per group (≤ maxGroups) + 1 confirmer.
export const meta = {
	name: "test-triage",
	description: "Run the tests, classify each failure, group failures by cause, one fix attempt per group, re-run",
	whenToUse: "Many tests fail at once and you want them sorted into causes and the real bugs fixed",
	phases: [
		{ title: "run", detail: "run the suite, list failing tests" },
		{ title: "classify", detail: "one agent per failing test" },
		{ title: "group", detail: "by category and suspect file, in code" },
		{ title: "fix", detail: "one attempt per product-bug or test-bug group" },
		{ title: "confirm", detail: "re-run the failing tests" },
	],
	args: {
		type: "object",
		properties: {
			command: { type: "string", default: "npm test" },
			maxTests: { type: "integer", minimum: 1, maximum: 200, default: 30 },
			maxGroups: { type: "integer", minimum: 0, maximum: 20, default: 5 },
		},
		additionalProperties: false,
	},
};

const RUN = {
	type: "object",
	properties: {
		failures: {
			type: "array",
			items: {
				type: "object",
				properties: { test: { type: "string" }, file: { type: "string" }, error: { type: "string" } },
				required: ["test", "file", "error"],
			},
		},
	},
	required: ["failures"],
};
const CAUSE = {
	type: "object",
	properties: {
		category: { type: "string", enum: ["product-bug", "test-bug", "flaky", "environment"] },
		suspectFile: { type: "string", description: "the file to change to fix it" },
		cause: { type: "string", description: "one sentence" },
	},
	required: ["category", "suspectFile", "cause"],
};
const FIX = { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] };
const STILL = {
	type: "object",
	properties: { stillFailing: { type: "array", items: { type: "string" } } },
	required: ["stillFailing"],
};

const { command = "npm test", maxTests = 30, maxGroups = 5 } = args ?? {};
const FIXABLE = ["product-bug", "test-bug"];

const classify = (f) =>
	agent(
		`Test "${f.test}" in ${f.file} fails with:\n${f.error}\n\n` +
			"Find out why (read the test and the code it calls; run it alone if useful). Do not change anything.",
		{ label: `classify ${f.test}`, schema: CAUSE, tools: ["read", "grep", "find", "bash"] },
	);
const fix = (g) => {
	const failing = g.tests.map((t) => `- ${t.test} (${t.file}): ${t.error.split("\n")[0]}`).join("\n");
	const side = g.category === "test-bug" ? "The code is right; fix the test." : "The tests are right; fix the code.";
	return agent(
		`Fix this ${g.category} in ${g.suspectFile}: ${g.cause}\nIt makes these tests fail:\n${failing}\n` +
			`${side} Make one focused change.`,
		{ label: `fix ${g.key}`, schema: FIX },
	);
};
const rerun = (tests) =>
	agent(`Run only these tests with \`${command}\` and list the ones that still fail:\n${tests.join("\n")}`, {
		label: "confirm",
		schema: STILL,
		tools: ["bash", "read"],
	});

phase("run");
const run = await agent(
	`Run \`${command}\` and list every failing test with its file and the first lines of its error.`,
	{ label: "run tests", schema: RUN, tools: ["bash", "read"] },
);
if (run === null) throw new Error(`Could not run \`${command}\`; the failure census says why`);
if (run.failures.length === 0) return { command, status: "green", groups: [] };
const failures = run.failures.slice(0, maxTests);
log(`${run.failures.length} failing tests, classifying ${failures.length}`);

phase("classify");
const causes = await parallel(failures.map((f) => () => classify(f)));

phase("group");
// Failures with the same category and suspect file are almost always one cause: fix them together.
const groups = [];
const unclassified = [];
for (const [i, f] of failures.entries()) {
	const c = causes[i];
	if (c === null) {
		unclassified.push(f.test);
		continue;
	}
	const key = `${c.category}:${c.suspectFile}`;
	const group = groups.find((g) => g.key === key);
	if (group) group.tests.push(f);
	else groups.push({ key, category: c.category, suspectFile: c.suspectFile, cause: c.cause, tests: [f] });
}
groups.sort((a, b) => b.tests.length - a.tests.length);
const toFix = groups.filter((g) => FIXABLE.includes(g.category)).slice(0, maxGroups);
log(`${groups.length} causes, ${toFix.length} to fix`, { unclassified, groups: groups.map((g) => g.key) });

phase("fix");
const attempts = await parallel(toFix.map((g) => () => fix(g)));

phase("confirm");
const retried = toFix.flatMap((g) => g.tests.map((t) => t.test));
const confirm = retried.length === 0 ? null : await rerun(retried);

// A group is fixed when its fixer answered and none of its tests fails on the re-run.
function outcome(group, attempt) {
	if (!toFix.includes(group)) return "not attempted";
	if (attempt === null) return "fixer failed";
	if (confirm === null) return "unconfirmed";
	return group.tests.some((t) => confirm.stillFailing.includes(t.test)) ? "still failing" : "fixed";
}
const report = groups.map((g) => {
	const attempt = toFix.includes(g) ? attempts[toFix.indexOf(g)] : null;
	const tests = g.tests.map((t) => t.test);
	return { key: g.key, cause: g.cause, tests, outcome: outcome(g, attempt), fix: attempt?.summary ?? null };
});

return { command, status: "triaged", unclassified, groups: report };
