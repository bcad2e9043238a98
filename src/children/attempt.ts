/**
 * One attempt at a child: a fresh child with its own id, plan, live state (activity), warnings, conversation files
 * and worktree. What it does, in order:
 *
 * - `open()`: arms its type's `timeout_ms` (when the call has no `timeoutMs` of its own), plans the child (the
 *   author's mistakes throw here, before any session), reports it, and opens its worktree when it is isolated;
 * - `drive()`: runs a session on its model, then one on each fallback model in turn while the last met a provider
 *   limit before any tool work; each session is prompted, may be paused and resumed, told to wrap up at `max_turns`,
 *   let go when it does not stop within the grace, and is always disposed; then its worktree's changes are committed;
 * - `result()`: the result in its final form (the model that ran, its duration, every conversation file), failed
 *   with the deadline as its cause when the type's deadline stopped it;
 * - `dispose()`: ends the deadline's timer.
 *
 * The supervisor (supervisor.ts) runs the attempts of one call: a restart or a first stall starts another.
 */
import { randomUUID } from "node:crypto";
import type { Api, AssistantMessage, Model } from "@earendil-works/pi-ai";
import type { AgentSession, AgentSessionEvent, ModelRuntime } from "@earendil-works/pi-coding-agent";
import { resolveAgentType, type ThinkingLevel } from "../agents/agent-types.ts";
import { errorMessage } from "../errors.ts";
import { addCost } from "../runtime/core/cost.ts";
import type {
	WorkflowAgentRequest,
	WorkflowAgentResult,
	WorkflowCost,
	WorkflowProviderLimit,
	WorkflowProviderStop,
	WorkflowTokenUsage,
	WorkflowWorktree,
} from "../runtime/core/types.ts";
import { type ChildToolSpans, childToolSpans } from "../telemetry/child-spans.ts";
import type { RunWorktrees, Worktree } from "../worktree/index.ts";
import { type ChildActivity, createChildActivity } from "./activity.ts";
import {
	type ChildRecorder,
	callRecorder,
	keepConversation,
	notKeptWarning,
	type RunFolderSource,
} from "./child-record.ts";
import { childStatus } from "./child-status.ts";
import {
	type CallConversations,
	continuedWarning,
	earlierConversation,
	type Interruption,
	interruptedMessage,
	type RememberedConversations,
} from "./continuation.ts";
import { hasPrice, replyCost, sessionCost, sessionTokens } from "./cost.ts";
import { type TypeDeadline, typeDeadline } from "./deadlines.ts";
import { noteWorktreeStat, watchTools } from "./ledger.ts";
import { lendControls, openSession, type PauseGate, type ResultBase } from "./open-session.ts";
import { type ChildPlan, type ChildPlanOptions, planChild } from "./plan.ts";
import type { ChildRetrySettings } from "./session.ts";
import { STRUCTURED_OUTPUT_TOOL_NAME } from "./structured-output.ts";
import { type AttemptContext, abandonedCause, DEFAULT_STOP_GRACE_MS, settlesAfterStop } from "./supervisor.ts";
import { createTurnLimit, type TurnLimit, WRAP_UP_MESSAGE } from "./turn-limit.ts";
import { closeWorktree, isolatedPrompt, sameWorktreeNote, worktreeOpenFailure, worktreeReport } from "./worktree.ts";

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

/** What an attempt reads of the runner's options (see `PiAgentRunnerOptions`), with its defaults resolved. */
export interface AttemptOptions extends ChildPlanOptions {
	agentDir: string;
	modelRuntime: ModelRuntime;
	/** What a child fails with when it has no model at all; see `PiAgentRunnerOptions.noModel`. */
	noModel?: string;
	projectTrusted?: boolean;
	piRetry?: false | Omit<ChildRetrySettings, "enabled">;
	quietAfterMs?: number;
	stalledAfterMs?: number;
	stallMs?: number;
	stopGraceMs?: number;
	graceTurns?: number;
	runFolder?: RunFolderSource;
	/** Answered conversations of a run with no folder, which a continued child starts from. */
	remembered: RememberedConversations;
	/** Each call's newest conversation in the run's folder, where an interrupted child goes on from. */
	conversations: CallConversations;
	record?: ChildRecorder;
	hooks?: PiAgentRunnerHooks;
	/** The run's worktrees, made at the first isolated call. */
	worktrees: () => Promise<RunWorktrees>;
}

