/**
 * pi's own `-a` (trust the project for this run) through pi's CLI in print mode, with the extension loaded by pi's
 * loader: a project whose only gated thing is an agent file with `extensions` (pi itself finds nothing to ask about,
 * so `ctx.isProjectTrusted()` is true with and without `-a`). With `-a` the file is read and its type runs; without
 * it, the unknown type's error names the skipped file and how to trust the project.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCommand } from "../helpers/spawn.ts";

const root = join(import.meta.dirname, "..", "..");
const piCli = join(root, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");

const SCRIPT = `export const meta = { name: "searching", description: "a project agent type" };
return await agent("echo found", { agent: "searcher" });`;

describe("pi -a and a project's agent files", () => {
	const dirs: string[] = [];
	afterEach(() => {
		for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
	});

	/** A project with `.pi/agents/searcher.md` loading `./marker.ts`, which leaves a file when pi loads it. */
	function project(): { cwd: string; file: string; marker: string } {
		const cwd = mkdtempSync(join(tmpdir(), "wf-pi-approve-"));
		dirs.push(cwd);
		const agents = join(cwd, ".pi", "agents");
		mkdirSync(agents, { recursive: true });
		const marker = join(cwd, "marker");
		writeFileSync(
			join(agents, "marker.ts"),
			`import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "loaded");\nexport default function () {}\n`,
		);
		const file = join(agents, "searcher.md");
		writeFileSync(file, "---\nname: searcher\nextensions: ./marker.ts\n---\nYou search.\n");
		return { cwd, file, marker };
	}

	async function pi(cwd: string, flags: string[]) {
		const agentDir = mkdtempSync(join(tmpdir(), "wf-pi-approve-agent-"));
		dirs.push(agentDir);
		return runCommand(
			process.execPath,
			[
				piCli,
				"-p",
				"--offline",
				"--no-session",
				...flags,
				"-e",
				join(root, "src", "pi.ts"),
				"-e",
				join(root, "test", "fixtures", "faux-provider-extension.ts"),
				"--model",
				"faux/faux-1",
				`workflow ${JSON.stringify({ script: SCRIPT })}`,
			],
			{
				cwd,
				timeoutMs: 120_000,
				env: {
					...process.env,
					PI_CODING_AGENT_DIR: agentDir,
					PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
				},
			},
		);
	}

	it("with -a, the project's agent file is read: its type runs, with its extension", async () => {
		const { cwd, marker } = project();
		const run = await pi(cwd, ["-a"]);
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toContain("WORKFLOW RESULT >>> Workflow searching completed");
		expect(run.stdout).toContain("child answered FOUND");
		expect(existsSync(marker)).toBe(true);
	}, 150_000);

	it("without -a, the unknown type's error names the skipped agent file, why, and how to trust the project", async () => {
		const { cwd, file, marker } = project();
		const run = await pi(cwd, []);
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toContain("Unknown agent type `searcher`");
		expect(run.stdout).toContain(
			`This project's agent files were not read (${file}): the project has not been trusted (no saved decision). To use them, trust the project: \`pi -a\` for one run, \`/trust\` in pi`,
		);
		expect(existsSync(marker)).toBe(false);
	}, 150_000);
});
