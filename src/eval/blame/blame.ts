/**
 * Which call ruined it: for each `agent()` call of a failed run, replay the script with that one answer swapped for
 * the passing run's matching call's, grade the result, and see whether fail turns into pass. Where no single swap
 * does, pairs among the calls whose answers differ the most.
 */
import type { WorkflowAgentCallRef } from "../../runtime/core/events.ts";
import type { JsonValue, WorkflowResolver } from "../../runtime/core/types.ts";
import { similarity } from "../../runtime/index.ts";
import type { GradeTrial } from "../grader.ts";
import type { EvalCase, ScriptFile } from "../spec.ts";
import type { TrialGrade } from "../trials.ts";
import { answerDistance, type RecordedAnswer, RunAnswers } from "./answers.ts";
import {
	type AnswerSources,
	DRY_ANSWER,
	type ReplayInput,
	type ReplayOutcome,
	replayWithSwaps,
	type SwapAnswer,
} from "./replay.ts";

/** What one call's swap did. */
export type BlameEffect = "decisive" | "not decisive" | "not testable";

export interface BlamedCall {
	key: string;
	/** 0-based order in the failed run. */
	index: number;
	label: string;
	effect: BlameEffect;
	/** How the passing run's call was found: the same key, else the same label at the same place. */
	match?: "key" | "label";
	/** Why the call is not testable, or what its swap gave (the grader's reason). */
	why: string;
	/** How far its answer is from the passing run's, 0 to 1. */
	change?: number;
	/** Where the swap's replay took each answer from. */
	answers?: AnswerSources;
	/** The grade of the swap's replay. */
	grade?: TrialGrade;
}

/** The pair search, when no single swap flipped the run. */
export interface BlamePairs {
	/** The calls paired (the ones whose answers changed the most), by label. */
	among: string[];
	tried: number;
	/** Pairs whose swap together turned fail into pass, by label. */
	decisive: [string, string][];
}

export interface BlameReport {
	failedRunId: string;
	/** Absent when blamed without a passing run (`dry`). */
	passingRunId?: string;
	/** The failed run replayed unchanged, graded: it must fail for anything to be blamed. */
	failedGrade: TrialGrade;
	/** The passing run replayed, graded: it must pass for its answers to mean "good". */
	passingGrade?: TrialGrade;
	/** No passing run: each call was swapped for a dry run's answer, which shows only whether its shape matters. */
	dry?: true;
	calls: BlamedCall[];
	pairs?: BlamePairs;
	/** What grading cost (a model-graded grader's agents); replays cost nothing. */
	gradeCostUsd: number;
	/** Why nothing could be blamed, when so (the failed run passes on replay, the passing run fails…). */
	problem?: string;
}

export interface BlameInput {
	/** The failed run's script: every swap replays it. */
	script: ScriptFile;
	/** The passing run's, to replay it unchanged (another arm's may differ). Default: `script`. */
	passingScript?: ScriptFile;
	args?: JsonValue;
	cwd: string;
	failed: RunAnswers;
	/** The passing run; absent, each call is swapped for a dry run's answer (a sample of its schema, or a text). */
	passing?: RunAnswers;
	grade: GradeTrial;
	/** The case the grader is given (`args.case`). */
	evalCase: EvalCase;
	resolveWorkflow?: WorkflowResolver;
	signal?: AbortSignal;
}

/** Calls paired by the pair search: the this-many whose answers changed the most (6 pairs). */
const PAIR_CANDIDATES = 4;

