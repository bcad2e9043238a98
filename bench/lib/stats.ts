/**
 * Summaries of repeated samples: the median, and the spread as the lowest and highest sample. With the handful of
 * samples a benchmark row can afford, min–max says more than percentiles would.
 */

/** The median and spread of one measurement over repeated samples. */
export interface Summary {
	median: number;
	min: number;
	max: number;
	/** Number of samples. */
	n: number;
	samples: number[];
}

/** Summarizes samples; throws when there are none. */
export function summarize(samples: readonly number[]): Summary {
	if (samples.length === 0) throw new Error("summarize() needs at least one sample");
	const sorted = [...samples].sort((a, b) => a - b);
	const middle = sorted.length >> 1;
	const median = sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	return { median, min: sorted[0], max: sorted[sorted.length - 1], n: sorted.length, samples: [...samples] };
}

/** The median of samples. */
export function median(samples: readonly number[]): number {
	return summarize(samples).median;
}

/** Runs `sample` `count` times in a row and collects what each returns. */
export async function repeat<T>(count: number, sample: (index: number) => Promise<T>): Promise<T[]> {
	const results: T[] = [];
	for (let index = 0; index < count; index++) results.push(await sample(index));
	return results;
}

/** Milliseconds since an arbitrary origin, with sub-millisecond resolution. */
export function now(): number {
	return performance.now();
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}
