/**
 * Live state of one child for the progress widget: folds pi session events into a `WorkflowAgentChild` (status,
 * activity phrase, tool uses, turns, tokens) and reports it. Owns one timer that moves a silent child to `quiet`,
 * then `stalled`, then (the stall watchdog, when `stallMs` is set) calls `onStall` once; `finish()` and
 * `dispose()` clear it.
 */
import type { AgentSessionEvent } from "@earendil-works/pi-coding-agent";
import { addCost } from "../../runtime/spend/cost.ts";
import type { WorkflowAgentChild, WorkflowChildState, WorkflowCost } from "../../runtime/types.ts";

/** Default: a child silent this long is `quiet`. */
export const DEFAULT_QUIET_AFTER_MS = 15_000;
/** Default: a child silent this long is `stalled`. */
export const DEFAULT_STALLED_AFTER_MS = 60_000;

/** Options of `createChildActivity`. */
export interface ChildActivityOptions {
	/** The child as first reported (id, type, description, call key…); status and counters are filled in here. */
	child: Omit<WorkflowAgentChild, "status">;
	report: (child: WorkflowAgentChild) => void;
	/** Silence before `quiet`. Default: 15 s. */
	quietAfterMs?: number;
	/** Silence before `stalled`. Default: 60 s (at least `quietAfterMs` + 1, at most `stallMs`). */
	stalledAfterMs?: number;
	/** Silence after which `onStall` is called, once: the stall watchdog. Default: none (0 is none too). */
	stallMs?: number;
	/** The watchdog fired: the child made no progress for `silentMs`. The caller decides what to do with it. */
	onStall?: (silentMs: number) => void;
	/** What one reply cost, so reports carry the child's cost as it grows. Default: no cost in reports. */
	price?: (message: unknown) => WorkflowCost | undefined;
}

/** One child's live state. */
export interface ChildActivity {
	/** The session exists and the prompt is about to go out. */
	start(model?: string): void;
	/** Feeds one session event. */
	observe(event: AgentSessionEvent): void;
	/** The child is being stopped: stop the timer and ignore its last events, so it does not flash `active`. */
	stopping(): void;
	/** Its turn was stopped on request and it waits for a message: `paused`, no silence timer (nor watchdog). */
	pause(): void;
	/** A message resumed it: `active` again, timer restarted, its last events (the stopped turn's) seen as before. */
	resume(): void;
	/** `model` met a provider limit before any tool work and the child moves to the next model (`start` follows). */
	fallback(model: string): void;
	/** Terminal state; stops the timer. Later calls are ignored. */
	finish(status: "finished" | "failed" | "stopped", error?: string): void;
	/** Stops the timer without reporting. */
	dispose(): void;
	readonly toolUses: number;
	readonly turns: number;
	readonly tokens: number;
}

const TERMINAL: ReadonlySet<WorkflowChildState> = new Set(["finished", "failed", "stopped"]);

