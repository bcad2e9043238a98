/** What `workflow({ …, check: true })` returns: every diagnostic of the static pass, as text and as details. */
import type { WorkflowDiagnostic } from "../authoring/index.ts";
import { formatDiagnostic } from "../authoring/index.ts";
import type { WorkflowCheckReport } from "../runtime/index.ts";

/** The details of a check: the script's name and every diagnostic (code, line:column, message, fix, frame). */
export interface WorkflowCheckDetails {
	check: { filename: string; ok: boolean; diagnostics: WorkflowDiagnostic[] };
}

/** Most diagnostics written out in the text, each with its code frame; the details keep all of them. */
const MAX_LISTED = 20;

export function workflowCheckResult(
	report: WorkflowCheckReport,
	filename: string,
): { content: Array<{ type: "text"; text: string }>; details: WorkflowCheckDetails } {
	const { diagnostics } = report;
	const errors = diagnostics.filter((diagnostic) => diagnostic.severity === "error").length;
	const head =
		diagnostics.length === 0
			? `${filename}: no problems found. Nothing ran (check only); run it without \`check\` to start it.`
			: `${filename}: ${count(errors, "error")}${diagnostics.length > errors ? `, ${count(diagnostics.length - errors, "warning")}` : ""}. Nothing ran (check only).`;
	const listed = diagnostics.slice(0, MAX_LISTED).map((diagnostic) => {
		return `${diagnostic.severity} ${diagnostic.code} at ${formatDiagnostic(diagnostic)}\n${diagnostic.frame}`;
	});
	const more = diagnostics.length > MAX_LISTED ? [`… and ${diagnostics.length - MAX_LISTED} more in details`] : [];
	return {
		content: [{ type: "text", text: [head, ...listed, ...more].join("\n\n") }],
		details: { check: { filename, ok: report.ok, diagnostics } },
	};
}

function count(n: number, what: string): string {
	return `${n} ${what}${n === 1 ? "" : "s"}`;
}
