/**
 * The `workflow` tool: resolve the script, check its header and args before anything starts, run it with children
 * as pi sessions, stream the envelope, and return the final one. Failed or stopped runs return `isError: true`
 * so the model sees a failure while renderers keep the details.
 */

import { join } from "node:path";
import type {
	AgentToolResult,
	AgentToolUpdateCallback,
	ExtensionContext,
	ToolDefinition,
} from "@earendil-works/pi-coding-agent";
import { getAgentDir } from "@earendil-works/pi-coding-agent";
import { type Static, Type } from "typebox";
import {
	type AgentTypeConfig,
	GENERAL_PURPOSE_AGENT,
	type LoadAgentTypesResult,
	listAvailableAgentTypes,
	loadAgentTypes,
	sessionTrust,
} from "../agents/agent-types.ts";
import { createPiAgentRunner } from "../children/agent-runner.ts";
import type { ChildRecorder, RunFolderSource } from "../children/child-record.ts";
import { ChildControls } from "../children/controls.ts";
import type { PersonProvenance, RunProvenance } from "../children/frame.ts";
import { catalogPrice, type ModelTiers, parentModelRuntime, resolveModel } from "../children/model.ts";
import { type SessionTools, sessionToolsOf } from "../children/session-tools.ts";
import type { WorktreePlaceSource } from "../children/worktree.ts";
import { WorkflowError } from "../errors.ts";
import { recordedCostBudget, recordRaises } from "../host/cost-cap.ts";
import { WorkflowGrants } from "../host/grants.ts";
import { branchOf, parentConversationOf } from "../host/parent-conversation.ts";
import { RunRegistry } from "../host/registry.ts";
import { type PlannedRunEstimate, withEstimateMore } from "../host/run-estimate.ts";
import {
	createWorkflowResolver,
	piProjectTrusted,
	resolveScriptSource,
	type SavedWorkflow,
} from "../host/script-source.ts";
import { type DurableRunnerHooks, type DurableStart, startDurableRun } from "../host/start-run.ts";
import { type Announce, runAnnouncer } from "../pi/runs/lifecycle.ts";
import type { WorkflowRunMessage } from "../pi/runs/messages.ts";
import { createPiAskHandler, PendingQuestions } from "../pi/runs/questions.ts";
import { startToolRun, type ToolRun } from "../pi/runs/tool-run.ts";
import type { WorkflowProgressDetails } from "../progress/index.ts";
import { MAX_TIMEOUT_MS } from "../runtime/agent/options.ts";
import type { WorkflowQueue } from "../runtime/core/queue.ts";
import type {
	JsonValue,
	WorkflowAgentRunner,
	WorkflowParentConversation,
	WorkflowTool,
} from "../runtime/core/types.ts";
import { checkWorkflowScript } from "../runtime/index.ts";
import { endToolCall } from "./call-result.ts";
import { type WorkflowCheckDetails, workflowCheckResult } from "./check-result.ts";
import { piCostCap } from "./cost-cap-question.ts";
import { WORKFLOW_GUIDELINES, workflowToolDescription } from "./description.ts";
import { dryRunOnly, sessionDryOptions, type WorkflowDryRunDetails } from "./dry-run-result.ts";
import { type EstimateFirst, estimateFirst, raisesGrantCeiling } from "./estimate-first.ts";
import { sessionChildModel, tuiFanOutConfirm } from "./fan-out-question.ts";
import { runProvenance, scriptProvenance, sessionRequest } from "./provenance.ts";
import { renderWorkflowCall, renderWorkflowResult } from "./render.ts";
import { scriptToolsOf } from "./step-tools.ts";
import { grantedScriptTools } from "./tool-grants.ts";

export const WORKFLOW_TOOL_NAME = "workflow";

