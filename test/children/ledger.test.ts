/**
 * The ledger of what each child did, through one real run: pi sessions on the faux provider in a real temp git
 * repository, three children editing and writing files (one of them isolated in a worktree), one running real bash
 * commands, and the script's own `tool()` step. Read back from the run's record by `pi-workflows runs --changes`, the
 * HTML report, `workflow_runs` and `/workflows` → the run → Changes; then a resume with an edited script keeps the
 * first session's ledger and records both scripts' sha256 with their diff.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { ExtensionCommandContext, ExtensionToolContext } from "@earendil-works/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/cli.ts";
import { DurableRun } from "../../src/host/durable-run.ts";
import { RunRegistry } from "../../src/host/registry.ts";
import { createWorkflowsCommand } from "../../src/pi/commands/workflows-command.ts";
import { createWorkflowRunsTool } from "../../src/pi/runs/runs-tool.ts";
import { changesOfRecord, type RunChanges, writeRunReport } from "../../src/report/index.ts";
import { createRunStore, type RunStore } from "../../src/runs/index.ts";
import { runWorkflowScript, type WorkflowTool } from "../../src/runtime/index.ts";
import { fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";
import { createTempRepo, type TempRepo } from "../helpers/git-repo.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { createRunnerFixture, type RunnerFixture } from "./runner-fixture.ts";

checkSandboxLeaks();

const SCRIPT = `export const meta = { name: "ledger", description: "children that change files" };
await agent("Fix add in src/math.js", { label: "fix add" });
await agent("Document add and touch src/math.js", { label: "docs" });
await agent("Update the README and run the checks", { label: "readme" });
await agent("Add src/iso.js on a branch", { label: "iso", isolation: "worktree" });
const test = await tool("bash", { command: "npm test" });
return test.isError ? "red" : "green";`;

const call = (name: string, args: Parameters<typeof fauxToolCall>[1]) =>
	fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" });

let fx: RunnerFixture;
let repo: TempRepo;
let store: RunStore;
let agentDir: string;
let runId: string;
/** The commands the script's host `bash` tool was given. */
const hostCommands: string[] = [];
const hostBash: WorkflowTool = async (params) => {
	const command = String((params as { command?: unknown }).command);
	hostCommands.push(command);
	return { output: `ran ${command}`, isError: false, details: { exit_code: 0 } } as const;
};

/** One session of the run: a fresh run, or a resume of `runId` with `script`. */
async function session(durable: DurableRun, script: string) {
	const source = { script, filename: "ledger.js" };
	const result = await runWorkflowScript(script, {
		agentRunner: fx.runner({
			cwd: repo.dir,
			piRetry: false,
			runFolder: () => durable.runFolder(),
			record: (event) => durable.logEvent(event),
			worktreePlace: () => durable.worktreePlace(),
		}),
		filename: "ledger.js",
		cwd: repo.dir,
		journal: durable.journal,
		tools: { bash: hostBash },
		onProgress: (event) => durable.progress(event, source),
	});
	await durable.finish(result);
	return result;
}

/** `workflow_runs({ action: "changes", runId, path })`'s text. */
async function askTool(path?: string): Promise<string> {
	const tool = createWorkflowRunsTool({ registry: new RunRegistry(), storeFor: () => store });
	const params = { action: "changes" as const, runId, ...(path !== undefined ? { path } : {}) };
	const result = await tool.execute("t", params, undefined, undefined, { cwd: repo.dir } as ExtensionToolContext);
	return result.content[0]?.type === "text" ? result.content[0].text : "";
}

async function cli(argv: string[]) {
	const stdout = new PassThrough();
	let out = "";
	stdout.on("data", (chunk) => {
		out += chunk;
	});
	const code = await runCli(argv, { cwd: repo.dir, env: {}, agentDir, stdout, stderr: new PassThrough() });
	return { code, stdout: out };
}

