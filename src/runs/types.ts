/**
 * The public shapes of the run store: a project's store, one run's record, its journal, snapshot, summary and lock.
 * The store knows no pi words: a host (the pi extension, a CLI, another extension) decides what a run is for.
 */
import type {
	JsonValue,
	WorkflowCost,
	WorkflowJournal,
	WorkflowJournalEntry,
	WorkflowJournalSkippedLine,
	WorkflowMeta,
	WorkflowRunResult,
} from "../runtime/core/types.ts";
import type { ConversationFile } from "./conversations.ts";
import type { EventLogOptions, EventLogRead, EventLogWriter } from "./event-log.ts";
import type { RunSpend } from "./spend.ts";

/** Options of `createRunStore`. */
export interface RunStoreOptions {
	/** The project whose runs the store holds; its real path names the project's folder. */
	cwd: string;
	/** Where the projects' folders live. Default: `<agentDir>/workflow-runs`, agentDir being `$PI_CODING_AGENT_DIR` or `~/.pi/agent`. */
	root?: string;
}

/**
 * How far a script is trusted, by where it came from: written in the tool call (or a file outside the saved
 * folders), saved in the project, saved by the user, installed from a pi package, or bundled with this package.
 */
export type ScriptTier = "inline" | "project" | "user" | "installed" | "bundled";

/** What `store.create` writes into a new run's `run.json`. */
export interface RunCreateOptions {
	/** The script text as it runs. */
	script: string;
	/** Where the script came from, for people. Default: none. */
	filename?: string;
	/** The script's tier (where it came from, by trust). Default: none (records made before tiers). */
	tier?: ScriptTier;
	/** The script's `args`. Default: none. */
	args?: JsonValue;
	/** The script's parsed header. Default: none. */
	meta?: WorkflowMeta;
	/** Who started the run (host-defined, e.g. a session id). Default: none. */
	origin?: { [key: string]: JsonValue };
}

/** The contents of `run.json`: what a run is, written once when it is created. */
export interface RunInfo extends RunCreateOptions {
	/** Format version of the record. */
	version: 1;
	id: string;
	/** ISO time the run was created. */
	createdAt: string;
	/** Real path of the project the run belongs to. */
	cwd: string;
	/** ISO time of the last `revise` (a resume with an edited script), if any. */
	revisedAt?: string;
}

/** `snapshot.json`: how a run ended, a `WorkflowRunResult` plus the run id and end time. */
export interface RunSnapshot extends WorkflowRunResult {
	runId: string;
	/** ISO time the snapshot was written. */
	endedAt: string;
	/** The run's final progress as text (phases, agents, failures), when the host gave it. */
	progress?: string;
}

/** A run's status in a list: a live lock means `running`; no snapshot and no live lock means a crash left it `interrupted`. */
export type RunStatus = WorkflowRunResult["status"] | "running" | "interrupted";

/** One run in `store.list()`. */
export interface RunSummary {
	id: string;
	/** `meta.name`, when the run has a header. */
	name?: string;
	status: RunStatus;
	createdAt: string;
	endedAt?: string;
	/** Agents that finished: the snapshot's completed count, else the journal's entries. */
	agents: number;
	/** Of those, the ones a resume replayed from the journal (the snapshot's count); absent when none. */
	replayed?: number;
	/** Tokens spent: the snapshot's usage, else the journal's. */
	tokens: number;
	/**
	 * What its children cost: the snapshot's (this run's, with `replayedCost` what earlier runs spent on its replayed
	 * calls), else the journal's finished calls'. Absent when nothing recorded a cost.
	 */
	cost?: WorkflowCost;
	replayedCost?: WorkflowCost;
	/** What every session of the run spent together, and its dollar cap, when `spend.json` records them. */
	spend?: { usd: number; unpriced?: number; capUsd?: number; sessions: number };
	/** The space its folder takes: the sizes of every file in it, in bytes. */
	bytes: number;
	/** Who holds the run, when it is `running`. */
	lock?: RunLockInfo;
	/** Why part of the record could not be read (the summary shows what could). */
	problem?: string;
}

