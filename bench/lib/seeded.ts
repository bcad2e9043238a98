/**
 * Deterministic pseudo-random numbers (mulberry32), so every run of the benchmark gives agents the same durations.
 */

/** A generator of numbers in [0, 1) from a 32-bit seed. */
export function seededRandom(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** An integer from `min` to `max` inclusive. */
export function randomInt(random: () => number, min: number, max: number): number {
	return min + Math.floor(random() * (max - min + 1));
}
