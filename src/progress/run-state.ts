/**
 * The mutable state behind a tracker. Counters move as calls change state, so an event never rescans the run;
 * `envelope()` copies only what changed since the last envelope (plus the few running calls, whose clocks moved).
 */
import type { SerializedWorkflowError } from "../errors.ts";
import type { WorkflowAgentCallRef, WorkflowProgressEvent } from "../runtime/events.ts";
import type {
	WorkflowAgentChild,
	WorkflowCost,
	WorkflowFailure,
	WorkflowMeta,
	WorkflowWorktree,
} from "../runtime/types.ts";
import { CallBook, isTerminal } from "./call-book.ts";
import type {
	WorkflowKeptBranch,
	WorkflowProgressEnvelope,
	WorkflowProgressError,
	WorkflowProgressQuestion,
	WorkflowProgressStatus,
	WorkflowProgressToolRun,
	WorkflowProviderWait,
	WorkflowProviderWaits,
} from "./envelope.ts";
import { limitKindText } from "./format.ts";
import { PhaseBook } from "./phase-book.ts";
import { RecentLogs } from "./recent-logs.ts";

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
	private providerWait: WorkflowProviderWait | undefined;
	private providerWaits: WorkflowProviderWaits | undefined;
	/** Running `tool()` steps by key, and how the finished ones went; undefined until the first step. */
	private tools:
		| { running: Map<string, WorkflowProgressToolRun>; done: number; errors: number; failed: number }
		| undefined;

	private failures: WorkflowFailure[] = [];
	private failuresSnapshot: WorkflowFailure[] | undefined = [];
	private cached: WorkflowProgressEnvelope | undefined;

	constructor(options: { meta?: WorkflowMeta; startedAt: number; maxLogs: number; maxPreviewChars: number }) {
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
				return;
			case "phase_start":
				this.phaseParents.set(event.phase, event.parent);
				this.currentPhase = event.phase;
				this.phases.open(event.phase, event.time, event.budget);
				return;
			case "phase_end":
				if (this.currentPhase === event.phase) this.currentPhase = this.phaseParents.get(event.phase);
				this.phases.close(event.phase, event.time);
				return;
			case "log":
				this.logs.add({
					time: event.time,
					level: event.level,
					message: event.message,
					...(event.data !== undefined ? { data: event.data } : {}),
					...(event.phase !== undefined ? { phase: event.phase } : {}),
				});
				return;
			case "agent_queued": {
				const record = this.calls.get(event, event.time);
				record.data.promptPreview = event.promptPreview;
				if (event.model !== undefined) record.data.model = event.model;
				record.data.queuedAt ??= event.time;
				return;
			}
			case "agent_started": {
				const record = this.calls.get(event, event.time);
				record.data.attempt = event.attempt;
				this.calls.setStatus(record, "running", event.time);
				return;
			}
			case "agent_retry": {
				const record = this.calls.get(event, event.time);
				record.data.attempt = event.attempt;
				record.data.activityText = this.cap(`retrying: ${event.reason}`);
				this.calls.setStatus(record, "running", event.time);
				return;
			}
			case "agent_child":
				this.child(event.child, event, event.time);
				return;
			case "agent_finished": {
				const record = this.calls.get(event, event.time);
				const data = record.data;
				if (event.agentId !== undefined) data.agentId = event.agentId;
				data.resultPreview = this.cap(event.resultPreview);
				data.attempt = event.attempts;
				if (event.cached) data.cached = true;
				if (event.model !== undefined) data.model = event.model;
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
				return;
			}
			case "agent_failed": {
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
					event.code === "cancelled" || event.code === "provider_limit" || data.activity === "stopped";
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
				return;
			}
			case "provider_wait_started": {
				this.providerWait = {
					kind: event.kind,
					message: this.cap(event.message),
					since: this.providerWait?.since ?? event.time,
					until: event.until,
					...(event.retryAfterMs !== undefined ? { retryAfterMs: event.retryAfterMs } : {}),
					...(event.call ? { label: event.call.label } : {}),
				};
				this.providerWaits = {
					count: (this.providerWaits?.count ?? 0) + (event.lengthened ? 0 : 1),
					totalMs: event.totalWaitMs,
					maxMs: event.maxWaitMs,
				};
				if (event.call) {
					// Its child ended; the call is not over: it waits with the queue and is tried again.
					const data = this.calls.get(event.call, event.time).data;
					data.activity = "waiting";
					data.activityText = `for the provider, ${limitKindText(event.kind)}`;
				}
				return;
			}
			case "provider_wait_ended":
				this.providerWait = undefined;
				this.providerWaits = {
					...(this.providerWaits ?? { count: 1 }),
					totalMs: event.totalWaitMs,
				};
				return;
			case "slot_failed":
				this.addFailure({
					kind: event.kind,
					index: event.index,
					...(event.phase !== undefined ? { phase: event.phase } : {}),
					cause: event.error,
				});
				return;
			case "ask_started":
				this.questions.set(event.key, {
					key: event.key,
					index: event.index,
					question: event.question,
					...(event.choices !== undefined ? { choices: event.choices } : {}),
					...(event.default !== undefined ? { default: event.default } : {}),
					...(event.timeoutMs !== undefined ? { timeoutMs: event.timeoutMs } : {}),
					askedAt: event.time,
					...(event.phase !== undefined ? { phase: event.phase } : {}),
					...(event.workflow !== undefined ? { workflow: event.workflow } : {}),
				});
				return;
			case "ask_answered":
			case "ask_failed":
				this.questions.delete(event.key);
				return;
			case "tool_started":
				this.toolBook().running.set(event.key, {
					key: event.key,
					name: event.name,
					label: event.label,
					startedAt: event.time,
					...(event.phase !== undefined ? { phase: event.phase } : {}),
				});
				return;
			case "tool_finished":
			case "tool_failed": {
				const book = this.toolBook();
				book.running.delete(event.key);
				if (event.type === "tool_failed") book.failed++;
				else book.done++;
				if (event.type === "tool_finished" && event.isError) book.errors++;
				return;
			}
			case "run_end":
				this.end({
					status: event.status,
					time: event.time,
					...(event.result !== undefined ? { result: event.result } : {}),
					...(event.error !== undefined ? { error: event.error } : {}),
					failures: event.failures,
					tokens: event.usage.total,
					...(event.cost !== undefined ? { cost: event.cost } : {}),
					...(event.replayedCost !== undefined ? { replayedCost: event.replayedCost } : {}),
					durationMs: event.durationMs,
				});
				return;
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
		this.providerWait = undefined;
		if (ending.providerWaits) this.providerWaits = { ...this.providerWaits, ...ending.providerWaits };
		if (ending.failures) {
			this.failures = [...ending.failures];
			this.failuresSnapshot = undefined;
		}
		this.questions.clear();
		this.tools?.running.clear();
		// Calls the runtime never settled (a host that stopped forwarding events): they did not finish.
		this.calls.settleAll(this.endedAt, "The workflow ended before this call finished");
		// The runtime's total also counts usage its events did not itemise.
		if (ending.tokens !== undefined) this.calls.tokens = Math.max(this.calls.tokens, ending.tokens);
		if (ending.cost !== undefined) this.calls.cost = ending.cost;
		if (ending.replayedCost !== undefined) this.calls.replayedCost = ending.replayedCost;
		this.phases.finish(this.endedAt, ending.status !== "completed");
	}

	envelope(): WorkflowProgressEnvelope {
		if (this.cached) return this.cached;
		const envelope: WorkflowProgressEnvelope = {
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
				...(this.calls.replayed > 0 ? { replayed: this.calls.replayed } : {}),
			},
			failures: this.failureList(),
			...(this.kept.size > 0 ? { branches: this.branchList() } : {}),
			...(this.questions.size > 0 ? { questions: [...this.questions.values()] } : {}),
			...(this.providerWait ? { providerWait: this.providerWait } : {}),
			...(this.providerWaits ? { providerWaits: this.providerWaits } : {}),
			...(this.tools
				? {
						toolSteps: { ...this.tools, running: [...this.tools.running.values()] },
					}
				: {}),
		};
		this.cached = envelope;
		return envelope;
	}

	private toolBook(): NonNullable<RunState["tools"]> {
		this.tools ??= { running: new Map(), done: 0, errors: 0, failed: 0 };
		return this.tools;
	}

	private setMeta(meta: WorkflowMeta): void {
		this.meta = meta;
		this.phases.declare(meta.phases ?? []);
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
