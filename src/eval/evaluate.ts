/**
 * Running an eval: every planned trial not already finished, as an independent recorded run (the host's `runTrial`,
 * the same durable path `pi-workflows run` takes), `concurrency` at once in the interleaved order, each graded as it
 * ends and saved at once, so an eval killed halfway resumes with what it finished. The dollar cap holds across the
 * whole eval, arms and grading, counting what earlier sessions of it spent.
 */
import type { JsonValue, WorkflowRunResult } from "../runtime/core/types.ts";
import type { GradeTrial } from "./grader.ts";
import { type GradePair, settlePair } from "./pairs.ts";
import type { EvalArm, EvalCase, ScriptFile } from "./spec.ts";
import type { EvalFolder } from "./store.ts";
import { trialName } from "./store.ts";
import { planTrials, type TrialKey, type TrialRecord, trialArgs } from "./trials.ts";

/** What the host is asked to run for one trial. */
export interface TrialRequest {
	key: TrialKey;
	arm: EvalArm;
	script: ScriptFile;
	args?: JsonValue;
	/** What is left of the eval's cap: the run stops there. Absent without a cap. */
	maxCostUsd?: number;
	signal: AbortSignal;
}

/** One trial's recorded run as it ended. */
export interface TrialRun {
	runId?: string;
	result: WorkflowRunResult;
}

export type RunTrial = (request: TrialRequest) => Promise<TrialRun>;

export interface EvaluateOptions {
	runTrial: RunTrial;
	grade: GradeTrial;
	/** With `"pairwise": true`: grades the two arms' trials of a case and trial together, instead of `grade`. */
	gradePair?: GradePair;
	/** The eval's cap in US dollars; default: the file's `maxCostUsd`, else none. */
	maxCostUsd?: number;
	signal?: AbortSignal;
	/** Each trial as it is saved, with how many of the plan are finished. */
	onTrial?: (trial: TrialRecord, finished: number, planned: number) => void;
}

/** How far an eval got. */
export interface EvalProgress {
	trials: TrialRecord[];
	planned: number;
	/** What trials that were not kept spent (cut at the cap, stopped). Default: 0. */
	discardedUsd?: number;
	/** Why trials are missing (the cap, a stop); absent when every planned trial finished. */
	unfinished?: string;
}