export async function blame(input: BlameInput): Promise<BlameReport> {
	const replayInput: ReplayInput = { ...input, passing: input.passing ?? NO_RUN, unanswered: new Set() };
	const base = await replayWithSwaps(replayInput, new Map(), true);
	const withFailures: ReplayInput = { ...replayInput, unanswered: new Set(base.unanswered) };
	let gradeCostUsd = 0;
	const gradeOf = async (
		outcome: ReplayOutcome,
		runId: string,
	): Promise<{ grade: TrialGrade } | { error: string }> => {
		const graded = await gradeReplay(input, outcome, runId);
		if ("grade" in graded) gradeCostUsd += graded.grade.costUsd;
		return graded;
	};
	const failedGraded = await gradeOf(base, input.failed.runId);
	const { passing } = input;
	const passingGraded = passing
		? await gradeOf(await replayPassing(withFailures, passing, input.passingScript), passing.runId)
		: undefined;
	const report = (calls: BlamedCall[], problem?: string, pairs?: BlamePairs): BlameReport => ({
		failedRunId: input.failed.runId,
		failedGrade: "grade" in failedGraded ? failedGraded.grade : ungraded(failedGraded.error),
		...(passing ? { passingRunId: passing.runId } : { dry: true }),
		...(passingGraded
			? { passingGrade: "grade" in passingGraded ? passingGraded.grade : ungraded(passingGraded.error) }
			: {}),
		calls,
		...(pairs ? { pairs } : {}),
		gradeCostUsd,
		...(problem ? { problem } : {}),
	});
	const problem = baseProblem(input, failedGraded, passingGraded);
	const swaps = base.calls.map((call) => (passing ? swapFor(input.failed, passing, call) : drySwap(call)));
	if (problem) {
		return report(
			swaps.map((swap) => ({ ...swap.call, effect: "not testable", why: problem })),
			problem,
		);
	}
	const calls: BlamedCall[] = [];
	for (const swap of swaps) calls.push(await trySwap(withFailures, swap, gradeOf));
	// Dry answers have no "changed the most" to rank pairs by.
	if (!passing || calls.some((call) => call.effect === "decisive")) return report(calls);
	return report(calls, undefined, await searchPairs(withFailures, swaps, calls, gradeOf));
}

/** No passing run: no answers to take. */
const NO_RUN = new RunAnswers({ version: 1, runId: "", status: "interrupted", journal: [] });

/** The passing run replayed unchanged with its own script (another arm's may differ), to grade it. */
function replayPassing(
	input: ReplayInput,
	passing: RunAnswers,
	script: ScriptFile | undefined,
): Promise<ReplayOutcome> {
	return replayWithSwaps(
		{ ...input, script: script ?? input.script, failed: passing, passing: input.failed, unanswered: new Set() },
		new Map(),
		true,
	);
}

/** A failed call and the passing run's answer it would be swapped for. */
interface Swap {
	call: Pick<BlamedCall, "key" | "index" | "label">;
	partner?: RecordedAnswer;
	/** Swapped for a dry run's answer (no passing run). */
	dry?: true;
	match?: "key" | "label";
	change?: number;
	/** Why it cannot be swapped. */
	untestable?: string;
}

function drySwap(ref: WorkflowAgentCallRef): Swap {
	return { call: { key: ref.key, index: ref.index, label: ref.label }, dry: true };
}

function swapFor(failed: RunAnswers, passing: RunAnswers, ref: WorkflowAgentCallRef): Swap {
	const call = { key: ref.key, index: ref.index, label: ref.label };
	const own = failed.agent(ref.key);
	const byKey = passing.agent(ref.key);
	const position = failed.positionOf({ label: ref.label, index: own?.index ?? ref.index });
	const partner = byKey ?? passing.byLabel(ref.label, ref.index, position);
	if (!partner) {
		return { call, untestable: `the passing run made no call \`${ref.label}\` to take an answer from` };
	}
	const change = answerDistance(own?.entry.value, partner.entry.value, similarity);
	return { call, partner, match: byKey ? "key" : "label", change };
}

type GradeOf = (outcome: ReplayOutcome, runId: string) => Promise<{ grade: TrialGrade } | { error: string }>;

async function trySwap(input: ReplayInput, swap: Swap, gradeOf: GradeOf): Promise<BlamedCall> {
	const head = {
		...swap.call,
		...(swap.match ? { match: swap.match } : {}),
		...(swap.change !== undefined ? { change: round(swap.change) } : {}),
	};
	if (swap.dry) {
		const outcome = await replayWithSwaps(input, new Map([[swap.call.key, DRY_ANSWER]]));
		const verdict = await judge(outcome, input.failed.runId, gradeOf);
		const why =
			verdict.effect === "decisive"
				? verdict.why.replace("swapping its answer", "a dry-run answer in its place")
				: verdict.why.replace("the passing run's answer", "a dry-run answer");
		return { ...head, ...verdict, why, answers: outcome.sources };
	}
	if (!swap.partner) return { ...head, effect: "not testable", why: swap.untestable ?? "no answer to swap in" };
	if (swap.change === 0) return { ...head, effect: "not decisive", why: "the same answer in both runs" };
	const outcome = await replayWithSwaps(input, new Map([[swap.call.key, swap.partner.entry]]));
	const verdict = await judge(outcome, input.failed.runId, gradeOf);
	return { ...head, ...verdict, answers: outcome.sources };
}

