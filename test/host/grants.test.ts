/**
 * `WorkflowGrants`: where each tier's grants are kept, what a bad grants file says, and that inline scripts have none.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkflowGrants } from "../../src/host/grants.ts";

const SCRIPT = `export const meta = { name: "w", description: "d" };\nreturn 1;\n`;

describe("WorkflowGrants", () => {
	let cwd: string;
	let agentDir: string;
	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-grants-cwd-"));
		agentDir = mkdtempSync(join(tmpdir(), "wf-grants-agent-"));
	});
	afterEach(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(agentDir, { recursive: true, force: true });
	});

	it("keeps a project workflow's grants in the project and a user workflow's in the agent directory; inline has none", () => {
		const project = WorkflowGrants.of(
			{ script: SCRIPT, filename: join(cwd, ".pi", "workflows", "w.js"), tier: "project" },
			{ cwd, agentDir },
		);
		const user = WorkflowGrants.of(
			{ script: SCRIPT, filename: join(agentDir, "workflows", "w.js"), tier: "user" },
			{ cwd, agentDir },
		);
		expect([project?.file, project?.key, user?.file, user?.key]).toEqual([
			join(cwd, ".pi", "workflows.grants.json"),
			".pi/workflows/w.js",
			join(agentDir, "workflows.grants.json"),
			"workflows/w.js",
		]);
		project?.grant(["bash"]);
		expect(project?.allows("bash")).toBe(true);
		expect(user?.allows("bash")).toBe(false);
		expect(WorkflowGrants.of({ script: SCRIPT, filename: "workflow.js", tier: "inline" }, { cwd, agentDir })).toBe(
			undefined,
		);
	});

	it("settings grant too, for the digest they name: the project's only to its own workflows, the user's to any", () => {
		const other = `${SCRIPT}// changed\n`;
		const sha = (text: string) => createHash("sha256").update(text).digest("hex");
		mkdirSync(join(cwd, ".pi"));
		const grants = (key: string, sha256: string) =>
			JSON.stringify({ workflows: { grants: { [key]: { sha256, tools: ["bash"] } } } });
		writeFileSync(join(cwd, ".pi", "settings.json"), grants("workflows/w.js", sha(SCRIPT)));
		writeFileSync(join(agentDir, "settings.json"), grants(".pi/workflows/w.js", sha(SCRIPT)));
		const project = (script: string) =>
			WorkflowGrants.of(
				{ script, filename: join(cwd, ".pi", "workflows", "w.js"), tier: "project" },
				{ cwd, agentDir },
			);
		const user = WorkflowGrants.of(
			{ script: SCRIPT, filename: join(agentDir, "workflows", "w.js"), tier: "user" },
			{ cwd, agentDir },
		);
		expect([project(SCRIPT)?.allows("bash"), project(other)?.allows("bash"), user?.allows("bash")]).toEqual([
			true,
			false,
			false,
		]);
	});

	it("on a grants file that is not one: grants_invalid naming the file and what to do", () => {
		mkdirSync(join(cwd, ".pi"));
		const file = join(cwd, ".pi", "workflows.grants.json");
		writeFileSync(file, `{ "version": 1, "workflows": { ".pi/workflows/w.js": { "sha256": "x" } } }`);
		const grants = WorkflowGrants.of(
			{ script: SCRIPT, filename: join(cwd, ".pi", "workflows", "w.js"), tier: "project" },
			{ cwd, agentDir },
		);
		expect(() => grants?.allows("bash")).toThrowError(
			expect.objectContaining({
				code: "grants_invalid",
				message: `The workflow grants file ${file} cannot be used: the grant of ".pi/workflows/w.js" needs sha256, script and tools (and maxCostUsd, when given, a dollar amount above 0). Fix it, or delete it: each saved workflow then asks again before its first tool() call`,
			}),
		);
	});
});
