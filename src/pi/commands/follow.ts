/**
 * A `/workflows` dialog that stays true while a run moves on: pi's selectors and confirms are drawn once, so a
 * menu left open would go on listing children that have finished and offer to stop a run that has ended. The
 * dialog is closed (through its abort signal) when its run ends, and shown again when what it lists has changed.
 */

/** How a followed dialog ended. */
export type Followed<T> = { kind: "answer"; answer: T } | { kind: "ended" };

/** What to watch while a dialog is open. */
export interface FollowOptions {
	/** Resolves when the run the dialog is about has ended: the dialog closes. Default: none. */
	ended?: Promise<void>;
	/** What the dialog shows, in a form that changes only when it should be drawn again. Default: none. */
	signature?: () => string;
	/** How often `signature` is read, in ms. Default: 500. */
	everyMs?: number;
}

/**
 * Shows `show(signal)` until it is answered: again, with what it shows now, each time `signature` changes; not at
 * all once `ended` has resolved. Contract: `show` must resolve soon after its signal aborts (pi's dialogs do,
 * with undefined or false); an answer that arrives as the run ends still counts as the answer.
 */
export async function follow<T>(
	show: (signal: AbortSignal) => Promise<T>,
	options: FollowOptions,
): Promise<Followed<T>> {
	let ended = false;
	let close = () => {};
	options.ended?.then(
		() => {
			ended = true;
			close();
		},
		() => undefined,
	);
	// A promise that has already resolved runs its callbacks only after this turn: let it.
	await Promise.resolve();
	for (;;) {
		if (ended) return { kind: "ended" };
		const controller = new AbortController();
		let changed = false;
		close = () => controller.abort();
		const before = options.signature?.();
		const timer = options.signature
			? setInterval(() => {
					if (options.signature?.() === before) return;
					changed = true;
					controller.abort();
				}, options.everyMs ?? 500)
			: undefined;
		let answer: T;
		try {
			answer = await show(controller.signal);
		} finally {
			clearInterval(timer);
			close = () => {};
		}
		if (!controller.signal.aborted) return { kind: "answer", answer };
		if (ended) return { kind: "ended" };
		if (!changed) return { kind: "answer", answer };
	}
}
