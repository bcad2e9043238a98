/**
 * `workflow({ …, check: true })`: every diagnostic of the static pass as text and details, with the session's agent
 * types, and nothing started: no runner built, no run record. A run of the same script fails before it starts.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionToolContext } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWorkflowQueue } from "../../src/runtime/core/queue.ts";
import { createWorkflowTool } from "../../src/tool/workflow-tool.ts";
import { createFakeRunner, type FakeRunner } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const BAD = `export const meta = { name: "bad", description: "d" };
const found = agent("Review the code");
log(found.length);
return await agnet("x", { subagent_type: "reviewer" });`;

describe("workflow tool, check mode", () => {
	let cwd: string;
	let agentDir: string;
	let runsRoot: string;
	let runnersBuilt: number;
	let fake: FakeRunner;
	let tool: ReturnType<typeof createWorkflowTool>;
	const ctx = () => ({ cwd, mode: "print", hasUI: false }) as unknown as ExtensionToolContext;

	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-check-project-"));
		agentDir = mkdtempSync(join(tmpdir(), "wf-check-agent-"));
		runsRoot = join(agentDir, "runs");
		runnersBuilt = 0;
		fake = createFakeRunner();
		tool = createWorkflowTool({
			queue: createWorkflowQueue(),
			agentDir,
			runsRoot,
			createRunner: async () => {
				runnersBuilt++;
				return fake.runner;
			},
		});
	});
	afterEach(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(agentDir, { recursive: true, force: true });
	});

	const records = () => (existsSync(runsRoot) ? readdirSync(runsRoot, { recursive: true }) : []);

	it("returns every diagnostic with line:column, fix and code frame, and starts nothing", async () => {
		const result = await tool.execute("c1", { script: BAD, check: true }, undefined, undefined, ctx());
		const details = result.details as { check?: { ok: boolean; diagnostics: Record<string, unknown>[] } };
		expect(details.check?.ok).toBe(false);
		expect(details.check?.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([
			["not_awaited", 3, 5],
			["name_undeclared", 4, 14],
		]);
		expect(details.check?.diagnostics[0]).toMatchObject({
			severity: "error",
			message: "`found` is the promise `agent()` returned, and this reads `.length` of it without `await`",
			fix: "Read `(await found)`, or write `const found = await agent(…)`",
			frame: [
				'  2 | const found = agent("Review the code");',
				"> 3 | log(found.length);",
				"    |     ^",
				'  4 | return await agnet("x", { subagent_type: "reviewer" });',
			].join("\n"),
		});
		const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
		expect(text).toContain("workflow.js: 2 errors. Nothing ran (check only).");
		expect(text).toContain("error name_undeclared at 4:14 `agnet` is not defined. Did you mean `agent`?");
		expect(runnersBuilt).toBe(0);
		expect(records()).toEqual([]);
	});

	it("checks a file by path, with the session's agent types", async () => {
		mkdirSync(join(cwd, ".pi", "agents"), { recursive: true });
		writeFileSync(
			join(cwd, ".pi", "agents", "reviewer.md"),
			"---\nname: reviewer\ndescription: Reviews\n---\nReview.",
		);
		writeFileSync(
			join(cwd, "flow.js"),
			`export const meta = { name: "f", description: "d" };\nreturn await agent("x", { agent: "reviwer" });`,
		);
		const result = await tool.execute("c2", { path: "flow.js", check: true }, undefined, undefined, ctx());
		const details = result.details as { check?: { diagnostics: Record<string, unknown>[] } };
		expect(details.check?.diagnostics).toHaveLength(1);
		expect(details.check?.diagnostics[0]).toMatchObject({ code: "agent_type_unknown", line: 2, column: 19 });
		expect(String(details.check?.diagnostics[0]?.fix)).toContain("Did you mean `reviewer`?");
		expect(records()).toEqual([]);
	});

	it("says so when the script is fine, still starting nothing", async () => {
		const good = `export const meta = { name: "g", description: "d" };\nreturn await agent("x");`;
		const result = await tool.execute("c3", { script: good, check: true }, undefined, undefined, ctx());
		expect(result.details).toEqual({ check: { filename: "workflow.js", ok: true, diagnostics: [] } });
		expect(runnersBuilt).toBe(0);
		expect(records()).toEqual([]);
	});

	it("without check, the same script fails the call before anything starts, listing every finding", async () => {
		const error = await tool.execute("c4", { script: BAD }, undefined, undefined, ctx()).catch((e: unknown) => e);
		expect(error).toMatchObject({ code: "not_awaited", location: { line: 3, column: 5 } });
		const message = (error as Error).message;
		expect(message).toContain("The script has 2 problems; nothing ran:");
		expect(message).toContain("4:14 `agnet` is not defined. Did you mean `agent`?");
		expect((error as { details?: { diagnostics?: unknown[] } }).details?.diagnostics).toHaveLength(2);
		expect(fake.requests).toHaveLength(0);
		expect(records()).toEqual([]);
	});
});
