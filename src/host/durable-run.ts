/**
 * One `workflow` tool call made durable. A fresh run gets its record when the script starts (a script refused
 * before it starts leaves none behind); a resume reopens the record, holds its lock and replays its journal. Losing
 * the store costs durability, never the run: journal writes that fail are warned about and the run goes on.
 */
import { join } from "node:path";
import type { WorktreePlace } from "../children/worktree.ts";
import { errorMessage, WorkflowError } from "../errors.ts";
import type {
	EventLogEvent,
	EventLogOptions,
	EventLogWriter,
	RunCreateOptions,
	RunJournal,
	RunLock,
	RunRecord,
	RunSessionSpend,
	RunSpend,
	RunStore,
} from "../runs/index.ts";
import { conversationsByCall, listConversations, scriptSha256, spentInAll } from "../runs/index.ts";
import type { WorkflowProgressEvent } from "../runtime/core/events.ts";
import { stableJson } from "../runtime/core/json.ts";
import type { WorkflowJournal, WorkflowJournalEntry, WorkflowMeta, WorkflowRunResult } from "../runtime/core/types.ts";

/** What a run was started from, as run.json keeps it. */
export type DurableSource = Required<Pick<RunCreateOptions, "script" | "filename">> &
	Pick<RunCreateOptions, "args" | "tier">;

/** How a durable run ended, for the tool's summary. */
export interface DurableOutcome {
	/** The run id; absent when the record could not be made. */
	runId?: string;
	/** Agent results the journal holds (this run's and the runs it resumed). */
	saved: number;
	/** Calls with no result whose child's conversation is kept: a resume goes on from their finished turns. */
	unfinished?: number;
	/** Why the run could not be saved, when it could not. */
	problem?: string;
	/** The run's script as a file (`script.js` in its record), to read and edit before a resume. */
	script?: string;
}

/** Options of `DurableRun.fresh` and `resume`. */
export interface DurableRunOptions {
	/** The event log's bound and flush interval. Default: the store's (16 MiB, a flush a second). */
	eventLog?: Pick<EventLogOptions, "maxBytes" | "flushMs">;
}

/** A run in progress: its journal for `runWorkflowScript`, and what to do with what the runtime reports. */
export class DurableRun {
	/** Pass to `runWorkflowScript`. */
	readonly journal: WorkflowJournal;
	private readonly store: RunStore;
	private source: DurableSource | undefined;
	private record: RunRecord | undefined;
	private lock: RunLock | undefined;
	private opened: RunJournal | undefined;
	/**
	 * This session's event log, opened at its first event once the record exists (a resume refused before anything
	 * happened adds no session); events that come before it is open wait in `early`, undefined once it is closed.
	 */
	private log: EventLogWriter | undefined;
	private logOpening: Promise<void> | undefined;
	private logClosing = false;
	private early: EventLogEvent[] | undefined = [];
	private logOptions: EventLogOptions = {};
	/** A resume: the script it starts from, as the record's `script.js` has it now (edited or not). */
	private saved: { script: string; edited: boolean } | undefined;
	/** Fresh runs: the record being made once the script starts. */
	private making: Promise<void> | undefined;
	private problem: string | undefined;
	/** True once the script started (header and args passed). */
	private began = false;
	/** The run's cap and its sessions' spend (`spend.json`): a resume's as read, with this session added once it starts. */
	private spend: RunSpend = { sessions: [] };
	/** This session in `spend`, from `setCostCap` on. */
	private session: RunSessionSpend | undefined;
	/** Writes of `spend.json`, one after another. */
	private spendWrites: Promise<void> = Promise.resolve();
	/** Resolves with the run id once the record exists (undefined when it could not be made). */
	readonly recorded: Promise<string | undefined>;
	private resolveRecorded!: (id: string | undefined) => void;

