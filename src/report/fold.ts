/**
 * The event log folded into sessions and calls (pure): each call's time in the queue, each attempt's running time
 * (split where the runtime retried or the runner started a new child: a stall retry, a restart), how each ended,
 * phases, waits, questions and log entries.
 */

import { callNumber } from "../errors.ts";
import { addCosts } from "../progress/cost-text.ts";
import type {
	AgentChildEvent,
	AgentFailedEvent,
	AgentFinishedEvent,
	WorkflowAgentCallRef,
} from "../runtime/core/events.ts";
import type { LoggedEvent, RunEventLog } from "./event-log.ts";
import type { ReportBand, ReportCall, ReportLog, ReportOutcome, ReportSession } from "./types.ts";

/** Characters of a prompt or an answer the report keeps. */
export const PREVIEW_CHARS = 400;

/** What the fold gives. */
export interface Folded {
	sessions: ReportSession[];
	calls: ReportCall[];
	logs: ReportLog[];
}

/** An attempt being drawn: where its bar starts, and what its child last said. */
interface OpenAttempt {
	start: number;
	childId?: string;
	status?: string;
	/** The child was seen stalled (its watchdog stopped it). */
	stalled?: boolean;
	/** A person restarted it. */
	restarted?: boolean;
	/** The runner opened this attempt's session (`child_transcript`). */
	session?: boolean;
	error?: string;
}

/** Folds the log's events, in order, into sessions and calls. */
export function foldEvents(log: RunEventLog): Folded {
	const fold = new EventFold(log);
	for (const event of log.events) fold.add(event);
	return fold.finish();
}

/** One kind of logged event. */
type EventOf<T extends LoggedEvent["type"]> = Extract<LoggedEvent, { type: T }>;

/** The fold's state while it reads the log: what it has drawn so far and what is still open. */
class EventFold {
	readonly #sessions = new Map<number, ReportSession>();
	readonly #calls: ReportCall[] = [];
	readonly #logs: ReportLog[] = [];
	readonly #byKey = new Map<string, ReportCall>();
	readonly #open = new Map<ReportCall, OpenAttempt>();
	// Calls a person skipped while they ran: their `agent_failed` is not a failure.
	readonly #skipped = new Set<ReportCall>();
	readonly #openPhases = new Map<string, { name: string; start: number }>();
	readonly #openBands = new Map<string, ReportBand>();
	readonly #resumed: Map<number, boolean>;

	constructor(log: RunEventLog) {
		this.#resumed = new Map(log.sessions.map((start) => [start.session, start.resumed]));
	}

	/** One event, in the log's order. */
	add(event: LoggedEvent): void {
		// A session's time starts at its first event (the runtime's `run_start`): the host's start-up before it is not
		// the run's, and would squeeze every bar to one side.
		const session = this.#sessionOf(event.session, event.time);
		session.start = Math.min(session.start, event.time);
		session.end = Math.max(session.end, event.time);
		switch (event.type) {
			case "agent_queued":
				this.#queued(event, session);
				break;
			case "agent_started":
				this.#started(event, session);
				break;
			case "agent_child":
				this.#child(this.#callOf(event, session), event);
				break;
			case "agent_retry":
				this.#retried(event, session);
				break;
			case "agent_finished":
				this.#finished(event, session);
				break;
			case "agent_failed":
				this.#failed(event, session);
				break;
			case "phase_start":
			case "phase_end":
				this.#phase(event, session);
				break;
			case "log":
				this.#log(event);
				break;
			case "ask_started":
			case "ask_answered":
			case "ask_failed":
				this.#question(event, session);
				break;
			case "provider_wait_started":
			case "provider_wait_ended":
				this.#providerWait(event, session);
				break;
			case "run_end":
				session.status = event.status;
				if (event.error) session.error = `${event.error.code}: ${event.error.message}`;
				break;
			default:
				this.#hostLine(event as unknown as HostLine, session);
				break;
		}
	}

	/** What the log ends before: attempts, phases and bands still open run to their session's end. */
	finish(): Folded {
		const sessions = this.#sessions;
		for (const [call, attempt] of this.#open) {
			const end = sessions.get(call.session)?.end ?? attempt.start;
			call.bars.push({ start: attempt.start, end, outcome: "running" });
		}
		for (const [id, phase] of this.#openPhases) {
			const session = sessions.get(Number(id.split("\u0000")[0]));
			if (session) session.phases.push({ ...phase, end: session.end });
		}
		for (const session of sessions.values()) {
			for (const band of session.bands) band.end = Math.min(Math.max(band.end, band.start), session.end);
			session.phases.sort((a, b) => a.start - b.start);
			session.running = runningOver(session, this.#calls);
		}
		return {
			sessions: [...sessions.values()].sort((a, b) => a.session - b.session),
			calls: this.#calls,
			logs: this.#logs,
		};
	}

	#sessionOf(n: number, time: number): ReportSession {
		let session = this.#sessions.get(n);
		if (!session) {
			session = {
				session: n,
				resumed: this.#resumed.get(n) ?? n > 1,
				// Until its `run_end` says otherwise: a session whose log stops short was cut off.
				status: "interrupted",
				start: time,
				end: time,
				calls: [],
				phases: [],
				bands: [],
				running: [],
			};
			this.#sessions.set(n, session);
		}
		return session;
	}

