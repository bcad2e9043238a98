/**
 * The event log folded into sessions and calls (pure): each call's time in the queue, each attempt's running time
 * (split where the runtime retried or the runner started a new child: a stall retry, a restart), how each ended,
 * phases, waits, questions and log entries.
 */

import { addCosts } from "../progress/cost-text.ts";
import type { AgentChildEvent, AgentFailedEvent, AgentFinishedEvent, WorkflowAgentCallRef } from "../runtime/events.ts";
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
	const sessions = new Map<number, ReportSession>();
	const calls: ReportCall[] = [];
	const logs: ReportLog[] = [];
	const byKey = new Map<string, ReportCall>();
	const open = new Map<ReportCall, OpenAttempt>();
	// Calls a person skipped while they ran: their `agent_failed` is not a failure.
	const skipped = new Set<ReportCall>();
	const openPhases = new Map<string, { name: string; start: number }>();
	const openBands = new Map<string, ReportBand>();
	// A session's time starts at its first event (the runtime's `run_start`): the host's start-up before it is not
	// the run's, and would squeeze every bar to one side.
	const resumed = new Map(log.sessions.map((start) => [start.session, start.resumed]));
	const sessionOf = (n: number, time: number): ReportSession => {
		let session = sessions.get(n);
		if (!session) {
			session = {
				session: n,
				resumed: resumed.get(n) ?? n > 1,
				start: time,
				end: time,
				calls: [],
				phases: [],
				bands: [],
				running: [],
			};
			sessions.set(n, session);
		}
		return session;
	};
	const callOf = (event: LoggedEvent & WorkflowAgentCallRef, session: ReportSession): ReportCall => {
		const id = `${event.session}\u0000${event.key}`;
		let call = byKey.get(id);
		if (!call) {
			call = {
				id: calls.length,
				session: event.session,
				key: event.key,
				index: event.index,
				label: String(event.label),
				agentType: String(event.agentType),
				...(event.phase !== undefined ? { phase: event.phase } : {}),
				...(event.workflow !== undefined ? { workflow: event.workflow } : {}),
				attempts: 0,
				outcome: "running",
				bars: [],
			};
			calls.push(call);
			byKey.set(id, call);
			session.calls.push(call.id);
		}
		return call;
	};
	const close = (call: ReportCall, time: number, outcome: ReportOutcome, note?: string) => {
		const attempt = open.get(call);
		if (!attempt) return;
		open.delete(call);
		call.bars.push({ start: attempt.start, end: Math.max(attempt.start, time), outcome, ...(note ? { note } : {}) });
	};
	for (const event of log.events) {
		const session = sessionOf(event.session, event.time);
		session.start = Math.min(session.start, event.time);
		session.end = Math.max(session.end, event.time);
		switch (event.type) {
			case "agent_queued": {
				const call = callOf(event, session);
				call.queuedAt = event.time;
				call.prompt = String(event.promptPreview ?? "").slice(0, PREVIEW_CHARS);
				if (event.model) call.model = event.model;
				break;
			}
			case "agent_started": {
				const call = callOf(event, session);
				call.startedAt = event.time;
				if (call.queuedAt !== undefined && event.time > call.queuedAt) {
					call.bars.push({ start: call.queuedAt, end: event.time, outcome: "queued" });
				}
				call.attempts = 1;
				open.set(call, { start: event.time });
				break;
			}
			case "agent_child": {
				const call = callOf(event, session);
				noteChild(call, event, open, close);
				break;
			}
			case "agent_retry": {
				const call = callOf(event, session);
				const attempt = open.get(call);
				close(call, event.time, endedAs(attempt, event.reason), event.reason);
				call.attempts++;
				open.set(call, { start: event.time });
				break;
			}
			case "agent_finished": {
				const call = callOf(event, session);
				call.answer = String(event.resultPreview ?? "").slice(0, PREVIEW_CHARS);
				noteEnd(call, event);
				if (event.cached) {
					call.outcome = "replayed";
					call.bars.push({ start: event.time, end: event.time, outcome: "replayed" });
				} else {
					call.outcome = "completed";
					call.attempts = Math.max(call.attempts, event.attempts, 1);
					close(call, event.time, "completed");
				}
				break;
			}
			case "agent_failed": {
				const call = callOf(event, session);
				call.error = String(event.error);
				if (event.code) call.code = event.code;
				noteEnd(call, event);
				call.outcome =
					event.skipped || skipped.has(call)
						? "skipped"
						: isStopped(event.code, call.error)
							? "stopped"
							: "failed";
				if (open.has(call)) close(call, event.time, lastOutcome(call.outcome, call.error), call.error);
				else if (call.queuedAt !== undefined && call.outcome === "skipped") {
					call.bars.push({ start: call.queuedAt, end: event.time, outcome: "skipped" });
				}
				break;
			}
			case "phase_start":
				openPhases.set(`${event.session}\u0000${event.phase}`, { name: event.phase, start: event.time });
				break;
			case "phase_end": {
				const id = `${event.session}\u0000${event.phase}`;
				const phase = openPhases.get(id);
				if (phase) session.phases.push({ ...phase, end: event.time });
				openPhases.delete(id);
				break;
			}
			case "log":
				logs.push({
					session: event.session,
					time: event.time,
					level: event.level,
					message: String(event.message),
					...(event.phase !== undefined ? { phase: event.phase } : {}),
				});
				break;
			case "ask_started": {
				const band: ReportBand = { kind: "question", start: event.time, end: event.time, label: event.question };
				openBands.set(`${event.session}\u0000q${event.key}`, band);
				session.bands.push(band);
				break;
			}
			case "ask_answered":
			case "ask_failed": {
				const band = openBands.get(`${event.session}\u0000q${event.key}`);
				if (band) band.end = event.time;
				openBands.delete(`${event.session}\u0000q${event.key}`);
				break;
			}
			case "provider_wait_started": {
				const id = `${event.session}\u0000wait`;
				const band = openBands.get(id);
				if (band) band.label = `${event.kind}: ${event.message}`;
				else {
					const fresh: ReportBand = {
						kind: "wait",
						start: event.time,
						end: event.until,
						label: `${event.kind}: ${event.message}`,
					};
					openBands.set(id, fresh);
					session.bands.push(fresh);
				}
				break;
			}
			case "provider_wait_ended": {
				const id = `${event.session}\u0000wait`;
				const band = openBands.get(id);
				if (band) band.end = event.time;
				openBands.delete(id);
				break;
			}
			default:
				noteHostLine(event as unknown as HostLine, session, callOf, open, close, logs, skipped);
				break;
		}
	}
	// What the log ends before: attempts, phases and bands still open run to their session's end.
	for (const [call, attempt] of open) {
		const end = sessions.get(call.session)?.end ?? attempt.start;
		call.bars.push({ start: attempt.start, end, outcome: "running" });
	}
	for (const [id, phase] of openPhases) {
		const session = sessions.get(Number(id.split("\u0000")[0]));
		if (session) session.phases.push({ ...phase, end: session.end });
	}
	for (const session of sessions.values()) {
		for (const band of session.bands) band.end = Math.min(Math.max(band.end, band.start), session.end);
		session.phases.sort((a, b) => a.start - b.start);
		session.running = runningOver(session, calls);
	}
	return { sessions: [...sessions.values()].sort((a, b) => a.session - b.session), calls, logs };
}