	private constructor(
		store: RunStore,
		source: DurableSource | undefined,
		resumed?: { record: RunRecord; lock: RunLock; journal: RunJournal; script: string; spend: RunSpend | undefined },
	) {
		this.store = store;
		this.source = source;
		this.recorded = new Promise((resolve) => {
			this.resolveRecorded = resolve;
		});
		if (resumed) {
			this.record = resumed.record;
			this.lock = resumed.lock;
			this.opened = resumed.journal;
			this.saved = { script: resumed.script, edited: resumed.script !== resumed.record.info.script };
			if (resumed.spend) this.spend = resumed.spend;
			this.resolveRecorded(resumed.record.id);
		}
		this.journal = {
			lookup: (key) => this.opened?.lookup(key),
			record: (entry) => this.write(entry),
			list: () => this.opened?.entries() ?? [],
			skipped: () => this.opened?.skipped() ?? [],
		};
	}

	/** A new run; its record is made when `started` is called. */
	static fresh(store: RunStore, source: DurableSource, options: DurableRunOptions = {}): DurableRun {
		const run = new DurableRun(store, source);
		run.logOptions = options.eventLog ?? {};
		return run;
	}

	/**
	 * Reopens run `runId` to resume it. Throws (before anything runs) when the run is unknown, still running, or has
	 * no agent result to replay.
	 */
	static async resume(store: RunStore, runId: string, options: DurableRunOptions = {}): Promise<DurableRun> {
		const record = await store.open(runId);
		const lock = await record.acquire();
		try {
			const journal = await record.journal();
			// A run whose only progress is an interrupted child's finished turns resumes too: the child goes on from them.
			if (journal.size === 0 && (await listConversations(record.dir)).length === 0) {
				await journal.close();
				throw new WorkflowError(
					"run_not_resumable",
					`Run \`${runId}\` has no finished agent results to replay. Run the workflow again without \`resume\``,
					{ details: { runId } },
				);
			}
			// Someone may have edited the record's script file since: a resume runs it as it is now.
			const script = await record.readScript();
			const spend = await record.readSpend().catch(async (error) => {
				await journal.close();
				throw error;
			});
			const run = new DurableRun(store, undefined, { record, lock, journal, script, spend });
			// A resume even when the run's first session predates the log.
			run.logOptions = { ...options.eventLog, resumed: true };
			return run;
		} catch (error) {
			await lock.release();
			throw error;
		}
	}

	/** What the resumed run starts from: its script file (positions then name that file when it was edited), args. */
	get original(): DurableSource | undefined {
		const info = this.record?.info;
		if (!info || !this.saved || !this.record) return undefined;
		return {
			script: this.saved.script,
			filename: this.saved.edited ? this.record.scriptPath : (info.filename ?? "workflow.js"),
			...(info.args !== undefined ? { args: info.args } : {}),
			// An edited script file is no longer the saved workflow: it is trusted as text anyone wrote.
			...(this.saved.edited ? { tier: "inline" as const } : info.tier !== undefined ? { tier: info.tier } : {}),
		};
	}

	/** `meta.name` of the run as its record knows it (a resumed run's, before its script starts). */
	get name(): string | undefined {
		return this.record?.info.meta?.name;
	}

	/** What the run's earlier sessions spent and the cap they kept (a fresh run: nothing, no cap). */
	get earlierSpend(): { usd: number; unpriced: number; capUsd?: number } {
		const sessions = this.spend.sessions.filter((session) => session !== this.session);
		const all = spentInAll({ sessions });
		return { ...all, ...(this.spend.capUsd !== undefined ? { capUsd: this.spend.capUsd } : {}) };
	}

	/**
	 * The cap this session runs under (the run's total, earlier sessions included; undefined: none), as the record
	 * keeps it for the next resume: called before the run starts, and again when a person raises it.
	 */
	setCostCap(capUsd: number | undefined): void {
		if (capUsd === undefined) delete this.spend.capUsd;
		else this.spend.capUsd = capUsd;
		if (!this.session) {
			this.session = { startedAt: new Date().toISOString(), usd: 0 };
			this.spend.sessions.push(this.session);
		}
		this.writeSpend();
	}

	/** The run's id once its record exists (for a fresh run: once the script started). */
	get runId(): string | undefined {
		return this.record?.id;
	}

