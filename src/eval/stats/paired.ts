/**
 * An arm against the baseline, paired by case: each shared case's difference, summed per cluster, then resampled
 * (the interval) or sign-flipped (the p-value) by whole clusters, never by single trials: trials of one case share
 * its difficulty, and resampling them as if independent gives far too many false "better"s when cases differ.
 */
import { type ArmTally, caseValue, clusterTotals } from "./cases.ts";
import type { ClusterTotal } from "./intervals.ts";
import type { RandomSource } from "./random.ts";
import type { Interval } from "./types.ts";

/** Bootstrap resamples of the clusters for each interval. */
export const RESAMPLES = 1000;
/** Random sign flips for a p-value when there are too many clusters to enumerate them all. */
export const SIGN_FLIPS = 1000;
/** Up to this many clusters, the sign-flip test enumerates every flip (2^12 = 4,096): an exact p-value. */
const EXACT_FLIP_CLUSTERS = 12;

/** The shared cases' differences (arm − baseline) summed per cluster: `size` counts cases. */
export function pairedTotals(
	baseline: ArmTally,
	arm: ArmTally,
	clusterOf: ReadonlyMap<string, string>,
	metric: "pass" | "score",
): ClusterTotal[] {
	const shared = [...arm.cases.values()].filter((tally) => baseline.cases.has(tally.caseId));
	return clusterTotals(shared, clusterOf, (tally) => {
		const base = baseline.cases.get(tally.caseId);
		return { sum: base ? caseValue(tally, metric) - caseValue(base, metric) : 0, size: 1 };
	});
}

/** The mean difference per case. */
export function meanDifference(totals: readonly ClusterTotal[]): number {
	let sum = 0;
	let size = 0;
	for (const total of totals) {
		sum += total.sum;
		size += total.size;
	}
	return sum / size;
}

/** The percentile bootstrap interval of the mean difference, resampling whole clusters. */
export function bootstrapInterval(totals: readonly ClusterTotal[], confidence: number, random: RandomSource): Interval {
	const count = totals.length;
	const sums = Float64Array.from(totals, (total) => total.sum);
	const sizes = Float64Array.from(totals, (total) => total.size);
	const means = new Float64Array(RESAMPLES);
	for (let r = 0; r < RESAMPLES; r++) {
		let sum = 0;
		let size = 0;
		for (let i = 0; i < count; i++) {
			const drawn = random.below(count);
			sum += sums[drawn] as number;
			size += sizes[drawn] as number;
		}
		means[r] = sum / size;
	}
	means.sort();
	const tail = (1 - confidence) / 2;
	return [sortedQuantile(means, tail), sortedQuantile(means, 1 - tail)];
}

/** The `k`-quantile (0–1) of sorted values, interpolated between neighbours (the usual "type 7" definition). */
function sortedQuantile(sorted: Float64Array, k: number): number {
	const at = k * (sorted.length - 1);
	const below = Math.floor(at);
	const low = sorted[below] as number;
	const high = sorted[Math.min(below + 1, sorted.length - 1)] as number;
	return low + (at - below) * (high - low);
}

/**
 * The two-sided p-value of "the mean difference is 0" by flipping the sign of whole clusters: every flip for up to
 * 12 clusters, else random flips. Flips that tie the observed sum count half (the mid-p): case differences take few
 * values (thirds, for 3 trials), ties are common, and counting them whole made the test miss real effects without
 * holding false alarms any lower than 5 %.
 */
export function signFlipP(totals: readonly ClusterTotal[], random: RandomSource): number {
	const sums = Float64Array.from(totals, (total) => total.sum);
	const observed = Math.abs(sums.reduce((all, sum) => all + sum, 0));
	if (observed === 0) return 1;
	// Float sums of the same terms in another order differ in the last bits: within this they are a tie.
	const tie = 1e-9 * Math.max(1, observed);
	let extreme = 0;
	const count = (flippedSum: number) => {
		const size = Math.abs(flippedSum);
		if (size > observed + tie) extreme += 1;
		else if (size >= observed - tie) extreme += 0.5;
	};
	if (sums.length <= EXACT_FLIP_CLUSTERS) {
		const flips = 2 ** sums.length;
		for (let mask = 0; mask < flips; mask++) count(flippedSum(sums, mask, 0));
		return extreme / flips;
	}
	for (let draw = 0; draw < SIGN_FLIPS; draw++) {
		let sum = 0;
		for (let start = 0; start < sums.length; start += 32) sum += flippedSum(sums, random.bits(), start);
		count(sum);
	}
	return Math.min(1, (1 + extreme) / (1 + SIGN_FLIPS));
}

/** The sum of up to 32 cluster sums from `start`, each negated where its bit of `signs` is set. */
function flippedSum(sums: Float64Array, signs: number, start: number): number {
	let total = 0;
	const end = Math.min(sums.length, start + 32);
	for (let i = start; i < end; i++) {
		const sum = sums[i] as number;
		total += (signs >>> (i - start)) & 1 ? -sum : sum;
	}
	return total;
}

/**
 * The standard error of the mean pass-rate difference from trial noise within the shared cases alone (each case's
 * rate shrunk off 0 and 1 by half a pass, where it would claim no noise at all). The true error is at least this,
 * so the interval is never narrower: with few cases, or cases that all differ alike, the bootstrap alone gives
 * intervals of zero width.
 */
export function withinCaseError(baseline: ArmTally, arm: ArmTally): number {
	let variance = 0;
	let cases = 0;
	for (const tally of arm.cases.values()) {
		const base = baseline.cases.get(tally.caseId);
		if (!base) continue;
		cases += 1;
		for (const { passes, trials } of [tally, base]) {
			const rate = (passes + 0.5) / (trials + 1);
			variance += (rate * (1 - rate)) / trials;
		}
	}
	return Math.sqrt(variance) / cases;
}
