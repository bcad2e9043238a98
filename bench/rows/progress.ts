/**
 * Row 6, progress: the cost of one frame of a 1,000-agent run's progress (the envelope, the text, the widget at
 * width 120), what tracking costs as a share of a run (from row 3's 1,000-call runs), and folding the whole run's
 * events with an envelope after each, against a plan and a history and without.
 */

import type { ProgressPlan, ProgressPlannedCalls, ProgressTiming } from "../../src/progress/forecast.ts";
import { summarizeWorkflowProgress } from "../../src/progress/format.ts";
import {
	createWorkflowProgressTracker,
	formatWorkflowProgress,
	workflowProgressResult,
} from "../../src/progress/index.ts";
import { WorkflowProgressWidget } from "../../src/progress/widget.ts";
import { runTiming } from "../../src/runs/timing-history.ts";
import type { WorkflowProgressEvent } from "../../src/runtime/index.ts";
import { darkTheme } from "../../test/progress/theme.ts";
import { type BenchContext, samples } from "../lib/context.ts";
import { ENGINES, runOn } from "../lib/engines.ts";
import { formatNumber, type RowResult } from "../lib/report.ts";
import { instantRunner } from "../lib/runners.ts";
import { now, summarize } from "../lib/stats.ts";
import { CONCURRENT } from "../workloads.ts";
import type { OverheadData } from "./overhead.ts";

const AGENTS = 1000;
const FRAMES = 300;
const WARM_UP = 50;
const WIDTH = 120;

export async function runProgress(context: BenchContext, overhead: OverheadData | undefined): Promise<RowResult[]> {
	const events: WorkflowProgressEvent[] = [];
	await runOn("pi-workflows", CONCURRENT, {
		runner: instantRunner(),
		args: { n: AGENTS },
		onProgress: (event) => events.push(event),
	});
	// Frames from the middle of the run: every call known, some done, some running, the rest queued.
	const tracker = createWorkflowProgressTracker();
	const start = events.findIndex((event, index) => index > events.length / 2 && event.type === "agent_started");
	for (const event of events.slice(0, start)) tracker.updateFromProgressEvent(event);
	const widget = new WorkflowProgressWidget({ requestRender() {} }, darkTheme(), tracker.getEnvelope());
	const frames: number[] = [];
	const results: number[] = [];
	const frameEvents = events.slice(start, start + WARM_UP + FRAMES);
	try {
		for (const [index, event] of frameEvents.entries()) {
			tracker.updateFromProgressEvent(event);
			const started = now();
			const envelope = tracker.getEnvelope();
			formatWorkflowProgress(envelope);
			widget.setEnvelope(envelope);
			widget.render(WIDTH);
			const frameMs = now() - started;
			// What the tool sends as a partial update (throttled to one per 100 ms in the tool).
			const resultStarted = now();
			workflowProgressResult(envelope, summarizeWorkflowProgress(envelope));
			const resultMs = now() - resultStarted;
			// The first frames compile the code; a TUI pays that once per process, not per frame.
			if (index < WARM_UP) continue;
			frames.push(frameMs);
			results.push(resultMs);
		}
	} finally {
		widget.dispose();
	}
	context.log(
		`row 6: frame ${formatNumber(summarize(frames).median)} ms median, ${formatNumber(summarize(frames).max)} ms max`,
	);
	const rows: RowResult[] = [
		{
			id: "6a",
			title: "Progress: one frame of a 1,000-agent run (getEnvelope + formatWorkflowProgress + widget render at 120)",
			unit: "ms/frame",
			target: { max: 2, text: "≤ 2 ms" },
			values: { "pi-workflows": summarize(frames) },
			ratios: false,
			notes: [
				`${FRAMES} frames from the middle of the run; the tool's partial-update payload (workflowProgressResult) adds ${formatNumber(summarize(results).median)} ms (max ${formatNumber(summarize(results).max)}) per update`,
				"the same tracker and widget serve every engine, so only pi-workflows is shown",
			],
		},
	];
	rows.push(foldRow(context, events));
	if (overhead) {
		const values: RowResult["values"] = {};
		const perCall: string[] = [];
		for (const engine of ENGINES) {
			const runs = overhead.concurrent[engine];
			if (!runs) continue;
			values[engine] = summarize(runs.map((run) => (100 * run.trackingMs) / run.ms));
			perCall.push(
				`${engine} ${formatNumber(summarize(runs.map((run) => (run.trackingMs / AGENTS) * 1000)).median)} µs`,
			);
		}
		rows.push({
			id: "6b",
			title: "Progress: time in tracker.updateFromProgressEvent as a share of a 1,000-call run (row 3a)",
			unit: "% of run",
			values,
			ratios: false,
			notes: [`tracking per call: ${perCall.join(", ")}`],
		});
	}
	return rows;
}

/**
 * Row 6c: every event of the 1,000-call run folded into a fresh tracker with an envelope after each (what the tool
 * does), given the plan a dry run makes of it (one planned call per label) and a history of the same run; beside it
 * the same fold without them, in the same minutes.
 */
function foldRow(context: BenchContext, events: readonly WorkflowProgressEvent[]): RowResult {
	const plan = planOf(events);
	const timing = runTiming(events);
	const fold = (forecast: { plan: ProgressPlan; timing: ProgressTiming } | undefined): number => {
		const started = now();
		const tracker = createWorkflowProgressTracker();
		if (forecast) tracker.forecastWith(forecast.plan, forecast.timing);
		for (const event of events) {
			tracker.updateFromProgressEvent(event);
			tracker.getEnvelope();
		}
		return now() - started;
	};
	const withPlan: number[] = [];
	const without: number[] = [];
	// Interleaved, so both see the same load; the first of each compiles the code.
	const count = samples(context, 9, 3);
	for (let index = 0; index <= count; index++) {
		const planned = fold({ plan, timing });
		const bare = fold(undefined);
		if (index === 0) continue;
		withPlan.push(planned);
		without.push(bare);
	}
	const ratio = summarize(withPlan).median / summarize(without).median;
	context.log(
		`row 6c: fold ${formatNumber(summarize(withPlan).median)} ms with a plan, ${formatNumber(summarize(without).median)} ms without`,
	);
	return {
		id: "6c",
		title: "Progress: fold a 1,000-call run's events with a plan and a history, an envelope after each",
		unit: "ms",
		values: { "pi-workflows": summarize(withPlan) },
		ratios: false,
		notes: [
			`the same fold without a plan: ${formatNumber(summarize(without).median)} ms (${formatNumber(summarize(without).min)}–${formatNumber(summarize(without).max)}); with one, ${formatNumber(ratio)}× that`,
			`${events.length} events; the plan: ${plan.calls.length} planned calls, one per label, as a dry run of the workload makes it; the history: the same run's calls`,
		],
	};
}

/** The plan a dry run makes of the run: its calls grouped by phase, label, agent type and model. */
function planOf(events: readonly WorkflowProgressEvent[]): ProgressPlan {
	const groups = new Map<string, ProgressPlannedCalls>();
	for (const event of events) {
		if (event.type !== "agent_queued") continue;
		const key = JSON.stringify([event.phase, event.label, event.agentType, event.model]);
		const found = groups.get(key);
		if (found) found.count++;
		else
			groups.set(key, {
				...(event.phase !== undefined ? { phase: event.phase } : {}),
				label: event.label,
				agentType: event.agentType,
				...(event.model !== undefined ? { model: event.model } : {}),
				count: 1,
			});
	}
	return { calls: [...groups.values()] };
}
