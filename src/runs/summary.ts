/**
 * One line of `store.list()`: read `run.json` and `snapshot.json`, and the journal only when there is no snapshot,
 * so listing a few hundred runs stays cheap, and add up the sizes of the folder's files (the space it takes). A part that cannot be read becomes `problem`, never a throw.
 */
import { join } from "node:path";
import { isWorkflowError } from "../errors.ts";
import type { WorkflowCost } from "../runtime/core/types.ts";
import { readTextIfExists } from "./files.ts";
import { parseJournal } from "./journal-lines.ts";
import { readLock } from "./lock.ts";
import { holderState } from "./process-identity.ts";
import { readRunInfo, runRecord } from "./record.ts";
import { readRunSpend, spentInAll } from "./spend.ts";
import type { RunSummary } from "./types.ts";
import { folderUsage } from "./usage.ts";

/** The summary of the run in `dir`, or undefined when it has no `run.json` (yet: it is being created). */
export async function summarizeRun(dir: string, id: string): Promise<RunSummary | undefined> {
	const problems: string[] = [];
	const attempt = async <T>(read: () => Promise<T>): Promise<T | undefined> => {
		try {
			return await read();
		} catch (error) {
			problems.push(isWorkflowError(error) ? error.message : String(error));
			return undefined;
		}
	};
	const info = await attempt(() => readRunInfo(dir, id));
	if (info === undefined && problems.length === 0) return undefined;
	const snapshot = info ? await attempt(() => runRecord(dir, info).readSnapshot()) : undefined;
	const lock = await attempt(() => readLock(join(dir, "lock"), id));
	const live = lock !== undefined && holderState(lock) !== "dead";
	// The whole folder, whatever is in it: the journal and snapshot, and the event log and conversations a host adds.
	const usage = await folderUsage(dir);
	const summary: RunSummary = {
		id,
		status: live ? "running" : (snapshot?.status ?? "interrupted"),
		createdAt: info?.createdAt ?? createdAtOfId(id),
		agents: snapshot?.counts.completed ?? 0,
		tokens: snapshot?.usage.total ?? 0,
		bytes: usage.bytes,
	};
	if (snapshot?.cost) summary.cost = snapshot.cost;
	if (snapshot?.replayedCost) summary.replayedCost = snapshot.replayedCost;
	if (snapshot?.counts.replayed) summary.replayed = snapshot.counts.replayed;
	if (info?.meta?.name) summary.name = info.meta.name;
	if (snapshot?.endedAt) summary.endedAt = snapshot.endedAt;
	if (live) summary.lock = lock;
	const spend = await attempt(() => readRunSpend(dir, id));
	if (spend) {
		const all = spentInAll(spend);
		summary.spend = {
			usd: all.usd,
			...(all.unpriced > 0 ? { unpriced: all.unpriced } : {}),
			...(spend.capUsd !== undefined ? { capUsd: spend.capUsd } : {}),
			sessions: spend.sessions.length,
		};
	}
	if (!snapshot) {
		const bytes = await attempt(async () => Buffer.from((await readTextIfExists(join(dir, "journal.jsonl"))) ?? ""));
		const entries = bytes ? [...parseJournal(bytes).entries.values()] : [];
		summary.agents = entries.length;
		summary.tokens = entries.reduce((sum, entry) => sum + (entry.usage?.total ?? 0), 0);
		const cost = sumCosts(entries.map((entry) => entry.cost));
		if (cost) summary.cost = cost;
	}
	if (problems.length > 0) summary.problem = problems.join("; ");
	return summary;
}

/** The costs added up (numbers a hand-edited journal got wrong count as 0); undefined when none is there. */
function sumCosts(costs: readonly (WorkflowCost | undefined)[]): WorkflowCost | undefined {
	const amount = (x: unknown) => (typeof x === "number" && Number.isFinite(x) && x > 0 ? x : 0);
	let total: WorkflowCost | undefined;
	for (const cost of costs) {
		if (!cost) continue;
		const usd = Math.round(((total?.usd ?? 0) + amount(cost.usd)) * 1e10) / 1e10;
		const unpriced = (total?.unpriced ?? 0) + Math.floor(amount(cost.unpriced));
		total = { usd, ...(unpriced > 0 ? { unpriced } : {}) };
	}
	return total;
}

/** The creation time an id encodes (to the second), for a run whose `run.json` cannot be read. */
function createdAtOfId(id: string): string {
	const [, date = "", time = ""] = id.split("-");
	return `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${time.slice(0, 2)}:${time.slice(2, 4)}:${time.slice(4, 6)}.000Z`;
}