	get snapshotPath(): string | undefined {
		return this.record ? join(this.record.dir, "snapshot.json") : undefined;
	}

	/**
	 * Where isolated children's worktrees go: the run's id (their branches are named after it) and `worktrees/` in
	 * the run's folder, once the record exists; undefined when it could not be made.
	 */
	async worktreePlace(): Promise<WorktreePlace | undefined> {
		await this.recorded;
		return this.record ? { runId: this.record.id, dir: join(this.record.dir, "worktrees") } : undefined;
	}

	/**
	 * What the host does with each progress event of the run: the event log gets it, and `run_start` (the script
	 * started) makes the record (see `started`). The one place a host composes a durable run with its events.
	 */
	progress(event: WorkflowProgressEvent, source: DurableSource): void {
		if (event.type === "run_start") this.started(event.meta, source);
		this.countSpend(event);
		// Each session's start names the script it ran, so a resume with an edited script shows both (the report diffs them).
		const line = event.type === "run_start" ? { ...event, scriptSha256: scriptSha256(source.script) } : event;
		this.logEvent(line as unknown as EventLogEvent);
	}

	/** Adds a line to the run's event log (a progress event, or what the runner adds: stalls, restarts, steers…). */
	logEvent(event: EventLogEvent): void {
		if (this.log) {
			this.log.append(event);
			return;
		}
		if (!this.early || this.logClosing) return;
		if (this.early.length < EARLY_EVENTS) this.early.push(event);
		if (this.record && !this.logOpening) this.logOpening = this.openLog(this.record);
	}

	/** The run's folder once its record exists (undefined when it could not be made): children's conversations go there. */
	async runFolder(): Promise<string | undefined> {
		await this.recorded;
		return this.record?.dir;
	}

	/**
	 * The script has started (its header and args passed): a fresh run makes its record now; a resume with another
	 * script records that script, so the next resume starts from it.
	 */
	started(meta: WorkflowMeta, source: DurableSource): void {
		if (this.began) return;
		this.began = true;
		const record = this.record;
		if (record) {
			const { info } = record;
			const changed =
				info.script !== source.script || stableJson(info.args ?? null) !== stableJson(source.args ?? null);
			this.making = (async () => {
				try {
					// The old snapshot no longer says how the run stands; a crash from here on lists it as interrupted.
					await record.clearSnapshot();
					if (changed) await record.revise(source);
				} catch (error) {
					this.problem ??= errorMessage(error);
				}
			})();
		} else this.making = this.make(meta);
		this.writeSpend();
	}

	/**
	 * Writes the snapshot (with `progress`, the final progress text, cut to `PROGRESS_CHARS`) and lets go of the run.
	 * Never throws: a store that fails is reported in the outcome.
	 */
	async finish(result: WorkflowRunResult, progress?: string): Promise<DurableOutcome> {
		await this.making;
		this.resolveRecorded(this.record?.id);
		const saved = this.opened?.size ?? 0;
		// A resume whose script was refused before it started (bad header, args) leaves the record as it was.
		if (this.record && !this.began) {
			await this.abandon();
			return { runId: this.record.id, saved };
		}
		if (this.record) {
			try {
				await this.opened?.close();
				await this.record.writeSnapshot(result, progress !== undefined ? { progress: bounded(progress) } : {});
				if (this.session) {
					// The result's figure is the session's whole spend, whatever the events said along the way.
					this.session.usd = result.cost.usd;
					if (result.cost.unpriced) this.session.unpriced = result.cost.unpriced;
					this.writeSpend();
				}
				await this.spendWrites;
			} catch (error) {
				this.problem ??= errorMessage(error);
			}
		}
		await this.closeLog();
		// Records made before the script file existed get it now, so the result can point at it.
		const script = await this.record?.ensureScript().catch(() => undefined);
		const unfinished = result.status === "completed" ? 0 : await this.unfinishedChildren();
		await this.lock?.release().catch(() => undefined);
		return {
			...(this.record ? { runId: this.record.id } : {}),
			saved,
			...(unfinished > 0 ? { unfinished } : {}),
			...(this.problem ? { problem: this.problem } : {}),
			...(script ? { script } : {}),
		};
	}