/** What one attempt is given. */
export interface AttemptInput {
	request: WorkflowAgentRequest;
	context: AttemptContext;
	options: AttemptOptions;
}

/** Runs one attempt through its lifecycle. Throws the author's mistakes (see `planChild`) before any session. */
export async function runChildAttempt(input: AttemptInput): Promise<WorkflowAgentResult> {
	const attempt = new ChildAttempt(input);
	try {
		const early = await attempt.open();
		return attempt.result(early ?? (await attempt.drive()));
	} finally {
		attempt.dispose();
	}
}

/** One attempt at a child; see the file's comment for its lifecycle. */
export class ChildAttempt {
	readonly id = randomUUID();
	readonly #request: WorkflowAgentRequest;
	readonly #context: AttemptContext;
	readonly #options: AttemptOptions;
	readonly #note: ReturnType<typeof callRecorder>;
	/** The type's `timeout_ms`, when it applies. */
	readonly #deadline: TypeDeadline | undefined;
	/** Fires when the caller stops the attempt, or its type's deadline does. */
	readonly #signal: AbortSignal;
	#startedAt = 0;
	#plan!: ChildPlan;
	#activity!: ChildActivity;
	/** The fields every result shares: its warnings and conversation files grow as the attempt goes. */
	#base!: ResultBase;
	#worktree: Worktree | undefined;
	/** Where an isolated child works, then what became of its changes: its reports carry it. */
	#worktreeState: WorkflowWorktree | undefined;
	/** A continued child's earlier conversation, one session entry a line. */
	#history: string[] | undefined;
	/** Where an interrupted earlier attempt of the call left off, when this attempt goes on from it. */
	#interruption: Interruption | undefined;

	constructor({ request, context, options }: AttemptInput) {
		this.#request = request;
		this.#context = context;
		this.#options = options;
		this.#note = callRecorder(options.record, request);
		const type = resolveAgentType(options.agentTypes, request.agentType);
		this.#deadline = typeDeadline(type, request.timeoutMs, context.signal);
		this.#signal = this.#deadline?.signal ?? context.signal;
	}

