/**
 * The lifetime of one script body: a signal that fires when the script is done (it returned or failed, its parent
 * script returned, or the run was cancelled), and the work it started that is still running, so that the run can
 * stop that work and say what it cut off. Sleeps, queue waits, runner calls and nested sandboxes all listen on it.
 */
import { setMaxListeners } from "node:events";
import { WorkflowError } from "../errors.ts";
import { watchAbort } from "./abort-watch.ts";
import { emitLog, type ScriptScope } from "./run-context.ts";
import type { JsonValue, WorkflowCutOff } from "./types.ts";

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

/**
 * Ends `scope`'s script: stops what it left running and, when there was some, records it in the run's `cutOff` and
 * logs a warning that names each piece and where it was started. Returns what it stopped.
 */
export function endScript(scope: ScriptScope, ended: "returned" | "failed" = "returned"): WorkflowCutOff[] {
	const cut = scope.life.end();
	if (cut.length === 0) return cut;
	const { run } = scope;
	run.cutOff.push(...cut);
	const who = scope.workflowName ? `Nested workflow \`${scope.workflowName}\`` : "The script";
	const list = cut.map(describe).join(", ");
	emitLog(run, {
		level: "warn",
		message: `${who} ${ended} while ${cut.length} call(s) it started were still running; they were stopped: ${list}. Await them to use their results`,
		data: { cutOff: cut.map((entry) => ({ ...entry })) as unknown as JsonValue },
	});
	return cut;
}

/** Entries shown in a message; the rest are counted (all of them are in `cutOff`). */
const SHOWN = 5;

/**
 * A script that returned while work it started was still running: its results were dropped, so the run fails
 * rather than complete with less than the script meant, at the first launch in the script's own file.
 */
export function unawaitedWorkError(scope: ScriptScope, cut: WorkflowCutOff[]): WorkflowError {
	// A nested workflow's error is wrapped in one that names it, so "the script" is enough here.
	const shown = cut.slice(0, SHOWN).map(describe).join(", ");
	const more = cut.length > SHOWN ? ` and ${cut.length - SHOWN} more` : "";
	const first = cut.find((entry) => entry.filename === scope.filename && entry.line !== undefined);
	return new WorkflowError(
		"not_awaited",
		`The script returned while ${cut.length} call(s) it started were still running, so their results were lost: ${shown}${more}. Await every call before returning: \`await agent(…)\`, or collect the promises and \`await Promise.all(promises)\`; \`forEach(async …)\` does not wait, so use \`for (const x of list) await …\` or \`await parallel(list.map((x) => () => agent(…)))\``,
		{
			...(first?.line !== undefined && first.column !== undefined
				? { location: { line: first.line, column: first.column } }
				: {}),
			details: { cutOff: cut.map((entry) => ({ ...entry })) },
		},
	);
}

function describe(entry: WorkflowCutOff): string {
	const where = entry.line !== undefined ? ` (${entry.line}:${entry.column})` : "";
	const inside = entry.workflow ? ` in \`${entry.workflow}\`` : "";
	return `${entry.kind} \`${entry.name}\`${inside}${where}`;
}
