// Review a file, directory or change with parallel specialised reviewers, merge their findings, give each finding
// its own fixer, then have one verifier check the result.
// Args: target (a path or a git range), focus (reviewer specialities), maxFixes (cap on fixers), minSeverity.
// Cost: one reviewer per focus (3 by default) + one fixer per kept finding (≤ maxFixes, 8 by default) + 1 verifier.
export const meta = {
	name: "review-and-fix",
	description: "Parallel specialised review, deduplicated findings, one fixer per finding, then a verifier",
	whenToUse: "A change or file is ready for review and you want the findings fixed, not just listed",
	phases: [
		{ title: "review", detail: "one read-only reviewer per focus" },
		{ title: "dedupe", detail: "merge findings in code" },
		{ title: "fix", detail: "one fixer per finding; a file's fixes run one after another" },
		{ title: "verify", detail: "one agent runs the checks" },
	],
	args: {
		type: "object",
		properties: {
			target: { type: "string", minLength: 1, description: "File, directory or git range to review" },
			focus: {
				type: "array",
				items: { type: "string" },
				minItems: 1,
				default: ["correctness", "security", "tests"],
			},
			maxFixes: { type: "integer", minimum: 0, maximum: 50, default: 8 },
			minSeverity: { type: "string", enum: ["low", "medium", "high"], default: "medium" },
		},
		required: ["target"],
		additionalProperties: false,
	},
};

const SEVERITY = { low: 1, medium: 2, high: 3 };
const FINDINGS = {
	type: "object",
	properties: {
		findings: {
			type: "array",
			items: {
				type: "object",
				properties: {
					file: { type: "string" },
					line: { type: "integer", minimum: 0 },
					severity: { type: "string", enum: ["low", "medium", "high"] },
					title: { type: "string" },
					detail: { type: "string" },
				},
				required: ["file", "line", "severity", "title", "detail"],
			},
		},
	},
	required: ["findings"],
};
const FIX = {
	type: "object",
	properties: { status: { type: "string", enum: ["fixed", "not-a-bug", "gave-up"] }, summary: { type: "string" } },
	required: ["status", "summary"],
};
const VERDICT = {
	type: "object",
	properties: { ok: { type: "boolean" }, problems: { type: "array", items: { type: "string" } } },
	required: ["ok", "problems"],
};

const { target } = args;
const focus = args.focus ?? ["correctness", "security", "tests"];
const maxFixes = args.maxFixes ?? 8;
const minSeverity = SEVERITY[args.minSeverity ?? "medium"];

// Reviewers may read and run things (bash for git diff), but get no edit or write tool.
const review = (area) =>
	agent(
		`Review ${target} for ${area} problems only. Read the code; do not edit anything. ` +
			"Report each problem with its file, line, severity and a one-line title.",
		{ label: `review:${area}`, schema: FINDINGS, tools: ["read", "grep", "find", "ls", "bash"] },
	);
const fix = (f) =>
	agent(
		`Fix one finding in ${f.file} near line ${f.line}: ${f.title}\n\n${f.detail}\n\n` +
			"Change only what this finding needs. If it is not a real problem, say not-a-bug.",
		{ label: `fix:${f.id}`, schema: FIX },
	);

phase("review");
log("reviewing", { target, focus });
const reviews = await parallel(focus.map((area) => () => review(area)));
const unreviewed = focus.filter((_, i) => reviews[i] === null);
if (unreviewed.length > 0) log("some reviewers failed; their areas are unreviewed", { unreviewed });

phase("dedupe");
// Two reviewers often report the same problem: same file, and a nearby line or the same title.
const norm = (text) => (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).join(" ");
const isTwin = (a, b) => a.file === b.file && (Math.abs(a.line - b.line) <= 2 || norm(a.title) === norm(b.title));
const kept = [];
for (const finding of reviews.flatMap((r) => r?.findings ?? [])) {
	if (SEVERITY[finding.severity] < minSeverity) continue;
	const twin = kept.find((k) => isTwin(k, finding));
	if (!twin) kept.push({ ...finding, id: `F${kept.length + 1}` });
	else if (SEVERITY[finding.severity] > SEVERITY[twin.severity]) twin.severity = finding.severity;
}
kept.sort((a, b) => SEVERITY[b.severity] - SEVERITY[a.severity]);
const toFix = kept.slice(0, maxFixes);
const deferred = kept.slice(maxFixes).map((f) => f.id);
log(`${kept.length} distinct findings, fixing ${toFix.length}`, { deferred });

phase("fix");
// Fixers of different files run in parallel; fixers of one file take turns, so their edits never collide.
const fixFile = async (file) => {
	const results = [];
	for (const f of toFix.filter((x) => x.file === file)) {
		const answer = await fix(f);
		results.push({
			id: f.id,
			file,
			title: f.title,
			status: answer?.status ?? "failed",
			summary: answer?.summary ?? null,
		});
	}
	return results;
};
const files = [...new Set(toFix.map((f) => f.file))];
const fixes = (await parallel(files.map((file) => () => fixFile(file)))).flatMap((results) => results ?? []);
const fixed = fixes.filter((f) => f.status === "fixed");

phase("verify");
let verification = null;
if (fixed.length > 0) {
	const changes = fixed.map((f) => `- ${f.id} ${f.file}: ${f.summary}`).join("\n");
	verification = await agent(
		`Verify the fixes in ${target}. Run the project's type check and tests, and read these changes:\n${changes}\n` +
			"Report ok=false with the problems if anything is broken.",
		{ label: "verify", schema: VERDICT },
	);
	log(verification?.ok ? "verified" : "verification found problems", verification);
}

return { target, unreviewed, findings: kept, fixes, deferred, verification };
