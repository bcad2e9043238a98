/**
 * The pi extension: the `workflow` tool with one child queue per session, the `workflow_runs` tool and the
 * `/workflows` command over this project's run records, background runs that report back and stop with the
 * session, and a `/<name>` command per saved workflow. Concurrency comes from the `--workflow-concurrency` flag
 * (default 4) or a tool call's `concurrency`; the children's default model, a run's dollar cap and the fan-out
 * question from session-defaults.ts.
 */
import { join } from "node:path";
import { type ExtensionAPI, type ExtensionContext, getAgentDir } from "@earendil-works/pi-coding-agent";
import { loadAgentTypes, sessionTrust } from "../agents/agent-types.ts";
import { autoPrune, readRetentionSettings } from "../host/auto-prune.ts";
import { RunRegistry } from "../host/registry.ts";
import type { SavedWorkflow } from "../host/script-source.ts";
import { createRunStore } from "../runs/index.ts";
import { createWorkflowQueue } from "../runtime/core/queue.ts";
import { warmSandboxPool } from "../sandbox/index.ts";
import {
	createWorkflowStarter,
	createWorkflowTool,
	defaultRunner,
	type WorkflowToolOptions,
} from "../tool/workflow-tool.ts";
import { EVAL_MESSAGE_TYPE, workflowsEvalSubcommand } from "./commands/eval-command.ts";
import { sessionCommands, sessionSavedWorkflows, verifyNewInstalled } from "./commands/installed-workflows.ts";
import { savedText, saveRunScript } from "./commands/save-workflow.ts";
import {
	registerSavedWorkflowCommands,
	type SavedCommandsOptions,
	workflowsRunCompletions,
	workflowsRunSubcommand,
	workflowsSaveSubcommand,
} from "./commands/saved-commands.ts";
import { createWorkflowsCommand, RUNS_COMMAND_NAME } from "./commands/workflows-command.ts";
import { REDIS_FLAG, type SessionQueue, sessionQueue } from "./queue-runner.ts";
import { renderRunMessage } from "./runs/message-view.ts";
import { RUN_MESSAGE_TYPE } from "./runs/messages.ts";
import { createWorkflowRunsTool } from "./runs/runs-tool.ts";
import { readModelTiers, readSessionDefaults, SESSION_FLAGS } from "./session-defaults.ts";

const CONCURRENCY_FLAG = "workflow-concurrency";
const DEFAULT_CONCURRENCY = 4;

/** Extension entry: `pi -e ./src/pi.ts`, or `pi install` of this package. */
export default function workflowsExtension(pi: ExtensionAPI): void {
	pi.registerFlag(CONCURRENCY_FLAG, {
		description: `Workflow child agents running at once (default ${DEFAULT_CONCURRENCY})`,
		type: "string",
	});
	for (const flag of SESSION_FLAGS) pi.registerFlag(flag.name, { description: flag.description, type: "string" });
	pi.registerFlag(REDIS_FLAG, {
		description:
			"Send workflow children to workers (pi-workflows worker) through the Redis queue at this URL (redis:// or rediss://)",
		type: "string",
	});
	// Set at session start from --workflow-redis: the session's runs queue their children there.
	let remote: SessionQueue | undefined;
	const queue = createWorkflowQueue({ concurrency: DEFAULT_CONCURRENCY });
	pi.on("session_start", (_event, ctx) => {
		// Said once, when the session starts: a cap or a model that is silently ignored would cost money.
		for (const problem of readSessionDefaults(pi).problems) {
			ctx.ui.notify(`pi-workflows: ${problem}; it is ignored`, "warning");
		}
		const flag = pi.getFlag(CONCURRENCY_FLAG);
		const value = typeof flag === "string" ? Number(flag) : Number.NaN;
		if (Number.isInteger(value) && value >= 1) queue.concurrency = value;
		const redis = pi.getFlag(REDIS_FLAG);
		if (typeof redis === "string" && redis.trim() !== "" && !remote) {
			remote = sessionQueue(redis.trim());
			ctx.ui.notify(
				"pi-workflows: workflow children go to the queue's workers (--workflow-redis); this session's own tools cannot reach them",
				"info",
			);
		}
		// A sandbox worker takes a few hundred ms to start; starting one now keeps that out of the first tool call.
		warmSandboxPool();
	});
	const registry = new RunRegistry();
	const runsRoot = () => join(getAgentDir(), "workflow-runs");
	const storeFor = (cwd: string) => createRunStore({ cwd, root: runsRoot() });
	// Nothing runs unowned: pi exiting or replacing the session stops every run, journal flushed, snapshot written.
	// Old records go when a session starts, in the background: nothing waits for it, and live runs are never touched.
	pi.on("session_start", (_event, ctx) => {
		void autoPrune(storeFor(ctx.cwd), readRetentionSettings(safeSettings(pi)), (message, level) =>
			ctx.ui.notify(message, level),
		);
	});
	const evals = new Set<AbortController>();
	pi.on("session_shutdown", async () => {
		for (const stop of evals) stop.abort();
		await registry.stopAll("pi ended the session");
		await remote?.close();
	});
	const toolOptions: WorkflowToolOptions = {
		queue,
		registry,
		notify: (message) => pi.sendMessage(message, { deliverAs: "followUp", triggerTurn: true }),
		defaults: () => readSessionDefaults(pi).defaults,
		announce: (channel, data) => pi.events.emit(channel, data),
		createRunner: (ctx, setup) => (remote ? remote.createRunner(ctx, setup) : defaultRunner(ctx, setup)),
	};
	const workflowTool = (ctx?: ExtensionContext) =>
		createWorkflowTool({
			...toolOptions,
			...(ctx !== undefined
				? {
						agentTypes: loadAgentTypes({
							cwd: ctx.cwd,
							agentDir: getAgentDir(),
							trust: sessionTrust(ctx),
						}).types,
						savedWorkflows: sessionSavedWorkflows(ctx, getAgentDir()),
					}
				: {}),
		});
	pi.registerTool(workflowTool());
	const commands: SavedCommandsOptions = {
		starter: createWorkflowStarter(toolOptions),
		agentDir: getAgentDir(),
		// A run a person started from a command reports into the conversation for the model's next turn, but does not
		// start one: the person asked for the run, not for the model to act on it.
		notify: (message) => pi.sendMessage(message, { triggerTurn: false }),
		ownCommands: [RUNS_COMMAND_NAME],
	};
	const mine = new Set<string>();
	let saved: ReadonlyMap<string, SavedWorkflow> = new Map();
	const registerCommands = (ctx: ExtensionContext) => {
		const report = registerSavedWorkflowCommands(pi, ctx.cwd, sessionCommands(commands, ctx), mine);
		saved = report.saved;
		for (const warning of report.warnings) ctx.ui.notify(warning, "warning");
	};
	// The description lists the session's agent types and saved workflows, and the saved workflows become commands:
	// all depend on the cwd, known once the session starts (again after a reload, which pi allows).
	pi.on("session_start", (_event, ctx) => {
		pi.registerTool(workflowTool(ctx));
		registerCommands(ctx);
		void verifyNewInstalled(ctx, getAgentDir());
	});
	const save = async (request: { cwd: string; runId: string; name?: string; overwrite?: boolean }) => {
		const saved = await saveRunScript({ ...request, store: storeFor(request.cwd), agentDir: getAgentDir() });
		return savedText(saved, request.runId);
	};
	pi.registerTool(createWorkflowRunsTool({ registry, storeFor, save }));
	pi.registerCommand(
		RUNS_COMMAND_NAME,
		createWorkflowsCommand({
			registry,
			storeFor,
			retention: () => readRetentionSettings(safeSettings(pi)),
			subcommands: {
				run: workflowsRunSubcommand(commands),
				eval: evalSubcommand(pi, toolOptions, evals),
				save: async (rest, ctx) => {
					await workflowsSaveSubcommand(save)(rest, ctx);
					// A workflow saved now is a command now, and the tool's description lists it.
					registerCommands(ctx);
					pi.registerTool(workflowTool(ctx));
				},
			},
			completions: { run: workflowsRunCompletions(() => saved) },
		}),
	);
	pi.registerMessageRenderer(RUN_MESSAGE_TYPE, renderRunMessage);
}

