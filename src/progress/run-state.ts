/**
 * The mutable state behind a tracker. Counters move as calls change state, so an event never rescans the run;
 * `envelope()` copies only what changed since the last envelope (plus the few running calls, whose clocks moved).
 */
import type { SerializedWorkflowError } from "../errors.ts";
import type {
	AgentChildEvent,
	AgentFailedEvent,
	AgentFinishedEvent,
	AgentQueuedEvent,
	AgentRetryEvent,
	AgentStartedEvent,
	AskStartedEvent,
	LogEvent,
	PhaseEndEvent,
	PhaseStartEvent,
	ProviderWaitStartedEvent,
	RunEndEvent,
	WorkflowAgentCallRef,
	WorkflowProgressEvent,
} from "../runtime/core/events.ts";
import type {
	WorkflowAgentChild,
	WorkflowCost,
	WorkflowFailure,
	WorkflowMeta,
	WorkflowWorktree,
} from "../runtime/core/types.ts";
import { CallBook, isTerminal } from "./call-book.ts";
import type {
	WorkflowKeptBranch,
	WorkflowProgressEnvelope,
	WorkflowProgressError,
	WorkflowProgressLog,
	WorkflowProgressQuestion,
	WorkflowProgressStatus,
} from "./envelope.ts";
import { DEFAULT_SLOW_MULTIPLE, type ProgressPlan, type ProgressTiming } from "./forecast.ts";
import { ForecastBook } from "./forecast-book.ts";
import { limitKindText } from "./format.ts";
import { PhaseBook } from "./phase-book.ts";
import { ProviderWaits } from "./provider-waits.ts";
import { RecentLogs } from "./recent-logs.ts";
import { ToolSteps } from "./tool-steps.ts";

/** How a run ended, from `run_end`, `complete()` or `error()`. */
export interface RunEnding {
	status: Exclude<WorkflowProgressStatus, "running">;
	time: number;
	result?: unknown;
	error?: SerializedWorkflowError | WorkflowProgressError;
	failures?: WorkflowFailure[];
	tokens?: number;
	/** The runtime's census of what the run's children cost, and what its replayed calls had cost. */
	cost?: WorkflowCost;
	replayedCost?: WorkflowCost;
	/** The runtime's own measure of the run, which starts before `run_start`. */
	durationMs?: number;
	/** The run's provider waits, from its result. */
	providerWaits?: { count: number; totalMs: number };
	/** Children that went on from an interrupted attempt's finished turns, and those turns' tokens. */
	continued?: { calls: number; tokens: number };
}

/** Child states that mean the call is under way ("paused" is not in the type yet, but some runners report it). */
const ACTIVE_CHILD = new Set(["starting", "active", "quiet", "stalled", "paused"]);

/** Files each entry of the envelope's `branches` lists (its `fileCount` says how many there are). */
const BRANCH_FILES = 20;

/** Everything a tracker knows about one run. */
export class RunState {
	meta: WorkflowMeta | undefined;
	status: WorkflowProgressStatus = "running";
	startedAt: number;
	endedAt: number | undefined;
	updatedAt: number;
	ended = false;
	private result: unknown;
	private hasResult = false;
	private duration: number | undefined;
	private sawEvent = false;
	private error: WorkflowProgressError | undefined;
	private currentPhase: string | undefined;
	private costLimitUsd: number | undefined;
	private priorCostUsd: number | undefined;
	private atCostCap = false;
	private stoppedAtCostCap = false;
	/** Children that went on from an interrupted attempt's finished turns, from the run's end. */
	private continued: { calls: number; tokens: number } | undefined;
	private readonly phaseParents = new Map<string, string | undefined>();
	private readonly phases = new PhaseBook();
	private readonly logs: RecentLogs;
	private readonly maxPreviewChars: number;

	private readonly calls = new CallBook(this.phases);

	private readonly agentPositions = new Map<string, number>();
	private readonly dirtyAgents = new Map<number, WorkflowAgentChild>();
	private agentSnapshots: WorkflowAgentChild[] = [];

	/** Kept branches by name, and their list as the last envelope had it (undefined once one was added). */
	private readonly kept = new Map<string, WorkflowKeptBranch>();
	private keptSnapshot: WorkflowKeptBranch[] | undefined = [];

	/** Open `ask()` questions by key. */
	private readonly questions = new Map<string, WorkflowProgressQuestion>();
	private readonly waits = new ProviderWaits();
	/** The run's `tool()` steps; undefined until the first. */
	private tools: ToolSteps | undefined;