beforeAll(async () => {
	fx = await createRunnerFixture();
	repo = createTempRepo();
	agentDir = join(repo.runDir, "..", "agent");
	mkdirSync(agentDir, { recursive: true });
	store = createRunStore({ cwd: repo.dir, root: join(agentDir, "workflow-runs") });
	fx.faux.route("Fix add", [
		call("edit", { path: "src/math.js", edits: [{ oldText: "a - b", newText: "a + b" }] }),
		fauxAssistantMessage("fixed"),
	]);
	fx.faux.route("Document add", [
		call("write", { path: "docs/add.md", content: "# add\n\nAdds two numbers.\n" }),
		call("edit", {
			path: join(repo.dir, "src/math.js"),
			edits: [{ oldText: "export const add", newText: "/** Adds. */\nexport const add" }],
		}),
		fauxAssistantMessage("documented"),
	]);
	fx.faux.route("Update the README", [
		call("edit", { path: "README.md", edits: [{ oldText: "# demo", newText: "# demo\n\nIt adds." }] }),
		call("bash", { command: "git status --short" }),
		call("bash", { command: "echo failing >&2; exit 3" }),
		fauxAssistantMessage("readme updated, checks fail"),
	]);
	fx.faux.route("Add src/iso.js", [
		call("write", { path: "src/iso.js", content: "export const iso = 1;\nexport const two = 2;\n" }),
		fauxAssistantMessage("added on a branch"),
	]);
	const durable = DurableRun.fresh(store, { script: SCRIPT, filename: "ledger.js" });
	const result = await session(durable, SCRIPT);
	expect(result).toMatchObject({ status: "completed", value: "green" });
	runId = (await durable.recorded) as string;
}, 30_000);

afterAll(() => {
	fx?.teardown();
	repo?.dispose();
});

