/** The run report: a run's record and event log as one self-contained HTML file, or a compact text timeline. */
export { type RunEventLog, readRunEvents } from "./event-log.ts";
export { renderReportHtml } from "./html.ts";
export { buildReportModel, type ReportInput } from "./model.ts";
export { renderReportText } from "./text.ts";
export type { ReportCall, ReportModel, ReportOutcome, ReportSession, ReportWhy } from "./types.ts";
export {
	loadRunReport,
	REPORT_FILE,
	reportOfRecord,
	runReportText,
	type WriteReportOptions,
	writeRunReport,
} from "./write.ts";