	#callOf(event: LoggedEvent & WorkflowAgentCallRef, session: ReportSession): ReportCall {
		const id = `${event.session}\u0000${event.key}`;
		let call = this.#byKey.get(id);
		if (!call) {
			call = {
				id: this.#calls.length,
				session: event.session,
				key: event.key,
				index: event.index,
				label: String(event.label),
				agentType: String(event.agentType),
				...(event.phase !== undefined ? { phase: event.phase } : {}),
				...(event.workflow !== undefined ? { workflow: event.workflow } : {}),
				...(continuesOf(event.continues) ?? {}),
				attempts: 0,
				outcome: "running",
				bars: [],
			};
			this.#calls.push(call);
			this.#byKey.set(id, call);
			session.calls.push(call.id);
		}
		return call;
	}

	/** Ends the call's open attempt as a bar that ended with `outcome`. */
	#close(call: ReportCall, time: number, outcome: ReportOutcome, note?: string): void {
		const attempt = this.#open.get(call);
		if (!attempt) return;
		this.#open.delete(call);
		call.bars.push({ start: attempt.start, end: Math.max(attempt.start, time), outcome, ...(note ? { note } : {}) });
	}

	/** Ends the call's open attempt and opens its next one (a retry, a new child, a new session). */
	#nextAttempt(call: ReportCall, time: number, outcome: ReportOutcome, note: string | undefined, next: OpenAttempt) {
		this.#close(call, time, outcome, note);
		call.attempts++;
		this.#open.set(call, next);
	}

	#queued(event: EventOf<"agent_queued">, session: ReportSession): void {
		const call = this.#callOf(event, session);
		call.queuedAt = event.time;
		call.prompt = String(event.promptPreview ?? "").slice(0, PREVIEW_CHARS);
		if (event.model) call.model = event.model;
	}

	#started(event: EventOf<"agent_started">, session: ReportSession): void {
		const call = this.#callOf(event, session);
		call.startedAt = event.time;
		if (call.queuedAt !== undefined && event.time > call.queuedAt) {
			call.bars.push({ start: call.queuedAt, end: event.time, outcome: "queued" });
		}
		call.attempts = 1;
		this.#open.set(call, { start: event.time });
	}

	/** A child report: a new child id within one attempt is the supervisor's next try (after a stall or a restart). */
	#child(call: ReportCall, event: AgentChildEvent & LoggedEvent): void {
		const child = event.child;
		const attempt = this.#open.get(call);
		if (!attempt || !child) return;
		if (attempt.childId !== undefined && attempt.childId !== child.id) {
			const outcome = endedAs(attempt, attempt.error ?? "");
			this.#nextAttempt(
				call,
				event.time,
				outcome,
				attempt.error ?? (outcome === "stalled" ? "stalled" : undefined),
				{
					start: event.time,
					childId: child.id,
					status: child.status,
					...(child.status === "stalled" ? { stalled: true } : {}),
				},
			);
			return;
		}
		attempt.childId = child.id;
		attempt.status = child.status;
		if (child.status === "stalled") attempt.stalled = true;
		if (child.error) attempt.error = child.error;
		if (child.model) call.model = child.model;
	}

	#retried(event: EventOf<"agent_retry">, session: ReportSession): void {
		const call = this.#callOf(event, session);
		const attempt = this.#open.get(call);
		this.#nextAttempt(call, event.time, endedAs(attempt, event.reason), event.reason, { start: event.time });
	}

	#finished(event: EventOf<"agent_finished">, session: ReportSession): void {
		const call = this.#callOf(event, session);
		call.answer = String(event.resultPreview ?? "").slice(0, PREVIEW_CHARS);
		noteEnd(call, event);
		if (event.cached) {
			call.outcome = "replayed";
			call.bars.push({ start: event.time, end: event.time, outcome: "replayed" });
		} else {
			call.outcome = "completed";
			call.attempts = Math.max(call.attempts, event.attempts, 1);
			this.#close(call, event.time, "completed");
		}
	}

	#failed(event: EventOf<"agent_failed">, session: ReportSession): void {
		const call = this.#callOf(event, session);
		call.error = String(event.error);
		if (event.code) call.code = event.code;
		noteEnd(call, event);
		// A call the run's stop ended before it started (its cap, Ctrl-C, a provider limit) is stopped, as the
		// widget and `runs` say; skipped is a person's skip, or a call refused before its child started.
		call.outcome = this.#skipped.has(call)
			? "skipped"
			: isStopped(event.code, call.error)
				? "stopped"
				: event.skipped
					? "skipped"
					: "failed";
		if (this.#open.has(call)) this.#close(call, event.time, lastOutcome(call.outcome, call.error), call.error);
		else if (call.queuedAt !== undefined && event.skipped) {
			call.bars.push({
				start: call.queuedAt,
				end: event.time,
				outcome: call.outcome === "stopped" ? "stopped" : "skipped",
			});
		}
	}

	#phase(event: EventOf<"phase_start" | "phase_end">, session: ReportSession): void {
		const id = `${event.session}\u0000${event.phase}`;
		if (event.type === "phase_start") {
			this.#openPhases.set(id, { name: event.phase, start: event.time });
			return;
		}
		const phase = this.#openPhases.get(id);
		if (phase) session.phases.push({ ...phase, end: event.time });
		this.#openPhases.delete(id);
	}

	#log(event: EventOf<"log">): void {
		this.#logs.push({
			session: event.session,
			time: event.time,
			level: event.level,
			message: String(event.message),
			...(event.phase !== undefined ? { phase: event.phase } : {}),
		});
	}

	/** A question to a person: a band from its asking to its answer (or failure). */
	#question(event: EventOf<"ask_started" | "ask_answered" | "ask_failed">, session: ReportSession): void {
		const id = `${event.session}\u0000q${event.key}`;
		if (event.type === "ask_started") {
			const band: ReportBand = { kind: "question", start: event.time, end: event.time, label: event.question };
			this.#openBands.set(id, band);
			session.bands.push(band);
			return;
		}
		const band = this.#openBands.get(id);
		if (band) band.end = event.time;
		this.#openBands.delete(id);
	}

	/** A wait for the provider (a rate limit, an outage): one band per session, relabelled while it lasts. */
	#providerWait(event: EventOf<"provider_wait_started" | "provider_wait_ended">, session: ReportSession): void {
		const id = `${event.session}\u0000wait`;
		const band = this.#openBands.get(id);
		if (event.type === "provider_wait_ended") {
			if (band) band.end = event.time;
			this.#openBands.delete(id);
			return;
		}
		if (band) band.label = `${event.kind}: ${event.message}`;
		else {
			const fresh: ReportBand = {
				kind: "wait",
				start: event.time,
				end: event.until,
				label: `${event.kind}: ${event.message}`,
			};
			this.#openBands.set(id, fresh);
			session.bands.push(fresh);
		}
	}

	/**
	 * The runner's lines: each session it opens for a call is an attempt (a stall retry, a restart, a fallback model),
	 * a stall or a restart says how the attempt before ended, a skip makes the call skipped, and a person's pause or
	 * message and pi's own retry of a model request become marks in the log.
	 */
	#hostLine(line: HostLine, session: ReportSession): void {
		if (!line.type.startsWith("child_") || typeof line.key !== "string" || typeof line.index !== "number") return;
		const call = this.#callOf(line as unknown as LoggedEvent & WorkflowAgentCallRef, session);
		const attempt = this.#open.get(call);
		const mark = (message: string, level: ReportLog["level"] = "info") =>
			this.#logs.push({
				session: line.session,
				time: line.time,
				level,
				message: `\`${call.label}\` (${callNumber(call.index)}): ${message}`,
				...(call.phase !== undefined ? { phase: call.phase } : {}),
			});
		switch (line.type) {
			case "child_transcript":
				if (isContinued(line.continued)) {
					const { turns, from, savedTokens } = line.continued;
					call.interrupted = { turns, from, savedTokens };
					mark(
						`continued after an interruption at turn ${turns + 1}: from ${from}, ${savedTokens.toLocaleString("en-US")} tokens not paid again`,
					);
				}
				if (!attempt) return;
				// The attempt's first session opens it; a later one is the supervisor's next try.
				if (attempt.session) {
					const outcome = endedAs(attempt, attempt.error ?? "");
					this.#nextAttempt(call, line.time, outcome, attempt.error, { start: line.time, session: true });
				} else attempt.session = true;
				return;
			case "child_stalled":
				if (attempt) attempt.stalled = true;
				return;
			case "child_restarted":
				if (attempt) attempt.restarted = true;
				mark("restarted by a person");
				return;
			case "child_skipped":
				this.#skipped.add(call);
				mark("skipped by a person");
				return;
			case "child_paused":
				mark("paused by a person");
				return;
			case "child_steered":
				mark(`a person's message: ${String(line.message ?? "")}`);
				return;
			case "child_model_retry":
				mark(
					`pi retried a failed model request after ${String(line.delayMs ?? "?")} ms: ${String(line.error ?? "")}`,
					"warn",
				);
				return;
			default:
				return;
		}
	}
}

