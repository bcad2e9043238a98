/**
 * The pi-backed agent runner: each `agent()` call becomes an in-process pi `AgentSession` (its conversation kept in
 * the run's folder when the run has one, else in memory) with in-memory settings, the agent type's prompt, tools, model, thinking level, skills and context files, and only the
 * extensions its type names (the parent session's tools come as stand-ins, never the `workflow` tool). It reports the
 * child's live state, honours abort, pause, `max_turns` and the type's `timeout_ms`, lets go of a child that does not
 * stop within `stopGraceMs` of being asked, and always disposes the session; `supervisor.ts` runs its attempts,
 * `plan.ts` decides what a child gets and `open-session.ts` opens its session.
 */
import { randomUUID } from "node:crypto";
import type { Api, AssistantMessage, Model } from "@earendil-works/pi-ai";
import {
	type AgentSession,
	type AgentSessionEvent,
	getAgentDir,
	type ModelRuntime,
} from "@earendil-works/pi-coding-agent";
import { errorMessage } from "../../errors.ts";
import type {
	WorkflowAgentRequest,
	WorkflowAgentResult,
	WorkflowAgentRunner,
	WorkflowAgentRunnerContext,
	WorkflowWorktree,
} from "../../runtime/types.ts";
import type { RunWorktrees, Worktree } from "../../worktree/index.ts";
import { type AgentTypeConfig, loadAgentTypes, resolveAgentType, type ThinkingLevel } from "../agents/agent-types.ts";
import { type ChildActivity, createChildActivity } from "./activity.ts";
import {
	type ChildRecorder,
	callRecorder,
	keepConversation,
	notKeptWarning,
	type RunFolderSource,
} from "./child-record.ts";
import type { ChildControls } from "./controls.ts";
import { hasPrice, replyCost, sessionCost } from "./cost.ts";
import { underTypeDeadline } from "./deadlines.ts";
import { runOnModels } from "./fallback.ts";
import type { ModelTiers } from "./model.ts";
import { type ChildPlan, lendControls, openSession, type ResultBase } from "./open-session.ts";
import type { PauseGate } from "./pause.ts";
import { planChild } from "./plan.ts";
import { providerLimitOf } from "./provider-limit.ts";
import type { SessionTools } from "./session-tools.ts";
import { STRUCTURED_OUTPUT_TOOL_NAME } from "./structured-output.ts";
import {
	type AttemptContext,
	abandonedCause,
	DEFAULT_STOP_GRACE_MS,
	settlesAfterStop,
	superviseChild,
} from "./supervisor.ts";
import { createTurnLimit, type TurnLimit, WRAP_UP_MESSAGE } from "./turn-limit.ts";
import {
	closeWorktree,
	isolatedPrompt,
	lazyRunWorktrees,
	type WorktreePlaceSource,
	worktreeOpenFailure,
	worktreeReport,
} from "./worktree.ts";

/**
 * Default stall watchdog: five minutes without a streamed token or tool event. Reasoning models may think for
 * minutes before their first token and a silent build can run as long, so a shorter default would kill real work;
 * a hung connection is rare, and this bounds what it costs. Per agent type `stall_ms:`, per call `stallMs`.
 */
export const DEFAULT_STALL_MS = 5 * 60_000;

/** Observers of child sessions, e.g. for tests that check none is left running. */
export interface PiAgentRunnerHooks {
	/** A child session exists; its prompt has not gone out yet. */
	onSessionCreated?(session: AgentSession, request: WorkflowAgentRequest): void;
	/** A child session was disposed. */
	onSessionDisposed?(session: AgentSession, result: WorkflowAgentResult): void;
}

