/**
 * The ledger of a run whose event log holds what a child or a hand made of it, through every view that shows it:
 * `pi-workflows runs <id> --changes`, `workflow_runs` "changes", `/workflows` → the run → Changes, and the HTML
 * report. A file name with a newline or a terminal control in it is shown escaped, so it cannot forge a ledger line
 * (issue 42.15); a tampered line (`"files":[null]`, `"stat":{"toString":1}`) is skipped and named, and the rest of
 * the ledger is shown (issue 42.16).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { ExtensionCommandContext, ExtensionToolContext } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/cli.ts";
import { RunRegistry } from "../../src/host/registry.ts";
import { createWorkflowsCommand } from "../../src/pi/commands/workflows-command.ts";
import { createWorkflowRunsTool } from "../../src/pi/runs/runs-tool.ts";
import { writeRunReport } from "../../src/report/index.ts";
import { createRunStore, type RunStore } from "../../src/runs/index.ts";
import { tempDir } from "../runs/support.ts";

/** A file name that reads, printed as it is, like a second ledger line: call #2 editing src/auth.ts. */
const FORGED = "notes.txt\n  src/auth.ts: #2 reviewer (edit +1 -1)";
/** A file name with a terminal control (clear the screen) in it. */
const CONTROL = "a\u001b[2Jb.ts";

const call = (index: number, label: string) => ({
	session: 1,
	index,
	key: `k${index}`,
	label,
	agentType: "general-purpose",
});

/** The four views of one run's ledger, as their users get them. */
async function views(store: RunStore, runId: string, cwd: string, agentDir: string) {
	const stdout = new PassThrough();
	const stderr = new PassThrough();
	let out = "";
	let err = "";
	stdout.on("data", (chunk) => {
		out += chunk;
	});
	stderr.on("data", (chunk) => {
		err += chunk;
	});
	const code = await runCli(["runs", runId, "--changes"], { cwd, env: {}, agentDir, stdout, stderr });
	const tool = createWorkflowRunsTool({ registry: new RunRegistry(), storeFor: () => store });
	const result = await tool.execute("t", { action: "changes", runId }, undefined, undefined, {
		cwd,
	} as ExtensionToolContext);
	const shown: string[] = [];
	const ctx = {
		cwd,
		mode: "tui",
		ui: {
			notify: (message: string) => shown.push(message),
			select: async (_title: string, options: string[]) =>
				options.find((option) => option.startsWith(runId)) ?? options.find((o) => o.startsWith("Changes")),
		},
	} as unknown as ExtensionCommandContext;
	await createWorkflowsCommand({ registry: new RunRegistry(), storeFor: () => store }).handler("", ctx);
	const { path } = await writeRunReport(store, runId, { out: join(cwd, "report.html") });
	return {
		cli: { code, out, err },
		tool: result.content[0]?.type === "text" ? result.content[0].text : "",
		command: shown.join("\n"),
		html: readFileSync(path, "utf8"),
	};
}

/** A recorded run whose event log has these lines (after its session's start). */
async function runWithLog(lines: object[]) {
	const base = tempDir();
	const cwd = join(base, "project");
	const agentDir = join(base, "agent");
	mkdirSync(cwd, { recursive: true });
	const store = createRunStore({ cwd, root: join(agentDir, "workflow-runs") });
	const record = await store.create({ script: "return 1;", meta: { name: "hostile", description: "d" } });
	const log = [{ type: "session_start", time: 1, session: 1, resumed: false }, ...lines];
	writeFileSync(join(record.dir, "events.jsonl"), log.map((line) => `${JSON.stringify(line)}\n`).join(""));
	return { store, runId: record.id, cwd, agentDir };
}

describe("the ledger's views, on a hostile event log", () => {
	it("a file name with a newline or a control character is shown escaped: no forged line, in every view", async () => {
		const { store, runId, cwd, agentDir } = await runWithLog([
			{ type: "child_tool", time: 2, ...call(0, "notes"), tool: "write", path: FORGED, added: 1, isError: false },
			{ type: "child_tool", time: 3, ...call(0, "notes"), tool: "edit", path: CONTROL, added: 1, isError: false },
		]);
		const shown = await views(store, runId, cwd, agentDir);
		expect(shown.cli.code, shown.cli.err).toBe(0);
		for (const text of [shown.cli.out, shown.tool, shown.command]) {
			expect(text).toContain('  "notes.txt\\n  src/auth.ts: #2 reviewer (edit +1 -1)": #1 notes (write +1)\n');
			expect(text).toContain('  "a\\u001b[2Jb.ts": #1 notes (edit +1)\n');
			expect(text).toContain('    write "notes.txt\\n  src/auth.ts: #2 reviewer (edit +1 -1)" +1\n');
			expect(text.split("\n").filter((line) => line.trimStart().startsWith("src/auth.ts"))).toEqual([]);
		}
		expect(shown.html).toContain("<code>&quot;notes.txt\\n  src/auth.ts: #2 reviewer (edit +1 -1)&quot;</code>");
		expect(shown.html).toContain("<code>&quot;a\\u001b[2Jb.ts&quot;</code>");
		expect(shown.html).not.toContain("\u001b");
	});

	it("tampered lines are skipped and named; the rest of the ledger is shown, in every view", async () => {
		const { store, runId, cwd, agentDir } = await runWithLog([
			{ type: "child_tool", time: 2, ...call(0, "fix"), tool: "write", path: "src/a.ts", added: 2, isError: false },
			{ type: "child_worktree", time: 3, ...call(1, "iso"), branch: "b1", commit: "c1", stat: "s", files: [null] },
			{ type: "child_worktree", time: 4, ...call(2, "iso2"), branch: "b2", commit: "c2", stat: { toString: 1 } },
			{ type: "child_tool", time: 5, ...call(3, "odd"), tool: "edit", path: { toString: 1 }, isError: false },
			{ type: "child_tool", time: 6, ...call(4, "docs"), tool: "edit", path: "README.md", isError: false },
		]);
		const shown = await views(store, runId, cwd, agentDir);
		expect(shown.cli.code, shown.cli.err).toBe(0);
		for (const text of [shown.cli.out, shown.tool, shown.command]) {
			expect(text).toContain("  src/a.ts: #1 fix (write +2)\n");
			expect(text).toContain("  README.md: #5 docs (edit)\n");
			expect(text).toContain(
				[
					"Skipped, unreadable:",
					"  events.jsonl line 3: `files[0]` is not an object with a string `path`",
					"  events.jsonl line 4: `stat` is not a string",
					"  events.jsonl line 5: `path` is not a string",
				].join("\n"),
			);
		}
		expect(shown.html).toContain("events.jsonl line 3: `files[0]` is not an object with a string `path`");
		expect(shown.html).toContain("<code>src/a.ts</code>");
	});
});
