/**
 * How a `workflow` call and its result are drawn in pi's transcript: what the call runs (an inline script, a file,
 * a saved workflow, or the resume of a run, edited or not) and the run's one-line summary or its progress text.
 */
import type { AgentToolResult, Theme } from "@earendil-works/pi-coding-agent";
import { Text } from "@earendil-works/pi-tui";
import { formatWorkflowProgress, type WorkflowProgressDetails } from "../progress/index.ts";
import { visibleText } from "../progress/visible-text.ts";
import { dryRunPlanText } from "../runtime/index.ts";
import type { WorkflowCheckDetails } from "./check-result.ts";
import type { WorkflowDryRunDetails } from "./dry-run-result.ts";

/** The parameters of a call that say what it runs (the tool's own type would make an import cycle). */
export interface WorkflowCallArgs {
	script?: string;
	path?: string;
	name?: string;
	resume?: string;
	check?: boolean;
	dryRun?: boolean;
	background?: boolean;
}

/**
 * What a call runs, in words: "inline script (7 lines)", "path scripts/audit.js", "saved workflow audit",
 * "resume of run wf-… (its saved script)", "resume of run wf-… with an edited script (inline, 1 line)"; then
 * "check of …" and "· background" when asked. Arguments may still be streaming in, so every field may be missing.
 */
export function describeWorkflowCall(args: WorkflowCallArgs): string {
	const given = args.name ? `saved workflow ${args.name}` : args.path ? args.path : undefined;
	const inline = typeof args.script === "string" ? lineCount(args.script) : undefined;
	let text: string;
	if (args.resume) {
		const edited = given ?? (inline ? `inline, ${inline}` : undefined);
		text = `resume of run ${args.resume} ${edited ? `with an edited script (${edited})` : "(its saved script)"}`;
	} else {
		text = given ?? `inline script (${inline ?? "0 lines"})`;
	}
	if (args.check === true) text = `check of ${text}`;
	else if (args.dryRun === true) text = `dry run of ${text}`;
	if (args.background === true) text += " · background";
	return text;
}

/** The call's line: "workflow " and what it runs. */
export function renderWorkflowCall(args: WorkflowCallArgs, theme: Theme): Text {
	return new Text(
		`${theme.fg("toolTitle", theme.bold("workflow "))}${theme.fg("muted", visibleText(describeWorkflowCall(args)))}`,
		0,
		0,
	);
}

/** The result: a check's verdict, else the run's summary line, or its whole progress text when expanded. */
export function renderWorkflowResult(
	result: AgentToolResult<
		Partial<WorkflowProgressDetails> & Partial<WorkflowCheckDetails> & Partial<WorkflowDryRunDetails>
	>,
	expanded: boolean,
	theme: Theme,
): Text {
	const details = result.details;
	if (details && "check" in details && details.check) {
		const { ok, diagnostics } = details.check;
		const text = ok && diagnostics.length === 0 ? "check: no problems" : `check: ${diagnostics.length} problem(s)`;
		return new Text(theme.fg(ok ? "success" : "error", text), 0, 0);
	}
	if (details && "dryRun" in details && details.dryRun) {
		const plan = details.dryRun;
		const text = `dry run: ${plan.status}, ${plan.totals.agentCalls} agent call(s), widest fan-out ${plan.totals.widestFanOut}`;
		if (expanded) return new Text(visibleText(dryRunPlanText(plan)), 0, 0);
		return new Text(theme.fg(plan.status === "completed" ? "success" : "error", text), 0, 0);
	}
	if (!details?.envelope) return new Text(theme.fg("dim", "workflow: no details"), 0, 0);
	if (expanded) return new Text(formatWorkflowProgress(details.envelope), 0, 0);
	const status = details.envelope.status;
	const colour = status === "completed" ? "success" : status === "running" ? "accent" : "error";
	// The summary names the script's run and its error: shown, never acted on by the terminal.
	return new Text(theme.fg(colour, visibleText(details.summary ?? "")), 0, 0);
}

/** "1 line", "7 lines". */
function lineCount(script: string): string {
	const lines = script.split("\n").length;
	return `${lines} ${lines === 1 ? "line" : "lines"}`;
}
