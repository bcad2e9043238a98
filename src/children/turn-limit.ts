/**
 * Graceful `max_turns`: when a child reaches its limit and still wants to go on, it is told to wrap up; if it
 * keeps going for `graceTurns` more turns, it is stopped.
 */

/** The steering message a child gets at its turn limit. */
export const WRAP_UP_MESSAGE = "Wrap up immediately — provide your final answer now.";

/** Default: turns a child may take after the wrap-up message before it is stopped. */
export const DEFAULT_GRACE_TURNS = 5;

/** Options of `createTurnLimit`. */
export interface TurnLimitOptions {
	/** Turns before the wrap-up message. */
	maxTurns: number;
	/** Extra turns allowed after it. Default: 5. */
	graceTurns?: number;
	/** Queues the wrap-up message for the child's next model request. */
	steer: () => void;
	/** Stops the child. */
	abort: () => void;
}

/** Where a child stands against its limit. */
export type TurnLimitState = "within" | "steered" | "exceeded";

/** Counts turns; call `onTurnEnd` once per finished turn. */
export interface TurnLimit {
	/** `continues`: the turn ended in tool calls, so another turn follows unless the child is stopped. */
	onTurnEnd(continues: boolean): void;
	readonly state: TurnLimitState;
	readonly turns: number;
}

export function createTurnLimit(options: TurnLimitOptions): TurnLimit {
	const graceTurns = options.graceTurns ?? DEFAULT_GRACE_TURNS;
	let turns = 0;
	let state: TurnLimitState = "within";
	return {
		onTurnEnd(continues) {
			turns++;
			// A turn that ends with an answer ends the run anyway; steering it would start a needless extra turn.
			if (!continues || state === "exceeded") return;
			if (turns >= options.maxTurns + graceTurns) {
				state = "exceeded";
				options.abort();
			} else if (turns >= options.maxTurns && state === "within") {
				state = "steered";
				options.steer();
			}
		},
		get state() {
			return state;
		},
		get turns() {
			return turns;
		},
	};
}