/** Options of `createPiAgentRunner`. */
export interface PiAgentRunnerOptions {
	/** Project directory: agent types are read from here, and children run here unless a request says otherwise. */
	cwd: string;
	/** pi's global config directory. Default: pi's (`~/.pi/agent`, or `PI_CODING_AGENT_DIR`). */
	agentDir?: string;
	/** Providers and credentials the children use; share the parent's (see `parentModelRuntime`). Required. */
	modelRuntime: ModelRuntime;
	/** Model when neither the agent file nor the call names one: the parent session's. Default: none (the child fails). */
	defaultModel?: Model<Api>;
	/** Thinking level when neither the agent file nor the call names one. Default: pi's default for the model. */
	defaultThinking?: ThinkingLevel;
	/** Model tiers `agent()` option `tier` names (`small`, `medium`, `big`…). Default: none (a tier is an error). */
	modelTiers?: ModelTiers;
	/** Agent types by name. Default: `loadAgentTypes({ cwd, agentDir })`, read once when the runner is created. */
	agentTypes?: ReadonlyMap<string, AgentTypeConfig>;
	/**
	 * Whether the project is trusted, so children may load its skills and system-prompt files as pi would
	 * (`LoadAgentTypesResult.projectTrusted`). Default: the decision `loadAgentTypes({ cwd, agentDir })` makes.
	 */
	projectTrusted?: boolean;
	/** Silence before a child is reported `quiet`. Default: 15000. */
	quietAfterMs?: number;
	/** Silence before a child is reported `stalled`. Default: 60000. */
	stalledAfterMs?: number;
	/** Turns a child may take after the `max_turns` wrap-up message before it is stopped. Default: 5. */
	graceTurns?: number;
	/**
	 * For `isolation: "worktree"`: the run's id (it names the branches) and its folder for worktrees, asked for at the
	 * first isolated call. Default: a fresh run id and a private folder under the OS temp dir.
	 */
	worktreePlace?: WorktreePlaceSource;
	/** The parent session's tools children may use (see session-tools.ts). Default: none. */
	sessionTools?: SessionTools;
	/** Where the run's running children are registered for steer, skip and restart. Default: none. */
	controls?: ChildControls;
	/** No progress for this long stops a child and retries it once (0: never), unless its type or call says. Default: 5 min. */
	stallMs?: number;
	/**
	 * How long a child asked to stop has to end its turn before it is abandoned: its session disposed, its call let go
	 * and counted in `abandoned`. Default: 2000 (`DEFAULT_STOP_GRACE_MS`).
	 */
	stopGraceMs?: number;
	/**
	 * pi's own retry of a failed model request (a dropped stream, a 5xx, a short 429), inside the child's session, so
	 * the child keeps the work it did; when pi gives up on a provider limit, the run's queue waits instead. `false`
	 * turns it off. Default: on, with pi's own settings (3 retries, 2 s doubling).
	 */
	piRetry?: false | { maxRetries?: number; baseDelayMs?: number };
	/** The run's folder: each child session's conversation is kept there (`children/`). Default: none (in memory). */
	runFolder?: RunFolderSource;
	/** Takes what the runner adds to the run's event log (stalls, restarts, steers, sessions). Default: none. */
	record?: ChildRecorder;
	hooks?: PiAgentRunnerHooks;
}

/**
 * Creates a `WorkflowAgentRunner` over pi agent sessions.
 *
 * Contract: resolves for every child that starts (completed, failed or stopped); throws `WorkflowError`
 * (`agent_type_unknown`, `agent_options_invalid`, `schema_invalid`) before starting one for author errors.
 */
export function createPiAgentRunner(options: PiAgentRunnerOptions): WorkflowAgentRunner {
	const agentDir = options.agentDir ?? getAgentDir();
	const { agentTypes, projectTrusted } = typesAndTrust(options, agentDir);
	const worktrees = lazyRunWorktrees(options.worktreePlace);
	const resolved = { ...options, agentDir, agentTypes, projectTrusted, worktrees };
	return (request, context) =>
		superviseChild(request, context, {
			...(options.controls ? { controls: options.controls } : {}),
			note: callRecorder(options.record, request),
			attempt: (attemptRequest, attemptContext) =>
				underTypeDeadline(
					resolveAgentType(agentTypes, attemptRequest.agentType),
					attemptRequest.timeoutMs,
					attemptContext,
					(deadlined) => runChild(attemptRequest, deadlined, resolved),
				),
		});
}