	private failures: WorkflowFailure[] = [];
	private failuresSnapshot: WorkflowFailure[] | undefined = [];
	private cached: WorkflowProgressEnvelope | undefined;
	/** Progress against the plan; undefined until the host gives a plan or a history. */
	private forecasts: ForecastBook | undefined;
	private readonly slowMultiple: number;

	constructor(options: {
		meta?: WorkflowMeta;
		startedAt: number;
		maxLogs: number;
		maxPreviewChars: number;
		slowMultiple?: number;
	}) {
		this.slowMultiple = options.slowMultiple ?? DEFAULT_SLOW_MULTIPLE;
		this.startedAt = options.startedAt;
		this.updatedAt = options.startedAt;
		this.logs = new RecentLogs(options.maxLogs);
		this.maxPreviewChars = options.maxPreviewChars;
		if (options.meta) this.setMeta(options.meta);
	}

	apply(event: WorkflowProgressEvent): void {
		this.touch(event.time);
		switch (event.type) {
			case "run_start":
				this.startedAt = event.time;
				this.setMeta(event.meta);
				if (event.costLimitUsd !== undefined) this.costLimitUsd = event.costLimitUsd;
				if (event.priorCostUsd) this.priorCostUsd = event.priorCostUsd;
				break;
			case "cost_cap":
				this.costLimitUsd = event.capUsd;
				this.atCostCap = event.state === "parked";
				this.stoppedAtCostCap = event.state === "stopped";
				break;
			case "phase_start":
			case "phase_end":
				this.phaseEvent(event);
				break;
			case "log":
				this.logs.add(logEntry(event));
				break;
			case "agent_queued":
			case "agent_started":
			case "agent_retry":
			case "agent_child":
				this.callProgress(event);
				break;
			case "agent_finished":
				this.callFinished(event);
				break;
			case "agent_failed":
				this.callFailed(event);
				break;
			case "provider_wait_started":
				this.providerWaitStarted(event);
				break;
			case "provider_wait_ended":
				this.waits.ended(event);
				break;
			case "slot_failed":
				this.addFailure({
					kind: event.kind,
					index: event.index,
					...(event.phase !== undefined ? { phase: event.phase } : {}),
					cause: event.error,
				});
				break;
			case "ask_started":
				this.questions.set(event.key, openQuestion(event));
				break;
			case "ask_answered":
			case "ask_failed":
				this.questions.delete(event.key);
				break;
			case "tool_started":
			case "tool_finished":
			case "tool_failed":
				this.tools ??= new ToolSteps();
				this.tools.apply(event);
				break;
			case "run_end":
				this.end(runEnding(event));
				break;
		}
	}

	/** A child report, from the runner directly or forwarded in an `agent_child` event (`ref` then names the call). */
	child(child: WorkflowAgentChild, ref: WorkflowAgentCallRef | undefined, time: number | undefined): void {
		if (time !== undefined) this.touch(time);
		else this.cached = undefined;
		const snapshot = { ...child };
		let pos = this.agentPositions.get(child.id);
		if (pos === undefined) {
			pos = this.agentPositions.size;
			this.agentPositions.set(child.id, pos);
		}
		this.dirtyAgents.set(pos, snapshot);

		const key = ref?.key ?? child.callKey;
		if (key === undefined) {
			if (child.worktree) this.worktree(child.worktree, undefined, { label: child.description, index: -1 });
			return;
		}
		const at = time ?? this.updatedAt;
		const record = this.calls.get(
			ref ?? { key, index: child.callIndex ?? -1, label: child.description, agentType: child.type },
			at,
		);
		const data = record.data;
		// A fact, not a live number: a stopped child reports its kept branch after its call has ended.
		if (child.worktree) this.worktree(child.worktree, data, data);
		data.agentId = child.id;
		data.activity = child.status;
		if (child.activity !== undefined) data.activityText = this.cap(child.activity);
		if (child.turns !== undefined) data.turns = child.turns;
		// The runner knows which model the child really runs on (the agent file may override the call's, and a
		// fallback model may have taken over).
		if (child.model !== undefined) data.model = child.model;
		if (child.fallbackFrom !== undefined && child.model !== undefined) data.fallbackFrom = [...child.fallbackFrom];
		if (child.lastActivityAt !== undefined) data.lastActivityAt = child.lastActivityAt;
		if (child.startedAt !== undefined) data.startedAt ??= child.startedAt;
		if (isTerminal(data.status)) return;
		// Live numbers only while the call runs; its end event carries the final ones.
		this.calls.setUsage(record, child.tokens, child.toolUses);
		if (child.cost !== undefined) this.calls.setCost(record, child.cost);
		if (data.status === "queued" && ACTIVE_CHILD.has(child.status)) {
			this.calls.setStatus(record, "running", child.startedAt ?? at);
		}
	}

