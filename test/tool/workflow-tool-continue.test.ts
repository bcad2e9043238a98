/**
 * The `workflow` tool's `continueInterrupted: false` (issue 47): the run-wide switch reaches every child's request,
 * so the runner starts each interrupted child afresh; without it the requests leave the choice to each call.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionToolContext } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWorkflowQueue } from "../../src/runtime/core/queue.ts";
import { createWorkflowTool } from "../../src/tool/workflow-tool.ts";
import { createFakeRunner } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const script =
	'export const meta = { name: "two", description: "d" };\nreturn await parallel([() => agent("a"), () => agent("b", { continueInterrupted: false })]);';

describe("workflow tool: continueInterrupted", () => {
	let cwd: string;
	let agentDir: string;
	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-continue-project-"));
		agentDir = mkdtempSync(join(tmpdir(), "wf-continue-agent-"));
	});
	afterEach(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(agentDir, { recursive: true, force: true });
	});

	async function requestsOf(params: { continueInterrupted?: boolean }) {
		const ctx = { cwd, mode: "print", hasUI: false, ui: { setWidget: () => {}, setStatus: () => {} } };
		const fake = createFakeRunner(() => ({ text: "ok" }));
		const tool = createWorkflowTool({
			queue: createWorkflowQueue(),
			agentDir,
			createRunner: async () => fake.runner,
		});
		const result = await tool.execute(
			"c",
			{ script, ...params },
			undefined,
			undefined,
			ctx as unknown as ExtensionToolContext,
		);
		expect(result.details.envelope?.result).toEqual(["ok", "ok"]);
		return Object.fromEntries(fake.requests.map((request) => [request.prompt, request.continueInterrupted]));
	}

	it("false: every child's request says so, whatever its call said", async () => {
		expect(await requestsOf({ continueInterrupted: false })).toEqual({ a: false, b: false });
	});

	it("left out or true: each call decides", async () => {
		expect(await requestsOf({})).toEqual({ a: undefined, b: false });
		expect(await requestsOf({ continueInterrupted: true })).toEqual({ a: undefined, b: false });
	});
});
