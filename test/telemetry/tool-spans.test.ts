/**
 * The `workflow` tool's runs get spans too (they are attached inside `runWorkflowScript`): with an SDK registered,
 * a tool call's run span carries the id of the record the tool made, and a resume's carries the same id.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionToolContext } from "@earendil-works/pi-coding-agent";
import { trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { createWorkflowQueue } from "../../src/runtime/core/queue.ts";
import { createWorkflowTool } from "../../src/tool/workflow-tool.ts";
import { createFakeRunner } from "../helpers/fake-runner.ts";
import { registerMemorySdk } from "../helpers/memory-tracing.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const dirs: string[] = [];
afterEach(() => {
	trace.disable();
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("spans of the workflow tool's runs", () => {
	it("the run span carries the record's id, for a fresh run and for its resume", async () => {
		const exporter = registerMemorySdk();
		const cwd = mkdtempSync(join(tmpdir(), "wf-spans-project-"));
		const agentDir = mkdtempSync(join(tmpdir(), "wf-spans-agent-"));
		dirs.push(cwd, agentDir);
		const ctx = { cwd, mode: "print", hasUI: false, ui: { setWidget: () => {}, setStatus: () => {} } };
		let failing = true;
		const fake = createFakeRunner((request) => (request.prompt === "second" && failing ? { fail: "down" } : "ok"));
		const tool = createWorkflowTool({
			queue: createWorkflowQueue(),
			agentDir,
			createRunner: async () => fake.runner,
		});
		const call = (params: Parameters<typeof tool.execute>[1]) =>
			tool.execute("c", params, undefined, undefined, ctx as unknown as ExtensionToolContext);
		const script = `export const meta = { name: "traced-tool", description: "d" };
await agent("first");
const second = await agent("second");
if (second === null) throw new Error("second failed");
return "done";`;
		const first = await call({ script });
		const runId = first.details.runId;
		expect(runId).toMatch(/^wf-/);
		failing = false;
		await call({ resume: runId });
		const runs = exporter.getFinishedSpans().filter((span) => span.name === "invoke_workflow traced-tool");
		expect(runs.map((span) => [span.attributes["workflow.run.id"], span.attributes["workflow.status"]])).toEqual([
			[runId, "failed"],
			[runId, "completed"],
		]);
		// The resume replayed the first call: its span says so, has no attempt, and spent nothing in this run.
		const replayed = exporter
			.getFinishedSpans()
			.find((span) => span.attributes["workflow.call.outcome"] === "replayed");
		expect(replayed?.attributes["workflow.call.label"]).toBe("first");
		expect(replayed?.attributes["workflow.call.replayed"]).toBe(true);
		expect(replayed?.attributes["workflow.cost.usd"]).toBeUndefined();
		expect(replayed?.attributes["gen_ai.usage.input_tokens"]).toBeUndefined();
		expect(
			exporter
				.getFinishedSpans()
				.filter((span) => span.parentSpanContext?.spanId === replayed?.spanContext().spanId),
		).toEqual([]);
	});
});