/** The given agent types and trust, or what reading the agent files decides for those not given. */
function typesAndTrust(options: PiAgentRunnerOptions, agentDir: string) {
	if (options.agentTypes && options.projectTrusted !== undefined) {
		return { agentTypes: options.agentTypes, projectTrusted: options.projectTrusted };
	}
	const loaded = loadAgentTypes({ cwd: options.cwd, agentDir });
	return {
		agentTypes: options.agentTypes ?? loaded.types,
		projectTrusted: options.projectTrusted ?? loaded.projectTrusted,
	};
}

type ResolvedOptions = PiAgentRunnerOptions & {
	agentDir: string;
	agentTypes: ReadonlyMap<string, AgentTypeConfig>;
	/** The run's worktrees, made at the first isolated call. */
	worktrees: () => Promise<RunWorktrees>;
};

async function runChild(
	request: WorkflowAgentRequest,
	context: WorkflowAgentRunnerContext & Partial<AttemptContext>,
	options: ResolvedOptions,
): Promise<WorkflowAgentResult> {
	const plan = await planChild(request, options);
	const id = randomUUID();
	const startedAt = Date.now();
	const chosen = plan.choice?.model;
	const priced = chosen ? hasPrice(chosen) : false;
	// An isolated child's reports carry its worktree: where it works, then what became of its changes.
	let worktree: Worktree | undefined;
	let worktreeState: WorkflowWorktree | undefined;
	const activity = createChildActivity({
		child: {
			id,
			type: plan.type.name,
			description: request.description,
			callKey: request.key,
			callIndex: request.index,
			...(plan.type.maxTurns ? { maxTurns: plan.type.maxTurns } : {}),
		},
		report: (child) => context.reportChild(worktreeState ? { ...child, worktree: worktreeState } : child),
		...(options.quietAfterMs !== undefined ? { quietAfterMs: options.quietAfterMs } : {}),
		...(options.stalledAfterMs !== undefined ? { stalledAfterMs: options.stalledAfterMs } : {}),
		stallMs: request.stallMs ?? plan.type.stallMs ?? options.stallMs ?? DEFAULT_STALL_MS,
		...(context.onStall ? { onStall: context.onStall } : {}),
		price: (message) => replyCost(message, priced),
	});
	const base: ResultBase = {
		id,
		type: plan.type.name,
		warnings: [...(plan.choice?.warnings ?? []), ...plan.warnings],
		transcripts: [],
	};
	const finish = (result: WorkflowAgentResult): WorkflowAgentResult => {
		activity.finish(result.status === "completed" ? "finished" : result.status, result.error);
		plan.capture?.dispose();
		const done = {
			...result,
			// The model that answered (a fallback may have taken over), else the one the child was meant to run on.
			...(result.model ? {} : chosen ? { model: `${chosen.provider}/${chosen.id}` } : {}),
			// Names read as models (`opus`, a tier, `inherit`): the run's census says what ran.
			...(plan.choice?.matches ? { matches: plan.choice.matches.map((match) => ({ ...match, calls: 1 })) } : {}),
			durationMs: Date.now() - startedAt,
		};
		if (done.warnings?.length === 0) delete done.warnings;
		// Every session's file, whichever result object the child ended with.
		if (base.transcripts?.length) done.transcripts = [...base.transcripts];
		else delete done.transcripts;
		return done;
	};
	if (context.signal.aborted) return finish({ ...base, status: "stopped", error: reasonOf(context.signal) });
	if (!plan.choice) {
		return finish({
			...base,
			status: "failed",
			error: "no model: the agent file, the call and the parent session name none",
		});
	}
	if (request.isolation === "worktree") {
		try {
			worktree = await (await options.worktrees()).open({ cwd: plan.cwd, label: request.label });
		} catch (error) {
			return finish({ ...base, ...worktreeOpenFailure(error) });
		}
		worktreeState = worktreeReport(worktree);
		plan.cwd = worktree.cwd;
		plan.prompt = isolatedPrompt(plan.prompt, worktree);
	}

	let result: WorkflowAgentResult;
	try {
		result = await runOnModels({
			choice: plan.choice,
			activity,
			base,
			signal: context.signal,
			run: (model, thinking, index) =>
				runSession(
					plan,
					model,
					thinking,
					index === 0 ? id : randomUUID(),
					request,
					context,
					options,
					activity,
					base,
				),
		});
	} finally {
		activity.dispose();
	}
	if (worktree) {
		// After the session is gone, so no tool of the child can still be writing while its changes are committed.
		result = await closeWorktree(worktree, result);
		worktreeState = result.worktree;
	}
	return finish(result);
}

