/**
 * The workflow runs alive in one pi session, blocking and background alike: what `/workflows` and the
 * `workflow_runs` tool list and stop, whose children they steer, skip and restart, and what the session stops
 * (children aborted, journal flushed, snapshot written) when pi exits or the session is replaced.
 */
import { WorkflowError } from "../../errors.ts";
import type { WorkflowProgressEnvelope } from "../../progress/index.ts";
import type { ChildAction, ChildControls } from "../children/controls.ts";

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
	/** Its running children, for steer, skip and restart; absent when the runner offers no per-child control. */
	children?: ChildControls;
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

	/**
	 * Does `action` to one child of a live run: `child` is its call number (`#3` or `3`), label or call key. Resolves
	 * with what was done, in words. Throws `run_not_found` (not running in this session), `child_not_found`,
	 * `child_not_running` (queued for steer and restart, or finished) or `steer_message_empty`.
	 */
	async controlChild(runId: string, child: string, action: ChildAction, text?: string): Promise<string> {
		const run = this.runs.get(runId);
		if (!run) {
			const live = this.list().map((candidate) => candidate.id);
			throw new WorkflowError(
				"run_not_found",
				`Run ${runId} is not running in this session. Running: ${live.length > 0 ? live.join(", ") : "none"}`,
				{ details: { runId, running: live } },
			);
		}
		if (!run.children) {
			throw new WorkflowError("child_not_running", `Run ${runId} offers no per-child control (its runner has none)`);
		}
		return run.children.act(run.envelope(), child, action, text);
	}

	/** Sends `text` to a running child; pi delivers it at the child's next turn boundary (a paused one goes on). */
	steer(runId: string, child: string, text: string): Promise<string> {
		return this.controlChild(runId, child, "steer", text);
	}

	/** Ends a child (or a queued call, once it would start): its `agent()` gives null, "skipped by the user". */
	skip(runId: string, child: string): Promise<string> {
		return this.controlChild(runId, child, "skip");
	}

	/** Stops a running child's turn and holds it (`paused`) until a steer gives it a message to go on with. */
	pause(runId: string, child: string): Promise<string> {
		return this.controlChild(runId, child, "pause");
	}

	/** Stops a running child and starts a fresh attempt; the script gets that attempt's answer. */
	restart(runId: string, child: string): Promise<string> {
		return this.controlChild(runId, child, "restart");
	}

	/** The session is ending: stops every live run and waits until each has written its record. */
	async stopAll(reason: string): Promise<void> {
		this.#closing = true;
		const runs = this.list();
		for (const run of runs) run.stop(reason);
		await Promise.allSettled(runs.map((run) => run.settled));
	}
}
