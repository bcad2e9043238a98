/**
 * One run's folder: `run.json` (what the run is), `script.js` (its script as a file, to read and edit for a resume),
 * `journal.jsonl`, `events.jsonl` (the event log), `snapshot.json`, `spend.json` (its cap and each session's spend), `lock`, and `children/` (the children's conversations).
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { WorkflowError } from "../errors.ts";
import type { WorkflowRunResult } from "../runtime/core/types.ts";
import { listConversations } from "./conversations.ts";
import { openEventLog, readEventLog } from "./event-log.ts";
import { parseJsonFile, readTextIfExists, storeError, writeFileAtomic } from "./files.ts";
import { openRunJournal } from "./journal.ts";
import { acquireRunLock } from "./lock.ts";
import { keepScriptVersion } from "./script-versions.ts";
import { readRunSpend, writeRunSpend } from "./spend.ts";
import type { RunInfo, RunRecord, RunSnapshot } from "./types.ts";

const STATUSES: readonly string[] = ["completed", "failed", "stopped"];

/** The name of the run's script file in its folder. */
export const SCRIPT_FILE = "script.js";

/** The record of the run in `dir`, described by `info`. */
export function runRecord(dir: string, initial: RunInfo): RunRecord {
	const id = initial.id;
	const snapshotPath = join(dir, "snapshot.json");
	const scriptPath = join(dir, SCRIPT_FILE);
	let info = initial;
	return {
		id,
		dir,
		scriptPath,
		get info() {
			return info;
		},
		async ensureScript() {
			if ((await readTextIfExists(scriptPath)) === undefined) await writeFileAtomic(scriptPath, info.script);
			return scriptPath;
		},
		async readScript() {
			return (await readTextIfExists(scriptPath)) ?? info.script;
		},
		async revise(source) {
			// The script the earlier sessions ran stays readable, so a report can show what the edit changed.
			if (source.script !== info.script) await keepScriptVersion(dir, info.script);
			await writeFileAtomic(scriptPath, source.script);
			info = {
				...info,
				script: source.script,
				...(source.filename !== undefined ? { filename: source.filename } : {}),
				...(source.tier !== undefined ? { tier: source.tier } : {}),
				...(source.args !== undefined ? { args: source.args } : {}),
				revisedAt: new Date().toISOString(),
			};
			await writeFileAtomic(join(dir, "run.json"), `${JSON.stringify(info, null, "\t")}\n`);
		},
		journal: () => openRunJournal(join(dir, "journal.jsonl"), id),
		acquire: () => acquireRunLock(dir, id),
		eventLog: (options) => openEventLog(dir, options),
		readEventLog: () => readEventLog(dir),
		conversations: () => listConversations(dir),
		async writeSnapshot(result: WorkflowRunResult, extra = {}): Promise<RunSnapshot> {
			const progress = typeof extra.progress === "string" ? { progress: extra.progress } : {};
			const snapshot: RunSnapshot = { ...result, runId: id, endedAt: new Date().toISOString(), ...progress };
			await writeFileAtomic(snapshotPath, `${JSON.stringify(snapshot, null, "\t")}\n`);
			return snapshot;
		},
		readSnapshot: () => readSnapshot(snapshotPath, id),
		readSpend: () => readRunSpend(dir, id),
		writeSpend: (spend) => writeRunSpend(dir, spend),
		async clearSnapshot() {
			try {
				await rm(snapshotPath, { force: true });
			} catch (error) {
				throw storeError(error, snapshotPath, "remove the old snapshot");
			}
		},
	};
}

/** Reads `run.json` in `dir`: undefined when there is none; `run_store` when it is not a run's. */
export async function readRunInfo(dir: string, runId: string): Promise<RunInfo | undefined> {
	const path = join(dir, "run.json");
	const text = await readTextIfExists(path);
	if (text === undefined) return undefined;
	const remedy = `Restore it, or delete the folder of run \`${runId}\``;
	const info = parseJsonFile(text, path, remedy) as Partial<RunInfo> | null;
	const valid =
		typeof info === "object" &&
		info !== null &&
		info.version === 1 &&
		info.id === runId &&
		typeof info.createdAt === "string" &&
		typeof info.cwd === "string" &&
		typeof info.script === "string";
	if (!valid) {
		throw new WorkflowError(
			"run_store",
			`${path} does not describe run \`${runId}\` (needs version 1, this id, createdAt, cwd and script). ${remedy}`,
			{ details: { runId, path } },
		);
	}
	return info as RunInfo;
}

async function readSnapshot(path: string, runId: string): Promise<RunSnapshot | undefined> {
	const text = await readTextIfExists(path);
	if (text === undefined) return undefined;
	const remedy = `Delete it to treat run \`${runId}\` as interrupted; its journal still holds the finished agents`;
	const snapshot = parseJsonFile(text, path, remedy) as Partial<RunSnapshot> | null;
	const valid =
		typeof snapshot === "object" &&
		snapshot !== null &&
		STATUSES.includes(snapshot.status as string) &&
		typeof snapshot.counts === "object" &&
		snapshot.counts !== null &&
		typeof snapshot.usage === "object" &&
		snapshot.usage !== null;
	if (!valid) {
		throw new WorkflowError(
			"run_store",
			`${path} is not a run snapshot (needs status, counts and usage). ${remedy}`,
			{ details: { runId, path } },
		);
	}
	return snapshot as RunSnapshot;
}
