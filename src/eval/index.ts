/**
 * The eval room's public face: is the workflow any good. Today the statistics (`compareArms`); eval files, trials,
 * graders and scorecards join it.
 */
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