/** A line of `journal.jsonl` that loading skipped, and why. */
export interface JournalProblem {
	/** 1-based line number in the file. */
	line: number;
	reason: string;
	/** The key the line was for, when it can still be read: that call runs again. */
	key?: string;
}

/**
 * A run's journal over `journal.jsonl`. Contract: `record` resolves once the line is on disk (fdatasync); records
 * are written in call order and never interleave; the same key recorded again replaces the earlier entry.
 */
export interface RunJournal extends WorkflowJournal, AsyncDisposable {
	/** Lines that loading skipped (bad JSON, wrong shape, a torn last line), so a host can tell the user. */
	readonly problems: readonly JournalProblem[];
	/** `problems` as the runtime reads them, each named `path:line`: a resume says them once and in its misses. */
	skipped(): WorkflowJournalSkippedLine[];
	/** Distinct keys journaled. */
	readonly size: number;
	/** Every entry, one per key (the last recorded wins), in the order they were last recorded. */
	entries(): WorkflowJournalEntry[];
	/** Waits for pending records, then closes the file; later records are refused. Closing twice is harmless. */
	close(): Promise<void>;
}

/** What `lock` says about its holder. */
export interface RunLockInfo {
	pid: number;
	hostname: string;
	/** ISO time the holding process started. */
	processStartedAt: string;
	/** The holder's start time in clock ticks since boot (`/proc/<pid>/stat`), to tell a reused pid; Linux only. */
	startTicks?: number;
	/** ISO time the lock was taken. */
	acquiredAt: string;
	/** Random, unique to this acquisition. */
	token: string;
}

/** A held lock on a run. */
export interface RunLock extends AsyncDisposable {
	readonly info: RunLockInfo;
	/** False once released. */
	readonly held: boolean;
	/** Removes the lock (only if it is still this one). Releasing twice is harmless. */
	release(): Promise<void>;
}

/** One run's record: `run.json`, its journal, its snapshot and its lock, in one folder. */
export interface RunRecord {
	readonly id: string;
	/** The run's folder. */
	readonly dir: string;
	readonly info: RunInfo;
	/**
	 * The script as a file, `script.js` in the run's folder: what to read and edit for a resume with a fix
	 * (`workflow({ resume, path })`). Written by `create` and `revise`; records made before it use `ensureScript`.
	 */
	readonly scriptPath: string;
	/** Writes `script.js` from `run.json` when it is missing; resolves with its path. */
	ensureScript(): Promise<string>;
	/** The script a resume starts from: `script.js` as it is now (edited or not), else `run.json`'s. */
	readScript(): Promise<string>;
	/** Replaces the script (and filename, args) a later resume starts from: a resume with an edited script. */
	revise(source: Pick<RunCreateOptions, "script" | "filename" | "args" | "tier">): Promise<void>;
	/** Loads the journal and opens it for appending. Use it under `acquire()`: one writer per run. */
	journal(): Promise<RunJournal>;
	/** Opens `events.jsonl` for a new session of the run (see event-log.ts). Use it under `acquire()`, like the journal. */
	eventLog(options?: EventLogOptions): Promise<EventLogWriter>;
	/** Reads `events.jsonl`: `found: false` for a run recorded before the log existed. */
	readEventLog(): Promise<EventLogRead>;
	/** The children's conversation files (`children/`), by call index then session; none for a run that kept none. */
	conversations(): Promise<ConversationFile[]>;
	/** Writes `snapshot.json` atomically (replacing a previous one) and returns it. */
	writeSnapshot(result: WorkflowRunResult, extra?: { progress?: string }): Promise<RunSnapshot>;
	/** Removes the snapshot (a resume has started: until it ends, the run is not what the old snapshot says). */
	clearSnapshot(): Promise<void>;
	/** The snapshot, or undefined when the run has not ended (or crashed). */
	readSnapshot(): Promise<RunSnapshot | undefined>;
	/** `spend.json`: the run's dollar cap and each session's spend; undefined for a run that has none. */
	readSpend(): Promise<RunSpend | undefined>;
	/** Replaces `spend.json` (under `acquire()`). */
	writeSpend(spend: RunSpend): Promise<void>;
	/** Takes the run for this process; refused with `run_busy` while a live process holds it. */
	acquire(): Promise<RunLock>;
}

