/** The run report: a run's record and event log as one self-contained HTML file, or a compact text timeline. */
export {
	type BranchChanges,
	type CallChanges,
	type ChangeActor,
	type ChangeEntry,
	changesOfRecord,
	type FileChanges,
	foldChanges,
	type RunChanges,
	type SessionScript,
	whoChanged,
} from "./changes.ts";
export { changesText, pathText } from "./changes-text.ts";
export { type RunEventLog, readRunEvents } from "./event-log.ts";
export { renderReportHtml } from "./html.ts";
export { buildReportModel, type ReportInput } from "./model.ts";
export { renderReportText } from "./text.ts";
export type { ReportCall, ReportDecided, ReportModel, ReportOutcome, ReportSession, ReportWhy } from "./types.ts";
export {
	loadRunReport,
	REPORT_FILE,
	reportOfRecord,
	runReportText,
	type WriteReportOptions,
	writeRunReport,
} from "./write.ts";
