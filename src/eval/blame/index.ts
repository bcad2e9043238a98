/** Blame by replay (issue 45): which `agent()` call of a failed run decided it. Pi-free. */
export { RunAnswers } from "./answers.ts";
export {
	type BlamedCall,
	type BlameEffect,
	type BlameInput,
	type BlamePairs,
	type BlameReport,
	blame,
} from "./blame.ts";
export type { AnswerSources } from "./replay.ts";
export { type BlameRunOptions, blameRun } from "./run.ts";
export { blameSentence, blameText } from "./text.ts";
export {
	type ArmBlame,
	type BlameTrialsOptions,
	blameFailingTrials,
	type EvalBlame,
	type TrialBlame,
} from "./trials.ts";
