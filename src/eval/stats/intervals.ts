/**
 * One arm's intervals, with cases (or clusters) as the independent units: trials of one case share its difficulty,
 * so counting them as independent would make intervals too narrow.
 */
import { normalQuantile, tQuantile } from "./distributions.ts";
import type { Interval } from "./types.ts";

/** One cluster's total (`sum`) over its `size` units (trials, scored trials or cases). */
export interface ClusterTotal {
	sum: number;
	size: number;
}

/** The ratio Σsum/Σsize and its variance when clusters are sampled, not units (the ratio estimator's). */
export interface ClusterRatio {
	estimate: number;
	variance: number;
	clusters: number;
}

/** The ratio over the clusters and its cluster-robust variance (0 for fewer than two clusters). */
export function clusterRatio(totals: readonly ClusterTotal[]): ClusterRatio {
	let sum = 0;
	let size = 0;
	for (const total of totals) {
		sum += total.sum;
		size += total.size;
	}
	const estimate = size === 0 ? 0 : sum / size;
	const clusters = totals.length;
	if (clusters < 2 || size === 0) return { estimate, variance: 0, clusters };
	let squares = 0;
	for (const total of totals) squares += (total.sum - estimate * total.size) ** 2;
	return { estimate, variance: (clusters / (clusters - 1)) * (squares / size ** 2), clusters };
}

/** The two-sided critical value at `confidence` for an estimate from `clusters` clusters (t with clusters − 1). */
export function critical(confidence: number, clusters: number): number {
	const upper = 1 - (1 - confidence) / 2;
	return clusters >= 2 ? tQuantile(upper, clusters - 1) : normalQuantile(upper);
}

/**
 * A pass rate's Wilson interval, with the sample size the clustering leaves: the trials divided by the design
 * effect, between the number of clusters and of trials. At 0 % or 100 % (no spread to measure it) the clusters
 * count.
 */
export function passRateInterval(totals: readonly ClusterTotal[], confidence: number): Interval {
	const { estimate: rate, variance, clusters } = clusterRatio(totals);
	const trials = totals.reduce((sum, total) => sum + total.size, 0);
	let size = clusters;
	if (clusters >= 2 && rate > 0 && rate < 1) {
		size = variance > 0 ? Math.min(trials, Math.max(clusters, (rate * (1 - rate)) / variance)) : trials;
	}
	return wilson(rate, size, normalQuantile(1 - (1 - confidence) / 2));
}

function wilson(rate: number, size: number, z: number): Interval {
	const z2n = (z * z) / size;
	const centre = (rate + z2n / 2) / (1 + z2n);
	const half = (z / (1 + z2n)) * Math.sqrt((rate * (1 - rate)) / size + z2n / (4 * size));
	return [clamp01(centre - half), clamp01(centre + half)];
}

/** A mean score's t interval over the clusters; zero-width from a single cluster (no spread to measure). */
export function meanInterval(totals: readonly ClusterTotal[], confidence: number): Interval {
	const { estimate, variance, clusters } = clusterRatio(totals);
	const half = clusters >= 2 ? critical(confidence, clusters) * Math.sqrt(variance) : 0;
	return [estimate - half, estimate + half];
}

function clamp01(value: number): number {
	return Math.min(1, Math.max(0, value));
}
