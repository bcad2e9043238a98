/** The trials of an eval: which runs it makes, in which order, with which args, and what each one left behind. */

import type { SerializedWorkflowError } from "../errors.ts";
import { WorkflowError } from "../errors.ts";
import type { JsonValue } from "../runtime/core/types.ts";
import type { EvalCase, EvalSpec } from "./spec.ts";

/** One trial: a case, an arm, and which repeat (from 1). */
export interface TrialKey {
	caseId: string;
	arm: string;
	trial: number;
}

/** What the grader said of one trial. */
export interface TrialGrade {
	pass: boolean;
	score?: number;
	reason?: string;
	/** What grading this trial spent (a model-graded rubric's agents; a pair's grading counts on its first trial). */
	costUsd: number;
	/** A pairwise grade: which arm's output the grader saw as `a`, and the arm that won (or `"tie"`). */
	pairwise?: { first: string; winner: string };
}

/** A finished trial, as the eval's store keeps it. */
export interface TrialRecord extends TrialKey {
	/** The recorded run (`pi-workflows report <runId>` opens it); absent when it never got a record. */
	runId?: string;
	status: "completed" | "failed" | "stopped";
	output?: JsonValue;
	error?: Pick<SerializedWorkflowError, "code" | "message">;
	costUsd: number;
	durationMs: number;
	grade?: TrialGrade;
	/** Why the grader could not grade it (the grader's own error); absent when graded. */
	gradeError?: string;
}

/** What `--cases`, `--arms` and `--trials` narrow the file to. */
export interface TrialSelection {
	cases?: readonly string[];
	arms?: readonly string[];
	trials?: number;
}

/**
 * Every trial in the order they start: case by case, each case's repeats, and within a repeat every arm, so the
 * arms are interleaved per case and drift over the eval's hours (a provider's load, a cache) favours none of them.
 */
export function planTrials(spec: EvalSpec): TrialKey[] {
	const keys: TrialKey[] = [];
	for (const evalCase of spec.cases) {
		for (let trial = 1; trial <= spec.trials; trial++) {
			for (const arm of Object.keys(spec.arms)) keys.push({ caseId: evalCase.id, arm, trial });
		}
	}
	return keys;
}

/** An arm's `args` over a case's: objects merged key by key, anything else replaced. */
export function trialArgs(evalCase: EvalCase, armArgs: JsonValue | undefined): JsonValue | undefined {
	if (armArgs === undefined) return evalCase.args;
	if (isObject(armArgs) && isObject(evalCase.args)) return { ...evalCase.args, ...armArgs };
	return armArgs;
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
	return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The spec narrowed to `--cases`, `--arms` and `--trials`; the baseline always stays. Throws `cli_usage`. */
export function narrowSpec(spec: EvalSpec, selection: TrialSelection): EvalSpec {
	const caseIds = spec.cases.map((evalCase) => evalCase.id);
	const unknownCase = selection.cases?.find((id) => !caseIds.includes(id));
	if (unknownCase !== undefined) {
		throw new WorkflowError(
			"cli_usage",
			`--cases: no case "${unknownCase}" in ${spec.file}. Its cases: ${caseIds.slice(0, 20).join(", ")}${caseIds.length > 20 ? ", …" : ""}`,
		);
	}
	const armNames = Object.keys(spec.arms);
	const unknownArm = selection.arms?.find((name) => !armNames.includes(name));
	if (unknownArm !== undefined) {
		throw new WorkflowError(
			"cli_usage",
			`--arms: no arm "${unknownArm}" in ${spec.file}. Its arms: ${armNames.join(", ")}`,
		);
	}
	const keep = selection.arms && new Set([spec.baseline, ...selection.arms]);
	return {
		...spec,
		cases: selection.cases ? spec.cases.filter((evalCase) => selection.cases?.includes(evalCase.id)) : spec.cases,
		arms: keep ? Object.fromEntries(Object.entries(spec.arms).filter(([name]) => keep.has(name))) : spec.arms,
		trials: selection.trials ?? spec.trials,
	};
}
