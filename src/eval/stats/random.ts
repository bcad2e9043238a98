/**
 * The statistics' one random source: pure-rand's xoroshiro128+, seeded, so a seed gives the same resamples and
 * sign flips on every machine (Math.random cannot be seeded).
 */
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";

/** A seeded source of random integers. */
export interface RandomSource {
	/** A uniform integer in [0, size). */
	below(size: number): number;
	/** 32 independent random bits. */
	bits(): number;
}

/** A random source seeded with `seed` (an integer). */
export function seededRandom(seed: number): RandomSource {
	const generator = xoroshiro128plus(seed);
	return {
		// Multiply-shift rather than pure-rand's uniformInt (its rejection loop was most of a resample's time): the
		// bias is under size / 2^32, nothing next to a bootstrap's own noise.
		below: (size) => Math.floor(((generator.next() >>> 0) * size) / 0x1_0000_0000),
		bits: () => generator.next(),
	};
}
