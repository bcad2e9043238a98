/**
 * A run's report from its record on disk: reads `run.json`, the journal, the snapshot, the event log and the plan (never
 * taking the run's lock: a report of a running run shows what is recorded so far), builds the model, and writes the
 * HTML file (default: `report.html` in the run's folder) or gives the text.
 */
import { readFile, writeFile } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { errorMessage, isWorkflowError, WorkflowError } from "../errors.ts";
import { writeFileAtomic } from "../runs/files.ts";
import { parseJournal } from "../runs/journal-lines.ts";
import { readPlanFile } from "../runs/plan-file.ts";
import { summarizeRun } from "../runs/summary.ts";
import type { RunRecord, RunStore } from "../runs/types.ts";
import { changesOfRecord } from "./changes.ts";
import { readRunEvents } from "./event-log.ts";
import { renderReportHtml } from "./html.ts";
import { buildReportModel } from "./model.ts";
import { renderReportText } from "./text.ts";
import type { ReportDecided, ReportModel } from "./types.ts";

/** The report's file name in the run's folder. */
export const REPORT_FILE = "report.html";

/** The model of the run `runId` of `store`. Throws the store's coded errors for a run that cannot be opened. */
export async function loadRunReport(store: RunStore, runId: string): Promise<ReportModel> {
	return reportOfRecord(await store.open(runId));
}

/** The model of an opened record. */
export async function reportOfRecord(record: RunRecord): Promise<ReportModel> {
	const problems: string[] = [];
	const attempt = async <T>(what: string, read: () => Promise<T>): Promise<T | undefined> => {
		try {
			return await read();
		} catch (error) {
			problems.push(`${what}: ${isWorkflowError(error) ? error.message : errorMessage(error)}`);
			return undefined;
		}
	};
	const summary = await attempt("the run's status", () => summarizeRun(record.dir, record.id));
	const snapshot = await attempt("snapshot.json", () => record.readSnapshot());
	const bytes = await attempt("journal.jsonl", () =>
		readFile(join(record.dir, "journal.jsonl")).catch((error: NodeJS.ErrnoException) => {
			if (error.code === "ENOENT") return Buffer.alloc(0);
			throw error;
		}),
	);
	const journal = bytes ? parseJournal(bytes) : undefined;
	for (const problem of journal?.problems ?? [])
		problems.push(`journal.jsonl line ${problem.line}: ${problem.reason}`);
	const log = await attempt("events.jsonl", () => readRunEvents(record.dir));
	const plan = await readPlanFile(record.dir);
	const model = buildReportModel({
		info: record.info,
		status: summary?.status ?? snapshot?.status ?? "interrupted",
		...(snapshot ? { snapshot } : {}),
		journal: journal ? [...journal.entries.values()] : [],
		...(log ? { log } : {}),
		...(plan ? { plan } : {}),
		problems,
	});
	const changes = await attempt("the ledger of changes", () => changesOfRecord(record, log));
	if (changes) model.changes = changes;
	// The log names conversations relative to the run's folder; the report may be written anywhere (--out).
	for (const call of model.calls) {
		if (call.transcripts)
			call.transcripts = call.transcripts.map((path) => (isAbsolute(path) ? path : join(record.dir, path)));
	}
	return model;
}

/** Options of `writeRunReport`. */
export interface WriteReportOptions {
	/** Where to write the file, relative to `cwd`. Default: `report.html` in the run's folder. */
	out?: string;
	/** What `out` is relative to. Default: the process's cwd. */
	cwd?: string;
	/** What decided the run, from a blame: the page says it and marks those calls. Default: none. */
	decided?: ReportDecided;
}

/** Writes the HTML report of `runId`; resolves with the file's path and its model. */
export async function writeRunReport(
	store: RunStore,
	runId: string,
	options: WriteReportOptions = {},
): Promise<{ path: string; model: ReportModel; bytes: number }> {
	const record = await store.open(runId);
	const model = { ...(await reportOfRecord(record)), ...(options.decided ? { decided: options.decided } : {}) };
	const html = renderReportHtml(model);
	const path =
		options.out !== undefined ? resolve(options.cwd ?? process.cwd(), options.out) : join(record.dir, REPORT_FILE);
	try {
		if (options.out === undefined) await writeFileAtomic(path, html);
		else await writeFile(path, html);
	} catch (error) {
		throw new WorkflowError(
			"run_store",
			`Could not write the report of run ${runId} to ${path}: ${errorMessage(error)}. Pick another place with --out <file>`,
			{ details: { runId, path } },
		);
	}
	return { path, model, bytes: Buffer.byteLength(html) };
}

/** The `--text` timeline of `runId`. */
export async function runReportText(store: RunStore, runId: string, width?: number): Promise<string> {
	return renderReportText(await loadRunReport(store, runId), width !== undefined ? { width } : {});
}
