/**
 * The grader: a workflow script run in the sandbox with `args` = `{ case, output, status, error, costUsd,
 * durationMs, runId }`, returning `{ pass, score?, reason? }`. It may call `agent()` (a model-graded rubric) on the
 * runner it is given; what that spends is the grade's own cost, reported apart from the arms'. Without a grader a
 * trial passes when its run completed.
 */

import type { WorkflowAgentRunner } from "../runtime/core/types.ts";
import { runWorkflowScript } from "../runtime/index.ts";
import type { EvalCase, ScriptFile } from "./spec.ts";
import type { TrialGrade, TrialRecord } from "./trials.ts";

/** Grades one trial; resolves with its grade, or with why the grader could not give one. */
export type GradeTrial = (trial: TrialRecord, evalCase: EvalCase) => Promise<{ grade: TrialGrade } | { error: string }>;

export interface GraderOptions {
	/** The grader script; absent: a completed run passes, any other fails. */
	script?: ScriptFile;
	/** Children of a model-graded rubric; absent, a grader's `agent()` fails. */
	agentRunner?: WorkflowAgentRunner;
	cwd: string;
	signal?: AbortSignal;
}

/** A grader that calls `agent()` without a runner: says where one comes from. */
const NO_RUNNER: WorkflowAgentRunner = async () => {
	throw new Error("this grader has no model to ask: run the eval with a model (--model, or pi's default)");
};

export function createGrader(options: GraderOptions): GradeTrial {
	const { script } = options;
	if (!script) {
		return async (trial) => ({
			grade: {
				pass: trial.status === "completed",
				reason: trial.status === "completed" ? "completed" : `the run ${trial.status}`,
				costUsd: 0,
			},
		});
	}
	return async (trial, evalCase) => {
		const result = await runWorkflowScript(script.source, {
			agentRunner: options.agentRunner ?? NO_RUNNER,
			filename: script.filename,
			cwd: options.cwd,
			...(options.signal ? { signal: options.signal } : {}),
			args: { case: evalCase, ...gradedRun(trial) },
		});
		if (result.status !== "completed") {
			return { error: `the grader ${result.status}: ${result.error?.message ?? "no reason given"}` };
		}
		return checkGrade(result.value, result.cost.usd, script.filename);
	};
}

function checkGrade(value: unknown, costUsd: number, filename: string): { grade: TrialGrade } | { error: string } {
	const graded = value as { pass?: unknown; score?: unknown; reason?: unknown } | null;
	if (graded === null || typeof graded !== "object" || typeof graded.pass !== "boolean") {
		return {
			error: `${filename} returned ${JSON.stringify(value)?.slice(0, 80) ?? "nothing"}; a grader returns { pass: true|false, score?: number, reason?: string }`,
		};
	}
	if (graded.score !== undefined && (typeof graded.score !== "number" || !Number.isFinite(graded.score))) {
		return { error: `${filename} returned score ${JSON.stringify(graded.score)}; a score is a number` };
	}
	return {
		grade: {
			pass: graded.pass,
			...(typeof graded.score === "number" ? { score: graded.score } : {}),
			...(typeof graded.reason === "string" ? { reason: graded.reason.slice(0, 500) } : {}),
			costUsd,
		},
	};
}

/** What a grader reads of one trial's run (pairwise graders get one of these per side). */
export function gradedRun(trial: TrialRecord) {
	return {
		output: trial.output ?? null,
		status: trial.status,
		error: trial.error ?? null,
		costUsd: trial.costUsd,
		durationMs: trial.durationMs,
		runId: trial.runId ?? null,
	};
}
