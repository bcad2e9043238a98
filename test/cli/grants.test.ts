/**
 * Grants on the command line: `--allow-tools` grants a project workflow's tools to the sha256 of its script, so the
 * next run of the same text lends them without the flag; a one-byte edit lends nothing until granted again, and
 * stderr shows the diff against the granted text; a file outside the saved folders with the same text is never
 * covered. The run's record, `runs <id>` and the report name the script's digest and tier.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunStore } from "../../src/runs/index.ts";
import { cliInProcess } from "../helpers/cli-in-process.ts";
import { gateWorkflow, sha256Of } from "../helpers/gate-workflow.ts";
import { ROOT } from "../helpers/package.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const PI = ["-e", join(ROOT, "test", "fixtures", "faux-provider-extension.ts"), "--model", "faux/faux-1"];

describe("pi-workflows run: grants bound to the script's digest", () => {
	let cwd: string;
	let agentDir: string;
	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-cli-grants-"));
		agentDir = mkdtempSync(join(tmpdir(), "wf-cli-grants-agent-"));
		mkdirSync(join(cwd, ".pi", "workflows"), { recursive: true });
		writeFileSync(join(cwd, ".pi", "workflows", "gate.js"), gateWorkflow("gate-ran"));
	});
	afterEach(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(agentDir, { recursive: true, force: true });
	});
	const cli = (argv: string[]) => cliInProcess(argv, { cwd, agentDir });

	it("--allow-tools grants for the digest; the next run needs no flag; an edit or a copy elsewhere is not covered", async () => {
		const unlent = await cli(["run", "gate", ...PI]);
		expect(unlent.code, unlent.stderr).toBe(1);
		expect(unlent.stderr).toContain("Error (tool_unavailable)");

		const granted = await cli(["run", "gate", ...PI, "--allow-tools", "bash"]);
		expect(granted.code, granted.stderr).toBe(0);
		expect(granted.stdout.trim()).toBe('"gate-ran"');
		const grants = JSON.parse(readFileSync(join(cwd, ".pi", "workflows.grants.json"), "utf8"));
		expect(grants.workflows[".pi/workflows/gate.js"]).toMatchObject({
			sha256: sha256Of(gateWorkflow("gate-ran")),
			tools: ["bash"],
		});

		const again = await cli(["run", "gate", ...PI, "--json"]);
		expect(again.code, again.stderr).toBe(0);
		const { runId } = JSON.parse(again.stdout) as { runId: string };

		// A project pi is told not to trust grants nothing itself: its grants file is not read, and a grant given
		// then is the user's, kept in the agent directory by the file's full path.
		const untrusted = await cli(["run", "gate", ...PI, "--no-approve"]);
		expect(untrusted.code, untrusted.stderr).toBe(1);
		expect(untrusted.stderr).toContain("Error (tool_unavailable)");
		const userGrant = await cli(["run", "gate", ...PI, "--no-approve", "--allow-tools", "bash"]);
		expect(userGrant.code, userGrant.stderr).toBe(0);
		const userGrants = JSON.parse(readFileSync(join(agentDir, "workflows.grants.json"), "utf8"));
		expect(Object.keys(userGrants.workflows)).toEqual([join(cwd, ".pi", "workflows", "gate.js")]);

		// The same bytes in a file outside the saved folders: inline, never covered by the workflow's grant.
		writeFileSync(join(cwd, "copy.js"), gateWorkflow("gate-ran"));
		const copy = await cli(["run", "copy.js", ...PI]);
		expect(copy.code, copy.stderr).toBe(1);
		expect(copy.stderr).toContain("Error (tool_unavailable)");

		// One byte changed: not lent, and stderr says what changed and how to grant it again.
		writeFileSync(join(cwd, ".pi", "workflows", "gate.js"), gateWorkflow("gate-run"));
		const edited = await cli(["run", "gate", ...PI]);
		expect(edited.code, edited.stderr).toBe(1);
		expect(edited.stderr).toContain(
			`Note: the project workflow .pi/workflows/gate.js (sha256 ${sha256Of(gateWorkflow("gate-run")).slice(0, 12)}) changed since sha256 ${sha256Of(gateWorkflow("gate-ran")).slice(0, 12)} was granted tool("bash"); not lent until granted again:
--- before
+++ after
@@ -1,4 +1,4 @@
 export const meta = { name: "gate", description: "runs the gate" };
-const r = await tool("bash", { command: "echo gate-ran" });
+const r = await tool("bash", { command: "echo gate-run" });
 return r.output.trim();
 
Grant this version with --allow-tools bash
`,
		);
		expect(edited.stderr).toContain("Error (tool_unavailable)");

		// The record keeps the tier; `runs <id>` and the report name digest and tier.
		const record = await createRunStore({ cwd, root: join(agentDir, "workflow-runs") }).open(runId);
		expect(record.info.tier).toBe("project");
		const line = `Script: sha256 ${sha256Of(gateWorkflow("gate-ran")).slice(0, 12)} · tier project`;
		const shown = await cli(["runs", runId]);
		expect(shown.code, shown.stderr).toBe(0);
		expect(shown.stdout.split("\n")).toContain(line);
		const report = await cli(["report", runId, "--text"]);
		expect(report.code, report.stderr).toBe(0);
		expect(report.stdout.split("\n")).toContain(line);
	}, 120_000);

	it("--max-cost with --grant grants that cap as the ceiling of this version; a file outside the saved folders is refused", async () => {
		const granted = await cli(["run", "gate", ...PI, "--allow-tools", "bash", "--max-cost", "2", "--grant"]);
		expect(granted.code, granted.stderr).toBe(0);
		expect(granted.stderr).toContain(
			`Note: granted the project workflow .pi/workflows/gate.js (sha256 ${sha256Of(gateWorkflow("gate-ran")).slice(0, 12)}) a dollar ceiling of $2.00: its runs without --max-cost take it as their cap, and its runs in pi estimated over their cap but within it take it without asking, until the file changes\n`,
		);
		const grants = JSON.parse(readFileSync(join(cwd, ".pi", "workflows.grants.json"), "utf8"));
		expect(grants.workflows[".pi/workflows/gate.js"]).toMatchObject({
			sha256: sha256Of(gateWorkflow("gate-ran")),
			tools: ["bash"],
			maxCostUsd: 2,
		});

		const noCap = await cli(["run", "gate", ...PI, "--grant"]);
		expect(noCap.code).toBe(2);
		expect(noCap.stderr).toContain(
			"--grant grants the run's --max-cost as the workflow's dollar ceiling: give --max-cost too, like --max-cost 2 --grant",
		);
		writeFileSync(join(cwd, "copy.js"), gateWorkflow("gate-ran"));
		const copy = await cli(["run", "copy.js", ...PI, "--max-cost", "2", "--grant"]);
		expect(copy.code).toBe(2);
		expect(copy.stderr).toContain(
			`--grant grants to a saved workflow (in .pi/workflows or ~/.pi/agent/workflows, or installed): ${join(cwd, "copy.js")} is outside them, and nothing is granted to it`,
		);
		expect(JSON.parse(readFileSync(join(cwd, ".pi", "workflows.grants.json"), "utf8"))).toEqual(grants);
	}, 120_000);

	it("a run without --max-cost takes the ceiling granted to its digest as its cap, says so, and stops at it; a changed byte has none", async () => {
		const priced = (word: string) =>
			`export const meta = { name: "priced", description: "two priced children" };\nconst one = await agent("echo one");\nconst two = await agent("echo ${word}");\nreturn [one, two];\n`;
		writeFileSync(join(cwd, ".pi", "workflows", "priced.js"), priced("two"));
		const PRICED = [PI[0] ?? "", PI[1] ?? "", "--model", "faux/faux-priced"];
		const granting = await cli(["run", "priced", ...PRICED, "--max-cost", "0.000001", "--grant"]);
		expect(granting.code, granting.stderr).toBe(130);

		const capped = await cli(["run", "priced", ...PRICED, "--json"]);
		expect(capped.code, capped.stderr).toBe(130);
		expect(capped.stderr).toContain(
			`Note: capped at <$0.0001, the dollar ceiling granted to the project workflow .pi/workflows/priced.js (sha256 ${sha256Of(priced("two")).slice(0, 12)}); give --max-cost for another cap\n`,
		);
		expect(capped.stderr).toContain("Error (cost_cap): Stopped at the run's cost cap:");
		// As a run given that --max-cost: estimated first and warned about, stopped at the cap, resumable under it.
		expect(capped.stderr).toMatch(/\nWarning: estimated \$[\d.]+, over the cap <\$0\.0001 \(Basis: /);
		const { counts, runId } = JSON.parse(capped.stdout) as { counts: { started: number }; runId: string };
		expect(counts.started).toBe(1);
		const resumed = await cli(["resume", runId, ...PRICED]);
		expect(resumed.code, resumed.stderr).toBe(130);
		expect(resumed.stderr).toMatch(/Error \(cost_cap\): Stopped at the run's cost cap: \$0\.\d+ of <\$0\.0001 spent/);

		// One byte changed: the ceiling was granted to the other text, so this run has no cap and runs both children.
		writeFileSync(join(cwd, ".pi", "workflows", "priced.js"), priced("too"));
		const edited = await cli(["run", "priced", ...PRICED]);
		expect(edited.code, edited.stderr).toBe(0);
		expect(edited.stderr).not.toContain("Note: capped at");
		expect(edited.stderr).toContain(
			`Note: the project workflow .pi/workflows/priced.js (sha256 ${sha256Of(priced("too")).slice(0, 12)}) changed since sha256 ${sha256Of(priced("two")).slice(0, 12)} was granted a dollar ceiling of <$0.0001; this run has no cap. Grant this version one with --max-cost <usd> --grant\n`,
		);
		expect(JSON.parse(edited.stdout)).toEqual(["child answered ONE", "child answered TOO"]);
	}, 120_000);
});