/** One session of the child on `model`; the session is always disposed. */
async function runSession(
	plan: ChildPlan,
	model: Model<Api>,
	thinking: ThinkingLevel | undefined,
	sessionId: string,
	request: WorkflowAgentRequest,
	context: WorkflowAgentRunnerContext & Partial<AttemptContext>,
	options: ResolvedOptions,
	activity: ChildActivity,
	base: ResultBase,
): Promise<WorkflowAgentResult> {
	let session: AgentSession | undefined;
	let result: WorkflowAgentResult | undefined;
	try {
		activity.start(`${model.provider}/${model.id}`);
		const kept = await keepConversation(options.runFolder, request, { id: sessionId, cwd: plan.cwd }).catch(
			(error: unknown) => void base.warnings.push(notKeptWarning(error)),
		);
		const opened = await openSession(
			{ sessionId, plan, model, thinking, ...(kept ? { sessionFile: kept.file } : {}) },
			options,
			base,
		);
		const note = callRecorder(options.record, request);
		if (kept) {
			base.transcripts?.push(kept.path);
			const modelName = `${model.provider}/${model.id}`;
			note("child_transcript", { attempt: request.attempt, path: kept.path, sessionId, model: modelName });
		}
		if ("failure" in opened) result = opened.failure;
		else {
			session = opened.session;
			options.hooks?.onSessionCreated?.(session, request);
			session.subscribe((event) => {
				if (event.type !== "auto_retry_start") return;
				const { attempt, maxAttempts, delayMs, errorMessage: error } = event;
				note("child_model_retry", { attempt, maxAttempts, delayMs, error });
			});
			const gate = lendControls(session, context);
			result = await driveSession(session, plan, context, options, activity, base, gate);
		}
	} catch (error) {
		result = { ...base, status: "failed", error: errorMessage(error) };
	} finally {
		// Every reply the session got costs money, however the child ended.
		if (session && result) {
			const cost = sessionCost(session, model);
			if (cost) result.cost = cost;
		}
		if (session) {
			session.dispose();
			options.hooks?.onSessionDisposed?.(session, result ?? { ...base, status: "failed" });
		}
	}
	return result;
}

/** Prompts the session and turns how it ended into a result; the caller disposes the session. */
async function driveSession(
	session: AgentSession,
	plan: ChildPlan,
	context: WorkflowAgentRunnerContext,
	options: ResolvedOptions,
	activity: ChildActivity,
	base: ResultBase,
	gate: PauseGate,
): Promise<WorkflowAgentResult> {
	const { capture } = plan;
	// Fires when the child is asked to stop (its signal, or `max_turns`): from then on it has the grace to end its turn.
	const stop = new AbortController();
	const graceMs = options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
	const heard = (work: Promise<void>) => settlesAfterStop(work, stop.signal, graceMs);
	const turnLimit: TurnLimit | undefined = plan.type.maxTurns
		? createTurnLimit({
				maxTurns: plan.type.maxTurns,
				...(options.graceTurns !== undefined ? { graceTurns: options.graceTurns } : {}),
				steer: () => {
					// Queued for the next model request; a failure here only means the run already ended.
					session.steer(capture ? wrapUpWithSchema() : WRAP_UP_MESSAGE).catch(() => {});
				},
				abort: () => {
					stop.abort();
					session.abort().catch(() => {});
				},
			})
		: undefined;
	const unsubscribe = session.subscribe((event: AgentSessionEvent) => {
		activity.observe(event);
		if (event.type === "turn_end" && turnLimit) {
			const message = event.message as Partial<AssistantMessage>;
			turnLimit.onTurnEnd(message.stopReason === "toolUse" && !capture?.submitted);
		}
	});
	const onAbort = () => {
		activity.stopping();
		stop.abort();
		session.abort().catch(() => {});
	};
	context.signal.addEventListener("abort", onAbort, { once: true });
	// False once a turn did not end within the grace after the child was asked to stop: it is let go, not waited for.
	let ended = true;
	try {
		if (context.signal.aborted) return { ...base, status: "stopped", error: reasonOf(context.signal) };
		ended = await heard(session.prompt(plan.prompt, { expandPromptTemplates: false }));
		// A pause stopped the turn: the session waits, with its conversation, for the message that resumes it. (A pause
		// is not a stop: a turn that ignores it goes on, under the stall watchdog.)
		while (
			ended &&
			gate.paused &&
			!context.signal.aborted &&
			lastAssistantMessage(session)?.stopReason === "aborted"
		) {
			activity.pause();
			const text = await gate.wait(context.signal);
			if (text === undefined) break;
			activity.resume();
			ended = await heard(session.prompt(text, { expandPromptTemplates: false }));
		}
	} finally {
		context.signal.removeEventListener("abort", onAbort);
		unsubscribe();
	}
	const result = settle(session, plan, context, activity, base, turnLimit);
	if (ended) return result;
	// What it had done counts; the caller disposes the session, which stays busy with the call that ignored the abort.
	return {
		...result,
		status: result.status === "completed" ? "stopped" : result.status,
		error: abandonedCause(result.error ?? "stopped", graceMs),
		abandoned: 1,
	};
}