const parameters = Type.Object({
	script: Type.Optional(
		Type.String({ description: "Inline workflow source: `export const meta = {…}` then the body" }),
	),
	path: Type.Optional(Type.String({ description: "Path of a .js workflow file, relative to the working directory" })),
	name: Type.Optional(Type.String({ description: "meta.name of a saved workflow (.pi/workflows/*.js)" })),
	args: Type.Optional(Type.Unknown({ description: "JSON value passed to the script as `args`" })),
	// Bounded by Node's timers: a longer deadline would fire after 1 ms.
	timeoutMs: Type.Optional(
		Type.Number({ exclusiveMinimum: 0, maximum: MAX_TIMEOUT_MS, description: "Deadline for the whole run, in ms" }),
	),
	maxProviderWaitMs: Type.Optional(
		Type.Number({
			minimum: 0,
			maximum: MAX_TIMEOUT_MS,
			description:
				"How long the run may wait in all for rate limits, overloads and usage limits before it stops (resumable), in ms. Default: 30 min",
		}),
	),
	continueInterrupted: Type.Optional(
		Type.Boolean({
			description:
				"false: a child interrupted mid-work (a resumed run's, a stall retry's) starts afresh rather than going on from its finished turns. Default: true",
		}),
	),
	concurrency: Type.Optional(
		Type.Integer({
			minimum: 1,
			maximum: 64,
			description: "Children running at once in this session, for this and every later run (one queue per session)",
		}),
	),
	background: Type.Optional(
		Type.Boolean({
			description: "Return at once with the run id; the run goes on and reports here when it ends",
		}),
	),
	check: Type.Optional(
		Type.Boolean({
			description:
				"Only check the script: every problem with line:column, the fix and a code frame; starts nothing and records no run",
		}),
	),
	dryRun: Type.Optional(
		Type.Boolean({
			description:
				"Run with no model: made-up answers, read-only tools only (bash in a read-only sandbox where the machine has one), nothing recorded; returns the plan (calls, fan-out, tools, questions, warnings) and the estimated cost with its basis",
		}),
	),
	answers: Type.Optional(
		Type.Unknown({ description: 'With dryRun: ask() answers, { question: answer } or in order ["yes", …]' }),
	),
	resume: Type.Optional(
		Type.String({
			description:
				"Run id of an earlier run: its finished agents replay, the rest run. With script/path/name, resumes with that (edited) script",
		}),
	),
	maxCostUsd: Type.Optional(
		Type.Number({
			exclusiveMinimum: 0,
			description:
				"The run's total cap in US dollars, for all its sessions: at it no new child starts and the person is asked to raise it, else the run stops, resumable (replays cost nothing). A new run is estimated first; the result warns when the estimate is over the cap. On a resume, what earlier sessions spent counts: a higher total goes on, the same one starts nothing; omitted, the run's own cap holds",
		}),
	),
});

export type WorkflowToolParams = Static<typeof parameters>;

/** A run's progress, or the diagnostics of a check (`check: true`) or a dry run's plan, which have none of a run's fields. */
export type WorkflowToolDetails =
	| WorkflowProgressDetails
	| (WorkflowCheckDetails & { [K in keyof WorkflowProgressDetails]?: undefined })
	| (WorkflowDryRunDetails & { [K in keyof WorkflowProgressDetails]?: undefined });

/** What a runner is built from for one call. */
export interface RunnerSetup {
	agentDir: string;
	/** Agent types as loaded for this call. */
	agentTypes: ReadonlyMap<string, AgentTypeConfig>;
	/** Whether the project is trusted (`LoadAgentTypesResult.projectTrusted`): children load its pi resources only then. */
	projectTrusted: boolean;
	/** The run's id and folder for isolated children's worktrees, once its record exists. */
	worktreePlace: WorktreePlaceSource;
	/** The run's folder, where children's conversations are kept, once its record exists. */
	runFolder?: RunFolderSource;
	/** Takes what the runner adds to the run's event log (stalls, restarts, steers, sessions). */
	record?: ChildRecorder;
	/** Where the run's running children go for steer, skip and restart (`/workflows`, `workflow_runs`). */
	controls: ChildControls;
	/** The parent session's tools lent to children; absent for a run a command started (no tool call to lend them). */
	sessionTools?: SessionTools;
	/** The session's model for workflow children (`provider/id[:thinking]`) and where it was set, if it was. */
	childModel?: { reference: string; source: string };
	/** The models `agent()` option `tier` names, and where they were set. */
	modelTiers?: ModelTiers;
	/** The session's conversation `context: "fork"` children start from; absent when there is none. */
	parentConversation?: WorkflowParentConversation;
	/** Who the run's children speak for (children/frame.ts); absent when the person turned the frame off. */
	provenance?: RunProvenance;
}

