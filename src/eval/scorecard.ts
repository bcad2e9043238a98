/**
 * The eval's verdict: its graded trials through `compareArms`, the terminal scorecard (one row per arm: pass rate and
 * interval, pass^k, cost, cost per pass, median duration; then the verdict lines), the `--json` shape, and the exit
 * code a CI gate reads.
 */

import type { EvalBlame } from "./blame/trials.ts";
import type { EvalProgress } from "./evaluate.ts";
import type { EvalSpec } from "./spec.ts";
import { compareArms } from "./stats/compare.ts";
import type { CompareArmsResult } from "./stats/types.ts";
import type { TrialRecord } from "./trials.ts";

/** An eval's outcome, as `--json` prints it and `evaluateWorkflows` returns it. */
export interface EvalScorecard {
	evalId: string;
	name: string;
	baseline: string;
	planned: number;
	finished: number;
	/** Why the eval did not finish every trial; absent when it did. */
	unfinished?: string;
	/** Trials the grader could not grade, with why: they count in no arm's figures. */
	ungraded: { caseId: string; arm: string; trial: number; error: string }[];
	/** What the arms' runs spent, and what grading spent, apart. */
	armsCostUsd: number;
	gradingCostUsd: number;
	/** What runs of trials that were not kept spent (cut at the cap, stopped): counted in no arm. */
	discardedCostUsd: number;
	arms: CompareArmsResult["arms"];
	comparisons: CompareArmsResult["comparisons"];
	trials: TrialRecord[];
	/** Each failing trial blamed against a passing trial of its case, and per arm which calls decided; absent when not blamed. */
	blame?: EvalBlame;
}

/** `--require`: what exit code 0 demands of every arm against the baseline. */
export type EvalRequirement = "not-worse" | "better";

export function scorecardOf(evalId: string, spec: EvalSpec, progress: EvalProgress): EvalScorecard {
	const graded = progress.trials.filter((trial) => trial.grade);
	const clusters = new Map(spec.cases.map((evalCase) => [evalCase.id, evalCase.cluster]));
	const { arms, comparisons } =
		graded.length === 0
			? { arms: {}, comparisons: [] }
			: compareArms({
					baseline: spec.baseline,
					trials: graded.map((trial) => {
						const cluster = clusters.get(trial.caseId);
						return {
							arm: trial.arm,
							caseId: trial.caseId,
							pass: trial.grade?.pass === true,
							...(trial.grade?.score !== undefined ? { score: trial.grade.score } : {}),
							costUsd: trial.costUsd,
							durationMs: trial.durationMs,
							...(cluster !== undefined ? { cluster } : {}),
						};
					}),
				});
	return {
		evalId,
		name: spec.name,
		baseline: spec.baseline,
		planned: progress.planned,
		finished: progress.trials.length,
		...(progress.unfinished !== undefined ? { unfinished: progress.unfinished } : {}),
		ungraded: progress.trials.flatMap((trial) =>
			trial.gradeError !== undefined
				? [{ caseId: trial.caseId, arm: trial.arm, trial: trial.trial, error: trial.gradeError }]
				: [],
		),
		armsCostUsd: sum(progress.trials.map((trial) => trial.costUsd)),
		gradingCostUsd: sum(progress.trials.map((trial) => trial.grade?.costUsd ?? 0)),
		discardedCostUsd: progress.discardedUsd ?? 0,
		arms,
		comparisons,
		trials: progress.trials,
	};
}

/** 0 when the eval finished and every arm meets `require`; 1 otherwise. */
export function exitCodeOf(card: EvalScorecard, require: EvalRequirement = "not-worse"): number {
	if (card.unfinished !== undefined || card.ungraded.length > 0) return 1;
	const ok = card.comparisons.every((comparison) =>
		require === "better" ? comparison.verdict === "better" : comparison.verdict !== "worse",
	);
	return ok ? 0 : 1;
}

/** The terminal scorecard. */
export function scorecardText(card: EvalScorecard): string {
	const header = ["arm", "pass rate (95 %)", "pass^k", "cost", "cost/pass", "median time"];
	const rows = Object.entries(card.arms).map(([arm, a]) => [
		arm === card.baseline ? `${arm} (baseline)` : arm,
		`${percent(a.passRate)} (${percent(a.passInterval[0])}–${percent(a.passInterval[1])})`,
		`${percent(a.passHatK)} (k=${a.k})`,
		dollars(a.costUsd),
		a.costPerPass === null ? "–" : dollars(a.costPerPass),
		a.medianDurationMs === null ? "–" : seconds(a.medianDurationMs),
	]);
	const lines = [
		`Eval ${card.name} (${card.evalId}): ${card.finished} of ${card.planned} trials`,
		"",
		...table([header, ...rows]),
		"",
		...card.comparisons.map((comparison) => comparison.text),
		`Spent: arms ${dollars(card.armsCostUsd)}, grading ${dollars(card.gradingCostUsd)}${card.discardedCostUsd > 0 ? `, trials not kept ${dollars(card.discardedCostUsd)}` : ""}`,
	];
	if (card.blame && card.blame.trials.length > 0) lines.push("", ...blameLines(card.blame));
	if (card.ungraded.length > 0) {
		const first = card.ungraded[0];
		lines.push(
			`${card.ungraded.length} trials could not be graded (first: ${first?.arm} on ${first?.caseId}: ${first?.error}). Fix the grader, then: pi-workflows eval --regrade ${card.evalId}`,
		);
	}
	if (card.unfinished !== undefined) {
		lines.push(`Unfinished: ${card.unfinished}. Resume it: pi-workflows eval --resume ${card.evalId}`);
	}
	return lines.join("\n");
}

/** Per arm, which calls decided its failing trials; then each failing trial's blame (indented). */
export function blameLines(blame: EvalBlame): string[] {
	const lines = Object.entries(blame.arms).map(([arm, counts]) => {
		const decided = Object.entries(counts.decisive).sort((a, b) => b[1] - a[1]);
		const of = `of ${counts.failing} failing trial${counts.failing === 1 ? "" : "s"}`;
		const what =
			decided.length === 0
				? `no call decided any ${of} alone`
				: decided
						.map(([label, n], i) => (i === 0 ? `\`${label}\` decided ${n} ${of}` : `\`${label}\` ${n}`))
						.join(", ");
		const unblamed = counts.failing - counts.blamed;
		return `Blame, arm ${arm}: ${what}${unblamed > 0 ? `; ${unblamed} not blamed` : ""}`;
	});
	for (const trial of blame.trials) {
		const against = trial.against ? ` (against ${trial.against.arm} #${trial.against.trial})` : "";
		lines.push(`  ${trial.arm} ${trial.caseId} #${trial.trial}: ${trial.sentence}${against}`);
	}
	return lines;
}

function table(rows: string[][]): string[] {
	const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
	return rows.map((row) =>
		row
			.map((cell, column) => cell.padEnd(widths[column] ?? 0))
			.join("  ")
			.trimEnd(),
	);
}

function percent(fraction: number): string {
	return `${Math.round(fraction * 100)} %`;
}

function dollars(usd: number): string {
	return `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

function seconds(ms: number): string {
	return `${(ms / 1000).toFixed(1)} s`;
}

function sum(values: number[]): number {
	return values.reduce((total, value) => total + value, 0);
}