/** A child report: a new child id within one attempt is the supervisor's next try (after a stall or a restart). */
function noteChild(
	call: ReportCall,
	event: AgentChildEvent & LoggedEvent,
	open: Map<ReportCall, OpenAttempt>,
	close: (call: ReportCall, time: number, outcome: ReportOutcome, note?: string) => void,
): void {
	const child = event.child;
	const attempt = open.get(call);
	if (!attempt || !child) return;
	if (attempt.childId !== undefined && attempt.childId !== child.id) {
		const outcome = endedAs(attempt, attempt.error ?? "");
		close(call, event.time, outcome, attempt.error ?? (outcome === "stalled" ? "stalled" : undefined));
		call.attempts++;
		open.set(call, {
			start: event.time,
			childId: child.id,
			status: child.status,
			...(child.status === "stalled" ? { stalled: true } : {}),
		});
		return;
	}
	attempt.childId = child.id;
	attempt.status = child.status;
	if (child.status === "stalled") attempt.stalled = true;
	if (child.error) attempt.error = child.error;
	if (child.model) call.model = child.model;
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
	message?: unknown;
	silentMs?: unknown;
	queued?: unknown;
	delayMs?: unknown;
	error?: unknown;
}

/**
 * The runner's lines: each session it opens for a call is an attempt (a stall retry, a restart, a fallback model),
 * a stall or a restart says how the attempt before ended, a skip makes the call skipped, and a person's pause or
 * message and pi's own retry of a model request become marks in the log.
 */
function noteHostLine(
	line: HostLine,
	session: ReportSession,
	callOf: (event: LoggedEvent & WorkflowAgentCallRef, session: ReportSession) => ReportCall,
	open: Map<ReportCall, OpenAttempt>,
	close: (call: ReportCall, time: number, outcome: ReportOutcome, note?: string) => void,
	logs: ReportLog[],
	skipped: Set<ReportCall>,
): void {
	if (!line.type.startsWith("child_") || typeof line.key !== "string" || typeof line.index !== "number") return;
	const call = callOf(line as unknown as LoggedEvent & WorkflowAgentCallRef, session);
	const attempt = open.get(call);
	const mark = (message: string, level: ReportLog["level"] = "info") =>
		logs.push({
			session: line.session,
			time: line.time,
			level,
			message: `\`${call.label}\` (#${call.index}): ${message}`,
			...(call.phase !== undefined ? { phase: call.phase } : {}),
		});
	switch (line.type) {
		case "child_transcript":
			if (!attempt) return;
			// The attempt's first session opens it; a later one is the supervisor's next try.
			if (attempt.session) {
				close(call, line.time, endedAs(attempt, attempt.error ?? ""), attempt.error);
				call.attempts++;
				open.set(call, { start: line.time, session: true });
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
			skipped.add(call);
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
	return code === "stopped" || code === "run_stopped" || /^stopped\b/i.test(error);
}

/** The call's conversation files, as `agent_finished`/`agent_failed` list them (25-record's `transcripts`). */
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
