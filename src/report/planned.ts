/**
 * Planned against actual (pure): per phase, the calls the run's plan (`plan.json`, its dry run made beside it) said
 * against the ones it made: ran as planned, ran outside the plan, planned but never ran; and the plan's estimate
 * against what the run cost. Calls are matched by phase and label, as the plan counts them.
 */
import { formatCost, formatUsd } from "../progress/cost-text.ts";
import { oneLine } from "../progress/format.ts";
import type { RunPlanFile } from "../runs/plan-file.ts";
import type { WorkflowCost } from "../runtime/core/types.ts";

/** One phase, planned against actual. */
export interface ReportPlannedPhase {
	phase: string;
	planned: number;
	/** Calls the run made in this phase (every session's, replayed ones too). */
	ran: number;
	asPlanned: number;
	/** Calls made beyond the plan's count for their label, or of a label it did not plan. */
	outside: number;
	/** Planned calls the run never made. */
	neverRan: number;
	/** Labels made outside the plan, with how many (the first few). */
	outsideLabels: { label: string; calls: number }[];
	/** Labels planned and never (or less often) made. */
	missingLabels: { label: string; calls: number }[];
}

/** The plan against the run. */
export interface ReportPlanned {
	phases: ReportPlannedPhase[];
	/** The plan's estimate in dollars, when it had one. */
	estimateUsd?: { low: number; high: number };
	/** What it rests on, in words. */
	basis?: string;
	/** What the run's calls cost. */
	cost: WorkflowCost;
	/** The dry run could not see every call (a fenced `bash`): its counts after it were floors. */
	floors?: boolean;
}

/** Labels listed per phase and kind; the rest is in the counts. */
const LABELS_SHOWN = 5;

/**
 * Planned against actual for `calls` (phase and label of each call the run made, once each) and what they cost;
 * calls outside any phase are shown under `noPhase`.
 */
export function plannedAgainstActual(
	plan: RunPlanFile,
	calls: readonly { phase?: string; label: string }[],
	cost: WorkflowCost,
	noPhase: string,
): ReportPlanned {
	const phases = new Map<string, { planned: Map<string, number>; ran: Map<string, number> }>();
	const phaseOf = (name: string | undefined) => {
		const key = name ?? noPhase;
		let found = phases.get(key);
		if (!found) {
			found = { planned: new Map(), ran: new Map() };
			phases.set(key, found);
		}
		return found;
	};
	for (const phase of plan.phases) {
		const planned = phaseOf(phase.phase).planned;
		for (const group of phase.calls) planned.set(group.label, (planned.get(group.label) ?? 0) + group.count);
	}
	for (const call of calls) {
		const ran = phaseOf(call.phase).ran;
		ran.set(call.label, (ran.get(call.label) ?? 0) + 1);
	}
	return {
		phases: [...phases].map(([phase, { planned, ran }]) => comparePhase(phase, planned, ran)),
		...(plan.total.usd ? { estimateUsd: plan.total.usd } : {}),
		...(plan.basis !== undefined ? { basis: plan.basis } : {}),
		cost,
		...(plan.floors ? { floors: true } : {}),
	};
}

function comparePhase(phase: string, planned: Map<string, number>, ran: Map<string, number>): ReportPlannedPhase {
	const row: ReportPlannedPhase = {
		phase,
		planned: 0,
		ran: 0,
		asPlanned: 0,
		outside: 0,
		neverRan: 0,
		outsideLabels: [],
		missingLabels: [],
	};
	for (const label of new Set([...planned.keys(), ...ran.keys()])) {
		const p = planned.get(label) ?? 0;
		const r = ran.get(label) ?? 0;
		row.planned += p;
		row.ran += r;
		row.asPlanned += Math.min(p, r);
		if (r > p) {
			row.outside += r - p;
			if (row.outsideLabels.length < LABELS_SHOWN) row.outsideLabels.push({ label, calls: r - p });
		}
		if (p > r) {
			row.neverRan += p - r;
			if (row.missingLabels.length < LABELS_SHOWN) row.missingLabels.push({ label, calls: p - r });
		}
	}
	return row;
}

/** "estimated $0.40–$0.55 (basis), cost $0.47": the plan's estimate against what the run cost. */
export function plannedCostText(planned: ReportPlanned): string {
	const estimate = planned.estimateUsd
		? `estimated ${formatUsd(planned.estimateUsd.low)}–${formatUsd(planned.estimateUsd.high)}${planned.basis ? ` (${planned.basis})` : ""}`
		: "no estimate";
	const floors = planned.floors ? "; its counts after a fenced `bash` were floors" : "";
	return `${estimate}, cost ${formatCost(planned.cost)}${floors}`;
}

/** "8 as planned · 12 outside the plan (read file ×12) · 1 planned but never ran (summarize ×1)". */
export function plannedPhaseText(row: ReportPlannedPhase): string {
	const labels = (list: { label: string; calls: number }[]) =>
		list.length > 0 ? ` (${list.map((l) => `${oneLine(l.label)} ×${l.calls}`).join(", ")})` : "";
	const parts = [`${row.asPlanned} as planned`];
	if (row.outside > 0) parts.push(`${row.outside} outside the plan${labels(row.outsideLabels)}`);
	if (row.neverRan > 0) parts.push(`${row.neverRan} planned but never ran${labels(row.missingLabels)}`);
	return `${row.planned} planned, ${row.ran} ran: ${parts.join(" · ")}`;
}
