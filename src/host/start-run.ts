/**
 * Opening a durable run as the `workflow` tool and `pi-workflows run`/`resume` both do: the project's run store, a
 * fresh run or a resumed one (locked, its script file and args the defaults of what runs), what the runner records
 * to it, what `runWorkflowScript` is handed, and the outcome recorded at the end. What each front end shows of the
 * run (pi's widget and messages, the CLI's stderr and stdout) stays with it.
 */
import type { ChildRecorder, RunFolderSource } from "../children/child-record.ts";
import type { WorktreePlaceSource } from "../children/worktree.ts";
import { formatWorkflowProgress, type WorkflowProgressEnvelope } from "../progress/index.ts";
import { createRunStore, type ScriptTier } from "../runs/index.ts";
import type { WorkflowProgressEvent } from "../runtime/core/events.ts";
import type { JsonValue, WorkflowRunOptions, WorkflowRunResult } from "../runtime/core/types.ts";
import { type DurableOutcome, DurableRun, type DurableSource } from "./durable-run.ts";

/** A script and the name positions give it. */
export interface ScriptFile {
	source: string;
	filename: string;
	/** Its tier (`ResolvedScript.tier`). Default: none. */
	tier?: ScriptTier;
}

export interface StartDurableRunOptions {
	/** The project: its runs are listed apart from other projects'. */
	cwd: string;
	/** Where run records live (`<agentDir>/workflow-runs`). */
	runsRoot: string;
	/** The run to resume; absent, a fresh run. */
	resume?: string;
	/**
	 * The script to run, read once the store is open (and a resumed run locked: a throw lets go of it again).
	 * Undefined on a resume: the run's own script file, as it is now.
	 */
	script: () => ScriptFile | undefined;
	/** The script's args. Undefined on a resume: the run's own. */
	args?: JsonValue;
}

/** What the runner records to the run: isolated children's worktrees, conversations, its event-log lines. */
export interface DurableRunnerHooks {
	worktreePlace: WorktreePlaceSource;
	runFolder: RunFolderSource;
	record: ChildRecorder;
}

/** A durable run opened and not yet started: what a front end builds its runner and its run from. */
export interface DurableStart {
	durable: DurableRun;
	/** What runs, as the record keeps it (a resume starts from it next time). */
	source: DurableSource;
	runner: DurableRunnerHooks;
	/** The durable part of `runWorkflowScript`'s options; each progress event goes to the record, then `onProgress`. */
	runOptions(onProgress: (event: WorkflowProgressEvent) => void): DurableRunScriptOptions;
	/** Records how the run ended (the snapshot keeps `envelope` as text) and lets go of it. Never throws. */
	finish(result: WorkflowRunResult, envelope: WorkflowProgressEnvelope): Promise<DurableOutcome>;
	/** Lets go of the run without a snapshot: the call ended before or outside the run. */
	abandon(): Promise<void>;
}

/**
 * Opens the store and the run: a resume takes the run's lock here and throws (holding nothing) when the run is unknown,
 * still running or has nothing to replay.
 */
export async function startDurableRun(options: StartDurableRunOptions): Promise<DurableStart> {
	const store = createRunStore({ cwd: options.cwd, root: options.runsRoot });
	const resumed = options.resume !== undefined ? await DurableRun.resume(store, options.resume) : undefined;
	try {
		const source = sourceToRun(options, resumed?.original);
		const durable = resumed ?? DurableRun.fresh(store, source);
		return {
			durable,
			source,
			runner: durableRunnerHooks(durable),
			runOptions: (onProgress) => durableRunOptions(durable, source, onProgress),
			finish: (result, envelope) => finishDurableRun(durable, result, envelope),
			abandon: () => durable.abandon(),
		};
	} catch (error) {
		// A run that never started must not keep its lock.
		await resumed?.abandon();
		throw error;
	}
}

/** The script given, else the resumed run's; the args given, else the resumed run's. */
function sourceToRun(options: StartDurableRunOptions, original: DurableSource | undefined): DurableSource {
	const script: ScriptFile | undefined =
		options.script() ??
		(original && {
			source: original.script,
			filename: original.filename,
			...(original.tier !== undefined ? { tier: original.tier } : {}),
		});
	if (!script) throw new Error("A fresh run needs its script");
	const args = options.args !== undefined ? options.args : original?.args;
	const { tier } = script;
	return {
		script: script.source,
		filename: script.filename,
		...(args !== undefined ? { args } : {}),
		...(tier !== undefined ? { tier } : {}),
	};
}

export function durableRunnerHooks(durable: DurableRun): DurableRunnerHooks {
	return {
		// Isolated children's branches are named after this run, and their worktrees live in its folder.
		worktreePlace: () => durable.worktreePlace(),
		// Children's conversations and what the runner adds to the event log go to the run's record too.
		runFolder: () => durable.runFolder(),
		record: (event) => durable.logEvent(event),
	};
}

export type DurableRunScriptOptions = Required<Pick<WorkflowRunOptions, "journal" | "runId" | "onProgress">> &
	Pick<WorkflowRunOptions, "scriptTier">;

/**
 * The journal to replay and record, the run's id once it has one, the script's tier (for its spans), and each
 * progress event to the record first.
 */
export function durableRunOptions(
	durable: DurableRun,
	source: DurableSource,
	onProgress: (event: WorkflowProgressEvent) => void,
): DurableRunScriptOptions {
	return {
		journal: durable.journal,
		runId: () => durable.runId,
		...(source.tier !== undefined ? { scriptTier: source.tier } : {}),
		onProgress: (event) => {
			durable.progress(event, source);
			onProgress(event);
		},
	};
}

/** The final envelope as text is what `/workflows` and `runs` show of the run once it has ended. */
export function finishDurableRun(
	durable: DurableRun,
	result: WorkflowRunResult,
	envelope: WorkflowProgressEnvelope,
): Promise<DurableOutcome> {
	return durable.finish(result, formatWorkflowProgress(envelope));
}
