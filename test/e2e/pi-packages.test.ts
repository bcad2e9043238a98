/**
 * Workflows in pi packages (issue 49 §1–§3), through a real `pi install` of a local package into a temp agent dir:
 * the package ships two workflows and a cassette (kept with `pi-workflows test --save` from a run with real pi
 * children on the faux provider); both become `/pkg-tools:<name>` with their source and digest; pi itself loads the
 * manifest shape the docs give; one edited byte stops the workflow with the re-approve message; `verify` replays the
 * shipped cassette offline, and names the divergence after a prompt edit.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSavedWorkflows, resolveScriptSource, type SavedWorkflow } from "../../src/host/script-source.ts";
import { startDurableRun } from "../../src/host/start-run.ts";
import {
	registerSavedWorkflowCommands,
	savedWorkflowCommand,
	workflowsRunSubcommand,
} from "../../src/pi/commands/saved-commands.ts";
import { createWorkflowProgressTracker } from "../../src/progress/index.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { savedWorkflowLines } from "../../src/tool/description.ts";
import { createRunnerFixture, type RunnerFixture } from "../children/runner-fixture.ts";
import { cliInProcess } from "../helpers/cli-in-process.ts";
import { fauxAssistantMessage } from "../helpers/faux.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { runCommand } from "../helpers/spawn.ts";

checkSandboxLeaks();

const root = join(import.meta.dirname, "..", "..");
const piCli = join(root, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");

const ALPHA = `export const meta = { name: "alpha", description: "Notes about the parser" };
const notes = await agent("List three notes about the parser", { label: "notes" });
return { notes };
`;
const BETA = `export const meta = { name: "beta", description: "Says beta" };
return "beta";
`;

let fx: RunnerFixture;
let pkg: string;
let bare: string;
let cwd: string;
let agentDir: string;

/** pi's own command, on this Node, with the temp agent dir. */
function pi(args: string[]) {
	return runCommand(process.execPath, [piCli, ...args], {
		cwd,
		timeoutMs: 120_000,
		env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
	});
}

function cli(argv: string[]) {
	return cliInProcess(argv, { cwd, agentDir });
}

function saved(): Map<string, SavedWorkflow> {
	return loadSavedWorkflows({ cwd, agentDir, bundledDir: false, claude: false }).byName;
}

beforeAll(async () => {
	fx = await createRunnerFixture();
	({ cwd, agentDir } = fx.dirs);
	pkg = mkdtempSync(join(tmpdir(), "wf-pkg-tools-"));
	mkdirSync(join(pkg, "workflows"));
	writeFileSync(
		join(pkg, "package.json"),
		JSON.stringify({ name: "@acme/pkg-tools", version: "1.0.0", pi: { workflows: ["./workflows"], extensions: [] } }),
	);
	writeFileSync(join(pkg, "workflows", "alpha.js"), ALPHA);
	writeFileSync(join(pkg, "workflows", "beta.js"), BETA);
	// The cassette, as an author makes it: a run with real children, kept beside the workflow by `test --save`.
	fx.faux.route("List three notes", [fauxAssistantMessage("a, b, c")]);
	const filename = join(pkg, "workflows", "alpha.js");
	const start = await startDurableRun({
		cwd,
		runsRoot: join(agentDir, "workflow-runs"),
		script: () => ({ source: ALPHA, filename }),
	});
	const tracker = createWorkflowProgressTracker();
	const result = await runWorkflowScript(ALPHA, {
		agentRunner: fx.runner(start.runner),
		filename,
		cwd,
		...start.runOptions((event) => tracker.updateFromProgressEvent(event)),
	});
	const outcome = await start.finish(result, tracker.complete(result).envelope);
	const kept = await cli(["test", filename, "--against", outcome.runId ?? "", "--save"]);
	expect(kept.code, kept.stderr).toBe(0);
	// A package whose manifest lists only workflows: pi loads it as an extension folder.
	bare = mkdtempSync(join(tmpdir(), "wf-pkg-bare-"));
	mkdirSync(join(bare, "workflows"));
	writeFileSync(
		join(bare, "package.json"),
		JSON.stringify({ name: "bare", version: "1.0.0", pi: { workflows: ["./workflows"] } }),
	);
	writeFileSync(join(bare, "workflows", "beta.js"), BETA);
	const installed = await pi(["install", pkg]);
	expect(installed.code, installed.stderr).toBe(0);
}, 180_000);

