import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentTypeConfig, listAvailableAgentTypes, loadAgentTypes } from "../../src/agents/agent-types.ts";
import { callLabelled, callsLabelled, EXAMPLES_DIR, phasesStarted, type Route, runExample } from "./harness.ts";

const FILE = "security-audit.js";

/** A project with the shipped agent files copied to .pi/agents, as the script's header tells users to do. */
let project: string;
let types: Map<string, AgentTypeConfig>;
let warnings: string[];
beforeAll(() => {
	project = mkdtempSync(join(tmpdir(), "pi-workflows-audit-"));
	cpSync(join(EXAMPLES_DIR, "agents"), join(project, ".pi", "agents"), { recursive: true });
	({ types, warnings } = loadAgentTypes({ cwd: project, agentDir: join(project, "no-global") }));
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

const ENTRY_POINTS: Route = {
	when: { agentType: "scout" },
	answer: {
		structured: {
			entryPoints: [
				{ name: "POST /login", file: "src/routes/auth.ts", kind: "http" },
				{ name: "GET /files", file: "src/routes/files.ts", kind: "http" },
				{ name: "import", file: "src/cli/import.ts", kind: "cli" },
			],
		},
	},
};
const finding = (file: string, line: number, severity: string, issue: string) => ({
	file,
	line,
	severity,
	issue,
	fix: `fix ${issue}`,
});
const AUDITS: Route[] = [
	{
		when: { label: "audit POST /login" },
		answer: {
			structured: {
				findings: [
					finding("src/db.ts", 12, "critical", "SQL injection in findUser"),
					finding("src/routes/auth.ts", 30, "low", "no rate limit"),
				],
			},
		},
	},
	{
		when: { label: "audit GET /files" },
		answer: {
			structured: {
				findings: [
					finding("src/routes/files.ts", 8, "high", "path traversal"),
					finding("src/db.ts", 40, "high", "password hash logged"),
				],
			},
		},
	},
	{ when: { label: "audit import" }, answer: { fail: "ran out of turns" } },
];
const PATCHES: Route = {
	when: { agentType: "patcher" },
	answer: (request) =>
		request.label === "patch src/db.ts"
			? { structured: { fixed: ["S1"], skipped: ["S4: the logger lives in another package"] } }
			: { structured: { fixed: ["S3"], skipped: [] } },
};
const TESTS: Route = { when: { agentType: "test-runner" }, answer: { structured: { passed: true, failures: [] } } };
const ROUTES = [ENTRY_POINTS, ...AUDITS, PATCHES, TESTS];

describe("examples/workflows/agents/*.md", () => {
	it("load as agent types without warnings, each with its own tool allowlist", () => {
		expect(warnings).toEqual([]);
		const shipped = ["patcher", "scout", "security-auditor", "test-runner"];
		expect(listAvailableAgentTypes(types)).toEqual(["general-purpose", ...shipped]);
		const tools = Object.fromEntries(shipped.map((name) => [name, types.get(name)?.tools]));
		expect(tools).toEqual({
			patcher: ["read", "edit"],
			scout: ["read", "grep", "find", "ls"],
			"security-auditor": ["read", "grep", "find"],
			"test-runner": ["read", "bash"],
		});
		expect(types.get("security-auditor")).toMatchObject({ thinking: "high", maxTurns: 30, source: "project" });
		expect(types.get("scout")?.systemPrompt).toMatch(/^You are a scout\./);
	});
});

describe("security-audit.js", () => {
	const run = (args: Record<string, unknown>, routes = ROUTES) =>
		runExample(FILE, { cwd: project, args, agentTypes: listAvailableAgentTypes(types), routes });

	it("gives each phase to its agent type and lets the types, not the calls, decide the tools", async () => {
		const audit = await run({ target: "src" });
		expect(audit.runner.unmatched).toEqual([]);
		expect(phasesStarted(audit)).toEqual(["map", "audit", "patch", "test"]);
		expect(audit.calls.map((c) => [c.agentType, c.phase])).toEqual([
			["scout", "map"],
			["security-auditor", "audit"],
			["security-auditor", "audit"],
			["security-auditor", "audit"],
			["patcher", "patch"],
			["patcher", "patch"],
			["test-runner", "test"],
		]);
		expect(audit.calls.every((c) => c.tools === undefined && c.schema !== undefined)).toBe(true);
		expect(callLabelled(audit, "audit GET /files").prompt).toBe(
			'Audit the http entry point "GET /files" in src/routes/files.ts. Follow its input through src.',
		);
	});

	it("patches only high and critical findings, one patcher per file with all of that file's findings", async () => {
		const audit = await run({ target: "src" });
		expect(callsLabelled(audit, /^patch /).map((c) => c.label)).toEqual([
			"patch src/db.ts",
			"patch src/routes/files.ts",
		]);
		expect(callLabelled(audit, "patch src/db.ts").prompt).toBe(
			"Fix these findings in src/db.ts:\n" +
				"- S1 line 12 (critical): SQL injection in findUser\n  Fix: fix SQL injection in findUser\n" +
				"- S4 line 40 (high): password hash logged\n  Fix: fix password hash logged\n" +
				"Report the ids you fixed and the ids you skipped.",
		);
		expect(callLabelled(audit, "run tests").prompt).toContain("these findings were just patched: S1, S3.");
		const value = audit.result.value as { findings: Array<{ id: string; status: string }>; unaudited: string[] };
		expect(value.findings.map((f) => [f.id, f.status])).toEqual([
			["S1", "patched"],
			["S2", "open"],
			["S3", "patched"],
			["S4", "open"],
		]);
		expect(value.unaudited).toEqual(["import"]);
		expect(audit.result.failures).toEqual([
			expect.objectContaining({ label: "audit import", agentType: "security-auditor" }),
		]);
	});

	it("with patch: false, reports without patching or testing", async () => {
		const audit = await run({ target: "src", patch: false });
		expect(audit.calls.map((c) => c.agentType)).toEqual([
			"scout",
			"security-auditor",
			"security-auditor",
			"security-auditor",
		]);
		expect(audit.result.value).toMatchObject({ tests: null, unpatchedFiles: [] });
	});

	it("without the agent files installed: fails at the first call and lists the types there are", async () => {
		const audit = await runExample(FILE, {
			args: { target: "src" },
			agentTypes: ["general-purpose"],
			routes: ROUTES,
		});
		expect(audit.result.status).toBe("failed");
		expect(audit.result.error).toMatchObject({ code: "agent_type_unknown" });
		expect(audit.result.error?.message).toContain("Unknown agent type `scout`. Available: general-purpose");
		expect(audit.calls).toHaveLength(0);
	});
});