/** The effect of one replay: its grade, unless it diverged or could not be graded. */
async function judge(
	outcome: ReplayOutcome,
	runId: string,
	gradeOf: GradeOf,
): Promise<Pick<BlamedCall, "effect" | "why" | "grade">> {
	if (outcome.diverged.length > 0) {
		const names = outcome.diverged.map((what) => (what.includes("(") ? what : `\`${what}\``)).join(", ");
		return { effect: "not testable", why: `the replay diverged to a call neither run made: ${names}` };
	}
	const graded = await gradeOf(outcome, runId);
	if ("error" in graded)
		return { effect: "not testable", why: `the grader could not grade the replay: ${graded.error}` };
	const reason = graded.grade.reason ? ` (${graded.grade.reason})` : "";
	return graded.grade.pass
		? { effect: "decisive", why: `swapping its answer passes${reason}`, grade: graded.grade }
		: { effect: "not decisive", why: `still fails with the passing run's answer${reason}`, grade: graded.grade };
}

async function searchPairs(
	input: ReplayInput,
	swaps: readonly Swap[],
	calls: readonly BlamedCall[],
	gradeOf: GradeOf,
): Promise<BlamePairs> {
	const candidates = swaps
		.filter((swap, i) => swap.partner && (swap.change ?? 0) > 0 && calls[i]?.effect === "not decisive")
		.sort((a, b) => (b.change ?? 0) - (a.change ?? 0) || a.call.index - b.call.index)
		.slice(0, PAIR_CANDIDATES)
		.sort((a, b) => a.call.index - b.call.index);
	const decisive: [string, string][] = [];
	let tried = 0;
	for (let i = 0; i < candidates.length; i++) {
		for (let j = i + 1; j < candidates.length; j++) {
			const a = candidates[i] as Swap;
			const b = candidates[j] as Swap;
			tried++;
			const both = new Map<string, SwapAnswer>([
				[a.call.key, (a.partner as RecordedAnswer).entry],
				[b.call.key, (b.partner as RecordedAnswer).entry],
			]);
			const verdict = await judge(await replayWithSwaps(input, both), input.failed.runId, gradeOf);
			if (verdict.effect === "decisive") decisive.push([a.call.label, b.call.label]);
		}
	}
	return { among: candidates.map((swap) => swap.call.label), tried, decisive };
}

/** Why the two runs cannot be compared by this grader, if they cannot. */
function baseProblem(
	input: BlameInput,
	failed: { grade: TrialGrade } | { error: string },
	passing: { grade: TrialGrade } | { error: string } | undefined,
): string | undefined {
	if ("error" in failed) return `the grader could not grade run ${input.failed.runId} replayed: ${failed.error}`;
	if (failed.grade.pass) {
		return `run ${input.failed.runId} passes this grader when replayed from its journal: there is no failure to blame (grade it with the grader that failed it)`;
	}
	if (passing === undefined || input.passing === undefined) return undefined;
	if ("error" in passing) return `the grader could not grade run ${input.passing.runId} replayed: ${passing.error}`;
	if (!passing.grade.pass) {
		return `run ${input.passing.runId} fails this grader too: its answers are no better to swap in (pass --with a run that passes)`;
	}
	return undefined;
}

/** The grader's args as `eval` gives them, from a replay. */
function gradeReplay(input: BlameInput, outcome: ReplayOutcome, runId: string) {
	const { result } = outcome;
	return input.grade(
		{
			caseId: input.evalCase.id,
			arm: "blame",
			trial: 1,
			runId,
			status: result.status,
			...(result.value !== undefined ? { output: result.value } : {}),
			...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
			costUsd: outcome.recordedCostUsd,
			durationMs: 0,
		},
		input.evalCase,
	);
}

function ungraded(error: string): TrialGrade {
	return { pass: false, reason: `not graded: ${error}`, costUsd: 0 };
}

function round(value: number): number {
	return Math.round(value * 1000) / 1000;
}
