/**
 * Row 6, progress: the cost of one frame of a 1,000-agent run's progress (the envelope, the text, the widget at
 * width 120), and what tracking costs as a share of a run (from row 3's 1,000-call runs).
 */

import { summarizeWorkflowProgress } from "../../src/progress/format.ts";
import {
	createWorkflowProgressTracker,
	formatWorkflowProgress,
	workflowProgressResult,
} from "../../src/progress/index.ts";
import { WorkflowProgressWidget } from "../../src/progress/widget.ts";
import type { WorkflowProgressEvent } from "../../src/runtime/index.ts";
import { darkTheme } from "../../test/progress/theme.ts";
import type { BenchContext } from "../lib/context.ts";
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
