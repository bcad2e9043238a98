/**
 * The verdict of a comparison and the sentence that says it: "B is better: +22 points (95 %: +9 to +35)". A
 * verdict of "better" or "worse" needs both the p-value under 1 − confidence and an interval clear of 0, so the
 * words never contradict the numbers printed beside them.
 */
import type { ComparisonVerdict, Interval } from "./types.ts";

/** The verdict from the p-value, the interval and the non-inferiority margin (if any). */
export function decideVerdict(
	p: number,
	interval: Interval,
	confidence: number,
	margin: number | undefined,
): ComparisonVerdict {
	const significant = p < 1 - confidence;
	if (significant && interval[0] > 0) return "better";
	if (significant && interval[1] < 0) return "worse";
	if (margin !== undefined && interval[0] > -margin) return "non-inferior";
	return "no detectable difference";
}

/** What the sentence says. */
export interface VerdictFacts {
	arm: string;
	baseline: string;
	metric: "pass" | "score";
	verdict: ComparisonVerdict;
	difference: number;
	interval: Interval;
	confidence: number;
	margin: number | undefined;
	smallestDetectable: number;
	/** Whether differences read as points (pass rates, and scores within 0–1) or in the score's own units. */
	points: boolean;
	/** Shared cases, and the fewest and most trials of one case in either arm. */
	cases: number;
	trialsPerCase: [number, number];
}

/** The verdict as one sentence, with the difference, its interval and, when nothing was found, what could have been. */
export function verdictText(facts: VerdictFacts): string {
	const { arm, baseline, verdict } = facts;
	const on = facts.metric === "score" ? " on score" : "";
	const size = (value: number) => (facts.points ? withUnit(signed(value, true), true) : signed(value, false));
	const range = `${signed(facts.interval[0], facts.points)} to ${signed(facts.interval[1], facts.points)}`;
	const level = `${Number((facts.confidence * 100).toFixed(1))} %`;
	const measured = `${size(facts.difference)} (${level}: ${range})`;
	if (verdict === "better" || verdict === "worse") return `${arm} is ${verdict}${on}: ${measured}`;
	if (verdict === "non-inferior") {
		const margin = facts.points
			? withUnit(String(Math.round((facts.margin ?? 0) * 100)), true)
			: String(facts.margin);
		return `${arm} is not worse than ${baseline}${on} by more than ${margin}: ${measured}`;
	}
	const [fewest, most] = facts.trialsPerCase;
	const trials = fewest === most ? count(fewest, "trial") : `${fewest}–${most} trials`;
	const smallest = facts.points
		? withUnit(String(Math.round(facts.smallestDetectable * 100)), true)
		: facts.smallestDetectable.toFixed(2);
	return (
		`${arm} against ${baseline}${on}: no detectable difference (${range}); with ${count(facts.cases, "case")} × ` +
		`${trials}, this eval could only have seen a difference of about ${smallest} or more (at 80 % power), so a ` +
		"smaller one may be there unseen"
	);
}

/** A difference with its sign ("+22", "−6", "0"), in points or to two decimals. */
function signed(value: number, points: boolean): string {
	const shown = points ? String(Math.round(Math.abs(value) * 100)) : Math.abs(value).toFixed(2);
	if (Number(shown) === 0) return shown;
	return `${value > 0 ? "+" : "−"}${shown}`;
}

function withUnit(amount: string, points: boolean): string {
	if (!points) return amount;
	return `${amount} ${/^[+−]?1$/.test(amount) ? "point" : "points"}`;
}

function count(n: number, noun: string): string {
	return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
