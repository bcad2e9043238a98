/**
 * The workflow runs alive in one pi session, blocking and background alike: what `/workflows` and the
 * `workflow_runs` tool list and stop, whose children they steer, skip and restart, and what the session stops
 * (children aborted, journal flushed, snapshot written) when pi exits or the session is replaced.
 */

import type { ChildAction, ChildControls } from "../children/controls.ts";
import { WorkflowError } from "../errors.ts";
import type { WorkflowProgressEnvelope } from "../progress/index.ts";
import type { WorkflowQuestion } from "../runtime/core/types.ts";

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
	/** Its open `ask()` questions, which `answer` settles; absent when the run cannot take answers this way. */
	questions?: OpenQuestions;
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

	/**
	 * Answers the oldest open `ask()` question of run `runId` (or, without one, of the one live run that waits for an
	 * answer). Resolves with what was done, in words. Throws `run_not_found` or `question_not_found` naming the runs
	 * that wait, or `ask_answer_invalid` listing the choices.
	 */
	answer(runId: string | undefined, text: string): string {
		const waiting = this.list().filter((run) => (run.questions?.list().length ?? 0) > 0);
		const run = runId !== undefined ? this.runs.get(runId) : waiting.length === 1 ? waiting[0] : undefined;
		const ids = waiting.map((candidate) => candidate.id);
		if (!run) {
			const which =
				runId !== undefined
					? `Run ${runId} is not running in this session`
					: ids.length === 0
						? "No workflow run of this session is waiting for an answer"
						: `Several runs wait for an answer (${ids.join(", ")}): name one, as in /workflows answer <runId> <answer>`;
			throw new WorkflowError(runId !== undefined ? "run_not_found" : "question_not_found", which, {
				details: { waiting: ids },
			});
		}
		if (!run.questions) {
			throw new WorkflowError("question_not_found", `Run ${run.id} is not waiting for an answer`, {
				details: { waiting: ids },
			});
		}
		const { question, answer } = run.questions.answer(text, run.id);
		return `Answered ${JSON.stringify(question.question)} of run ${run.id}: ${answer}`;
	}

	/** The session is ending: stops every live run and waits until each has written its record. */
	async stopAll(reason: string): Promise<void> {
		this.#closing = true;
		const runs = this.list();
		for (const run of runs) run.stop(reason);
		await Promise.allSettled(runs.map((run) => run.settled));
	}
}

/** A run's open `ask()` questions, as the registry reads and answers them (pi's `PendingQuestions` is one). */
export interface OpenQuestions {
	list(): WorkflowQuestion[];
	answer(text: string, runId: string): { question: WorkflowQuestion; answer: string };
}