	end(ending: RunEnding): void {
		this.cached = undefined;
		this.ended = true;
		this.status = ending.status;
		this.endedAt ??= Math.max(ending.time, this.startedAt);
		this.updatedAt = Math.max(this.updatedAt, this.endedAt);
		if ("result" in ending) {
			this.result = ending.result;
			this.hasResult = ending.result !== undefined;
		}
		if (ending.error) this.error = toEnvelopeError(ending.error);
		if (ending.durationMs !== undefined) this.duration ??= ending.durationMs;
		this.waits.runEnded(ending.providerWaits);
		if (ending.failures) {
			this.failures = [...ending.failures];
			this.failuresSnapshot = undefined;
		}
		this.questions.clear();
		this.tools?.stopAll();
		// Calls the runtime never settled (a host that stopped forwarding events): they did not finish.
		this.calls.settleAll(this.endedAt, "The workflow ended before this call finished");
		// The runtime's total also counts usage its events did not itemise.
		if (ending.tokens !== undefined) this.calls.tokens = Math.max(this.calls.tokens, ending.tokens);
		if (ending.cost !== undefined) this.calls.cost = ending.cost;
		if (ending.replayedCost !== undefined) this.calls.replayedCost = ending.replayedCost;
		if (ending.continued) this.continued = ending.continued;
		this.phases.finish(this.endedAt, ending.status !== "completed");
	}

	/** The plan and the history progress is measured against (either may come later; the fraction shown never drops). */
	forecastWith(plan: ProgressPlan | undefined, timing: ProgressTiming | undefined): void {
		const held = this.forecasts;
		this.forecasts = new ForecastBook(
			plan ?? held?.plan,
			timing ?? held?.timing,
			this.slowMultiple,
			held?.shown ?? 0,
			this.meta?.name,
		);
		this.calls.watch(this.forecasts);
		this.cached = undefined;
	}

	envelope(): WorkflowProgressEnvelope {
		if (this.cached) return this.cached;
		const envelope = this.baseEnvelope();
		this.cached = this.forecasts ? this.forecasts.apply(envelope, !this.ended) : envelope;
		return this.cached;
	}

	private baseEnvelope(): WorkflowProgressEnvelope {
		return {
			...(this.meta ? { meta: this.meta } : {}),
			status: this.status,
			phases: this.phases.snapshot(this.updatedAt),
			logs: this.logs.snapshot(),
			droppedLogs: this.logs.dropped,
			agents: this.agentList(),
			agentCalls: this.calls.list(this.updatedAt),
			...(this.currentPhase !== undefined ? { currentPhase: this.currentPhase } : {}),
			...(this.calls.currentTask() !== undefined ? { currentTask: this.calls.currentTask() } : {}),
			startedAt: this.startedAt,
			...(this.endedAt !== undefined ? { endedAt: this.endedAt } : {}),
			updatedAt: this.updatedAt,
			duration: this.duration ?? Math.max(0, (this.endedAt ?? this.updatedAt) - this.startedAt),
			...(this.hasResult ? { result: this.result } : {}),
			...(this.error ? { error: this.error } : {}),
			totals: {
				agents: { ...this.calls.totals },
				tokens: this.calls.tokens,
				toolUses: this.calls.toolUses,
				cost: this.calls.cost,
				...(this.calls.replayedCost !== undefined ? { replayedCost: this.calls.replayedCost } : {}),
				...(this.costLimitUsd !== undefined ? { costLimitUsd: this.costLimitUsd } : {}),
				...(this.priorCostUsd !== undefined ? { priorCostUsd: this.priorCostUsd } : {}),
				...(this.atCostCap ? { atCostCap: true } : {}),
				...(this.stoppedAtCostCap ? { stoppedAtCostCap: true } : {}),
				...(this.calls.replayed > 0 ? { replayed: this.calls.replayed } : {}),
				...(this.continued ? { continued: this.continued } : {}),
			},
			failures: this.failureList(),
			...(this.kept.size > 0 ? { branches: this.branchList() } : {}),
			...(this.questions.size > 0 ? { questions: [...this.questions.values()] } : {}),
			...(this.waits.current ? { providerWait: this.waits.current } : {}),
			...(this.waits.totals ? { providerWaits: this.waits.totals } : {}),
			...(this.tools ? { toolSteps: this.tools.snapshot() } : {}),
		};
	}

