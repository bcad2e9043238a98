import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

/** Runs a command with stdin closed (pi -p reads piped stdin otherwise) and collects its output. */
function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }) {
	return new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
		const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (chunk) => {
			stdout += chunk;
		});
		child.stderr.on("data", (chunk) => {
			stderr += chunk;
		});
		const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
		child.on("error", reject);
		child.on("close", (code) => {
			clearTimeout(timer);
			if (code === 0) resolve({ stdout, stderr });
			else reject(new Error(`pi exited with ${code}\n${stdout}\n${stderr}`));
		});
	});
}
const root = join(import.meta.dirname, "..", "..");
const piCli = join(root, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");

describe("pi -p --offline -e ./src/index.ts", () => {
	const dirs: string[] = [];
	afterEach(() => {
		for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
	});

	it("loads the extension through pi's own loader and runs a workflow tool call end to end", async () => {
		const agentDir = mkdtempSync(join(tmpdir(), "wf-pi-cli-"));
		dirs.push(agentDir);
		const { stdout } = await run(
			process.execPath,
			[
				piCli,
				"-p",
				"--offline",
				"--no-session",
				"-e",
				"./src/index.ts",
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
		expect(stdout).toContain("WORKFLOW RESULT >>> Workflow cli-e2e completed");
		expect(stdout).toContain("child answered ALPHA");
		expect(stdout).toContain("child answered BETA");
		expect(stdout).toContain('"calls": 2');
	}, 150_000);
});
