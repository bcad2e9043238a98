import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AgentDirs, createAgentDirs } from "../agents/agent-files.ts";
import { cliInProcess } from "../helpers/cli-in-process.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

let dirs: AgentDirs;
beforeEach(() => {
	dirs = createAgentDirs();
});
afterEach(() => dirs.dispose());

function cli(argv: string[]) {
	return cliInProcess(argv, dirs);
}

describe("run --dry-run plans as pi would run the script", () => {
	it("plans context: fork calls as forks and says a run from the command line fails there", async () => {
		dirs.write(
			"forks.js",
			`export const meta = { name: "forks", description: "asks two forks" };
return await parallel(["a", "b", "c"].map((f) => () => agent("look at " + f, { label: "look " + f, context: "fork" })));
`,
		);
		const result = await cli(["run", "forks.js", "--dry-run", "--json"]);
		expect(result.code, result.stdout + result.stderr).toBe(0);
		const plan = JSON.parse(result.stdout) as { status: string; calls: { forks?: boolean }[]; warnings: string[] };
		expect(plan.status).toBe("completed");
		expect(plan.calls.map((call) => call.forks)).toEqual([true, true, true]);
		expect(plan.warnings).toContain(
			'`look a` and 2 more calls with `context: "fork"` planned as forks: a real run from the command line has no conversation to fork and fails there with fork_unavailable; run it from pi (the workflow tool, /name), where each reads the session\'s conversation first, which this estimate does not count',
		);
	});

	it("folds a warning given many times into one line with its count", async () => {
		dirs.write(
			"warns.js",
			`export const meta = { name: "warns", description: "warns the same thing" };
for (const f of ["a", "b", "c"]) console.warn("no owner for this file");
console.warn("one more thing");
return 1;
`,
		);
		const result = await cli(["run", "warns.js", "--dry-run"]);
		expect(result.code, result.stderr).toBe(0);
		expect(result.stdout).toContain(
			"Warnings a real run would give:\n  - no owner for this file (×3)\n  - one more thing\n",
		);
	});

	it("prices the model names scripts write and a tier from --model-tiers, as it prices full ids", async () => {
		dirs.write(
			"names.js",
			`export const meta = { name: "names", description: "names models as scripts do" };
await agent("plan it", { label: "plan", model: "sonnet" });
return await agent("do it", { label: "do", tier: "small" });
`,
		);
		const result = await cli(["run", "names.js", "--dry-run", "--model-tiers", "small=haiku"]);
		expect(result.code, result.stderr).toBe(0);
		const basis = result.stdout.split("\n").find((line) => line.startsWith("Basis: ")) ?? "";
		expect(basis).toMatch(/catalog price of sonnet \(\$[\d.]+\/\$[\d.]+ per million input\/output tokens\)/);
		expect(basis).toMatch(/catalog price of haiku \(\$[\d.]+\/\$[\d.]+ per million input\/output tokens\)/);
		expect(basis).not.toContain("no price known");
	});
});