	/** The phase that opens becomes the current one; when it closes, its parent is again. */
	private phaseEvent(event: PhaseStartEvent | PhaseEndEvent): void {
		if (event.type === "phase_start") {
			this.phaseParents.set(event.phase, event.parent);
			this.currentPhase = event.phase;
			this.phases.open(event.phase, event.time, event.budget);
			return;
		}
		if (this.currentPhase === event.phase) this.currentPhase = this.phaseParents.get(event.phase);
		this.phases.close(event.phase, event.time);
	}

	/** An agent() call on its way: queued, started, tried again, or its child's report. */
	private callProgress(event: AgentQueuedEvent | AgentStartedEvent | AgentRetryEvent | AgentChildEvent): void {
		if (event.type === "agent_child") {
			this.child(event.child, event, event.time);
			return;
		}
		const record = this.calls.get(event, event.time);
		if (event.type === "agent_queued") {
			record.data.promptPreview = event.promptPreview;
			if (event.model !== undefined) record.data.model = event.model;
			record.data.queuedAt ??= event.time;
			return;
		}
		record.data.attempt = event.attempt;
		if (event.type === "agent_retry") record.data.activityText = this.cap(`retrying: ${event.reason}`);
		this.calls.setStatus(record, "running", event.time);
	}

	private callFinished(event: AgentFinishedEvent): void {
		const record = this.calls.get(event, event.time);
		const data = record.data;
		if (event.agentId !== undefined) data.agentId = event.agentId;
		data.resultPreview = this.cap(event.resultPreview);
		data.attempt = event.attempts;
		if (event.cached) data.cached = true;
		if (event.worktree) this.worktree(event.worktree, data, event);
		// The model that answered, which a fallback makes another than the one asked for.
		if (event.model !== undefined) data.model = event.model;
		if (event.fallbackFrom !== undefined) data.fallbackFrom = [...event.fallbackFrom];
		data.activity = "finished";
		delete data.activityText;
		this.calls.settle(record, {
			status: "completed",
			time: event.time,
			elapsedMs: event.durationMs,
			tokens: event.usage?.total,
			toolUses: event.toolUses,
			// A replayed call cost nothing now; what it cost when it ran is what this run saved.
			...(event.cost !== undefined ? (event.cached ? { savedCost: event.cost } : { cost: event.cost }) : {}),
		});
	}

	/** A failed call settles as failed, or as stopped when the run or the provider stopped it; either is a failure. */
	private callFailed(event: AgentFailedEvent): void {
		const record = this.calls.get(event, event.time);
		const data = record.data;
		if (event.agentId !== undefined) data.agentId = event.agentId;
		data.error = this.cap(event.error);
		if (event.code !== undefined) data.code = event.code;
		if (event.skipped) data.skipped = true;
		if (event.thrown) data.thrown = true;
		if (event.model !== undefined) data.model = event.model;
		if (event.worktree) this.worktree(event.worktree, data, event);
		const stopped =
			event.code === "cancelled" ||
			event.code === "provider_limit" ||
			event.code === "cost_cap" ||
			data.activity === "stopped";
		delete data.activityText;
		this.calls.settle(record, {
			status: stopped ? "stopped" : "failed",
			time: event.time,
			// A skipped call waited in the queue; it never ran, so it has no running time.
			...(event.skipped ? {} : { elapsedMs: event.durationMs }),
			tokens: event.usage?.total,
			toolUses: event.toolUses,
			...(event.cost !== undefined ? { cost: event.cost } : {}),
		});
		this.addFailure({
			kind: "agent",
			index: event.index,
			key: event.key,
			label: event.label,
			agentType: event.agentType,
			...(event.phase !== undefined ? { phase: event.phase } : {}),
			cause: event.error,
			...(event.code !== undefined ? { code: event.code } : {}),
			...(event.worktree !== undefined ? { worktree: event.worktree } : {}),
		});
	}

	/** A provider wait starts or lengthens, and the call that met it, if it was this run's, waits with it. */
	private providerWaitStarted(event: ProviderWaitStartedEvent): void {
		this.waits.started(event, this.cap(event.message));
		if (event.call) {
			// Its child ended; the call is not over: it waits with the queue and is tried again.
			const data = this.calls.get(event.call, event.time).data;
			data.activity = "waiting";
			data.activityText = `for the provider, ${limitKindText(event.kind)}`;
		}
	}

