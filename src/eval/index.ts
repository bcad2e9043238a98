/**
 * The eval room's public face: is the workflow any good. Eval files, arms over cases, trials as recorded runs,
 * graders, the eval's store, the scorecard; and the statistics (`compareArms`). Pi-free to the last type, as the
 * core entry exports from here: running trials as durable runs is `recorded-trial.ts` and `evaluate-workflows.ts`,
 * whose host types reach the children's.
 */

export { type ArmSourcePlaces, readArmScripts, readGraderScript } from "./arm-source.ts";
export {
	type AnswerSources,
	type ArmBlame,
	type BlamedCall,
	type BlameEffect,
	type BlamePairs,
	type BlameReport,
	type BlameRunOptions,
	blameFailingTrials,
	blameRun,
	blameSentence,
	blameText,
	type EvalBlame,
	type TrialBlame,
} from "./blame/index.ts";
export { dryRunEval, type EvalDryOptions, type EvalDryPart, type EvalDryRun, evalDryRunText } from "./dry-run.ts";
export {
	type EvalProgress,
	type EvaluateOptions,
	evaluate,
	type RunTrial,
	regrade,
	type TrialRequest,
	type TrialRun,
} from "./evaluate.ts";
export { checkEvalSpec, findEvalFile, readEvalFile } from "./file.ts";
export { createGrader, type GraderOptions, type GradeTrial } from "./grader.ts";
export { createPairGrader, type GradePair, type PairGraderOptions } from "./pairs.ts";
export {
	type EvalRequirement,
	type EvalScorecard,
	exitCodeOf,
	scorecardOf,
	scorecardText,
} from "./scorecard.ts";
export { renderScorecardHtml, type ScorecardHtmlOptions } from "./scorecard-html.ts";
export type { EvalArm, EvalCase, EvalSpec, ScriptFile } from "./spec.ts";
export { compareArms } from "./stats/compare.ts";
export type {
	ArmComparison,
	ArmSummary,
	ArmTrial,
	CompareArmsOptions,
	CompareArmsResult,
	ComparisonVerdict,
	Interval,
} from "./stats/types.ts";
export {
	createEval,
	type EvalFolder,
	type EvalRecord,
	type EvalSummary,
	evalsRoot,
	listEvals,
	openEval,
} from "./store.ts";
export {
	narrowSpec,
	planTrials,
	type TrialGrade,
	type TrialKey,
	type TrialRecord,
	type TrialSelection,
} from "./trials.ts";
