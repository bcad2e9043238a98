/**
 * How long a project's earlier runs took, as data: what the run store reads from their event logs
 * (src/runs/timing-history.ts) and what time left and slow marks learn from (src/progress/forecast.ts). Here, where
 * both rooms may read types, so the two speak of one shape.
 */

/** One finished call of an earlier run, and how long it took. */
export interface CallTiming {
	workflow?: string;
	phase?: string;
	label: string;
	agentType: string;
	model?: string;
	durationMs: number;
}

/** How many calls of one phase of one earlier run ran at once: their summed durations over the phase's span. */
export interface PhaseTiming {
	workflow?: string;
	phase?: string;
	concurrency: number;
}

/** One earlier completed run's wall time. */
export interface RunTiming {
	workflow?: string;
	durationMs: number;
}

/** A project's earlier runs' timing, newest run first. */
export interface ProgressTiming {
	calls: CallTiming[];
	phases: PhaseTiming[];
	runs: RunTiming[];
}