/** What the person set for this session's runs (flags and settings); every field is optional. */
export interface WorkflowSessionDefaults {
	/** Model for children that nothing else names, and where it was set (`--workflow-child-model`, a setting). */
	childModel?: { reference: string; source: string };
	/** Cap in dollars for each run that does not give `maxCostUsd`. */
	maxCostUsd?: number;
	/** Agents one `parallel()`/`pipeline()` may start before the person is asked (TUI only); 0: never. Default: 25. */
	confirmAgents?: number;
	/** Models for `agent()` option `tier` (`workflows.modelTiers`, `--workflow-model-tiers`). Default: none. */
	modelTiers?: ModelTiers;
	/** `false` (`workflows.provenanceFrame: false`): children get no provenance frame. Default: on. */
	frame?: boolean;
	/** A call or run over this multiple of its history's median is marked slow (`workflows.slowMultiple`). Default: 5. */
	slowMultiple?: number;
}

/** What the tool shares across calls in one pi session. */
export interface WorkflowToolOptions {
	/** The session's one queue for all workflow children. */
	queue: WorkflowQueue;
	/** pi's global config directory. Default: pi's. */
	agentDir?: string;
	/** Where run records live (one folder per project). Default: `<agentDir>/workflow-runs`. */
	runsRoot?: string;
	/** The session's live runs (what `/workflows` lists and stops). Default: a registry of this tool's own. */
	registry?: RunRegistry;
	/** Delivers a background run's completion message to the session (pi's `sendMessage`). Default: none. */
	notify?: (message: WorkflowRunMessage) => void;
	/** Builds the runner for a call. Default: children as pi sessions with the parent's model and credentials. */
	createRunner?: (ctx: ExtensionContext, setup: RunnerSetup) => Promise<WorkflowAgentRunner>;
	/** Announces runs to other extensions (pi's `pi.events.emit`; see runs/lifecycle.ts). Default: nobody. */
	announce?: Announce;
	/** The session's agent types, listed in the description. Default: the built-in general-purpose only. */
	agentTypes?: ReadonlyMap<string, AgentTypeConfig>;
	/** The saved workflows `name` runs, listed in the description. Default: none listed. */
	savedWorkflows?: Iterable<SavedWorkflow>;
	/** Read at each call: the session's flags and settings for runs. Default: none. */
	defaults?: () => WorkflowSessionDefaults;
}

// Runs of one session can overlap (background ones, parallel calls, commands): each needs widget and status keys of
// its own, or the first to end takes the others' away. One counter for every starter, since two calls can start in
// the same millisecond.
let runCount = 0;

/** Who asked for a run: the tool call's context, or a command's, which has no session tools to lend. */
export interface WorkflowCaller {
	ctx: ExtensionContext;
	signal?: AbortSignal;
	onUpdate?: AgentToolUpdateCallback<WorkflowProgressDetails>;
	/** The parent session's tools lent to children. Default: none. */
	sessionTools?: SessionTools;
	/** The session's tools a script's `tool()` may run (pi's `ctx.executeTool`). Default: none (`tool_unavailable`). */
	scriptTools?: Record<string, WorkflowTool>;
	/** The session's conversation up to this call, for `context: "fork"` children. Default: none (they cannot fork). */
	parentConversation?: WorkflowParentConversation;
	/** Delivers this run's completion message when it ran in the background. Default: `options.notify`. */
	notify?: (message: WorkflowRunMessage) => void;
	/** The person's request that started the run, for the children's frame. Default: the session's newest user message. */
	person?: PersonProvenance;
}

/** Starts runs as the `workflow` tool does; saved-workflow commands use it too. */
export interface WorkflowStarter {
	/** Checks or runs `params` (resuming when asked); resolves as the tool call would. */
	start(params: WorkflowToolParams, caller: WorkflowCaller): Promise<AgentToolResult<WorkflowToolDetails>>;
}