export async function evaluate(folder: EvalFolder, options: EvaluateOptions): Promise<EvalProgress> {
	const { spec, scripts } = folder.record;
	const cap = options.maxCostUsd ?? spec.maxCostUsd;
	const plan = planTrials(spec);
	const todo = plan.filter((key) => !folder.trials.has(trialName(key)));
	const cases = new Map(spec.cases.map((evalCase) => [evalCase.id, evalCase]));
	const controller = new AbortController();
	const stopOuter = () => controller.abort(options.signal?.reason);
	options.signal?.addEventListener("abort", stopOuter, { once: true });
	let spent = [...folder.trials.values()].reduce((sum, trial) => sum + spentOn(trial), folder.discardedUsd);
	let unfinished: string | undefined;
	let next = 0;
	const pairsGrading = new Set<string>();
	// Pairs an earlier session saved both trials of but never graded (it ended in between).
	if (options.gradePair) {
		for (const key of plan) spent += await settlePair(folder, key, options.gradePair, pairsGrading);
	}

	const one = async (key: TrialKey, evalCase: EvalCase): Promise<void> => {
		const arm = spec.arms[key.arm] as EvalArm;
		const args = trialArgs(evalCase, arm.args);
		const { runId, result } = await options.runTrial({
			key,
			arm,
			script: scripts[key.arm] as ScriptFile,
			...(args !== undefined ? { args } : {}),
			...(cap !== undefined ? { maxCostUsd: cap - spent } : {}),
			signal: controller.signal,
		});
		spent += result.cost.usd;
		const trial = trialRecord(key, runId, result);
		if (controller.signal.aborted || (cap !== undefined && capped(result))) {
			// Cut short by the eval, not by its own doing: a resume runs it again, and counts what it spent.
			unfinished ??= controller.signal.aborted ? "the eval was stopped" : `the eval's cap of $${cap} is spent`;
			await folder.discard(result.cost.usd);
			return;
		}
		if (options.gradePair) {
			await folder.save(trial);
			spent += await settlePair(folder, key, options.gradePair, pairsGrading);
			options.onTrial?.(folder.trials.get(trialName(key)) ?? trial, folder.trials.size, plan.length);
			return;
		}
		const graded = await options.grade(trial, evalCase);
		const saved: TrialRecord =
			"grade" in graded ? { ...trial, grade: graded.grade } : { ...trial, gradeError: graded.error };
		spent += saved.grade?.costUsd ?? 0;
		await folder.save(saved);
		options.onTrial?.(saved, folder.trials.size, plan.length);
	};

	const worker = async (): Promise<void> => {
		while (next < todo.length && !controller.signal.aborted) {
			if (cap !== undefined && spent >= cap) {
				unfinished ??= `the eval's cap of $${cap} is spent`;
				return;
			}
			const key = todo[next++] as TrialKey;
			await one(key, cases.get(key.caseId) as EvalCase);
		}
	};
	// A trial that throws (the host could not set its run up) stops the others, which end before it is rethrown.
	const workers = Array.from({ length: Math.min(spec.concurrency, todo.length) }, () =>
		worker().catch((error: unknown) => {
			controller.abort(error);
			throw error;
		}),
	);
	const ended = await Promise.allSettled(workers);
	options.signal?.removeEventListener("abort", stopOuter);
	const thrown = ended.find((outcome) => outcome.status === "rejected");
	if (thrown) throw thrown.reason;
	if (controller.signal.aborted) unfinished ??= "the eval was stopped";
	const trials = plan.flatMap((key) => folder.trials.get(trialName(key)) ?? []);
	return {
		trials,
		planned: plan.length,
		discardedUsd: folder.discardedUsd,
		...(unfinished !== undefined || trials.length < plan.length
			? { unfinished: unfinished ?? "some trials did not finish" }
			: {}),
	};
}

/** Grades every recorded trial again with `grade` (or each pair with `gradePair`), starting no arm; saves them. */
export async function regrade(folder: EvalFolder, grade: GradeTrial, gradePair?: GradePair): Promise<EvalProgress> {
	const { spec } = folder.record;
	const cases = new Map(spec.cases.map((evalCase) => [evalCase.id, evalCase]));
	const plan = planTrials(spec);
	const busy = new Set<string>();
	for (const key of plan) {
		if (gradePair) {
			await settlePair(folder, key, gradePair, busy, key.arm === Object.keys(spec.arms)[0]);
			continue;
		}
		const trial = folder.trials.get(trialName(key));
		const evalCase = cases.get(key.caseId);
		if (!trial || !evalCase) continue;
		const { grade: _old, gradeError: _failed, ...ungraded } = trial;
		const graded = await grade(ungraded, evalCase);
		await folder.save(
			"grade" in graded ? { ...ungraded, grade: graded.grade } : { ...ungraded, gradeError: graded.error },
		);
	}
	const trials = plan.flatMap((key) => folder.trials.get(trialName(key)) ?? []);
	return {
		trials,
		planned: plan.length,
		discardedUsd: folder.discardedUsd,
		...(trials.length < plan.length ? { unfinished: "some trials never ran: resume the eval" } : {}),
	};
}

function trialRecord(key: TrialKey, runId: string | undefined, result: WorkflowRunResult): TrialRecord {
	return {
		...key,
		...(runId !== undefined ? { runId } : {}),
		status: result.status,
		...(result.value !== undefined ? { output: result.value } : {}),
		...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
		costUsd: result.cost.usd,
		durationMs: result.durationMs,
	};
}

/** The run stopped at the dollar cap the eval gave it. */
function capped(result: WorkflowRunResult): boolean {
	return result.error?.code === "cost_cap" || result.error?.code === "budget_exhausted";
}

function spentOn(trial: TrialRecord): number {
	return trial.costUsd + (trial.grade?.costUsd ?? 0);
}
