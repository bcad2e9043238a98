/**
 * The pi extension: registers the `workflow` tool with one child queue per session. Concurrency comes from the
 * `--workflow-concurrency` flag (default 4) and can be changed by a tool call's `concurrency`.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { createWorkflowQueue } from "../runtime/queue.ts";
import { warmSandboxPool } from "../sandbox/index.ts";
import { createWorkflowTool } from "./workflow-tool.ts";

const CONCURRENCY_FLAG = "workflow-concurrency";
const DEFAULT_CONCURRENCY = 4;

/** Extension entry: `pi -e ./src/index.ts`, or `pi install` of this package. */
export default function workflowsExtension(pi: ExtensionAPI): void {
	pi.registerFlag(CONCURRENCY_FLAG, {
		description: `Workflow child agents running at once (default ${DEFAULT_CONCURRENCY})`,
		type: "string",
	});
	const queue = createWorkflowQueue({ concurrency: DEFAULT_CONCURRENCY });
	pi.on("session_start", () => {
		const flag = pi.getFlag(CONCURRENCY_FLAG);
		const value = typeof flag === "string" ? Number(flag) : Number.NaN;
		if (Number.isInteger(value) && value >= 1) queue.concurrency = value;
		// A sandbox worker takes a few hundred ms to start; starting one now keeps that out of the first tool call.
		warmSandboxPool();
	});
	pi.registerTool(createWorkflowTool({ queue }));
}

export type { PiAgentRunnerHooks, PiAgentRunnerOptions } from "./agent-runner.ts";
export { createPiAgentRunner } from "./agent-runner.ts";
export type { AgentTypeConfig, LoadAgentTypesOptions, LoadAgentTypesResult } from "./agent-types.ts";
export { listAvailableAgentTypes, loadAgentTypes } from "./agent-types.ts";
export { parentModelRuntime } from "./child-model.ts";
export type { SavedWorkflow } from "./script-source.ts";
export { loadSavedWorkflows, resolveScriptSource } from "./script-source.ts";
export type { RunnerSetup, WorkflowToolOptions, WorkflowToolParams } from "./workflow-tool.ts";
export { createWorkflowTool, WORKFLOW_TOOL_NAME } from "./workflow-tool.ts";