/** The run machinery of the `workflow` tool, apart from its definition. */
export function createWorkflowStarter(options: WorkflowToolOptions): WorkflowStarter {
	const agentDir = options.agentDir ?? getAgentDir();
	const runsRoot = options.runsRoot ?? join(agentDir, "workflow-runs");
	const shared: StarterShared = {
		options,
		agentDir,
		runsRoot,
		makeRunner: options.createRunner ?? defaultRunner,
		registry: options.registry ?? new RunRegistry(),
	};
	return {
		async start(params, caller) {
			if (params.check === true) return checkOnly(params, caller.ctx, agentDir);
			if (params.resume === undefined && params.answers !== undefined && params.dryRun !== true) {
				throw new WorkflowError(
					"ask_answer_invalid",
					"`answers` answers a dry run's questions: give it with `dryRun: true`",
				);
			}
			if (params.dryRun === true) {
				if (params.resume !== undefined) {
					throw new WorkflowError(
						"run_not_resumable",
						"`dryRun` runs a script, not a run: leave out `resume` and give the script (script, path or name)",
					);
				}
				const defaults = options.defaults?.() ?? {};
				const childModel = defaults.childModel?.reference;
				return dryRunOnly({
					params,
					ctx: caller.ctx,
					agentDir,
					runsRoot,
					...(defaults.maxCostUsd !== undefined ? { capUsd: defaults.maxCostUsd } : {}),
					...(caller.scriptTools ? { scriptTools: caller.scriptTools } : {}),
					...(childModel ? { childModel } : {}),
					...(defaults.modelTiers ? { modelTiers: defaults.modelTiers } : {}),
					...(caller.parentConversation ? { parentConversation: caller.parentConversation } : {}),
				});
			}
			// A resume holds the run's lock from here on: the run lets go of it when it ends.
			const start = await startDurableRun({
				cwd: caller.ctx.cwd,
				runsRoot,
				...(params.resume !== undefined ? { resume: params.resume } : {}),
				// A resume without a script runs the run's own.
				script: () =>
					params.resume !== undefined && !givesScript(params)
						? undefined
						: resolveScriptSource(params, {
								cwd: caller.ctx.cwd,
								agentDir,
								projectTrusted: piProjectTrusted(caller.ctx),
							}),
				...(params.args !== undefined ? { args: params.args as JsonValue } : {}),
			});
			try {
				return await runDurably(shared, params, caller, start);
			} catch (error) {
				// A run that went ahead released the lock itself; one that never started must not keep it.
				await start.abandon();
				throw error;
			}
		},
	};
}

/** What every call of one starter shares. */
interface StarterShared {
	options: WorkflowToolOptions;
	agentDir: string;
	/** Where run records live: a fan-out question's estimate reads the project's earlier runs there. */
	runsRoot: string;
	makeRunner: NonNullable<WorkflowToolOptions["createRunner"]>;
	registry: RunRegistry;
}

function givesScript(params: WorkflowToolParams): boolean {
	return Boolean(params.script || params.path || params.name);
}

/** One call: the runner, the run, and what the model sees. */
async function runDurably(
	shared: StarterShared,
	params: WorkflowToolParams,
	caller: WorkflowCaller,
	start: DurableStart,
): Promise<AgentToolResult<WorkflowProgressDetails>> {
	const { ctx } = caller;
	const { durable } = start;
	if (params.concurrency !== undefined) shared.options.queue.concurrency = params.concurrency;
	const defaults = shared.options.defaults?.() ?? {};
	const provenance = runProvenance(
		defaults.frame,
		scriptProvenance(params, start.source.filename),
		caller.person ?? sessionRequest(ctx),
	);
	const hooks = await prepareRunner(shared, caller, start.runner, provenance);
	const before = await estimateNewRun(shared, params, caller, start, hooks);
	// pi -p and JSON mode end after this turn: a background run would have no session to report to.
	const background = params.background === true && ctx.mode !== "print" && ctx.mode !== "json";
	const notify = caller.notify ?? shared.options.notify;
	const run = startRun(shared, params, caller, {
		start,
		hooks,
		background,
		notify,
		...(before.planned ? { planned: before.planned } : {}),
		...(before.capUsd !== undefined ? { capUsd: before.capUsd } : {}),
		...(before.ceilingOf ? { ceilingOf: before.ceilingOf } : {}),
	});
	const { warnings } = hooks.types;
	const blockingNote =
		params.background === true && !background
			? `\nRan blocking: background runs need an interactive session (this is ${ctx.mode} mode).`
			: "";
	return endToolCall(run, {
		...(caller.signal ? { signal: caller.signal } : {}),
		background,
		registry: shared.registry,
		...(notify ? { notify } : {}),
		snapshotPath: () => durable.snapshotPath,
		...(params.resume !== undefined ? { resume: { edited: givesScript(params) } } : {}),
		notes: before.note + blockingNote + (warnings.length > 0 ? `\nAgent file warnings:\n${warnings.join("\n")}` : ""),
	});
}

