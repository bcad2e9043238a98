/**
 * Pairwise grading (`"pairwise": true`): the grader gets `{ case, a, b }`, the two arms' runs of one case and trial
 * in a random order (so a grader that favours the first it reads favours neither arm), and returns `{ winner: "a" |
 * "b" | "tie", reason? }`. Each trial's grade records the order and the winner; a trial passes when its arm won, so
 * `compareArms` reads the arm's wins against the baseline's. A pair is graded once both its trials are saved.
 */
import type { WorkflowAgentRunner } from "../runtime/core/types.ts";
import { runWorkflowScript } from "../runtime/index.ts";
import { gradedRun } from "./grader.ts";
import type { EvalCase, EvalSpec, ScriptFile } from "./spec.ts";
import { type EvalFolder, trialName } from "./store.ts";
import type { TrialKey, TrialRecord } from "./trials.ts";

/** Grades one pair: resolves with each trial graded, or with why the grader could not. */
export type GradePair = (
	first: TrialRecord,
	second: TrialRecord,
	evalCase: EvalCase,
) => Promise<{ first: TrialRecord; second: TrialRecord } | { error: string }>;

export interface PairGraderOptions {
	script: ScriptFile;
	agentRunner?: WorkflowAgentRunner;
	cwd: string;
	/** Which of the two the grader sees as `a`. Default: a coin toss. */
	flip?: () => boolean;
}

export function createPairGrader(options: PairGraderOptions): GradePair {
	const flip = options.flip ?? (() => Math.random() < 0.5);
	return async (one, other, evalCase) => {
		const [a, b] = flip() ? [other, one] : [one, other];
		const result = await runWorkflowScript(options.script.source, {
			agentRunner: options.agentRunner ?? (async () => Promise.reject(new Error("this grader has no model to ask"))),
			filename: options.script.filename,
			cwd: options.cwd,
			args: { case: evalCase, a: gradedRun(a), b: gradedRun(b) },
		});
		if (result.status !== "completed") {
			return { error: `the grader ${result.status}: ${result.error?.message ?? "no reason given"}` };
		}
		const value = result.value as { winner?: unknown; reason?: unknown } | null;
		const said = value?.winner;
		if (said !== "a" && said !== "b" && said !== "tie") {
			return {
				error: `${options.script.filename} returned ${JSON.stringify(result.value)?.slice(0, 80) ?? "nothing"}; a pairwise grader returns { winner: "a" | "b" | "tie", reason?: string }`,
			};
		}
		const winner = said === "tie" ? "tie" : said === "a" ? a.arm : b.arm;
		const reason = typeof value?.reason === "string" ? { reason: value.reason.slice(0, 500) } : {};
		const graded = (trial: TrialRecord, costUsd: number): TrialRecord => {
			const { gradeError: _dropped, ...rest } = trial;
			return {
				...rest,
				grade: { pass: winner === trial.arm, ...reason, costUsd, pairwise: { first: a.arm, winner } },
			};
		};
		// What the pair's grading spent counts once, on the first of the two.
		return { first: graded(one, result.cost.usd), second: graded(other, 0) };
	};
}

/** The two keys of the pair `key` belongs to: the same case and trial in each arm, the file's arm order. */
function pairOf(spec: EvalSpec, key: TrialKey): [TrialKey, TrialKey] {
	const [first, second] = Object.keys(spec.arms) as [string, string];
	return [
		{ caseId: key.caseId, trial: key.trial, arm: first },
		{ caseId: key.caseId, trial: key.trial, arm: second },
	];
}

/**
 * Grades the pair of `key` when both its trials are saved and it is not graded yet (or `again`); saves both.
 * Resolves with what the grading spent. `busy` holds the pairs being graded, so two trials ending together grade
 * their pair once.
 */
export async function settlePair(
	folder: EvalFolder,
	key: TrialKey,
	gradePair: GradePair,
	busy: Set<string>,
	again = false,
): Promise<number> {
	const { spec } = folder.record;
	const [one, other] = pairOf(spec, key).map((k) => folder.trials.get(trialName(k)));
	const evalCase = spec.cases.find((c) => c.id === key.caseId);
	const name = `${key.caseId}\u0000${key.trial}`;
	if (!one || !other || !evalCase || busy.has(name) || (!again && one.grade && other.grade)) return 0;
	busy.add(name);
	try {
		const graded = await gradePair(one, other, evalCase);
		if ("error" in graded) {
			const { grade: _a, ...first } = one;
			const { grade: _b, ...second } = other;
			await folder.save({ ...first, gradeError: graded.error });
			await folder.save({ ...second, gradeError: graded.error });
			return 0;
		}
		await folder.save(graded.first);
		await folder.save(graded.second);
		return graded.first.grade?.costUsd ?? 0;
	} finally {
		busy.delete(name);
	}
}