/** Reports `queued` at once; the rest follows from `start`, `observe` and `finish`. */
export function createChildActivity(options: ChildActivityOptions): ChildActivity {
	const stallMs = options.stallMs && options.stallMs > 0 ? options.stallMs : undefined;
	// A watchdog sooner than the display thresholds pulls them in, so a child is shown stalled before it is stopped.
	const stalledAfterMs = Math.min(
		Math.max(
			options.stalledAfterMs ?? DEFAULT_STALLED_AFTER_MS,
			(options.quietAfterMs ?? DEFAULT_QUIET_AFTER_MS) + 1,
		),
		stallMs ?? Number.POSITIVE_INFINITY,
	);
	const quiet = options.quietAfterMs ?? DEFAULT_QUIET_AFTER_MS;
	const quietAfterMs = quiet < stalledAfterMs ? quiet : Math.floor(stalledAfterMs / 2);
	const state: WorkflowAgentChild = { ...options.child, status: "queued", toolUses: 0, turns: 0, tokens: 0 };
	let timer: ReturnType<typeof setTimeout> | undefined;
	let frozen = false;
	let paused = false;
	/** The watchdog fired; it fires once per pause-free stretch. */
	let stallReported = false;
	/** pi sleeps before its own retry of a failed request until then: that silence is not the child's. */
	let holdUntil = 0;
	const quietSince = () => Math.max(state.lastActivityAt ?? Date.now(), holdUntil);

	const report = () => options.report({ ...state });
	const clearTimer = () => {
		if (timer !== undefined) clearTimeout(timer);
		timer = undefined;
	};
	/** One timer, aimed at the next silence threshold; activity only moves `lastActivityAt`, not the timer. */
	const schedule = () => {
		clearTimer();
		if (TERMINAL.has(state.status) || stallReported) return;
		if (state.status === "stalled" && stallMs === undefined) return;
		const threshold =
			state.status === "stalled" ? (stallMs as number) : state.status === "quiet" ? stalledAfterMs : quietAfterMs;
		const due = quietSince() + threshold;
		timer = setTimeout(onSilence, Math.max(0, due - Date.now()));
	};
	const onSilence = () => {
		timer = undefined;
		const silentFor = Date.now() - quietSince();
		const next: WorkflowChildState | undefined =
			silentFor >= stalledAfterMs ? "stalled" : silentFor >= quietAfterMs ? "quiet" : undefined;
		if (next && next !== state.status) {
			state.status = next;
			report();
		}
		if (stallMs !== undefined && silentFor >= stallMs && !frozen) {
			stallReported = true;
			options.onStall?.(silentFor);
			return;
		}
		schedule();
	};
	const touch = (activity: string | undefined) => {
		state.lastActivityAt = Date.now();
		let changed = false;
		if (state.status !== "active") {
			state.status = "active";
			changed = true;
			schedule();
		}
		if (activity !== undefined && activity !== state.activity) {
			state.activity = activity;
			changed = true;
		}
		return changed;
	};

	report();
	return {
		start(model) {
			if (TERMINAL.has(state.status)) return;
			state.status = "starting";
			state.startedAt = Date.now();
			state.lastActivityAt = state.startedAt;
			state.activity = "starting";
			if (model) state.model = model;
			report();
			schedule();
		},
		observe(event) {
			if (frozen || paused || TERMINAL.has(state.status)) return;
			if (event.type === "auto_retry_start") {
				// pi waits, then asks the provider again in the same session; the stall clock starts after its wait.
				holdUntil = Date.now() + event.delayMs;
				const phrase = `provider error, pi retries in ${Math.ceil(event.delayMs / 1000)} s (${event.attempt} of ${event.maxAttempts})`;
				touch(phrase);
				schedule();
				report();
				return;
			}
			if (applyEvent(state, event, touch, options.price)) report();
		},
		stopping() {
			frozen = true;
			clearTimer();
		},
		pause() {
			if (TERMINAL.has(state.status)) return;
			clearTimer();
			paused = true;
			state.status = "paused";
			state.activity = "waiting for a message";
			report();
		},
		resume() {
			if (!paused) return;
			paused = false;
			stallReported = false;
			touch("waiting for the model");
			report();
		},
		fallback(model) {
			if (TERMINAL.has(state.status)) return;
			state.fallbackFrom = [...(state.fallbackFrom ?? []), model];
			state.activity = `${model} met a provider limit; trying the next model`;
			report();
		},
		finish(status, error) {
			if (TERMINAL.has(state.status)) return;
			clearTimer();
			state.status = status;
			state.endedAt = Date.now();
			delete state.activity;
			if (error) state.error = error;
			report();
		},
		dispose: clearTimer,
		get toolUses() {
			return state.toolUses ?? 0;
		},
		get turns() {
			return state.turns ?? 0;
		},
		get tokens() {
			return state.tokens ?? 0;
		},
	};
}

/** Updates `state` from one event; true when something a viewer sees changed. */
function applyEvent(
	state: WorkflowAgentChild,
	event: AgentSessionEvent,
	touch: (activity: string | undefined) => boolean,
	price: ((message: unknown) => WorkflowCost | undefined) | undefined,
): boolean {
	switch (event.type) {
		case "turn_start":
			return touch("waiting for the model");
		case "message_update": {
			const kind = event.assistantMessageEvent.type;
			if (kind === "thinking_start" || kind === "thinking_delta") return touch("thinking");
			if (kind === "text_start" || kind === "text_delta") return touch("writing");
			if (kind === "toolcall_start" || kind === "toolcall_delta") return touch("preparing a tool call");
			return touch(undefined);
		}
		case "message_end": {
			const changed = touch(undefined);
			const message = event.message;
			if (message.role !== "assistant") return changed;
			state.tokens = (state.tokens ?? 0) + (message.usage?.totalTokens ?? 0);
			const cost = addCost(state.cost, price?.(message));
			if (cost) state.cost = cost;
			return true;
		}
		case "tool_execution_start":
			touch(describeToolCall(event.toolName, event.args));
			state.toolUses = (state.toolUses ?? 0) + 1;
			return true;
		case "tool_execution_update":
			return touch(undefined);
		case "tool_execution_end":
			return touch("waiting for the model");
		case "turn_end":
			touch(undefined);
			state.turns = (state.turns ?? 0) + 1;
			return true;
		default:
			return false;
	}
}

/** "running npm test", "reading src/a.ts"…: a short phrase for the widget, cut to one line. */
export function describeToolCall(toolName: string, args: unknown): string {
	const input = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
	const text = (key: string) => (typeof input[key] === "string" ? (input[key] as string) : "");
	const phrase = (() => {
		switch (toolName) {
			case "bash":
				return `running ${text("command")}`;
			case "read":
				return `reading ${text("path")}`;
			case "edit":
				return `editing ${text("path")}`;
			case "write":
				return `writing ${text("path")}`;
			case "grep":
				return `searching for ${text("pattern")}`;
			case "find":
				return `finding ${text("pattern")}`;
			case "ls":
				return `listing ${text("path") || "."}`;
			case "submit_result":
				return "submitting the result";
			default:
				return `running ${toolName}`;
		}
	})();
	const line = phrase.replace(/\s+/g, " ").trim();
	return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
