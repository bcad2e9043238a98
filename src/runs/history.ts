/**
 * What a project's earlier runs cost, call by call: every finished `agent()` call its journals hold, with the
 * workflow that made it (`meta.name` in `run.json`), its phase, label, agent type, model, dollars and tokens, and
 * each completed run's total. Estimates before a run (src/host/estimate.ts) learn from it. Read without taking any
 * lock, as the run list does; a run whose files cannot be read is left out, never a throw.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { readTextIfExists } from "./files.ts";
import { parseJournal } from "./journal-lines.ts";
import { readRunInfo, runRecord } from "./record.ts";
import { isRunId } from "./run-id.ts";
import type { RunStore } from "./types.ts";

/** One finished `agent()` call of an earlier run, as its journal line keeps it. */
export interface CallCostSample {
	runId: string;
	/** `meta.name` of the script that ran, when it had a header. */
	workflow?: string;
	/** The phase the call was made in (journal lines written before phases were kept have none). */
	phase?: string;
	label?: string;
	agentType?: string;
	/** `provider/id` of the model its child ran on. */
	model?: string;
	/** Dollars, when every reply had a price; absent when some reply's cost was unknown. */
	usd?: number;
	/** Tokens (input and output), when the line has them. */
	tokens?: number;
}

/** A completed earlier run: what all its finished calls cost. */
export interface RunCostSample {
	runId: string;
	workflow?: string;
	/** Dollars of its finished calls; absent when some call's cost was unknown. */
	usd?: number;
	calls: number;
}

/** A project's cost history, newest run first. */
export interface CostHistory {
	calls: CallCostSample[];
	/** Completed runs only: a failed or stopped run's total says little about what a whole run costs. */
	runs: RunCostSample[];
}

/** Default: the newest runs `readCostHistory` reads, so a project with thousands of runs is still read quickly. */
export const DEFAULT_HISTORY_RUNS = 200;

export interface CostHistoryOptions {
	/** A run to leave out: the one asking (its own calls are not history). Default: none. */
	exclude?: string;
	/** Read at most this many of the newest runs. Default: `DEFAULT_HISTORY_RUNS`. */
	maxRuns?: number;
}

/** The cost history of the store's project. */
export async function readCostHistory(store: RunStore, options: CostHistoryOptions = {}): Promise<CostHistory> {
	const ids = (await readdir(store.dir).catch(() => [] as string[]))
		.filter((id) => isRunId(id) && id !== options.exclude)
		.sort()
		.reverse()
		.slice(0, options.maxRuns ?? DEFAULT_HISTORY_RUNS);
	const read = await Promise.all(ids.map((id) => readRunCosts(join(store.dir, id), id)));
	const history: CostHistory = { calls: [], runs: [] };
	for (const run of read) {
		if (!run) continue;
		history.calls.push(...run.calls);
		if (run.total) history.runs.push(run.total);
	}
	return history;
}

/** One run's finished calls, and its total when it completed; undefined when its record cannot be read. */
async function readRunCosts(
	dir: string,
	id: string,
): Promise<{ calls: CallCostSample[]; total?: RunCostSample } | undefined> {
	try {
		const info = await readRunInfo(dir, id);
		if (!info) return undefined;
		const text = (await readTextIfExists(join(dir, "journal.jsonl"))) ?? "";
		const workflow = info.meta?.name;
		const calls: CallCostSample[] = [];
		for (const entry of parseJournal(Buffer.from(text)).entries.values()) {
			// An `ask()` answer or a `tool()` step is no child: it costs nothing.
			if (entry.kind !== undefined) continue;
			const usd =
				entry.cost && !entry.cost.unpriced && plausible(entry.cost.usd, MAX_CALL_USD) ? entry.cost.usd : undefined;
			const tokens = plausible(entry.usage?.total, MAX_CALL_TOKENS) ? entry.usage?.total : undefined;
			calls.push({
				runId: id,
				...(workflow !== undefined ? { workflow } : {}),
				...(entry.phase !== undefined ? { phase: entry.phase } : {}),
				...(entry.label !== undefined ? { label: entry.label } : {}),
				...(entry.agentType !== undefined ? { agentType: entry.agentType } : {}),
				...(entry.model !== undefined ? { model: entry.model } : {}),
				...(usd !== undefined ? { usd } : {}),
				...(tokens !== undefined ? { tokens } : {}),
			});
		}
		const snapshot = await runRecord(dir, info).readSnapshot();
		if (snapshot?.status !== "completed" || calls.length === 0) return { calls };
		const priced = calls.every((call) => call.usd !== undefined);
		const usd = priced ? calls.reduce((sum, call) => sum + (call.usd ?? 0), 0) : undefined;
		const total: RunCostSample = {
			runId: id,
			...(workflow !== undefined ? { workflow } : {}),
			...(usd !== undefined ? { usd } : {}),
			calls: calls.length,
		};
		return { calls, total };
	} catch {
		return undefined;
	}
}

/**
 * What one child call can believably cost: past it, a journal line was edited or corrupted, and taking it would make
 * every estimate from it meaningless (or `$Infinity` once added up). Such a value is left out like an unknown one.
 */
export const MAX_CALL_USD = 1000;
/** Tokens one child call can believably use (see `MAX_CALL_USD`). */
export const MAX_CALL_TOKENS = 1e9;

/** A finite, non-negative figure no larger than `max`. */
function plausible(value: number | undefined, max: number): value is number {
	return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= max;
}
