/**
 * `workflow_runs`: the model's handle on this project's durable runs — list them, read one, stop one this session
 * is running, steer, skip or restart one of its children. Kept apart from `workflow` so that tool's description
 * stays about writing scripts.
 */
import type { AgentToolResult, ToolDefinition } from "@earendil-works/pi-coding-agent";
import { type Static, Type } from "typebox";
import { WorkflowError } from "../../errors.ts";
import type { RunRegistry } from "../../host/registry.ts";
import { describeRun, listRuns } from "../../host/views.ts";
import { neutralizeModelText } from "../../progress/model-text.ts";
import type { RunStore } from "../../runs/index.ts";
import { changesRun } from "./changes-run.ts";
import { reportRun } from "./report-run.ts";

export const RUNS_TOOL_NAME = "workflow_runs";

const parameters = Type.Object({
	action: Type.Union(
		[
			Type.Literal("list"),
			Type.Literal("status"),
			Type.Literal("stop"),
			Type.Literal("steer"),
			Type.Literal("pause"),
			Type.Literal("skip"),
			Type.Literal("restart"),
			Type.Literal("save"),
			Type.Literal("answer"),
			Type.Literal("report"),
			Type.Literal("changes"),
		],
		{
			description:
				"list: this project's runs; status: one run's phases, agents and failures; stop: end a running run; " +
				"steer: send a running child a message (read at its next turn; a paused one goes on with it); " +
				"pause: stop a child's turn, it waits for a steer; skip: end a child (its agent() gives null); " +
				"restart: a fresh attempt of a child (the script gets its answer); " +
				"save: keep a run's script as a saved workflow (.pi/workflows/<name>.js, a /<name> command); " +
				"answer: give a run's open ask() question the person's answer (relay theirs, do not make one up); " +
				"report: write a run's timeline as one HTML file and get its path (for the person to open); " +
				"changes: which child wrote, edited or ran what (with path: who changed that file)",
		},
	),
	runId: Type.Optional(Type.String({ description: "The run, for every action but list" })),
	child: Type.Optional(
		Type.String({ description: "For steer, pause, skip, restart: the agent call's number (#3), label or key" }),
	),
	message: Type.Optional(Type.String({ description: "For steer: what to tell the child" })),
	name: Type.Optional(
		Type.String({ description: "For save: the saved workflow's name (default: the run's meta.name)" }),
	),
	overwrite: Type.Optional(Type.Boolean({ description: "For save: replace a saved workflow of that name" })),
	answer: Type.Optional(Type.String({ description: "For answer: the person's answer (one of the choices, if any)" })),
	path: Type.Optional(Type.String({ description: "For changes: one file, to ask which calls changed it" })),
});

export type WorkflowRunsToolParams = Static<typeof parameters>;

/** Options of `createWorkflowRunsTool`. */
export interface WorkflowRunsToolOptions {
	registry: RunRegistry;
	/** The store of the project at `cwd`. */
	storeFor: (cwd: string) => RunStore;
	/** `save`: keeps a run's script as a saved workflow and says where. Default: `save` is refused. */
	save?: (request: { cwd: string; runId: string; name?: string; overwrite?: boolean }) => Promise<string>;
}

/** Creates the tool definition. */
export function createWorkflowRunsTool(options: WorkflowRunsToolOptions): ToolDefinition<typeof parameters, undefined> {
	const { registry } = options;
	return {
		name: RUNS_TOOL_NAME,
		label: "Workflow runs",
		description:
			"List this project's workflow runs, show one (phases, agents, failures, resume call), or stop one that this session is running; steer, pause, skip or restart one of its running children; answer a run's ask() question with the person's answer; save a run's script as a saved workflow; write a run's report (an HTML timeline) and get its path; read a run's ledger of what each child changed and ran.",
		parameters,
		async execute(_toolCallId, params, _signal, _onUpdate, ctx): Promise<AgentToolResult<undefined>> {
			const store = options.storeFor(ctx.cwd);
			const text = async (): Promise<string> => {
				if (params.action === "list") {
					const rows = await listRuns(store, registry);
					return rows.length === 0
						? "No workflow runs in this project yet."
						: neutralizeModelText(rows.map((row) => row.text).join("\n"));
				}
				const runId = params.runId;
				if (!runId) {
					throw new WorkflowError(
						"run_id_invalid",
						`\`${params.action}\` needs \`runId\`: call workflow_runs({ action: "list" }) to find it`,
					);
				}
				if (params.action === "status") return describeRun(store, registry, runId, { fenceData: true });
				if (params.action === "report") return reportRun(store, runId);
				if (params.action === "changes") return changesRun(store, runId, params.path);
				if (params.action === "save") {
					if (!options.save) throw new WorkflowError("internal", "`save` is not available in this host");
					return options.save({
						cwd: ctx.cwd,
						runId,
						...(params.name !== undefined ? { name: params.name } : {}),
						...(params.overwrite !== undefined ? { overwrite: params.overwrite } : {}),
					});
				}
				if (params.action === "answer") {
					if (params.answer === undefined) {
						throw new WorkflowError(
							"ask_answer_invalid",
							"`answer` needs `answer`: the person's answer to the run's question",
						);
					}
					return registry.answer(runId, params.answer);
				}
				if (params.action !== "stop") {
					if (!params.child) {
						throw new WorkflowError(
							"child_not_found",
							`\`${params.action}\` needs \`child\`: the agent call's number, label or key, from workflow_runs({ action: "status", runId })`,
						);
					}
					return registry.controlChild(runId, params.child, params.action, params.message);
				}
				const live = registry.get(runId);
				if (!live) {
					// Not ours: say what it is, so the model does not retry a stop that cannot work.
					return `Run ${runId} is not running in this session; nothing was stopped.\n${await describeRun(store, registry, runId, { fenceData: true })}`;
				}
				live.stop("Stopped by request (workflow_runs stop)");
				await live.settled;
				return `Stopped run ${runId}.\n${await describeRun(store, registry, runId, { fenceData: true })}`;
			};
			return { content: [{ type: "text", text: await text() }], details: undefined };
		},
	};
}
