/**
 * Many waiters on one abort signal through a single listener. Adding and removing an EventTarget listener costs
 * about 10 µs each on a slow machine, and every `agent()` call used to do it three times on its run's signal
 * (waiting in the queue, running in the queue, racing the runner); with this, a run adds one listener in all.
 */

const waiters = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `onAbort` once when `signal` aborts; returns the function that stops watching (call it when the wait is
 * over). Contract: `signal` is not aborted yet (check `signal.aborted` first).
 */
export function watchAbort(signal: AbortSignal, onAbort: () => void): () => void {
	let callbacks = waiters.get(signal);
	if (!callbacks) {
		const all = new Set<() => void>();
		callbacks = all;
		waiters.set(signal, all);
		signal.addEventListener(
			"abort",
			() => {
				for (const callback of [...all]) {
					try {
						callback();
					} catch {
						// One waiter's failure must not keep the others waiting.
					}
				}
				all.clear();
			},
			{ once: true },
		);
	}
	// A fresh function per waiter, so one callback can wait twice.
	const entry = () => onAbort();
	const set = callbacks;
	set.add(entry);
	return () => {
		set.delete(entry);
	};
}

/** `promise`, or the signal's reason once it aborts first (or aborted by the time `promise` settled). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
	if (signal.aborted) return Promise.reject(signal.reason);
	return new Promise<T>((resolve, reject) => {
		const unwatch = watchAbort(signal, () => reject(signal.reason));
		promise.then(
			(value) => {
				unwatch();
				if (signal.aborted) reject(signal.reason);
				else resolve(value);
			},
			(error) => {
				unwatch();
				reject(error);
			},
		);
	});
}