afterAll(() => {
	fx?.teardown();
	for (const dir of [pkg, bare]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("workflows installed from a pi package", () => {
	it("are saved workflows named <package>:<meta.name>, listed with their source and digest", async () => {
		const byName = saved();
		const alpha = byName.get("pkg-tools:alpha");
		const beta = byName.get("pkg-tools:beta");
		expect(alpha?.filename).toBe(join(pkg, "workflows", "alpha.js"));
		expect(beta?.scope).toBe("installed");
		const lock = JSON.parse(readFileSync(join(agentDir, "workflows.lock.json"), "utf8"));
		const digest = lock.workflows["pkg-tools:alpha"].sha256 as string;
		expect(digest).toMatch(/^[0-9a-f]{64}$/);
		const from = `[from ${pkg} (@acme/pkg-tools@1.0.0), sha256 ${digest.slice(0, 12)}]`;
		expect(savedWorkflowLines([alpha as SavedWorkflow])).toContain(
			`  pkg-tools:alpha ${from}: Notes about the parser`,
		);
		const commands = new Map<string, unknown>();
		const fakePi = {
			registerCommand: (name: string, command: unknown) => commands.set(name, command),
			getCommands: () => [],
		};
		const report = registerSavedWorkflowCommands(
			fakePi as never,
			cwd,
			{ agentDir, bundledDir: false, ownCommands: [] } as never,
			new Set(),
		);
		expect(report.registered).toEqual(["pkg-tools:alpha", "pkg-tools:beta"]);
		const command = savedWorkflowCommand(beta as SavedWorkflow, {} as never);
		expect(command.description).toMatch(
			new RegExp(
				`^Workflow \\(installed from ${literal(pkg)} \\(@acme/pkg-tools@1\\.0\\.0\\), sha256 [0-9a-f]{12}\\): Says beta$`,
			),
		);
		// `/workflows run` with no name and `pi-workflows runs` list them with their source and digest too.
		const listed = `  pkg-tools:alpha  from ${pkg} (@acme/pkg-tools@1.0.0), sha256 ${digest.slice(0, 12)}, not verified yet`;
		const notes: string[] = [];
		const ctx = { cwd, mode: "tui", ui: { notify: (text: string) => notes.push(text) } };
		await workflowsRunSubcommand({ agentDir, bundledDir: false } as never)("", ctx as never);
		expect(notes[0]?.split("\n")).toContain(listed);
		expect((await cli(["runs"])).stdout.split("\n")).toContain(listed);
		const resolved = resolveScriptSource({ name: "pkg-tools:alpha" }, { cwd, agentDir });
		expect(resolved).toMatchObject({ source: ALPHA, origin: "saved:pkg-tools:alpha", tier: "installed" });
	});

	it("is loaded by pi itself in the shape the docs give (workflows beside an empty extensions list)", async () => {
		const run = await pi([
			"-p",
			"--offline",
			"--no-session",
			"-e",
			join(root, "test", "fixtures", "faux-provider-extension.ts"),
			"--model",
			"faux/faux-1",
			"hello",
		]);
		expect(run.code, run.stderr).toBe(0);
	}, 150_000);

	it("says what to add to a package pi cannot load because its manifest lists only workflows", async () => {
		const installed = await pi(["install", bare]);
		expect(installed.code, installed.stderr).toBe(0);
		try {
			const { warnings } = loadSavedWorkflows({ cwd, agentDir, bundledDir: false, claude: false });
			const warning = `pi cannot load the package ${bare}: its package.json "pi" lists only "workflows", so pi loads the folder as an extension and fails ("Cannot find module"). Add "extensions": [] beside "workflows" in its "pi" manifest: "pi": { "workflows": [...], "extensions": [] }`;
			expect(warnings).toContain(warning);
			// What pi itself says of it, and the command line's verify says it too.
			const run = await pi(["-p", "--offline", "--no-session", "--model", "faux/faux-1", "hello"]);
			expect(run.code).toBe(1);
			expect(run.stderr).toContain("Cannot find module");
			expect((await cli(["verify", "--all"])).stderr).toContain(`Warning: ${warning}\n`);
		} finally {
			const removed = await pi(["remove", bare]);
			expect(removed.code, removed.stderr).toBe(0);
		}
	}, 150_000);

	it("verify replays the shipped cassette offline and passes; --all checks every installed workflow", async () => {
		const one = await cli(["verify", "pkg-tools:alpha"]);
		expect(one.code, one.stdout + one.stderr).toBe(0);
		expect(one.stdout).toMatch(
			/^ok pkg-tools:alpha \(from .*, sha256 [0-9a-f]{12}\): replay test passed: 1 recorded call matched\n/,
		);
		expect(fx.faux.requests).toHaveLength(1);
		const all = await cli(["verify", "--all"]);
		expect(all.code, all.stdout).toBe(0);
		expect(all.stdout).toContain("ok pkg-tools:beta");
		expect(all.stdout).toContain("no cassette shipped, so no replay test");
	});

	it("stops a workflow whose installed file changed by one byte, with the way to re-approve it", async () => {
		const file = join(pkg, "workflows", "beta.js");
		const lock = JSON.parse(readFileSync(join(agentDir, "workflows.lock.json"), "utf8"));
		const locked = lock.workflows["pkg-tools:beta"].sha256 as string;
		writeFileSync(file, BETA.replace('return "beta"', 'return "betA"'));
		let thrown: unknown;
		try {
			resolveScriptSource({ name: "pkg-tools:beta" }, { cwd, agentDir });
		} catch (error) {
			thrown = error;
		}
		expect(thrown, String(thrown)).toMatchObject({ code: "workflow_digest_mismatch" });
		expect((thrown as Error).message).toMatch(
			new RegExp(
				`^Installed workflow \`pkg-tools:beta\` \\(${literal(file)}\\) no longer matches the digest locked for package ${literal(pkg)} \\(@acme/pkg-tools@1\\.0\\.0\\) \\(locked sha256 ${locked.slice(0, 12)}…, now [0-9a-f]{12}…\\), so it does not run\\. If you changed it and trust the change, re-approve it: \`pi-workflows verify pkg-tools:beta --accept\`; otherwise re-install the package: \`pi install ${literal(pkg)}\` \\(the lock is ${literal(join(agentDir, "workflows.lock.json"))}\\)$`,
			),
		);
		const [listed] = savedWorkflowLines([saved().get("pkg-tools:beta") as SavedWorkflow]).slice(1);
		expect(listed).toMatch(
			/^ {2}pkg-tools:beta \[from .*, sha256 [0-9a-f]{12}, changed since installed: does not run\]: /,
		);
		const failed = await cli(["verify", "pkg-tools:beta"]);
		expect(failed.code).toBe(1);
		expect(failed.stdout).toContain("FAILED pkg-tools:beta");
		const accepted = await cli(["verify", "pkg-tools:beta", "--accept"]);
		expect(accepted.code, accepted.stdout).toBe(0);
		expect(resolveScriptSource({ name: "pkg-tools:beta" }, { cwd, agentDir }).source).toContain('"betA"');
	});

	it("verify fails after a prompt edit, naming the divergence; workflows.verifyBlocksInstall then blocks the run", async () => {
		const file = join(pkg, "workflows", "alpha.js");
		writeFileSync(file, ALPHA.replace("List three notes", "List four notes"));
		const accepted = await cli(["verify", "pkg-tools:alpha", "--accept"]);
		expect(accepted.code).toBe(1);
		expect(accepted.stdout).toMatch(/^FAILED pkg-tools:alpha .*: replay test FAILED \(0 recorded calls matched\): /);
		expect(accepted.stdout).toContain("List four notes");
		expect(accepted.stdout).toContain("  ✗ ");
		// Not blocked without the setting; blocked with it.
		expect(resolveScriptSource({ name: "pkg-tools:alpha" }, { cwd, agentDir }).source).toContain("four");
		const settingsFile = join(agentDir, "settings.json");
		const settings = JSON.parse(readFileSync(settingsFile, "utf8"));
		writeFileSync(settingsFile, JSON.stringify({ ...settings, workflows: { verifyBlocksInstall: true } }));
		let thrown: unknown;
		try {
			resolveScriptSource({ name: "pkg-tools:alpha" }, { cwd, agentDir });
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toMatchObject({ code: "workflow_verify_failed" });
		expect((thrown as Error).message).toMatch(
			/^Installed workflow `pkg-tools:alpha` of package .* failed its replay test \(replay test FAILED .*\), and the setting workflows\.verifyBlocksInstall blocks it\. See why with `pi-workflows verify pkg-tools:alpha`; install a version that passes \(`pi install .*`\), or turn the setting off$/,
		);
		expect(fx.faux.requests).toHaveLength(1);
	});
});

function literal(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