	/** Plans the child and reports it; the result it ends with already when it cannot run. */
	async open(): Promise<WorkflowAgentResult | undefined> {
		const request = this.#request;
		const options = this.#options;
		const plan = await planChild(request, options);
		const warnings: string[] = [];
		// A person's restart asks to drop what the child did.
		if (request.continueInterrupted !== false && !this.#context.afresh) {
			this.#interruption = await options.conversations.interrupted(request, (warning) => warnings.push(warning));
		}
		if (!this.#interruption && request.continues) {
			this.#history = await earlierConversation(request.continues, options.runFolder, options.remembered);
		}
		this.#plan = plan;
		this.#startedAt = Date.now();
		const chosen = plan.choice?.model;
		const priced = chosen ? hasPrice(chosen) : false;
		this.#activity = createChildActivity({
			child: {
				id: this.id,
				type: plan.type.name,
				description: request.description,
				callKey: request.key,
				callIndex: request.index,
				...(plan.type.maxTurns ? { maxTurns: plan.type.maxTurns } : {}),
			},
			report: (child) =>
				this.#context.reportChild(this.#worktreeState ? { ...child, worktree: this.#worktreeState } : child),
			...(options.quietAfterMs !== undefined ? { quietAfterMs: options.quietAfterMs } : {}),
			...(options.stalledAfterMs !== undefined ? { stalledAfterMs: options.stalledAfterMs } : {}),
			stallMs: request.stallMs ?? plan.type.stallMs ?? options.stallMs ?? DEFAULT_STALL_MS,
			onStall: this.#context.onStall,
			price: (message) => replyCost(message, priced),
		});
		const base: ResultBase = {
			id: this.id,
			type: plan.type.name,
			warnings: [...(plan.choice?.warnings ?? []), ...plan.warnings, ...warnings],
			transcripts: [],
		};
		this.#base = base;
		if (this.#signal.aborted) return { ...base, status: "stopped", error: reasonOf(this.#signal) };
		if (!plan.choice) {
			return {
				...base,
				status: "failed",
				error: options.noModel ?? "no model: the agent file, the call and the parent session name none",
			};
		}
		if (request.isolation === "worktree") {
			const failure = await this.#openWorktree();
			if (failure) return failure;
		}
		if (this.#interruption) {
			this.#history = this.#interruption.lines;
			base.warnings.push(continuedWarning(this.#interruption));
		}
		return undefined;
	}

	/**
	 * Opens the isolated child's worktree: an interrupted attempt's, which its conversation speaks of, when it can be
	 * reopened; else a new one, and then the child starts afresh (its earlier turns' edits are not there).
	 */
	async #openWorktree(): Promise<WorkflowAgentResult | undefined> {
		const plan = this.#plan;
		const reopen = this.#interruption?.cwd;
		try {
			const worktrees = await this.#options.worktrees();
			this.#worktree = await worktrees.open({
				cwd: plan.cwd,
				label: this.#request.label,
				...(reopen ? { reopen } : {}),
			});
		} catch (error) {
			return { ...this.#base, ...worktreeOpenFailure(error) };
		}
		if (this.#interruption && !this.#worktree.reopened) {
			this.#base.warnings.push(
				`the worktree of its interrupted attempt${reopen ? ` (${reopen})` : ""} could not be reopened (its folder is no longer its branch's worktree, or a child works in it): it started afresh in ${this.#worktree.path}`,
			);
			this.#interruption = undefined;
		}
		this.#worktreeState = worktreeReport(this.#worktree);
		this.#plan = { ...plan, cwd: this.#worktree.cwd, prompt: isolatedPrompt(plan.prompt, this.#worktree) };
		return undefined;
	}

	/** Runs the child's sessions (see `onModels`), then commits an isolated child's changes. */
	async drive(): Promise<WorkflowAgentResult> {
		let result: WorkflowAgentResult;
		try {
			result = await this.#onModels();
		} finally {
			this.#activity.dispose();
		}
		if (!this.#worktree) return result;
		// After the session is gone, so no tool of the child can still be writing while its changes are committed.
		result = await closeWorktree(this.#worktree, result);
		this.#worktreeState = result.worktree;
		if (result.worktree?.kept && result.worktree.commit) {
			await noteWorktreeStat(this.#note, this.#worktree, result.worktree.commit);
		}
		return result;
	}

	/** `result` in its final form, reported as the child's end. */
	result(result: WorkflowAgentResult): WorkflowAgentResult {
		const plan = this.#plan;
		const chosen = plan.choice?.model;
		this.#activity.finish(result.status === "completed" ? "finished" : result.status, result.error);
		plan.capture?.dispose();
		const done = {
			...result,
			// The model that answered (a fallback may have taken over), else the one the child was meant to run on.
			...(result.model ? {} : chosen ? { model: `${chosen.provider}/${chosen.id}` } : {}),
			// Names read as models (`opus`, a tier, `inherit`): the run's census says what ran.
			...(plan.choice?.matches ? { matches: plan.choice.matches.map((match) => ({ ...match, calls: 1 })) } : {}),
			durationMs: Date.now() - this.#startedAt,
		};
		if (done.warnings?.length === 0) delete done.warnings;
		if (this.#interruption) {
			done.continued = { turns: this.#interruption.turns, savedTokens: this.#interruption.savedTokens };
		}
		// Every session's file, whichever result object the child ended with.
		if (this.#base.transcripts?.length) done.transcripts = [...this.#base.transcripts];
		else delete done.transcripts;
		// Stopped by its type's deadline, the child fails with it as its cause (as with a call's own `timeoutMs`).
		const deadline = this.#deadline;
		return deadline?.fired && done.status !== "completed"
			? { ...done, status: "failed", error: deadline.cause }
			: done;
	}

	dispose(): void {
		this.#deadline?.clear();
	}

	/**
	 * The child on its model, then on each fallback in turn while the last one met a provider limit or stop before
	 * any tool work (after tool work a fresh session would redo it, so the limit goes to the run's queue to wait out).
	 * A stop (quota, a refused key) moves on too: a fallback on another provider may still answer. The result says
	 * which model ran last (`model`) and which met a limit first (`fallbackFrom`); its usage and cost are every
	 * session's. When every model was limited it carries the first model's limit (the run's next try starts from that
	 * model again), and when the last was stopped, the first stop.
	 */
	async #onModels(): Promise<WorkflowAgentResult> {
		const base = this.#base;
		const { choice } = this.#plan;
		const models = choice ? [{ model: choice.model, thinking: choice.thinking }, ...(choice.fallbacks ?? [])] : [];
		const limited: string[] = [];
		let usage: WorkflowTokenUsage | undefined;
		let cost: WorkflowCost | undefined;
		let firstLimit: WorkflowProviderLimit | undefined;
		let firstStop: WorkflowProviderStop | undefined;
		let result: WorkflowAgentResult | undefined;
		let name = "";
		for (const [index, { model, thinking }] of models.entries()) {
			name = nameOf(model);
			result = await this.#runSession({ model, thinking, sessionId: index === 0 ? this.id : randomUUID() });
			usage = addUsage(usage, result.usage);
			cost = addCost(cost, result.cost);
			firstLimit ??= result.providerLimit;
			firstStop ??= result.providerStop;
			const met = result.providerLimit?.kind ?? result.providerStop?.kind;
			const next = models[index + 1];
			if (!met || !next || this.#activity.toolUses > 0 || this.#signal.aborted) break;
			limited.push(name);
			this.#activity.fallback(name);
			base.warnings.push(
				`\`${name}\` met a provider limit (${met}) before any tool work; \`${nameOf(next.model)}\` took over`,
			);
		}
		const last = result ?? { ...base, status: "failed", error: "no model" };
		return {
			...last,
			...(usage ? { usage } : {}),
			...(cost ? { cost } : {}),
			...(last.providerLimit && firstLimit ? { providerLimit: firstLimit } : {}),
			...(last.providerStop && firstStop ? { providerStop: firstStop } : {}),
			model: name,
			...(limited.length > 0 ? { fallbackFrom: limited } : {}),
		};
	}

	/** One session of the child on `model`; the session is always disposed. */
	async #runSession(on: {
		model: Model<Api>;
		thinking: ThinkingLevel | undefined;
		sessionId: string;
	}): Promise<WorkflowAgentResult> {
		const { model, thinking, sessionId } = on;
		const request = this.#request;
		const base = this.#base;
		const hooks = this.#options.hooks;
		let session: AgentSession | undefined;
		let result: WorkflowAgentResult | undefined;
		let inFile = false;
		// The child's tools as spans under its attempt's, when the run is traced.
		let toolSpans: ChildToolSpans | undefined;
		try {
			this.#activity.start(nameOf(model));
			const history = this.#history;
			const kept = await keepConversation(
				this.#options.runFolder,
				request,
				{ id: sessionId, cwd: this.#plan.cwd, ...(this.#plan.seed ? { seed: this.#plan.seed } : {}) },
				history,
			).catch((error: unknown) => void base.warnings.push(notKeptWarning(error)));
			inFile = kept !== undefined;
			if (kept) this.#options.conversations.made(request.key, kept.path);
			const where = kept
				? { sessionFile: kept.file }
				: history
					? { history: history.map((line) => JSON.parse(line) as unknown) }
					: {};
			const child = { sessionId, plan: this.#plan, model, thinking, ...where };
			const opened = await openSession(child, this.#options, base);
			if (kept) {
				base.transcripts?.push(kept.path);
				this.#note("child_transcript", {
					attempt: request.attempt,
					path: kept.path,
					sessionId,
					model: nameOf(model),
					...(this.#interruption
						? {
								continued: {
									from: this.#interruption.from,
									turns: this.#interruption.turns,
									savedTokens: this.#interruption.savedTokens,
								},
							}
						: {}),
				});
			}
			if ("failure" in opened) result = opened.failure;
			else {
				session = opened.session;
				hooks?.onSessionCreated?.(session, request);
				watchTools(session, this.#note, request.attempt, this.#plan.cwd);
				toolSpans = childToolSpans(this.#context.trace, this.#plan.type.name);
				if (toolSpans) session.subscribe(toolSpans.listener);
				session.subscribe((event) => {
					if (event.type !== "auto_retry_start") return;
					const { attempt, maxAttempts, delayMs, errorMessage: error } = event;
					this.#note("child_model_retry", { attempt, maxAttempts, delayMs, error });
				});
				result = await this.#driveSession(session, lendControls(session, this.#context));
			}
		} catch (error) {
			result = { ...base, status: "failed", error: errorMessage(error) };
		} finally {
			// Every reply the session got costs money, however the child ended.
			if (session && result) {
				const cost = sessionCost(session, model, this.#history?.length ?? 0);
				if (cost) result.cost = cost;
			}
			// With no file to reopen, an answered conversation is remembered for a child that continues it.
			if (session && !inFile && result?.status === "completed") {
				this.#options.remembered.remember(request.key, session.sessionManager.getEntries());
			}
			toolSpans?.end();
			if (session) {
				session.dispose();
				hooks?.onSessionDisposed?.(session, result ?? { ...base, status: "failed" });
			}
		}
		return result;
	}

	/** Prompts the session and turns how it ended into a result; the caller disposes the session. */
	async #driveSession(session: AgentSession, gate: PauseGate): Promise<WorkflowAgentResult> {
		const signal = this.#signal;
		const activity = this.#activity;
		// Fires when the child is asked to stop (its signal, or `max_turns`): from then on it has the grace to end its turn.
		const stop = new AbortController();
		const graceMs = this.#options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
		const heard = (work: Promise<void>) => settlesAfterStop(work, stop.signal, graceMs);
		const turnLimit = this.#turnLimit(session, stop);
		const unsubscribe = session.subscribe((event: AgentSessionEvent) => {
			activity.observe(event);
			if (event.type === "turn_end" && turnLimit) {
				const message = event.message as Partial<AssistantMessage>;
				turnLimit.onTurnEnd(message.stopReason === "toolUse" && !this.#plan.capture?.submitted);
			}
		});
		const onAbort = () => {
			activity.stopping();
			stop.abort();
			session.abort().catch(() => {});
		};
		signal.addEventListener("abort", onAbort, { once: true });
		// False once a turn did not end within the grace after the child was asked to stop: it is let go, not waited for.
		let ended = true;
		try {
			if (signal.aborted) return { ...this.#base, status: "stopped", error: reasonOf(signal) };
			const worktree = this.#worktree;
			const prompt = this.#interruption
				? [interruptedMessage(this.#interruption), worktree && sameWorktreeNote(worktree), this.#context.retryNote]
						.filter(Boolean)
						.join("\n\n")
				: this.#plan.prompt;
			ended = await heard(session.prompt(prompt, { expandPromptTemplates: false }));
			// A pause stopped the turn: the session waits, with its conversation, for the message that resumes it. (A
			// pause is not a stop: a turn that ignores it goes on, under the stall watchdog.)
			while (ended && gate.paused && !signal.aborted && lastAssistantMessage(session)?.stopReason === "aborted") {
				activity.pause();
				const text = await gate.wait(signal);
				if (text === undefined) break;
				activity.resume();
				ended = await heard(session.prompt(text, { expandPromptTemplates: false }));
			}
		} finally {
			signal.removeEventListener("abort", onAbort);
			unsubscribe();
		}
		const result = this.#settle(session, turnLimit);
		if (ended) return result;
		// What it had done counts; the caller disposes the session, which stays busy with the call that ignored the abort.
		return {
			...result,
			status: result.status === "completed" ? "stopped" : result.status,
			error: abandonedCause(result.error ?? "stopped", graceMs),
			abandoned: 1,
		};
	}

	/** The type's `max_turns` over `session`: a wrap-up message at the limit, a stop after the grace turns. */
	#turnLimit(session: AgentSession, stop: AbortController): TurnLimit | undefined {
		const { maxTurns } = this.#plan.type;
		if (!maxTurns) return undefined;
		const { capture } = this.#plan;
		const { graceTurns } = this.#options;
		return createTurnLimit({
			maxTurns,
			...(graceTurns !== undefined ? { graceTurns } : {}),
			steer: () => {
				// Queued for the next model request; a failure here only means the run already ended.
				session.steer(capture ? wrapUpWithSchema() : WRAP_UP_MESSAGE).catch(() => {});
			},
			abort: () => {
				stop.abort();
				session.abort().catch(() => {});
			},
		});
	}

	/** What the ended session came to: its answer, usage and tool uses, and the status `childStatus` gives it. */
	#settle(session: AgentSession, turnLimit: TurnLimit | undefined): WorkflowAgentResult {
		const { capture, type } = this.#plan;
		// The earlier conversation's replies were counted in the session that made them.
		const tokens = sessionTokens(session, this.#history?.length ?? 0);
		const input = tokens.input + tokens.cacheRead + tokens.cacheWrite;
		const text = session.getLastAssistantText()?.trim() ?? "";
		const result: WorkflowAgentResult = {
			...this.#base,
			status: "completed",
			toolUses: this.#activity.toolUses,
			usage: {
				input,
				output: tokens.output,
				total: input + tokens.output,
				...(tokens.cacheRead > 0 ? { cacheRead: tokens.cacheRead } : {}),
				...(tokens.cacheWrite > 0 ? { cacheWrite: tokens.cacheWrite } : {}),
			},
		};
		if (text) result.result = text;
		if (capture?.submitted) {
			result.structuredOutput = capture.value;
			result.result ??= JSON.stringify(capture.value);
		}
		const last = lastAssistantMessage(session);
		const { warnings, ...status } = childStatus({
			...(this.#signal.aborted ? { stoppedBy: reasonOf(this.#signal) } : {}),
			...(turnLimit && type.maxTurns ? { turnLimit: { state: turnLimit.state, maxTurns: type.maxTurns } } : {}),
			...(last ? { last } : {}),
			...(capture ? { schema: capture.submitted ? "submitted" : "missing" } : {}),
			answered: text !== "",
		});
		return { ...result, ...status, warnings: [...this.#base.warnings, ...warnings] };
	}
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

function nameOf(model: Model<Api>): string {
	return `${model.provider}/${model.id}`;
}

function addUsage(
	a: WorkflowTokenUsage | undefined,
	b: WorkflowTokenUsage | undefined,
): WorkflowTokenUsage | undefined {
	if (!b) return a;
	return { input: (a?.input ?? 0) + b.input, output: (a?.output ?? 0) + b.output, total: (a?.total ?? 0) + b.total };
}
