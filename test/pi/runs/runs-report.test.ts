/**
 * A run's report from pi: a run of the `workflow` tool (its record and event log written by the tool, as in a
 * session; children are a scripted runner), then `workflow_runs({ action: "report" })`, `/workflows report <id>` and
 * `/workflows` → the run → "Report" each write the HTML next to the record and say where; "Details" still shows it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionCommandContext, ExtensionToolContext } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RunRegistry } from "../../../src/host/registry.ts";
import { createWorkflowsCommand } from "../../../src/pi/commands/workflows-command.ts";
import { createWorkflowRunsTool } from "../../../src/pi/runs/runs-tool.ts";
import { createRunStore } from "../../../src/runs/index.ts";
import { createWorkflowQueue } from "../../../src/runtime/core/queue.ts";
import { createWorkflowTool } from "../../../src/tool/workflow-tool.ts";
import { createFakeRunner } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const SCRIPT = `export const meta = { name: "two-notes", description: "d" };
phase("notes");
const notes = await parallel([() => agent("first note", { label: "first" }), () => agent("second note", { label: "second" })]);
return notes;`;

describe("a run's report from pi", () => {
	let cwd: string;
	let agentDir: string;
	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-report-project-"));
		agentDir = mkdtempSync(join(tmpdir(), "wf-report-agent-"));
	});
	afterEach(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(agentDir, { recursive: true, force: true });
	});

	/** Runs SCRIPT through the workflow tool, which records it (run.json, journal, event log, snapshot). */
	async function toolRun() {
		const registry = new RunRegistry();
		const fake = createFakeRunner((request) =>
			request.prompt === "second note" ? { fail: "model <b>down</b>" } : "ok",
		);
		const tool = createWorkflowTool({
			queue: createWorkflowQueue(),
			agentDir,
			registry,
			createRunner: async () => fake.runner,
		});
		const ctx = { cwd, mode: "print", hasUI: false, ui: { setWidget: () => {}, setStatus: () => {} } };
		const result = await tool.execute(
			"c",
			{ script: SCRIPT },
			undefined,
			undefined,
			ctx as unknown as ExtensionToolContext,
		);
		const store = createRunStore({ cwd, root: join(agentDir, "workflow-runs") });
		const [summary] = await store.list();
		expect(result.details.envelope?.status).toBe("completed");
		return { registry, store, id: summary?.id ?? "", dir: join(store.dir, summary?.id ?? "") };
	}

	it("workflow_runs report: writes report.html in the run's folder with the tool's timeline, and returns its path", async () => {
		const { registry, store, id, dir } = await toolRun();
		const runs = createWorkflowRunsTool({ registry, storeFor: () => store });
		const result = await runs.execute("r", { action: "report", runId: id }, undefined, undefined, {
			cwd,
		} as unknown as ExtensionToolContext);
		const text = result.content[0]?.type === "text" ? result.content[0].text : "";
		const path = join(dir, "report.html");
		expect(text).toMatch(
			new RegExp(
				`^Report of run ${id}: ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(\\d+ KiB\\)\\. 1 session, 2 agent calls\\. Open it in any browser: it is one file and fetches nothing\\.$`,
			),
		);
		const html = readFileSync(path, "utf8");
		// The tool wrote the event log, so the report has the session's timeline with a lane per call.
		expect(existsSync(join(dir, "events.jsonl"))).toBe(true);
		expect(html).toContain('<svg class="timeline" data-session="1"');
		expect(html.match(/<g class="lane[^"]*" data-c="\d+"[^>]*data-outcome="(completed|failed)"/g)).toHaveLength(2);
		expect(html).toContain("model &lt;b&gt;down&lt;/b&gt;");
		expect(html).not.toContain("<b>down");
	});

	it("workflow_runs report without runId says what to give", async () => {
		const runs = createWorkflowRunsTool({
			registry: new RunRegistry(),
			storeFor: () => createRunStore({ cwd, root: agentDir }),
		});
		await expect(
			runs.execute("r", { action: "report" }, undefined, undefined, { cwd } as unknown as ExtensionToolContext),
		).rejects.toThrow('`report` needs `runId`: call workflow_runs({ action: "list" }) to find it');
	});

	it("/workflows report <id>, and /workflows → the run → Report or Details in the TUI", async () => {
		const { registry, store, id, dir } = await toolRun();
		const shown: string[] = [];
		const offered: string[][] = [];
		let choice = 0;
		const ctx = (mode: "tui" | "print") =>
			({
				cwd,
				mode,
				ui: {
					notify: (text: string) => shown.push(text),
					select: async (_title: string, options: string[]) => {
						offered.push(options);
						// The run list: the run; its menu: the option asked for.
						return offered.length % 2 === 1 ? options[0] : options[choice];
					},
				},
			}) as unknown as ExtensionCommandContext;
		const command = createWorkflowsCommand({ registry, storeFor: () => store });
		await command.handler(`report ${id}`, ctx("print"));
		expect(shown.at(-1)).toMatch(
			new RegExp(`^Report of run ${id}: .*report\\.html \\(\\d+ KiB\\)\\. 1 session, 2 agent calls\\.`),
		);
		rmSync(join(dir, "report.html"));

		choice = 1;
		await command.handler("", ctx("tui"));
		expect(offered.at(-1)?.slice(0, 2)).toEqual([
			"The run: its phases, agents and failures",
			"Report: write its timeline as one HTML file",
		]);
		expect(shown.at(-1)).toContain(`Report of run ${id}: ${join(dir, "report.html")}`);
		expect(existsSync(join(dir, "report.html"))).toBe(true);

		choice = 0;
		await command.handler("", ctx("tui"));
		expect(shown.at(-1)).toMatch(new RegExp(`^Run ${id} \\(two-notes\\): completed`));
		await command.handler("report", ctx("print"));
		expect(shown.at(-1)).toBe("Which run? /workflows report <runId> (/workflows lists them)");
	});
});
