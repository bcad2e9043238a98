/**
 * `compareArms`'s input, checked before any figure is computed: each bad field is a `compare_arms_invalid` error
 * that names the field (`trials[3].pass`), what was found and what to write instead.
 */
import { WorkflowError } from "../../errors.ts";
import type { ArmTrial } from "./types.ts";

/** `compareArms`'s options with the defaults filled in. */
export interface CheckedOptions {
	baseline: string;
	trials: readonly ArmTrial[];
	confidence: number;
	margin: number | undefined;
	seed: number;
}

/** Default confidence of every interval. */
export const DEFAULT_CONFIDENCE = 0.95;
/** Default seed of the random source. */
export const DEFAULT_SEED = 1;

function invalid(message: string): WorkflowError {
	return new WorkflowError("compare_arms_invalid", message);
}

/** A short description of a bad value for a message. */
function found(value: unknown): string {
	if (value === undefined) return "nothing";
	if (value === null) return "null";
	if (Array.isArray(value)) return "an array";
	if (typeof value === "object") return "an object";
	if (typeof value === "number" && !Number.isFinite(value)) return String(value);
	if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
	return String(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The options, checked and with defaults. Throws `compare_arms_invalid`. */
export function checkOptions(options: unknown): CheckedOptions {
	if (!isRecord(options)) {
		throw invalid(`\`compareArms\` takes an object \`{ baseline, trials }\`, found ${found(options)}.`);
	}
	const { baseline, trials, confidence = DEFAULT_CONFIDENCE, margin, seed = DEFAULT_SEED } = options;
	if (typeof baseline !== "string" || baseline === "") {
		throw invalid(`\`baseline\` must be the name of an arm, found ${found(baseline)}.`);
	}
	if (!Array.isArray(trials)) {
		throw invalid(`\`trials\` must be an array of \`{ arm, caseId, pass }\`, found ${found(trials)}.`);
	}
	if (typeof confidence !== "number" || !(confidence > 0 && confidence < 1)) {
		throw invalid(
			`\`confidence\` must be a number between 0 and 1 (exclusive), found ${found(confidence)}. Write 0.95 for 95 %.`,
		);
	}
	if (margin !== undefined && (typeof margin !== "number" || !(margin > 0 && margin < 1))) {
		throw invalid(
			`\`margin\` must be a number between 0 and 1 (exclusive), found ${found(margin)}. It is a fraction: write 0.05 for 5 points.`,
		);
	}
	if (typeof seed !== "number" || !Number.isSafeInteger(seed)) {
		throw invalid(`\`seed\` must be an integer, found ${found(seed)}.`);
	}
	trials.forEach(checkTrial);
	return { baseline, trials: trials as ArmTrial[], confidence, margin, seed };
}

function checkTrial(trial: unknown, index: number): void {
	const at = `trials[${index}]`;
	if (!isRecord(trial)) throw invalid(`\`${at}\` must be an object \`{ arm, caseId, pass }\`, found ${found(trial)}.`);
	for (const key of ["arm", "caseId"] as const) {
		const value = trial[key];
		if (typeof value !== "string" || value === "") {
			throw invalid(`\`${at}.${key}\` must be a non-empty string, found ${found(value)}.`);
		}
	}
	if (typeof trial.pass !== "boolean") {
		throw invalid(
			`\`${at}.pass\` must be true or false, found ${found(trial.pass)}. Give each trial its grader's verdict.`,
		);
	}
	if (trial.score !== undefined && !(typeof trial.score === "number" && Number.isFinite(trial.score))) {
		throw invalid(`\`${at}.score\` must be a finite number or absent, found ${found(trial.score)}.`);
	}
	for (const key of ["costUsd", "durationMs"] as const) {
		const value = trial[key];
		if (value !== undefined && !(typeof value === "number" && Number.isFinite(value) && value >= 0)) {
			throw invalid(`\`${at}.${key}\` must be a number ≥ 0 or absent, found ${found(value)}.`);
		}
	}
	if (trial.cluster !== undefined && (typeof trial.cluster !== "string" || trial.cluster === "")) {
		throw invalid(`\`${at}.cluster\` must be a non-empty string or absent, found ${found(trial.cluster)}.`);
	}
}

/** A baseline with no trials. */
export function noBaselineError(baseline: string, arms: readonly string[]): WorkflowError {
	const named =
		arms.length === 0 ? "`trials` is empty" : `the trials name ${arms.map((arm) => `\`${arm}\``).join(", ")}`;
	return invalid(
		`No trials for the baseline arm \`${baseline}\`: ${named}. Set \`baseline\` to an arm the trials have, or add its trials.`,
	);
}

/** An arm that ran none of the baseline's cases. */
export function noSharedCaseError(arm: string, baseline: string, armCases: readonly string[]): WorkflowError {
	const some = armCases
		.slice(0, 3)
		.map((id) => `\`${id}\``)
		.join(", ");
	const more = armCases.length > 3 ? ` and ${armCases.length - 3} more` : "";
	return invalid(
		`Arm \`${arm}\` shares no case with the baseline \`${baseline}\` (it ran ${some}${more}): trials are paired by \`caseId\`, so run both arms on the same cases.`,
	);
}

/** A case whose trials name two clusters. */
export function twoClustersError(caseId: string, first: string, second: string, index: number): WorkflowError {
	return invalid(
		`Case \`${caseId}\` is in cluster \`${first}\` and, in \`trials[${index}]\`, in \`${second}\`: a case belongs to one cluster, so give all its trials the same \`cluster\`.`,
	);
}
