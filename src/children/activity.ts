/**
 * Live state of one child for the progress widget: folds pi session events into a `WorkflowAgentChild` (status,
 * activity phrase, tool uses, turns, tokens) and reports it. Owns one timer that moves a silent child to `quiet`,
 * then `stalled`, then (the stall watchdog, when `stallMs` is set) calls `onStall` once; `finish()` and
 * `dispose()` clear it.
 */
import type { AgentSessionEvent } from "@earendil-works/pi-coding-agent";
import { addCost } from "../runtime/core/cost.ts";
import type { WorkflowAgentChild, WorkflowChildState, WorkflowCost } from "../runtime/core/types.ts";

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
	return new LiveChild(options);
}

/** When a silent child is shown `quiet` and `stalled`, and when the stall watchdog fires (undefined: never). */
export interface SilenceThresholds {
	quietAfterMs: number;
	stalledAfterMs: number;
	stallMs: number | undefined;
}

/**
 * The thresholds from the options and their defaults: `stalled` comes after `quiet`, and a watchdog sooner than the
 * display thresholds pulls them in, so a child is shown stalled before it is stopped.
 */
export function silenceThresholds(
	options: Pick<ChildActivityOptions, "quietAfterMs" | "stalledAfterMs" | "stallMs">,
): SilenceThresholds {
	const stallMs = options.stallMs && options.stallMs > 0 ? options.stallMs : undefined;
	const quiet = options.quietAfterMs ?? DEFAULT_QUIET_AFTER_MS;
	const stalledAfterMs = Math.min(
		Math.max(options.stalledAfterMs ?? DEFAULT_STALLED_AFTER_MS, quiet + 1),
		stallMs ?? Number.POSITIVE_INFINITY,
	);
	const quietAfterMs = quiet < stalledAfterMs ? quiet : Math.floor(stalledAfterMs / 2);
	return { quietAfterMs, stalledAfterMs, stallMs };
}

class LiveChild implements ChildActivity {
	readonly #options: ChildActivityOptions;
	readonly #thresholds: SilenceThresholds;
	readonly #state: WorkflowAgentChild;
	/** One timer, aimed at the next silence threshold; activity only moves `lastActivityAt`, not the timer. */
	#timer: ReturnType<typeof setTimeout> | undefined;
	#frozen = false;
	#paused = false;
	/** The watchdog fired; it fires once per pause-free stretch. */
	#stallReported = false;
	/** pi sleeps before its own retry of a failed request until then: that silence is not the child's. */
	#holdUntil = 0;

	constructor(options: ChildActivityOptions) {
		this.#options = options;
		this.#thresholds = silenceThresholds(options);
		this.#state = { ...options.child, status: "queued", toolUses: 0, turns: 0, tokens: 0 };
		this.#report();
	}

	start(model?: string): void {
		const state = this.#state;
		if (TERMINAL.has(state.status)) return;
		state.status = "starting";
		state.startedAt = Date.now();
		state.lastActivityAt = state.startedAt;
		state.activity = "starting";
		if (model) state.model = model;
		this.#report();
		this.#schedule();
	}

	observe(event: AgentSessionEvent): void {
		if (this.#frozen || this.#paused || TERMINAL.has(this.#state.status)) return;
		if (event.type === "auto_retry_start") {
			// pi waits, then asks the provider again in the same session; the stall clock starts after its wait.
			this.#holdUntil = Date.now() + event.delayMs;
			const phrase = `provider error, pi retries in ${Math.ceil(event.delayMs / 1000)} s (${event.attempt} of ${event.maxAttempts})`;
			this.#touch(phrase);
			this.#schedule();
			this.#report();
			return;
		}
		if (applyEvent(this.#state, event, (activity) => this.#touch(activity), this.#options.price)) this.#report();
	}

	stopping(): void {
		this.#frozen = true;
		this.#clearTimer();
	}

	pause(): void {
		if (TERMINAL.has(this.#state.status)) return;
		this.#clearTimer();
		this.#paused = true;
		this.#state.status = "paused";
		this.#state.activity = "waiting for a message";
		this.#report();
	}

	resume(): void {
		if (!this.#paused) return;
		this.#paused = false;
		this.#stallReported = false;
		this.#touch("waiting for the model");
		this.#report();
	}

	fallback(model: string): void {
		const state = this.#state;
		if (TERMINAL.has(state.status)) return;
		state.fallbackFrom = [...(state.fallbackFrom ?? []), model];
		state.activity = `${model} met a provider limit; trying the next model`;
		this.#report();
	}

	finish(status: "finished" | "failed" | "stopped", error?: string): void {
		const state = this.#state;
		if (TERMINAL.has(state.status)) return;
		this.#clearTimer();
		state.status = status;
		state.endedAt = Date.now();
		delete state.activity;
		if (error) state.error = error;
		this.#report();
	}

	dispose(): void {
		this.#clearTimer();
	}

	get toolUses(): number {
		return this.#state.toolUses ?? 0;
	}

	get turns(): number {
		return this.#state.turns ?? 0;
	}

	get tokens(): number {
		return this.#state.tokens ?? 0;
	}

	#report(): void {
		this.#options.report({ ...this.#state });
	}

	/** Marks the child active now, with `activity` when given; true when a viewer sees a change. */
	#touch(activity: string | undefined): boolean {
		const state = this.#state;
		state.lastActivityAt = Date.now();
		let changed = false;
		if (state.status !== "active") {
			state.status = "active";
			changed = true;
			this.#schedule();
		}
		if (activity !== undefined && activity !== state.activity) {
			state.activity = activity;
			changed = true;
		}
		return changed;
	}

	#quietSince(): number {
		return Math.max(this.#state.lastActivityAt ?? Date.now(), this.#holdUntil);
	}

	#clearTimer(): void {
		if (this.#timer !== undefined) clearTimeout(this.#timer);
		this.#timer = undefined;
	}

	#schedule(): void {
		this.#clearTimer();
		const { status } = this.#state;
		const { quietAfterMs, stalledAfterMs, stallMs } = this.#thresholds;
		if (TERMINAL.has(status) || this.#stallReported) return;
		if (status === "stalled" && stallMs === undefined) return;
		const threshold = status === "stalled" ? (stallMs as number) : status === "quiet" ? stalledAfterMs : quietAfterMs;
		const due = this.#quietSince() + threshold;
		this.#timer = setTimeout(() => this.#onSilence(), Math.max(0, due - Date.now()));
	}

	/** The timer fired: show how long the child has been silent, and fire the watchdog once it is past its bound. */
	#onSilence(): void {
		this.#timer = undefined;
		const { quietAfterMs, stalledAfterMs, stallMs } = this.#thresholds;
		const silentFor = Date.now() - this.#quietSince();
		const next: WorkflowChildState | undefined =
			silentFor >= stalledAfterMs ? "stalled" : silentFor >= quietAfterMs ? "quiet" : undefined;
		if (next && next !== this.#state.status) {
			this.#state.status = next;
			this.#report();
		}
		if (stallMs !== undefined && silentFor >= stallMs && !this.#frozen) {
			this.#stallReported = true;
			this.#options.onStall?.(silentFor);
			return;
		}
		this.#schedule();
	}
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
