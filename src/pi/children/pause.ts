/**
 * Pausing one child session: a request stops its current turn and keeps the session; the child then waits until
 * a message resumes it (as the next user turn), or until its signal ends the wait.
 */

/** One session's pause state. */
export class PauseGate {
	#requested = false;
	#resume: ((text: string | undefined) => void) | undefined;
	#early: string | undefined;

	/** True between a pause request and the message that resumes the child. */
	get paused(): boolean {
		return this.#requested;
	}

	/** Asks for a pause; false when one is already asked for. */
	request(): boolean {
		if (this.#requested) return false;
		this.#requested = true;
		return true;
	}

	/**
	 * Gives a message to a paused child (or one whose turn is being stopped: the message waits for `wait`); false
	 * when it is not paused, and the caller steers it instead.
	 */
	resume(text: string): boolean {
		if (!this.#requested || this.#early !== undefined) return false;
		if (this.#resume) this.#resume(text);
		else this.#early = text;
		return true;
	}

	/** Once the turn stopped: the message that resumes the child, or undefined when `signal` aborts first. */
	wait(signal: AbortSignal): Promise<string | undefined> {
		const settle = (text: string | undefined) => {
			this.#requested = false;
			this.#early = undefined;
			return text;
		};
		if (this.#early !== undefined) return Promise.resolve(settle(this.#early));
		if (signal.aborted) return Promise.resolve(settle(undefined));
		return new Promise((resolve) => {
			const done = (text: string | undefined) => {
				this.#resume = undefined;
				signal.removeEventListener("abort", onAbort);
				resolve(settle(text));
			};
			const onAbort = () => done(undefined);
			this.#resume = done;
			signal.addEventListener("abort", onAbort, { once: true });
		});
	}
}
