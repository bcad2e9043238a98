/**
 * A run's plan, `plan.json` in its folder: what the dry run made before the run's first child (computed beside the
 * run, in the background) said the run would do, per phase (the planned calls with label, agent and model, the
 * count's range over the dry run's draws) and its estimate in dollars with the basis. Progress is measured against
 * it while the run goes, and the report sets the run against it. A run whose dry run failed has none.
 */
import { join } from "node:path";
import { parseJsonFile, readTextIfExists, writeFileAtomic } from "./files.ts";

/** The plan's file name in a run's folder. */
export const PLAN_FILE = "plan.json";

/** Planned calls alike: phase (absent: outside any), label, agent type, model (absent: the host's default), count. */
export interface PlannedCallGroup {
	phase?: string;
	label: string;
	agentType: string;
	model?: string;
	count: number;
}

/** A range in dollars. */
export interface UsdRange {
	low: number;
	high: number;
}

/** One phase of the plan. */
export interface PlannedPhase {
	/** Absent: calls outside any phase. */
	phase?: string;
	calls: PlannedCallGroup[];
	/** Agent calls of the phase over the dry run's draws (equal when it drew once). */
	low: number;
	high: number;
	/** The phase's estimate, when anything was known to estimate from. */
	usd?: UsdRange;
}

/** `plan.json`. */
export interface RunPlanFile {
	version: 1;
	/** Epoch ms the plan was made. */
	createdAt: number;
	/** The script's `meta.name`. */
	workflow: string;
	phases: PlannedPhase[];
	/** Agent calls in all over the draws. */
	total: { low: number; high: number; usd?: UsdRange };
	/** What the estimate rests on, in words ("12 earlier calls of workflow `review` …"). */
	basis?: string;
	/** The dry run could not see every call (a fenced `bash`): counts after it are floors. */
	floors?: boolean;
}

/** Writes `plan` to the run folder `runDir` (atomically: a reader never sees half a plan). */
export async function writePlanFile(runDir: string, plan: RunPlanFile): Promise<void> {
	await writeFileAtomic(join(runDir, PLAN_FILE), `${JSON.stringify(plan, null, 2)}\n`);
}

/** The plan of the run in `runDir`; undefined when it has none or the file is not a plan (an edit broke it). */
export async function readPlanFile(runDir: string): Promise<RunPlanFile | undefined> {
	const path = join(runDir, PLAN_FILE);
	const text = await readTextIfExists(path).catch(() => undefined);
	if (text === undefined) return undefined;
	try {
		const value = parseJsonFile(text, path, "");
		return isPlanFile(value) ? value : undefined;
	} catch {
		return undefined;
	}
}

function isPlanFile(value: unknown): value is RunPlanFile {
	if (!isRecord(value) || value.version !== 1 || typeof value.workflow !== "string") return false;
	if (!Array.isArray(value.phases) || !isRecord(value.total)) return false;
	return value.phases.every(
		(phase) =>
			isRecord(phase) &&
			(phase.phase === undefined || typeof phase.phase === "string") &&
			Array.isArray(phase.calls) &&
			phase.calls.every(
				(call) =>
					isRecord(call) &&
					typeof call.label === "string" &&
					typeof call.agentType === "string" &&
					typeof call.count === "number" &&
					Number.isInteger(call.count) &&
					call.count >= 0,
			),
	);
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