/** A new run with a cap (its own or the session's) is estimated before its first child; others are not. */
async function estimateNewRun(
	shared: StarterShared,
	params: WorkflowToolParams,
	caller: WorkflowCaller,
	start: DurableStart,
	hooks: RunnerHooks,
): Promise<EstimateFirst> {
	const capUsd = params.maxCostUsd ?? hooks.defaults.maxCostUsd;
	if (params.resume !== undefined || capUsd === undefined) return { note: "" };
	const childModel = sessionChildModel(caller.ctx, hooks.defaults.childModel?.reference);
	const grants = WorkflowGrants.of(start.source, {
		cwd: caller.ctx.cwd,
		agentDir: shared.agentDir,
		projectTrusted: hooks.types.projectTrusted,
	});
	return estimateFirst({
		ctx: caller.ctx,
		source: start.source,
		capUsd,
		agentDir: shared.agentDir,
		runsRoot: shared.runsRoot,
		types: hooks.types.types,
		...(childModel ? { childModel } : {}),
		...(caller.scriptTools ? { scriptTools: caller.scriptTools } : {}),
		...(hooks.defaults.modelTiers ? { modelTiers: hooks.defaults.modelTiers } : {}),
		...(params.timeoutMs !== undefined ? { timeoutMs: params.timeoutMs } : {}),
		...(caller.parentConversation ? { parentConversation: caller.parentConversation } : {}),
		...(grants ? { grants } : {}),
	});
}

/** The runner built for one run, and what the run needs besides: its agent types, children's controls, session defaults. */
interface RunnerHooks {
	types: LoadAgentTypesResult;
	controls: ChildControls;
	defaults: WorkflowSessionDefaults;
	runner: WorkflowAgentRunner;
}

async function prepareRunner(
	shared: StarterShared,
	caller: WorkflowCaller,
	durable: DurableRunnerHooks,
	provenance: RunProvenance | undefined,
): Promise<RunnerHooks> {
	const { ctx } = caller;
	const { agentDir } = shared;
	// Read once per run, under the session's trust: skipped project files are said once, in this call's result.
	const types = loadAgentTypes({ cwd: ctx.cwd, agentDir, trust: sessionTrust(ctx) });
	const controls = new ChildControls();
	const defaults = shared.options.defaults?.() ?? {};
	const runner = await shared.makeRunner(ctx, {
		agentDir,
		agentTypes: types.types,
		projectTrusted: types.projectTrusted,
		...durable,
		controls,
		...(caller.sessionTools ? { sessionTools: caller.sessionTools } : {}),
		...(caller.parentConversation ? { parentConversation: caller.parentConversation } : {}),
		...(defaults.childModel ? { childModel: defaults.childModel } : {}),
		...(defaults.modelTiers ? { modelTiers: defaults.modelTiers } : {}),
		...(provenance ? { provenance } : {}),
	});
	return { types, controls, defaults, runner };
}

/** What `startRun` starts from. */
interface RunStart {
	start: DurableStart;
	hooks: RunnerHooks;
	background: boolean;
	notify: ((message: WorkflowRunMessage) => void) | undefined;
	/** The estimate made before the run, for the cap question's "about $Z more to finish". */
	planned?: PlannedRunEstimate;
	/** The run's cap when a granted dollar ceiling is it, in place of the one given. */
	capUsd?: number;
	/** The grants whose ceiling the person's cap raises in this run raise too. */
	ceilingOf?: WorkflowGrants;
}

