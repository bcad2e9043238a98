/**
 * The pi extension: the `workflow` tool with one child queue per session, the `workflow_runs` tool and the
 * `/workflows` command over this project's run records, and background runs that report back and stop with the
 * session. Concurrency comes from the `--workflow-concurrency` flag (default 4) or a tool call's `concurrency`.
 */
import { join } from "node:path";
import { type ExtensionAPI, getAgentDir } from "@earendil-works/pi-coding-agent";
import { createRunStore } from "../runs/index.ts";
import { createWorkflowQueue } from "../runtime/queue.ts";
import { warmSandboxPool } from "../sandbox/index.ts";
import { type AgentTypeConfig, loadAgentTypes } from "./agents/agent-types.ts";
import { createWorkflowsCommand, RUNS_COMMAND_NAME } from "./runs/command.ts";
import { RunRegistry } from "./runs/registry.ts";
import { createWorkflowRunsTool } from "./runs/runs-tool.ts";
import { createWorkflowTool } from "./tool/workflow-tool.ts";

const CONCURRENCY_FLAG = "workflow-concurrency";
const DEFAULT_CONCURRENCY = 4;

/** Extension entry: `pi -e ./src/pi.ts`, or `pi install` of this package. */
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
	const registry = new RunRegistry();
	const runsRoot = () => join(getAgentDir(), "workflow-runs");
	const storeFor = (cwd: string) => createRunStore({ cwd, root: runsRoot() });
	// Nothing runs unowned: pi exiting or replacing the session stops every run, journal flushed, snapshot written.
	pi.on("session_shutdown", async () => {
		await registry.stopAll("pi ended the session");
	});
	const workflowTool = (agentTypes?: Map<string, AgentTypeConfig>) =>
		createWorkflowTool({
			queue,
			registry,
			notify: (message) => pi.sendMessage(message, { deliverAs: "followUp", triggerTurn: true }),
			announce: (channel, data) => pi.events.emit(channel, data),
			...(agentTypes ? { agentTypes } : {}),
		});
	pi.registerTool(workflowTool());
	// The description lists the session's agent types, which depend on its cwd: registered again once it is known.
	pi.on("session_start", (_event, ctx) => {
		pi.registerTool(workflowTool(loadAgentTypes({ cwd: ctx.cwd, agentDir: getAgentDir() }).types));
	});
	pi.registerTool(createWorkflowRunsTool({ registry, storeFor }));
	pi.registerCommand(RUNS_COMMAND_NAME, createWorkflowsCommand({ registry, storeFor }));
}

export type { AgentTypeConfig, LoadAgentTypesOptions, LoadAgentTypesResult } from "./agents/agent-types.ts";
export { listAvailableAgentTypes, loadAgentTypes } from "./agents/agent-types.ts";
export type { PiAgentRunnerHooks, PiAgentRunnerOptions } from "./children/agent-runner.ts";
export { createPiAgentRunner } from "./children/agent-runner.ts";
export type { ChildAction, ChildControl } from "./children/controls.ts";
export { ChildControls } from "./children/controls.ts";
export { parentModelRuntime } from "./children/model.ts";
export type { SessionToolInfo, SessionTools } from "./children/session-tools.ts";
export { sessionToolsOf } from "./children/session-tools.ts";
export type { WorktreePlace, WorktreePlaceSource } from "./children/worktree.ts";
export type { Announce } from "./runs/lifecycle.ts";
export { LIFECYCLE_EVENTS } from "./runs/lifecycle.ts";
export { createWorkflowRunsTool, RUNS_TOOL_NAME } from "./runs/runs-tool.ts";
export type { SavedWorkflow } from "./tool/script-source.ts";
export { loadSavedWorkflows, resolveScriptSource } from "./tool/script-source.ts";
export { builtInTools, scriptToolsOf } from "./tool/script-tools.ts";
export type { RunnerSetup, WorkflowToolOptions, WorkflowToolParams } from "./tool/workflow-tool.ts";
export { createWorkflowTool, WORKFLOW_TOOL_NAME } from "./tool/workflow-tool.ts";
