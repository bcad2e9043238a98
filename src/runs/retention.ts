/**
 * Records do not pile up: which runs a retention rule lets go, and deleting a run's folder safely. The rule keeps
 * the newest `keep` runs of a project and every run younger than `olderThanDays` (a run goes only when it is past
 * both); whatever the rule says, a live run (its lock held by a live process, or by a process on another host) is
 * never deleted, and a run that could still be resumed and is recent (failed, stopped or interrupted with finished
 * agents or an unfinished child's kept conversation, younger than `RESUMABLE_DAYS`) only with `all`. Deleting takes the run's lock first (so no process can
 * start or resume it meanwhile), checks the folder is a real run folder of this project inside the runs root (no
 * link on the way), renames it out of the list, then removes it whole, whatever files it holds.
 */
import { randomBytes } from "node:crypto";
import { lstat, readdir, realpath, rename, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { isWorkflowError, WorkflowError } from "../errors.ts";
import { listConversations } from "./conversations.ts";
import { errnoCode, storeError } from "./files.ts";
import { acquireRunLock } from "./lock.ts";
import { isRunId } from "./run-id.ts";
import type {
	DeletedRun,
	KeptRun,
	PrunedRun,
	PruneOptions,
	PruneResult,
	RetentionRule,
	RunLock,
	RunStore,
	RunSummary,
} from "./types.ts";
import { folderUsage } from "./usage.ts";

/** Runs of a project the default rule keeps, newest first, whatever their age. */
export const DEFAULT_KEEP = 50;
/** Days the default rule keeps every run, however many there are. */
export const DEFAULT_OLDER_THAN_DAYS = 30;
/** A resumable run younger than this many days is kept unless `all` is given: someone may still resume it. */
export const RESUMABLE_DAYS = 7;
/** Folder-name prefix of a run being deleted: not a run id, so no list shows it; a later prune finishes the job. */
const TRASH_PREFIX = ".deleting-";

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a run with a record and no lock may still be starting (its process takes the lock right after). */
const STARTING_MS = 60_000;

/** The rule records follow when nobody says otherwise: the newest 50, and everything from the last 30 days. */
export const DEFAULT_RETENTION: Readonly<Required<Pick<RetentionRule, "keep" | "olderThanDays">>> = Object.freeze({
	keep: DEFAULT_KEEP,
	olderThanDays: DEFAULT_OLDER_THAN_DAYS,
});

/** Applies `rule` to the runs of `store`'s project. Never throws for one run that cannot go: it is in `failed`. */
export async function pruneRuns(
	store: RunStore,
	rule: RetentionRule = DEFAULT_RETENTION,
	options: PruneOptions = {},
): Promise<PruneResult> {
	checkRule(rule);
	// Neither criterion: the default rule (`keep: 0` is how to keep nothing by count).
	if (rule.keep === undefined && rule.olderThanDays === undefined) {
		rule = { ...DEFAULT_RETENTION, ...(rule.all ? { all: true } : {}) };
	}
	const now = options.now ?? Date.now();
	const dryRun = options.dryRun === true;
	const result: PruneResult = {
		rule,
		dryRun,
		deleted: [],
		bytes: 0,
		kept: [],
		failed: [],
		remaining: { runs: 0, bytes: 0 },
		deferred: 0,
	};
	if (!dryRun) await sweepTrash(store);
	const summaries = await store.list();
	const going: RunSummary[] = [];
	for (const [newest, summary] of summaries.entries()) {
		const young = rule.olderThanDays !== undefined && now - lastActive(summary) < rule.olderThanDays * DAY_MS;
		const counted = rule.keep !== undefined && newest < rule.keep;
		const kept = young || counted ? undefined : await protectedRun(store, summary, rule, now);
		if (young || counted || kept) {
			if (kept) result.kept.push(kept);
			result.remaining.runs++;
			result.remaining.bytes += summary.bytes;
		} else going.push(summary);
	}
	// The oldest go first, so a bounded prune makes the most room for what is kept.
	going.reverse();
	const bound = options.maxDeletions ?? Number.POSITIVE_INFINITY;
	for (const summary of going) {
		if (result.deleted.length >= bound) {
			result.deferred++;
			result.remaining.runs++;
			result.remaining.bytes += summary.bytes;
			continue;
		}
		const pruned: PrunedRun = {
			id: summary.id,
			...(summary.name ? { name: summary.name } : {}),
			status: summary.status,
			createdAt: summary.createdAt,
			bytes: summary.bytes,
		};
		if (!dryRun) {
			try {
				pruned.bytes = await removeRunFolder(store, summary.id);
			} catch (error) {
				// A run that became live since it was listed is kept, as the rule says; anything else is a failure.
				if (isWorkflowError(error) && error.code === "run_busy") {
					result.kept.push({ id: summary.id, reason: "running", why: error.message });
				} else
					result.failed.push({ id: summary.id, error: isWorkflowError(error) ? error.message : String(error) });
				result.remaining.runs++;
				result.remaining.bytes += summary.bytes;
				continue;
			}
		}
		result.deleted.push(pruned);
		result.bytes += pruned.bytes;
	}
	return result;
}

/**
 * Deletes one run of `store`'s project, folder and all, however recent or resumable: the caller asked for this one.
 * Throws `run_id_invalid`/`run_not_found` for a run that is not this project's, `run_busy` for a live one (saying
 * how to stop it first), `run_store` when the folder is not a plain run folder inside the runs root.
 */
export async function deleteRun(store: RunStore, runId: string): Promise<DeletedRun> {
	await store.open(runId);
	return { id: runId, bytes: await removeRunFolder(store, runId) };
}

/** Why a run past the rule stays anyway, if it does. */
async function protectedRun(
	store: RunStore,
	summary: RunSummary,
	rule: RetentionRule,
	now: number,
): Promise<KeptRun | undefined> {
	if (summary.status === "running") {
		const where = summary.lock ? ` in process ${summary.lock.pid} on ${summary.lock.hostname}` : "";
		return { id: summary.id, reason: "running", why: `running${where}` };
	}
	// A record is made a moment before its process takes the lock: a lockless one this new may be starting now.
	if (summary.status === "interrupted" && now - lastActive(summary) < STARTING_MS) {
		return {
			id: summary.id,
			reason: "running",
			why: "created less than a minute ago, not yet locked: it may be starting",
		};
	}
	if (rule.all) return undefined;
	const ended = summary.status === "failed" || summary.status === "stopped" || summary.status === "interrupted";
	const age = now - lastActive(summary);
	if (!ended || age >= RESUMABLE_DAYS * DAY_MS) return undefined;
	// With no finished agent, an unfinished child's kept conversation is what a resume goes on from (as
	// `DurableRun.resume` takes it).
	const children = summary.agents > 0 ? 0 : await keptChildren(join(store.dir, summary.id));
	if (summary.agents === 0 && children === 0) return undefined;
	const progress =
		summary.agents > 0
			? `${summary.agents} finished ${summary.agents === 1 ? "agent" : "agents"}`
			: `the kept conversation of ${children} unfinished ${children === 1 ? "child" : "children"}`;
	const days = Math.floor(age / DAY_MS);
	return {
		id: summary.id,
		reason: "resumable",
		why: `${summary.status} with ${progress} to resume from, ${days === 0 ? "less than a day" : `${days} ${days === 1 ? "day" : "days"}`} old`,
	};
}

/** The calls whose conversations a run's folder keeps (one call may have kept several sessions); 0 when unreadable. */
async function keptChildren(runDir: string): Promise<number> {
	const files = await listConversations(runDir).catch(() => []);
	return new Set(files.map((file) => file.index)).size;
}

/** When a run was last active: its end, else its start. */
function lastActive(summary: RunSummary): number {
	const at = Date.parse(summary.endedAt ?? summary.createdAt);
	return Number.isFinite(at) ? at : 0;
}

/** Removes the folder of `runId` under its lock; resolves with the bytes it held. */
async function removeRunFolder(store: RunStore, runId: string): Promise<number> {
	if (!isRunId(runId)) {
		throw new WorkflowError("run_id_invalid", `\`${String(runId).slice(0, 80)}\` is not a run id`, {
			details: { runId: String(runId).slice(0, 200) },
		});
	}
	const runDir = join(store.dir, runId);
	await checkRunFolder(store, runDir);
	// Counted before the lock is taken: what the run held, not the lock file this delete adds for a moment.
	const { bytes } = await folderUsage(runDir);
	let lock: RunLock;
	try {
		lock = await acquireRunLock(runDir, runId);
	} catch (error) {
		throw isWorkflowError(error) && error.code === "run_busy" ? liveError(runId, error) : error;
	}
	const trash = join(store.dir, `${TRASH_PREFIX}${runId}-${randomBytes(4).toString("hex")}`);
	try {
		// One rename takes it out of every list at once; removing the files can then take its time or fail halfway.
		await rename(runDir, trash);
	} catch (error) {
		await lock.release();
		throw storeError(error, runDir, "delete the run folder");
	}
	// The lock went with the folder: releasing only marks it released.
	await lock.release();
	try {
		await rm(trash, { recursive: true, force: true });
	} catch (error) {
		throw storeError(error, trash, "remove the deleted run's files from");
	}
	return bytes;
}

/** Refuses a folder that is a link, or that resolves anywhere but `<real root>/<project>/<id>`. */
async function checkRunFolder(store: RunStore, runDir: string): Promise<void> {
	const remedy = "Only a run folder of this project inside the runs root is deleted: remove it by hand if it must go";
	try {
		const stats = await lstat(runDir);
		if (!stats.isDirectory() || stats.isSymbolicLink()) {
			throw new WorkflowError("run_store", `${runDir} is not a plain folder (a link or a file). ${remedy}`, {
				details: { path: runDir },
			});
		}
		const expected = join(await realpath(store.root), basename(store.dir), basename(runDir));
		const real = await realpath(runDir);
		if (real !== expected) {
			throw new WorkflowError(
				"run_store",
				`${runDir} leads to ${real}, outside the runs root ${store.root}. ${remedy}`,
				{ details: { path: runDir, real, root: store.root } },
			);
		}
	} catch (error) {
		throw storeError(error, runDir, "check the run folder");
	}
}

/** `run_busy` for a delete: who holds the run and how to stop it first. */
function liveError(runId: string, busy: WorkflowError): WorkflowError {
	const { pid, hostname } = busy.details as { pid?: number; hostname?: string };
	const where = pid === undefined ? "" : pid === process.pid ? " in this process" : ` in process ${pid}`;
	const host = hostname ? ` on ${hostname}` : "";
	return new WorkflowError(
		"run_busy",
		`Run \`${runId}\` is running${where}${host}: a live run is never deleted. Stop it first (in pi: /workflows → the run → stop, or workflow_runs({ action: "stop", runId: "${runId}" }); from the command line: Ctrl-C where it runs${pid !== undefined && pid !== process.pid ? `, or kill ${pid}` : ""}), then delete it`,
		{ details: { ...busy.details, runId } },
	);
}

/** Removes what earlier deletes left half done. */
async function sweepTrash(store: RunStore): Promise<void> {
	let names: string[];
	try {
		names = await readdir(store.dir);
	} catch (error) {
		if (errnoCode(error) === "ENOENT") return;
		throw storeError(error, store.dir, "list the runs in");
	}
	for (const name of names) {
		if (!name.startsWith(TRASH_PREFIX)) continue;
		const path = join(store.dir, name);
		const stats = await lstat(path).catch(() => undefined);
		if (stats?.isDirectory() && !stats.isSymbolicLink())
			await rm(path, { recursive: true, force: true }).catch(() => {});
	}
}

function checkRule(rule: RetentionRule): void {
	const whole = (name: string, value: unknown) => {
		if (value !== undefined && !(typeof value === "number" && Number.isInteger(value) && value >= 0)) {
			throw new TypeError(`Expected \`${name}\` to be a whole number, 0 or more, got \`${String(value)}\``);
		}
	};
	whole("keep", rule.keep);
	if (rule.olderThanDays !== undefined && !(typeof rule.olderThanDays === "number" && rule.olderThanDays >= 0)) {
		throw new TypeError(
			`Expected \`olderThanDays\` to be a number, 0 or more, got \`${String(rule.olderThanDays)}\``,
		);
	}
}