/** Starts the run with its questions, budget, fan-out confirmation, announcer and progress UI. */
function startRun(
	shared: StarterShared,
	params: WorkflowToolParams,
	caller: WorkflowCaller,
	{ start, hooks, background, notify, planned, capUsd, ceilingOf }: RunStart,
): ToolRun {
	const { ctx, onUpdate } = caller;
	const { options, agentDir } = shared;
	const { types, controls, defaults, runner } = hooks;
	const { durable, source: script } = start;
	const { args } = script;
	// The cap is the run's: a resume that names none keeps the record's and counts what earlier sessions spent.
	const budget = recordedCostBudget(durable, capUsd ?? params.maxCostUsd, defaults.maxCostUsd);
	// Only a person at pi's TUI is asked; print, JSON and RPC runs go ahead as asked.
	const defaultModel = sessionChildModel(ctx, defaults.childModel?.reference);
	const confirmFanOut = tuiFanOutConfirm(ctx, () => ({
		cwd: ctx.cwd,
		runsRoot: shared.runsRoot,
		...(durable.runId !== undefined ? { runId: durable.runId } : {}),
		...(defaultModel ? { defaultModel } : {}),
	}));
	const questions = new PendingQuestions();
	const ask = createPiAskHandler({
		ctx,
		background,
		questions,
		runId: () => durable.recorded,
		name: () => run.name,
		// The caller's: a run a person started from a command tells them, without a model turn.
		...(notify ? { notify } : {}),
	});
	const asked = piCostCap(ctx, background, ask);
	const onCostCap = asked && ceilingOf ? raisesGrantCeiling(ceilingOf, asked) : asked;
	const run = startToolRun({
		source: script.script,
		options: {
			agentRunner: runner,
			filename: script.filename,
			cwd: ctx.cwd,
			queue: options.queue,
			agentTypes: listAvailableAgentTypes(types.types),
			...(types.unknownTypeNote ? { agentTypesNote: types.unknownTypeNote } : {}),
			resolveWorkflow: createWorkflowResolver({ agentDir }),
			ask,
			// The session's own tools through pi's hooks: exactly what its model may call, nothing more; a saved
			// workflow's calls also need a grant bound to its text (asked for here, once per tool and run).
			...(caller.scriptTools
				? {
						tools: grantedScriptTools(
							caller.scriptTools,
							WorkflowGrants.of(script, { cwd: ctx.cwd, agentDir, projectTrusted: types.projectTrusted }),
							ctx,
						),
					}
				: {}),
			...(caller.parentConversation ? { parentConversation: caller.parentConversation } : {}),
			...(args !== undefined ? { args } : {}),
			...(params.timeoutMs !== undefined ? { timeoutMs: params.timeoutMs } : {}),
			...(Object.keys(budget).length > 0 ? { budget } : {}),
			...(onCostCap
				? {
						onCostCap: recordRaises(
							durable,
							withEstimateMore(onCostCap, {
								cwd: ctx.cwd,
								runsRoot: shared.runsRoot,
								...(durable.runId !== undefined ? { runId: durable.runId } : {}),
								...(planned ? { planned } : {}),
							}),
						),
					}
				: {}),
			...(confirmFanOut ? { confirmFanOut } : {}),
			...(defaults.confirmAgents !== undefined ? { fanOutThreshold: defaults.confirmAgents } : {}),
			...(params.maxProviderWaitMs !== undefined ? { maxProviderWaitMs: params.maxProviderWaitMs } : {}),
			...(params.continueInterrupted === false ? { continueInterrupted: false } : {}),
		},
		durable,
		record: script,
		controls,
		questions,
		...(defaults.slowMultiple !== undefined ? { slowMultiple: defaults.slowMultiple } : {}),
		plan: {
			dry: async () => ({
				...sessionDryOptions(ctx, {
					agentDir,
					types: types.types,
					...(defaultModel ? { childModel: defaultModel } : {}),
					...(caller.scriptTools ? { scriptTools: caller.scriptTools } : {}),
					...(defaults.modelTiers ? { modelTiers: defaults.modelTiers } : {}),
				}),
				...(caller.parentConversation ? { parentConversation: caller.parentConversation } : {}),
			}),
			estimate: {
				cwd: ctx.cwd,
				runsRoot: shared.runsRoot,
				priceOf: (model) => catalogPrice(ctx.modelRegistry, model),
				...(defaultModel ? { defaultModel } : {}),
			},
		},
		...(options.announce
			? { announcer: runAnnouncer(options.announce, durable.recorded, () => run.name, background) }
			: {}),
		ctx,
		ui: {
			widgetKey: `workflow-progress-${++runCount}`,
			statusKey: `workflow-${runCount}`,
			...(!background && onUpdate ? { onUpdate } : {}),
		},
	});
	return run;
}

