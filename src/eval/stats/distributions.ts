/**
 * The few distributions the statistics need (normal and Student's t quantiles, the binomial's CDF, medians), from jstat, loaded on first use: requiring it costs about 30 ms, which the core entry's cold import
 * must not pay (DEVELOPERS.md), and jstat ships CommonJS, so `require` keeps `compareArms` synchronous.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** The part of jstat's API used here (it ships no types). */
interface JStat {
	normal: { inv(p: number, mean: number, sd: number): number };
	studentt: { inv(p: number, dof: number): number };
	binomial: { cdf(k: number, n: number, p: number): number };
	median(values: number[]): number;
}

let jstat: JStat | undefined;

function load(): JStat {
	jstat ??= (require("jstat") as { jStat: JStat }).jStat;
	return jstat;
}

/** The standard normal's quantile at `p`. */
export function normalQuantile(p: number): number {
	return load().normal.inv(p, 0, 1);
}

/** Student's t quantile at `p` with `dof` degrees of freedom. */
export function tQuantile(p: number, dof: number): number {
	return load().studentt.inv(p, dof);
}

/** P(X ≤ k) for X ~ Binomial(n, p). */
export function binomialCdf(k: number, n: number, p: number): number {
	return load().binomial.cdf(k, n, p);
}

/** The median of `values` (not empty). */
export function median(values: number[]): number {
	return load().median(values);
}
