/**
 * The workflow runs alive in one pi session, blocking and background alike: what `/workflows` and the
 * `workflow_runs` tool list and stop, and what the session stops (children aborted, journal flushed, snapshot
 * written) when pi exits or the session is replaced.
 */
import type { WorkflowProgressEnvelope } from "../progress/index.ts";

/** One live run. */
export interface LiveRun {
	/** The run id in the run store. */
	id: string;
	/** `meta.name`. */
	name: string;
	background: boolean;
	startedAt: number;
	/** The run's envelope now. */
	envelope(): WorkflowProgressEnvelope;
	/** Stops the run's children and script; `settled` resolves once its record is written. */
	stop(reason?: unknown): void;
	/** Resolves when the run has ended and its snapshot is written. */
	settled: Promise<void>;
}

/** The session's live runs, newest last. */
export class RunRegistry {
	private readonly runs = new Map<string, LiveRun>();
	#closing = false;

	/** True once the session is ending: nothing may start a turn on it any more (no completion messages). */
	get closing(): boolean {
		return this.#closing;
	}

	/** Adds a run until its `settled` resolves. */
	add(run: LiveRun): void {
		this.runs.set(run.id, run);
		const remove = () => {
			if (this.runs.get(run.id) === run) this.runs.delete(run.id);
		};
		run.settled.then(remove, remove);
	}

	get(id: string): LiveRun | undefined {
		return this.runs.get(id);
	}

	list(): LiveRun[] {
		return [...this.runs.values()];
	}

	/** The session is ending: stops every live run and waits until each has written its record. */
	async stopAll(reason: string): Promise<void> {
		this.#closing = true;
		const runs = this.list();
		for (const run of runs) run.stop(reason);
		await Promise.allSettled(runs.map((run) => run.settled));
	}
}
