// Security audit with custom agent types, each limited by its own tool allowlist: a read-only scout maps the entry
// points, one security-auditor per entry point (read-only, cannot run code), one patcher per file with serious
// findings (can edit, cannot run commands), and a test-runner (can run commands, cannot edit) checks the patches.
// Needs the agent files in examples/workflows/agents/: copy them to .pi/agents/ (or ~/.pi/agent/agents/) first.
// Args: target (folder to audit), maxEntryPoints (default 10), patch (default true; false = report only).
// Cost: 1 scout + one auditor per entry point (≤ maxEntryPoints) + one patcher per file with serious findings + 1.
export const meta = {
	name: "security-audit",
	description: "Audit entry points with read-only auditors, patch serious findings, run the tests (custom agents)",
	whenToUse: "Before a release or after adding endpoints; needs the scout, security-auditor, patcher and test-runner",
	phases: [
		{ title: "map", detail: "scout: find the entry points" },
		{ title: "audit", detail: "security-auditor: one per entry point" },
		{ title: "patch", detail: "patcher: one per file with high or critical findings" },
		{ title: "test", detail: "test-runner: type check and tests" },
	],
	args: {
		type: "object",
		properties: {
			target: { type: "string", minLength: 1 },
			maxEntryPoints: { type: "integer", minimum: 1, maximum: 50, default: 10 },
			patch: { type: "boolean", default: true },
		},
		required: ["target"],
		additionalProperties: false,
	},
};

const KINDS = ["http", "cli", "file-input", "ipc", "other"];
const ENTRY_POINTS = {
	type: "object",
	properties: {
		entryPoints: {
			type: "array",
			items: {
				type: "object",
				properties: { name: { type: "string" }, file: { type: "string" }, kind: { type: "string", enum: KINDS } },
				required: ["name", "file", "kind"],
			},
		},
	},
	required: ["entryPoints"],
};
const SEVERITIES = ["critical", "high", "medium", "low"];
const FINDINGS = {
	type: "object",
	properties: {
		findings: {
			type: "array",
			items: {
				type: "object",
				properties: {
					file: { type: "string" },
					line: { type: "integer" },
					severity: { type: "string", enum: SEVERITIES },
					issue: { type: "string" },
					fix: { type: "string" },
				},
				required: ["file", "line", "severity", "issue", "fix"],
			},
		},
	},
	required: ["findings"],
};
const IDS = { type: "array", items: { type: "string" } };
const PATCH = { type: "object", properties: { fixed: IDS, skipped: IDS }, required: ["fixed", "skipped"] };
const TESTS = {
	type: "object",
	properties: { passed: { type: "boolean" }, failures: { type: "array", items: { type: "string" } } },
	required: ["passed", "failures"],
};

const { target } = args;

// No call passes `tools`: each agent type's file decides what its agents may do.
const audit = (e) =>
	agent(`Audit the ${e.kind} entry point "${e.name}" in ${e.file}. Follow its input through ${target}.`, {
		agent: "security-auditor",
		label: `audit ${e.name}`,
		schema: FINDINGS,
	});
const patch = (file) => {
	const items = serious
		.filter((f) => f.file === file)
		.map((f) => `- ${f.id} line ${f.line} (${f.severity}): ${f.issue}\n  Fix: ${f.fix}`)
		.join("\n");
	return agent(`Fix these findings in ${file}:\n${items}\nReport the ids you fixed and the ids you skipped.`, {
		agent: "patcher",
		label: `patch ${file}`,
		schema: PATCH,
	});
};

phase("map");
const map = await agent(
	`List the entry points of ${target} where untrusted input arrives ` +
		"(HTTP routes, CLI commands, file parsers, IPC handlers).",
	{ agent: "scout", label: "map entry points", schema: ENTRY_POINTS },
);
if (map === null) throw new Error("The scout failed, so there is nothing to audit; the failure census says why");
const entryPoints = map.entryPoints.slice(0, args.maxEntryPoints ?? 10);
log(`${entryPoints.length} entry points`, { entryPoints: entryPoints.map((e) => e.name) });

phase("audit");
const audits = await parallel(entryPoints.map((e) => () => audit(e)));
const unaudited = entryPoints.filter((_, i) => audits[i] === null).map((e) => e.name);
const findings = audits.flatMap((a) => a?.findings ?? []).map((f, i) => ({ ...f, id: `S${i + 1}` }));
const serious = findings.filter((f) => f.severity === "critical" || f.severity === "high");
log(`${findings.length} findings, ${serious.length} serious`, { unaudited });

phase("patch");
// One patcher per file, with all of that file's findings: patchers never edit the same file at once.
const files = args.patch === false ? [] : [...new Set(serious.map((f) => f.file))];
const patches = await parallel(files.map((file) => () => patch(file)));
const fixed = patches.flatMap((p) => p?.fixed ?? []);

phase("test");
let tests = null;
if (fixed.length > 0) {
	const ask = `Run the type check and the tests of ${target}; these findings were just patched: ${fixed.join(", ")}.`;
	tests = await agent(ask, { agent: "test-runner", label: "run tests", schema: TESTS });
	log(tests?.passed ? "tests pass" : "tests fail or did not run", tests);
}

return {
	target,
	unaudited,
	findings: findings.map((f) => ({ ...f, status: fixed.includes(f.id) ? "patched" : "open" })),
	unpatchedFiles: files.filter((_, i) => patches[i] === null),
	tests,
};