/** The runs of one project. */
export interface RunStore {
	/** Real path of the project. */
	readonly cwd: string;
	/** The project's folder: `<root>/<slug>-<hash>`. */
	readonly dir: string;
	readonly root: string;
	/** Creates a run with a fresh id and writes its `run.json`. */
	create(options: RunCreateOptions): Promise<RunRecord>;
	/** Opens a run of this project; `run_id_invalid`, `run_not_found` or `run_store` when it cannot. */
	open(runId: string): Promise<RunRecord>;
	/** This project's runs, newest first. */
	list(): Promise<RunSummary[]>;
	/**
	 * Deletes one run's folder, whatever it holds; `run_busy` while a live process holds it (saying how to stop it),
	 * `run_store` when the folder is not a plain run folder inside the root. See `deleteRun` (retention.ts).
	 */
	delete(runId: string): Promise<DeletedRun>;
	/** Applies a retention rule (default: `DEFAULT_RETENTION`) to this project's runs. See `pruneRuns` (retention.ts). */
	prune(rule?: RetentionRule, options?: PruneOptions): Promise<PruneResult>;
}

/**
 * Which runs go: a run past every criterion given, unless it is protected. Give neither criterion for
 * `DEFAULT_RETENTION`; with one, only that one keeps runs.
 */
export interface RetentionRule {
	/** Keep this many of the newest runs. Default: no count kept (only the age decides). */
	keep?: number;
	/** Keep runs younger than this many days (their end, else their start). Default: no age kept (only the count). */
	olderThanDays?: number;
	/** Let recent resumable runs go too (never live ones). Default: false. */
	all?: boolean;
}

/** Options of `pruneRuns`. */
export interface PruneOptions {
	/** List what would go without deleting anything. Default: false. */
	dryRun?: boolean;
	/** Deletes at most this many runs (the oldest first); the rest wait for the next prune. Default: no bound. */
	maxDeletions?: number;
	/** Now, in epoch ms (tests). Default: `Date.now()`. */
	now?: number;
}

/** A run the rule let go: deleted, or (dry run) would be. */
export interface PrunedRun {
	id: string;
	name?: string;
	status: RunSummary["status"];
	createdAt: string;
	bytes: number;
}

/** A run past the rule that was kept anyway, and why. */
export interface KeptRun {
	id: string;
	reason: "running" | "resumable";
	/** Words for a person: "running in process 123", "resumable, 2 days old: --all deletes it too". */
	why: string;
}

/** What `pruneRuns` did. */
export interface PruneResult {
	/** The rule applied (the default one filled in). */
	rule: RetentionRule;
	dryRun: boolean;
	/** Runs deleted (or, in a dry run, that would be), oldest first. */
	deleted: PrunedRun[];
	/** Their space, in bytes. */
	bytes: number;
	/** Runs the rule would let go that were kept: live, or resumable and recent. */
	kept: KeptRun[];
	/** Runs that could not be deleted, and why (the next prune tries again). */
	failed: { id: string; error: string }[];
	/** Runs the rule keeps, and the space they take. */
	remaining: { runs: number; bytes: number };
	/** Runs past `maxDeletions`, left for the next prune. */
	deferred: number;
}

/** What `deleteRun` removed. */
export interface DeletedRun {
	id: string;
	bytes: number;
}