/** `/workflows eval`: trials on the runner the tool's runs get; the scorecard into the conversation, no turn. */
function evalSubcommand(pi: ExtensionAPI, toolOptions: WorkflowToolOptions, running: Set<AbortController>) {
	return workflowsEvalSubcommand({
		agentDir: getAgentDir(),
		makeRunner: toolOptions.createRunner ?? defaultRunner,
		defaults: () => readSessionDefaults(pi).defaults,
		tiersOf: (text, problems) => readModelTiers(text, undefined, problems, "modelTiers"),
		send: (text) =>
			pi.sendMessage({ customType: EVAL_MESSAGE_TYPE, content: text, display: true }, { triggerTurn: false }),
		running,
	});
}

/** pi's settings, or none when they cannot be read. */
function safeSettings(pi: ExtensionAPI): unknown {
	try {
		return pi.getSettings();
	} catch {
		return undefined;
	}
}

export type { AgentTypeConfig, LoadAgentTypesOptions, LoadAgentTypesResult } from "../agents/agent-types.ts";
export { listAvailableAgentTypes, loadAgentTypes } from "../agents/agent-types.ts";
export type { PiAgentRunnerHooks, PiAgentRunnerOptions } from "../children/agent-runner.ts";
export { createPiAgentRunner } from "../children/agent-runner.ts";
export type { ChildAction, ChildControl } from "../children/controls.ts";
export { ChildControls } from "../children/controls.ts";
export type { ModelTiers } from "../children/model.ts";
export { parentModelRuntime } from "../children/model.ts";
export type { SessionToolInfo, SessionTools } from "../children/session-tools.ts";
export { sessionToolsOf } from "../children/session-tools.ts";
export type { WorktreePlace, WorktreePlaceSource } from "../children/worktree.ts";
export type { SavedWorkflow } from "../host/script-source.ts";
export { loadSavedWorkflows, resolveScriptSource } from "../host/script-source.ts";
export { builtInTools, scriptToolsOf } from "../tool/step-tools.ts";
export type { RunnerSetup, WorkflowToolOptions, WorkflowToolParams } from "../tool/workflow-tool.ts";
export { createWorkflowTool, WORKFLOW_TOOL_NAME } from "../tool/workflow-tool.ts";
export type { Announce } from "./runs/lifecycle.ts";
export { LIFECYCLE_EVENTS } from "./runs/lifecycle.ts";
export { createWorkflowRunsTool, RUNS_TOOL_NAME } from "./runs/runs-tool.ts";
export { readModelTiers } from "./session-defaults.ts";
