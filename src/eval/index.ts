/**
 * The eval room's public face: is the workflow any good. Eval files, arms over cases, trials as recorded runs,
 * graders, the eval's store, the scorecard; and the statistics (`compareArms`).
 */
export { readArmScripts, type ArmSourcePlaces } from "./arm-source.ts";
export { dryRunEval, evalDryRunText, type EvalDryOptions, type EvalDryPart, type EvalDryRun } from "./dry-run.ts";
export {
	evaluate,
	type EvalProgress,
	type EvaluateOptions,
	regrade,
	type RunTrial,
	type TrialRequest,
	type TrialRun,
} from "./evaluate.ts";
export { checkEvalSpec, readEvalFile } from "./file.ts";
export { createGrader, type GradeTrial, type GraderOptions } from "./grader.ts";
export {
	type EvalRequirement,
	type EvalScorecard,
	exitCodeOf,
	scorecardOf,
	scorecardText,
} from "./scorecard.ts";
export type { EvalArm, EvalCase, EvalSpec } from "./spec.ts";
export {
	createEval,
	type EvalFolder,
	type EvalRecord,
	type EvalSummary,
	evalsRoot,
	listEvals,
	openEval,
} from "./store.ts";
export { narrowSpec, planTrials, type TrialGrade, type TrialKey, type TrialRecord, type TrialSelection } from "./trials.ts";