/** Creates the tool definition. */
export function createWorkflowTool(
	options: WorkflowToolOptions,
): ToolDefinition<typeof parameters, WorkflowToolDetails> {
	const starter = createWorkflowStarter(options);
	return {
		name: WORKFLOW_TOOL_NAME,
		label: "Workflow",
		description: workflowToolDescription(
			options.agentTypes?.values() ?? [GENERAL_PURPOSE_AGENT],
			options.savedWorkflows ?? [],
		),
		promptSnippet: "Run a sandboxed JavaScript workflow that orchestrates many child agents",
		promptGuidelines: WORKFLOW_GUIDELINES,
		parameters,
		execute(toolCallId, params, signal, onUpdate, ctx): Promise<AgentToolResult<WorkflowToolDetails>> {
			// Taken now: a background run's children fork from the conversation as it was at this call.
			const parentConversation = parentConversationOf(branchOf(ctx), toolCallId);
			return starter.start(params, {
				ctx,
				...(signal ? { signal } : {}),
				...(onUpdate ? { onUpdate } : {}),
				sessionTools: sessionToolsOf(ctx),
				scriptTools: scriptToolsOf(ctx),
				...(parentConversation ? { parentConversation } : {}),
			});
		},
		renderCall: (args, theme) => renderWorkflowCall(args, theme),
		renderResult: (result, { expanded }, theme) => renderWorkflowResult(result, expanded, theme),
	};
}

/** `check: true`: the script's diagnostics, with the session's agent types; no runner, run or record. */
function checkOnly(
	params: WorkflowToolParams,
	ctx: ExtensionContext,
	agentDir: string,
): AgentToolResult<WorkflowCheckDetails> {
	const script = resolveScriptSource(params, { cwd: ctx.cwd, agentDir, projectTrusted: piProjectTrusted(ctx) });
	const types = loadAgentTypes({ cwd: ctx.cwd, agentDir, trust: sessionTrust(ctx) });
	const report = checkWorkflowScript(script.source, {
		filename: script.filename,
		agentTypes: listAvailableAgentTypes(types.types),
		...(types.unknownTypeNote ? { agentTypesNote: types.unknownTypeNote } : {}),
	});
	return workflowCheckResult(report, script.filename);
}

/**
 * Children as pi sessions sharing the parent session's providers, credentials and thinking level, and its model
 * unless the session names one for workflow children.
 */
export async function defaultRunner(
	ctx: ExtensionContext,
	{
		agentDir,
		agentTypes,
		projectTrusted,
		worktreePlace,
		runFolder,
		record,
		controls,
		sessionTools,
		childModel,
		modelTiers,
		parentConversation,
		provenance,
	}: RunnerSetup,
): Promise<WorkflowAgentRunner> {
	const modelRuntime = await parentModelRuntime(ctx.modelRegistry, { agentDir });
	// Resolved before the run starts: a model pi cannot find fails the call, not each of 80 children.
	const child = childModel ? resolveModel(childModel.reference, modelRuntime, childModel.source) : undefined;
	const model = child?.model ?? ctx.model;
	const thinking = child?.thinking ?? ctx.thinkingLevel;
	return createPiAgentRunner({
		cwd: ctx.cwd,
		agentDir,
		agentTypes,
		projectTrusted,
		modelRuntime,
		worktreePlace,
		...(runFolder ? { runFolder } : {}),
		...(record ? { record } : {}),
		...(model ? { defaultModel: model } : {}),
		...(thinking ? { defaultThinking: thinking } : {}),
		...(sessionTools ? { sessionTools } : {}),
		...(modelTiers ? { modelTiers } : {}),
		...(parentConversation ? { parentConversation } : {}),
		...(provenance ? { provenance } : {}),
		controls,
	});
}
