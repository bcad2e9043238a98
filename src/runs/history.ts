/**
 * What a project's earlier runs cost, call by call: every finished `agent()` call its journals hold, with the
 * workflow that made it (`meta.name` in `run.json`), its phase, label, agent type, model, dollars and tokens, and
 * each completed run's total. Estimates before a run (src/host/estimate.ts) learn from it. Read without taking any
 * lock, as the run list does, newest run first within a bound on runs and bytes, each journal streamed for its cost
 * fields (src/runs/cost-lines.ts); a run whose files cannot be read is left out, never a throw.
 */
import { constants } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { type ByteBudget, type CostLine, readCostLines } from "./cost-lines.ts";
import { readRunInfo } from "./record.ts";
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
/**
 * Default: the bytes of journal `readCostHistory` reads in all (32 MiB), newest run first: runs holding large answers
 * cost their bytes' pass, never their answers in memory, and past this the older runs are not opened.
 */
export const DEFAULT_HISTORY_BYTES = 32 * 1024 * 1024;

export interface CostHistoryOptions {
	/** A run to leave out: the one asking (its own calls are not history). Default: none. */
	exclude?: string;
	/** Read at most this many of the newest runs. Default: `DEFAULT_HISTORY_RUNS`. */
	maxRuns?: number;
	/** Read at most this many bytes of journal in all. Default: `DEFAULT_HISTORY_BYTES`. */
	maxBytes?: number;
}

/**
 * The cost history of the store's project: its newest runs first, each journal streamed for its cost fields only,
 * until `maxRuns` runs or `maxBytes` bytes of journal have been read (the run the bound stops in gives the calls read
 * so far and no total; later runs are not opened).
 */
export async function readCostHistory(store: RunStore, options: CostHistoryOptions = {}): Promise<CostHistory> {
	const ids = await newestRunIds(store, options.maxRuns ?? DEFAULT_HISTORY_RUNS, options.exclude);
	const budget: ByteBudget = { left: options.maxBytes ?? DEFAULT_HISTORY_BYTES };
	const history: CostHistory = { calls: [], runs: [] };
	// One run at a time, newest first: the byte bound decides which runs are read, so they are read in order.
	for (const id of ids) {
		if (budget.left <= 0) break;
		const run = await readRunCosts(join(store.dir, id), id, budget);
		if (!run) continue;
		history.calls.push(...run.calls);
		if (run.total) history.runs.push(run.total);
	}
	return history;
}

/** One run's finished calls, and its total when it completed and was read whole; undefined when it cannot be read. */
async function readRunCosts(
	dir: string,
	id: string,
	budget: ByteBudget,
): Promise<{ calls: CallCostSample[]; total?: RunCostSample } | undefined> {
	try {
		const info = await readRunInfo(dir, id);
		if (!info) return undefined;
		const { lines, complete } = await readCostLines(join(dir, "journal.jsonl"), budget);
		const workflow = info.meta?.name;
		const calls: CallCostSample[] = [];
		for (const line of lines.values()) {
			// An `ask()` answer or a `tool()` step is no child: it costs nothing.
			if (line.kind !== undefined) continue;
			calls.push(callSample(line, id, workflow));
		}
		if (!complete || calls.length === 0 || (await endedAs(dir)) !== "completed") return { calls };
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

function callSample(line: CostLine, runId: string, workflow: string | undefined): CallCostSample {
	const cost = isRecord(line.cost) ? line.cost : undefined;
	const usage = isRecord(line.usage) ? line.usage : undefined;
	const usd = cost && !cost.unpriced && plausible(cost.usd, MAX_CALL_USD) ? cost.usd : undefined;
	const tokens = plausible(usage?.total, MAX_CALL_TOKENS) ? usage?.total : undefined;
	return {
		runId,
		...(workflow !== undefined ? { workflow } : {}),
		...(line.phase !== undefined ? { phase: line.phase } : {}),
		...(line.label !== undefined ? { label: line.label } : {}),
		...(line.agentType !== undefined ? { agentType: line.agentType } : {}),
		...(line.model !== undefined ? { model: line.model } : {}),
		...(usd !== undefined ? { usd } : {}),
		...(tokens !== undefined ? { tokens } : {}),
	} as CallCostSample;
}

/** Bytes of a snapshot read to find how the run ended: `status` is its first field. */
const SNAPSHOT_HEAD_BYTES = 256;

/** How the run in `dir` ended, from the head of its snapshot only (its value may be large); undefined: unknown. */
async function endedAs(dir: string): Promise<string | undefined> {
	const path = join(dir, "snapshot.json");
	const file = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)).catch(() => undefined);
	if (!file) return undefined;
	try {
		if (!(await file.stat()).isFile()) return undefined;
		const head = Buffer.alloc(SNAPSHOT_HEAD_BYTES);
		const { bytesRead } = await file.read(head, 0, SNAPSHOT_HEAD_BYTES, 0);
		return /^\{\s*"status":\s*"(\w+)"/.exec(head.toString("utf8", 0, bytesRead))?.[1];
	} finally {
		await file.close();
	}
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * What one child call can believably cost: past it, a journal line was edited or corrupted, and taking it would make
 * every estimate from it meaningless (or `$Infinity` once added up). Such a value is left out like an unknown one.
 */
export const MAX_CALL_USD = 1000;
/** Tokens one child call can believably use (see `MAX_CALL_USD`). */
export const MAX_CALL_TOKENS = 1e9;

/** A finite, non-negative figure no larger than `max`. */
function plausible(value: unknown, max: number): value is number {
	return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= max;
}

/** The ids of the store's newest runs, newest first (ids sort by their start time), at most `max`, less `exclude`. */
export async function newestRunIds(store: RunStore, max: number, exclude?: string): Promise<string[]> {
	return (await readdir(store.dir).catch(() => [] as string[]))
		.filter((id) => isRunId(id) && id !== exclude)
		.sort()
		.reverse()
		.slice(0, max);
}