	private setMeta(meta: WorkflowMeta): void {
		this.meta = meta;
		this.phases.declare(meta.phases ?? []);
		// Usual durations are the workflow's own: a name that comes after the plan (with `run_start`) counts anew.
		if (this.forecasts && this.forecasts.workflow !== meta.name) {
			this.forecasts = this.forecasts.forWorkflow(meta.name);
			this.calls.watch(this.forecasts);
		}
	}

	private touch(time: number): void {
		this.cached = undefined;
		// Until the first event, the clock is the tracker's creation time; a replay made later must not keep it.
		if (!this.sawEvent) {
			this.sawEvent = true;
			this.startedAt = Math.min(this.startedAt, time);
			this.updatedAt = time;
		} else if (time > this.updatedAt) {
			this.updatedAt = time;
		}
	}

	private cap(text: string): string {
		return text.length > this.maxPreviewChars ? `${text.slice(0, this.maxPreviewChars - 1)}…` : text;
	}

	private addFailure(failure: WorkflowFailure): void {
		this.failures.push(failure);
		this.failuresSnapshot = undefined;
	}

	/** An isolated child's worktree on its call, and among the kept branches once its changes are kept. */
	private worktree(
		worktree: WorkflowWorktree,
		data: { worktree?: WorkflowWorktree } | undefined,
		call: { label: string; index: number },
	): void {
		// The caller got the call's record from the book in this same update, which marks it changed.
		if (data) data.worktree = worktree;
		if (worktree.kept !== true) return;
		// The call keeps the runner's list; the run's list of branches needs only a glimpse of each.
		const files = (worktree.files ?? []).slice(0, BRANCH_FILES);
		this.kept.set(worktree.branch, {
			branch: worktree.branch,
			label: call.label,
			index: call.index,
			files,
			fileCount: worktree.fileCount ?? files.length,
			...(worktree.commit !== undefined ? { commit: worktree.commit } : {}),
		});
		this.keptSnapshot = undefined;
	}

	private branchList(): WorkflowKeptBranch[] {
		this.keptSnapshot ??= [...this.kept.values()].sort((a, b) => a.index - b.index);
		return this.keptSnapshot;
	}

	private agentList(): WorkflowAgentChild[] {
		if (this.dirtyAgents.size === 0) return this.agentSnapshots;
		const list = this.agentSnapshots.slice();
		for (const [pos, child] of this.dirtyAgents) list[pos] = child;
		this.dirtyAgents.clear();
		this.agentSnapshots = list;
		return list;
	}

	private failureList(): WorkflowFailure[] {
		this.failuresSnapshot ??= this.failures.slice();
		return this.failuresSnapshot;
	}
}

function toEnvelopeError(error: SerializedWorkflowError | WorkflowProgressError): WorkflowProgressError {
	return {
		message: error.message,
		...(error.code !== undefined ? { code: error.code } : {}),
		...(error.line !== undefined ? { line: error.line } : {}),
		...(error.column !== undefined ? { column: error.column } : {}),
	};
}

function logEntry(event: LogEvent): WorkflowProgressLog {
	return {
		time: event.time,
		level: event.level,
		message: event.message,
		...(event.data !== undefined ? { data: event.data } : {}),
		...(event.phase !== undefined ? { phase: event.phase } : {}),
	};
}

function openQuestion(event: AskStartedEvent): WorkflowProgressQuestion {
	return {
		key: event.key,
		index: event.index,
		question: event.question,
		...(event.choices !== undefined ? { choices: event.choices } : {}),
		...(event.default !== undefined ? { default: event.default } : {}),
		...(event.timeoutMs !== undefined ? { timeoutMs: event.timeoutMs } : {}),
		askedAt: event.time,
		...(event.phase !== undefined ? { phase: event.phase } : {}),
		...(event.workflow !== undefined ? { workflow: event.workflow } : {}),
	};
}

function runEnding(event: RunEndEvent): RunEnding {
	return {
		status: event.status,
		time: event.time,
		...(event.result !== undefined ? { result: event.result } : {}),
		...(event.error !== undefined ? { error: event.error } : {}),
		failures: event.failures,
		tokens: event.usage.total,
		...(event.cost !== undefined ? { cost: event.cost } : {}),
		...(event.replayedCost !== undefined ? { replayedCost: event.replayedCost } : {}),
		...(event.counts.continued
			? { continued: { calls: event.counts.continued, tokens: event.continuedTokens ?? 0 } }
			: {}),
		durationMs: event.durationMs,
	};
}
