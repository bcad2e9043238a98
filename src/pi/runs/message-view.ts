/**
 * How a background run's completion message is drawn in pi's transcript (the model reads its text; people get
 * this): a status line (mark, name, run id, status, agents, tokens, time), the first lines of the result, and on
 * expand the error, the census, kept branches, the resume call and where the whole result is.
 */
import type { MessageRenderer, Theme } from "@earendil-works/pi-coding-agent";
import { Box, Text } from "@earendil-works/pi-tui";
import { formatDuration, formatTokens } from "../../progress/format.ts";
import { visibleText } from "../../progress/visible-text.ts";
import type { WorkflowRunMessageDetails } from "./messages.ts";

/** Result lines shown before the message is expanded (one more rather than "… 1 more line"). */
const COLLAPSED_RESULT_LINES = 4;

type Status = WorkflowRunMessageDetails["status"];

const MARKS: Record<Status, { mark: string; colour: "success" | "error" | "warning" }> = {
	completed: { mark: "✓", colour: "success" },
	failed: { mark: "✗", colour: "error" },
	stopped: { mark: "■", colour: "warning" },
	// A background run's question: it waits for the person.
	running: { mark: "?", colour: "warning" },
};

/** pi's `MessageRenderer` for `workflow-run` messages; undefined (pi's plain rendering) for details it cannot read. */
export const renderRunMessage: MessageRenderer<WorkflowRunMessageDetails> = (message, options, theme) => {
	const details = message.details;
	if (!details || !(details.status in MARKS)) return undefined;
	const lines = runMessageLines(details, options.expanded, theme);
	const more = !options.expanded && hasMore(details);
	if (more) lines.push(theme.fg("dim", `(${options.keyHint("app.tools.expand", "to expand")})`));
	const box = new Box(options.outputPad, 1, (text) => theme.bg("customMessageBg", text));
	box.addChild(new Text(lines.join("\n"), 0, 0));
	return box;
};

/**
 * The message's lines, coloured by `theme`: the status line, then the result, then (expanded) the rest. Its texts
 * are the script's (name, result, failures): each is made visible before the theme paints it.
 */
export function runMessageLines(details: WorkflowRunMessageDetails, expanded: boolean, theme: Theme): string[] {
	const { mark, colour } = MARKS[details.status];
	const facts = [
		details.runId,
		details.status,
		details.agents,
		details.tokens ? `${formatTokens(details.tokens)} tokens` : undefined,
		details.durationMs !== undefined ? formatDuration(details.durationMs) : undefined,
	].filter((part) => part !== undefined && part !== "");
	// An old message (before these details) has only its summary to show.
	const head =
		details.agents === undefined
			? `${theme.fg(colour, mark)} ${visibleText(details.summary)}`
			: `${theme.fg(colour, mark)} ${theme.fg("toolTitle", theme.bold(visibleText(details.name ?? "workflow")))} ${theme.fg("muted", visibleText(facts.join(" · ")))}`;
	const lines = [head];
	const result = details.result ?? [];
	const total = details.resultLines ?? result.length;
	const shown = expanded ? result : result.slice(0, collapsedLines(total));
	for (const line of shown) lines.push(`  ${visibleText(line)}`);
	const hidden = total - shown.length;
	if (hidden > 0) lines.push(theme.fg("dim", `  … ${hidden} more line${hidden === 1 ? "" : "s"}`));
	if (details.error) lines.push(theme.fg("error", `  Error: ${visibleText(details.error)}`));
	if (!expanded) return lines;
	const section = (title: string, items: string[] | undefined, paint: (text: string) => string) => {
		if (!items || items.length === 0) return;
		lines.push(theme.fg("muted", title));
		for (const item of items) lines.push(`  ${paint(visibleText(item))}`);
	};
	section("Failures:", details.failures, (text) => theme.fg("error", text));
	section("Kept branches, to merge or delete:", details.branches, (text) => text);
	for (const line of details.next ?? []) lines.push(theme.fg("accent", visibleText(line)));
	if (details.snapshot) lines.push(theme.fg("dim", visibleText(`The whole result is in ${details.snapshot}`)));
	return lines;
}

/** True when expanding shows more than the collapsed message. */
function hasMore(details: WorkflowRunMessageDetails): boolean {
	return (
		(details.resultLines ?? 0) > collapsedLines(details.resultLines ?? 0) ||
		(details.failures?.length ?? 0) > 0 ||
		(details.branches?.length ?? 0) > 0 ||
		(details.next?.length ?? 0) > 0 ||
		details.snapshot !== undefined
	);
}

/** Result lines a collapsed message shows of `total`. */
function collapsedLines(total: number): number {
	return total <= COLLAPSED_RESULT_LINES + 1 ? total : COLLAPSED_RESULT_LINES;
}
