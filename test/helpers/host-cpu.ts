/**
 * How long host code held the event loop, measured as the host thread's own CPU time between two ticks of a 10 ms
 * timer: a loaded machine delays the timer (by hundreds of milliseconds on a busy two-core box) without adding to
 * the host's CPU time, so a bound on this number holds under load and still catches host code that runs too long.
 * Only the host thread's time counts, not the sandbox's worker threads.
 */

/** The host thread's CPU time in ms (user + system). */
function hostCpuMs(): number {
	const usage = process.threadCpuUsage();
	return (usage.user + usage.system) / 1000;
}

export interface HostBlockingWatch {
	enable(): void;
	disable(): void;
	/** The largest CPU time (ms) the host thread spent between two ticks since `enable` or the last `reset`. */
	readonly max: number;
	reset(): void;
}

export function watchHostBlocking(): HostBlockingWatch {
	let last = hostCpuMs();
	let max = 0;
	const tick = () => {
		const now = hostCpuMs();
		max = Math.max(max, now - last);
		last = now;
	};
	let timer: NodeJS.Timeout | undefined;
	return {
		enable() {
			last = hostCpuMs();
			timer = setInterval(tick, 10);
			timer.unref();
		},
		disable() {
			tick();
			clearInterval(timer);
		},
		get max() {
			return max;
		},
		reset() {
			tick();
			max = 0;
		},
	};
}