/** A line the pi runner adds about a call's child (docs/event-log.md, "What the pi runner adds"). */
interface HostLine {
	type: string;
	time: number;
	session: number;
	key?: unknown;
	index?: unknown;
	label?: unknown;
	agentType?: unknown;
	phase?: unknown;
	path?: unknown;
	/** A continued attempt's break (`child_transcript`, issue 47). */
	continued?: unknown;
	message?: unknown;
	silentMs?: unknown;
	queued?: unknown;
	delayMs?: unknown;
	error?: unknown;
}

/** How an attempt that was tried again ended: stalled, restarted by a person, or failed. */
function endedAs(attempt: OpenAttempt | undefined, reason: string): ReportOutcome {
	const text = `${reason} ${attempt?.error ?? ""}`;
	if (attempt?.restarted) return "restarted";
	if (attempt?.stalled || /\bstall/i.test(text)) return "stalled";
	if (/\brestart/i.test(text)) return "restarted";
	return "failed";
}

/** The last attempt's colour for a call that ended with `outcome`. */
function lastOutcome(outcome: ReportOutcome, error: string): ReportOutcome {
	if (outcome === "failed" && /^stalled\b/.test(error)) return "stalled";
	return outcome;
}

function isStopped(code: string | undefined, error: string): boolean {
	const stoppedBy = ["stopped", "run_stopped", "cancelled", "provider_limit", "cost_cap"];
	return (code !== undefined && stoppedBy.includes(code)) || /^stopped\b/i.test(error);
}