	/** Calls whose child's conversation is kept but whose result the journal does not hold. Never throws. */
	private async unfinishedChildren(): Promise<number> {
		if (!this.record) return 0;
		const found = await conversationsByCall(this.record.dir).catch(() => undefined);
		const journal = this.opened;
		return [...(found?.byKey.keys() ?? [])].filter((key) => !journal?.lookup(key)).length;
	}

	/**
	 * Lets go of the run without a snapshot (the call ended before or outside the run): it lists as interrupted and
	 * stays resumable. Harmless after `finish`.
	 */
	async abandon(): Promise<void> {
		await this.making;
		await this.opened?.close().catch(() => undefined);
		await this.closeLog();
		await this.lock?.release().catch(() => undefined);
	}

	/** Opens this session's log and gives it what came before. A log that cannot be opened costs the timeline only. */
	private async openLog(record: RunRecord): Promise<void> {
		const log = await record.eventLog(this.logOptions).catch(() => undefined);
		for (const event of this.early ?? []) log?.append(event);
		this.early = undefined;
		this.log = log;
	}

	private async closeLog(): Promise<void> {
		// From here no line starts opening a log (a child let go of may still report after the run ended).
		this.logClosing = true;
		await this.logOpening;
		const log = this.log;
		this.log = undefined;
		this.early = undefined;
		if (!log) return;
		await log.close();
		if (log.problem) this.problem ??= `the event log: ${log.problem}`;
	}

	/** A child's cost, as it ends, into this session's spend: a crash keeps what was spent up to it. */
	private countSpend(event: WorkflowProgressEvent): void {
		if (!this.session || (event.type !== "agent_finished" && event.type !== "agent_failed")) return;
		if (event.type === "agent_finished" && event.cached) return;
		if (!event.cost || (event.cost.usd <= 0 && !event.cost.unpriced)) return;
		this.session.usd += event.cost.usd;
		if (event.cost.unpriced) this.session.unpriced = (this.session.unpriced ?? 0) + event.cost.unpriced;
		this.writeSpend();
	}

	/** Queues a write of `spend.json` once the record exists; a failed write costs the cap's memory, never the run. */
	private writeSpend(): void {
		const copy = structuredClone(this.spend);
		this.spendWrites = this.spendWrites.then(async () => {
			await this.making;
			// A session is recorded once its script starts: a resume refused before that adds none.
			if (!this.record || !this.session || !this.began) return;
			await this.record.writeSpend(copy).catch((error) => {
				this.problem ??= `the run's spend: ${errorMessage(error)}`;
			});
		});
	}

	private async make(meta: WorkflowMeta): Promise<void> {
		if (!this.source) return;
		try {
			const { script, filename, args, tier } = this.source;
			const record = await this.store.create({
				script,
				filename,
				meta,
				...(args !== undefined ? { args } : {}),
				...(tier !== undefined ? { tier } : {}),
			});
			this.record = record;
			this.lock = await record.acquire();
			this.opened = await record.journal();
			if (this.early?.length && !this.logOpening) this.logOpening = this.openLog(record);
		} catch (error) {
			this.problem = errorMessage(error);
			this.early = undefined;
		}
		this.resolveRecorded(this.record?.id);
	}

	private async write(entry: WorkflowJournalEntry): Promise<void> {
		await this.making;
		if (!this.opened) throw new Error(this.problem ?? "the run has no record");
		await this.opened.record(entry);
	}
}

/** Events kept while a fresh run's record is being made (a few milliseconds of a run). */
const EARLY_EVENTS = 10_000;

/** Characters of the final progress text a run's snapshot keeps (what `/workflows` and `runs` show). */
const PROGRESS_CHARS = 16 * 1024;

function bounded(text: string): string {
	return text.length <= PROGRESS_CHARS ? text : `${text.slice(0, PROGRESS_CHARS - 1)}…`;
}