function settle(
	session: AgentSession,
	plan: ChildPlan,
	context: WorkflowAgentRunnerContext,
	activity: ChildActivity,
	base: ResultBase,
	turnLimit: TurnLimit | undefined,
): WorkflowAgentResult {
	const { capture } = plan;
	const tokens = session.getSessionStats().tokens;
	const input = tokens.input + tokens.cacheRead + tokens.cacheWrite;
	const text = session.getLastAssistantText()?.trim() ?? "";
	const warnings = [...base.warnings];
	const result: WorkflowAgentResult = {
		...base,
		warnings,
		status: "completed",
		toolUses: activity.toolUses,
		usage: { input, output: tokens.output, total: input + tokens.output },
	};
	if (text) result.result = text;
	if (capture?.submitted) {
		result.structuredOutput = capture.value;
		result.result ??= JSON.stringify(capture.value);
	}
	const last = lastAssistantMessage(session);
	if (context.signal.aborted) return { ...result, status: "stopped", error: reasonOf(context.signal) };
	if (turnLimit?.state === "exceeded") {
		const error = `stopped after max_turns (${plan.type.maxTurns}) and the grace turns without a final answer`;
		return { ...result, status: "failed", error };
	}
	if (turnLimit?.state === "steered")
		warnings.push(`reached max_turns (${plan.type.maxTurns}) and was told to wrap up`);
	if (last?.stopReason === "error") {
		// A rate limit, an overload or a usage limit (after pi's own retries): the run waits instead of failing it.
		const limit = providerLimitOf(last);
		return {
			...result,
			status: "failed",
			error: last.errorMessage || "provider error",
			...(limit ? { providerLimit: limit } : {}),
		};
	}
	if (last?.stopReason === "aborted") return { ...result, status: "stopped", error: last.errorMessage || "aborted" };
	if (last?.stopReason === "length") warnings.push("the answer was cut off at the model's output limit");
	if (capture && !capture.submitted) {
		// Still an answer: the runtime looks for JSON in the text and retries the call with feedback.
		warnings.push(`the child did not call ${STRUCTURED_OUTPUT_TOOL_NAME}`);
		return result;
	}
	if (!capture && !text) return { ...result, status: "failed", error: "empty answer" };
	return result;
}

function lastAssistantMessage(session: AgentSession): AssistantMessage | undefined {
	for (let index = session.messages.length - 1; index >= 0; index--) {
		const message = session.messages[index];
		if (message.role === "assistant") return message as AssistantMessage;
	}
	return undefined;
}

function wrapUpWithSchema(): string {
	return `Wrap up immediately — submit your final answer with \`${STRUCTURED_OUTPUT_TOOL_NAME}\` now.`;
}

function reasonOf(signal: AbortSignal): string {
	const reason: unknown = signal.reason;
	if (reason instanceof Error && reason.message) return reason.message;
	if (typeof reason === "string" && reason) return reason;
	return "stopped";
}
