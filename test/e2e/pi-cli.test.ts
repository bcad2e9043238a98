import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCommand } from "../helpers/spawn.ts";

const root = join(import.meta.dirname, "..", "..");
const piCli = join(root, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");

describe("pi -p --offline -e ./src/pi.ts", () => {
	const dirs: string[] = [];
	afterEach(() => {
		for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
	});

	it("loads the extension through pi's own loader and runs a workflow tool call end to end", async () => {
		const agentDir = mkdtempSync(join(tmpdir(), "wf-pi-cli-"));
		dirs.push(agentDir);
		const { code, stdout, stderr } = await runCommand(
			process.execPath,
			[
				piCli,
				"-p",
				"--offline",
				"--no-session",
				"-e",
				"./src/pi.ts",
				"-e",
				"./test/fixtures/faux-provider-extension.ts",
				"--model",
				"faux/faux-1",
				"Run the workflow",
			],
			{
				cwd: root,
				timeoutMs: 120_000,
				env: {
					...process.env,
					PI_CODING_AGENT_DIR: agentDir,
					PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
				},
			},
		);
		expect(code, stderr).toBe(0);
		expect(stdout).toContain("WORKFLOW RESULT >>> Workflow cli-e2e completed");
		expect(stdout).toContain("child answered ALPHA");
		expect(stdout).toContain("child answered BETA");
		expect(stdout).toContain('"calls": 2');
	}, 150_000);
});