describe("the ledger of a run", () => {
	it("keeps, per call, every file written or edited with its lines, and every command with exit code and duration", async () => {
		const changes = await changesOfRecord(await store.open(runId));
		// By file: who touched it, in order; an absolute path inside the child's folder is named relative to it.
		expect(changes.files.map((file) => [file.path, file.touches.map((t) => `${t.by} ${t.tool}`)])).toEqual([
			["docs/add.md", ["#2 docs write"]],
			["README.md", ["#3 readme edit"]],
			["src/iso.js", ["#4 iso write"]],
			["src/math.js", ["#1 fix add edit", "#2 docs edit"]],
		]);
		expect(changes.files[2]?.touches[0]?.branch).toBe(`workflows/${runId}/iso`);
		const math = changes.files.find((file) => file.path === "src/math.js");
		// Lines as pi's own patch counts them: the doc comment is one line added above an unchanged one.
		expect(math?.touches.map(({ added, removed }) => [added, removed])).toEqual([
			[1, 1],
			[1, 0],
		]);
		expect(changes.files[0]?.touches[0]).toMatchObject({ added: 3 });
		// By call: the readme child's edit and its two real commands, their exit codes and durations.
		const readme = changes.calls.find((c) => c.name === "#3 readme");
		expect(readme?.entries.map((e) => [e.tool, e.path ?? e.command, e.exitCode])).toEqual([
			["edit", "README.md", undefined],
			["bash", "git status --short", 0],
			["bash", "echo failing >&2; exit 3", 3],
		]);
		for (const entry of readme?.entries ?? []) expect(entry.durationMs).toBeGreaterThanOrEqual(0);
		expect(readme?.entries[2]?.isError).toBe(true);
		// The script's tool() step, under the script.
		expect(hostCommands).toEqual(["npm test"]);
		const script = changes.calls.find((c) => c.name === "the script");
		expect(script?.entries).toEqual([
			expect.objectContaining({ tool: "bash", command: "npm test", exitCode: 0, isError: false, session: 1 }),
		]);
		expect(changes.commands.map((c) => `${c.by}: ${c.command}`)).toEqual([
			"#3 readme: git status --short",
			"#3 readme: echo failing >&2; exit 3",
			"the script: npm test",
		]);
	});

	it("an isolated child's branch adds its git diff --stat", async () => {
		const changes = await changesOfRecord(await store.open(runId));
		const iso = changes.calls.find((c) => c.name === "#4 iso");
		const branch = `workflows/${runId}/iso`;
		expect(iso?.worktree).toMatchObject({ branch, files: [{ path: "src/iso.js", added: 2, removed: 0 }] });
		// The stat is git's own, of the kept branch against the commit it was made from.
		expect(iso?.worktree?.stat).toBe(repo.git(["diff", "--stat=120", "--no-renames", "main", branch]).trimEnd());
		expect(iso?.worktree?.stat).toContain("1 file changed, 2 insertions(+)");
		// The child's own write names the path inside its worktree's folder, as it gave it.
		expect(iso?.entries.map((e) => [e.tool, e.path, e.added])).toEqual([["write", "src/iso.js", 2]]);
	});

	it("answers which child changed a file: runs --changes, --json, workflow_runs and the report", async () => {
		const text = await cli(["runs", runId, "--changes"]);
		expect(text.code).toBe(0);
		expect(text.stdout).toContain("  src/math.js: #1 fix add (edit +1 -1), then #2 docs (edit +1 -0)\n");
		expect(text.stdout).toContain(`  src/iso.js: #4 iso (write +2, on branch workflows/${runId}/iso)\n`);
		expect(text.stdout).toContain("    $ echo failing >&2; exit 3 · exit 3 · ");
		expect(text.stdout).toMatch(/ {2}the script\n {4}\$ npm test · exit 0/);
		const json = JSON.parse((await cli(["runs", runId, "--changes", "--json"])).stdout) as RunChanges;
		expect(json.files.map((file) => file.path)).toEqual(["docs/add.md", "README.md", "src/iso.js", "src/math.js"]);
		// The model's one-line answer, and the whole ledger as the CLI prints it.
		expect(await askTool("src/math.js")).toBe(`src/math.js was changed by #1 fix add, then #2 docs (run ${runId}).`);
		expect(await askTool("iso.js")).toBe(
			`iso.js was changed by #4 iso (branch workflows/${runId}/iso) (run ${runId}).`,
		);
		expect(await askTool("package.json")).toMatch(/^No call of run .* wrote or edited package.json/);
		expect(await askTool()).toBe(text.stdout.trimEnd());
		// A person: /workflows → the run → Changes.
		const shown: string[] = [];
		const ctx = {
			cwd: repo.dir,
			mode: "tui",
			ui: {
				notify: (message: string) => shown.push(message),
				select: async (_title: string, options: string[]) =>
					options.find((option) => option.startsWith(runId)) ?? options.find((o) => o.startsWith("Changes")),
			},
		} as unknown as ExtensionCommandContext;
		await createWorkflowsCommand({ registry: new RunRegistry(), storeFor: () => store }).handler("", ctx);
		expect(shown).toEqual([text.stdout.trimEnd()]);
		const { path } = await writeRunReport(store, runId, { out: join(repo.runDir, "..", "report.html") });
		const html = readFileSync(path, "utf8");
		expect(html).toContain('<h2 id="changes">Changes</h2>');
		expect(html).toContain(
			'<tr><td><code>src/math.js</code></td><td>#1 fix add <span class="sub">edit +1 -1</span> → #2 docs <span class="sub">edit +1 -0</span></td></tr>',
		);
		expect(html).toContain("<code>$ echo failing &gt;&amp;2; exit 3 · exit 3 · ");
		expect(html).toContain("1 file changed, 2 insertions(+)");
	});

	it("a resume with an edited script keeps the first session's ledger and records both scripts with their diff", async () => {
		const edited = SCRIPT.replace(
			"return test.isError",
			'await tool("bash", { command: "npm run lint" });\nreturn test.isError',
		);
		const resumed = await DurableRun.resume(store, runId);
		const result = await session(resumed, edited);
		expect(result.status).toBe("completed");
		// Every agent call replayed: no child ran again.
		expect(result.counts).toMatchObject({ completed: 4 });
		const changes = await changesOfRecord(await store.open(runId));
		const sha = (text: string) => createHash("sha256").update(text).digest("hex");
		expect(changes.scripts).toEqual([
			{ session: 1, sha256: sha(SCRIPT) },
			{ session: 2, sha256: sha(edited) },
		]);
		expect(changes.scriptDiff).toContain('+await tool("bash", { command: "npm run lint" });');
		expect(changes.scriptDiff?.startsWith("--- before\n+++ after\n@@ ")).toBe(true);
		// The first session's entries are all still there; the resume adds only what it ran (the replayed step is not).
		expect(changes.files.map((file) => [file.path, file.touches.map((t) => t.session)])).toEqual([
			["docs/add.md", [1]],
			["README.md", [1]],
			["src/iso.js", [1]],
			["src/math.js", [1, 1]],
		]);
		const script = changes.calls.find((c) => c.name === "the script");
		expect(script?.entries.map((e) => [e.session, e.command])).toEqual([
			[1, "npm test"],
			[2, "npm run lint"],
		]);
		const runDir = (await store.open(runId)).dir;
		expect(existsSync(join(runDir, "scripts", `${sha(SCRIPT)}.js`))).toBe(true);
		const html = readFileSync((await writeRunReport(store, runId)).path, "utf8");
		expect(html).toContain('<pre class="diff" id="script-diff">');
		expect(html).toContain("+await tool(&quot;bash&quot;, { command: &quot;npm run lint&quot; });");
	});
});