/** What a call's end (finished or failed) tells of it besides its outcome. */
function noteEnd(call: ReportCall, event: AgentFinishedEvent | AgentFailedEvent): void {
	call.endedAt = event.time;
	if (event.usage) call.tokens = event.usage.total;
	if (event.cost) call.cost = event.cost;
	if (event.model) call.model = event.model;
	if (event.toolUses !== undefined) call.toolUses = event.toolUses;
	if (event.worktree?.branch) call.branch = event.worktree.branch;
	noteTranscripts(call, event);
}

/** The call's conversation files, as `agent_finished`/`agent_failed` list them (25-record's `transcripts`). */
function noteTranscripts(call: ReportCall, event: object): void {
	const listed = (event as { transcripts?: unknown }).transcripts;
	if (!Array.isArray(listed)) return;
	const paths = listed.filter((path): path is string => typeof path === "string" && path !== "");
	if (paths.length > 0) call.transcripts = paths;
}

/** Children running and calls queued over a session: a step at each bar's start and end. */
function runningOver(session: ReportSession, calls: readonly ReportCall[]): [number, number, number][] {
	const steps: [number, number, number][] = [];
	for (const id of session.calls) {
		for (const bar of calls[id]?.bars ?? []) {
			if (bar.outcome === "replayed" || bar.outcome === "skipped") continue;
			const queued = bar.outcome === "queued" ? 1 : 0;
			steps.push([bar.start, 1 - queued, queued], [bar.end, queued - 1, -queued]);
		}
	}
	steps.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
	const out: [number, number, number][] = [[session.start, 0, 0]];
	let running = 0;
	let queued = 0;
	for (const [time, dRunning, dQueued] of steps) {
		running += dRunning;
		queued += dQueued;
		const last = out.at(-1);
		if (last && last[0] === time) {
			last[1] = running;
			last[2] = queued;
		} else out.push([time, running, queued]);
	}
	return out;
}

/** Costs added, for phase totals. */
export function plus(a: ReportCall["cost"], b: ReportCall["cost"]): NonNullable<ReportCall["cost"]> {
	return addCosts(a, b);
}

/** A logged `continues` (`resume`), when it is well formed: the log is read back from disk. */
function continuesOf(value: unknown): { continues: { index: number; label: string } } | undefined {
	if (value === null || typeof value !== "object") return undefined;
	const { index, label } = value as { index?: unknown; label?: unknown };
	if (typeof index !== "number" || typeof label !== "string") return undefined;
	return { continues: { index, label } };
}

/** A `child_transcript` line's `continued` (issue 47): the attempt went on from an interrupted one's turns. */
function isContinued(value: unknown): value is { turns: number; from: string; savedTokens: number } {
	if (typeof value !== "object" || value === null) return false;
	const { turns, from, savedTokens } = value as Record<string, unknown>;
	return typeof turns === "number" && typeof from === "string" && typeof savedTokens === "number";
}
