/**
 * The lifetime of one script body: a signal that fires when the script is done (it returned or failed, its parent
 * script returned, or the run was cancelled), and the work it started that is still running, so that the run can
 * stop that work and say what it cut off. Sleeps, queue waits, runner calls and nested sandboxes all listen on it.
 */
import { setMaxListeners } from "node:events";
import { WorkflowError } from "../../errors.ts";
import { watchAbort } from "./abort-watch.ts";
import type { WorkflowCutOff } from "./types.ts";

/** Why work still running at its script's return was stopped: the reason its signal carries. */
const RETURNED = "The script returned while this was still running";

/** One script body's signal and the work it started that has not ended. */
export class ScriptLifetime {
	readonly #controller = new AbortController();
	readonly #running = new Set<WorkflowCutOff>();
	readonly #children = new Set<ScriptLifetime>();
	readonly #parent: ScriptLifetime | undefined;
	readonly #unwatch: () => void;

	/** A lifetime that also ends, without a report, when `outer` fires (the run's cancel signal). */
	constructor(outer: AbortSignal, parent?: ScriptLifetime) {
		this.#parent = parent;
		// Every runner call and every queued call of the script may listen on it.
		setMaxListeners(0, this.#controller.signal);
		if (outer.aborted) {
			this.#controller.abort(outer.reason);
			this.#unwatch = () => {};
		} else {
			this.#unwatch = watchAbort(outer, () => this.#controller.abort(outer.reason));
		}
	}

	/** Fires when the script is done; what the script started stops then. */
	get signal(): AbortSignal {
		return this.#controller.signal;
	}

	/** Records `entry` as running until the returned function is called (when the work has ended). */
	track(entry: WorkflowCutOff): () => void {
		this.#running.add(entry);
		return () => {
			this.#running.delete(entry);
		};
	}

	/** The lifetime of a nested script this one starts: it ends when this one does, reported with it. */
	child(): ScriptLifetime {
		const child = new ScriptLifetime(this.signal, this);
		this.#children.add(child);
		return child;
	}

	/**
	 * Ends the script: stops what it started and returns what was still running, its nested scripts' included.
	 * Returns nothing when the lifetime had already ended (a cancelled run, or a parent that returned first).
	 */
	end(): WorkflowCutOff[] {
		this.#unwatch();
		if (this.#parent) this.#parent.#children.delete(this);
		if (this.signal.aborted) return [];
		const cut = this.#collect();
		this.#controller.abort(new WorkflowError("cancelled", RETURNED));
		return cut;
	}

	#collect(): WorkflowCutOff[] {
		const cut = [...this.#running].map((entry) => ({ ...entry }));
		for (const child of this.#children) cut.push(...child.#collect());
		return cut;
	}
}
