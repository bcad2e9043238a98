/**
 * `pi-workflows report <runId> --text`: the timeline in a terminal, for a person over SSH. One line per call, a bar
 * scaled to its session's length (`·` queued, then one character per outcome), then its outcome and time; the
 * header, the calls that ran again and why, and the census. Text from scripts and models is put on one line with
 * its control characters made visible (as every terminal view shows them), so it cannot move the cursor.
 */

import { callNumber } from "../errors.ts";
import { formatDuration, formatTokens, oneLine } from "../progress/format.ts";
import { visibleText } from "../progress/visible-text.ts";
import { clip } from "./escape.ts";
import { costText, whyText } from "./html.ts";
import { NO_PHASE } from "./model.ts";
import { plannedCostText, plannedPhaseText } from "./planned.ts";
import type { ReportBar, ReportCall, ReportModel } from "./types.ts";

/** Characters of the bar. Default for `renderReportText`. */
export const TEXT_BAR = 40;

/** What each outcome draws as. */
const MARKS: Record<ReportBar["outcome"], string> = {
	queued: "·",
	completed: "█",
	failed: "✗",
	stalled: "~",
	restarted: "↺",
	skipped: "-",
	stopped: "■",
	replayed: "=",
	running: "▒",
};

/** Options of `renderReportText`. */
export interface ReportTextOptions {
	/** Characters of each bar. Default: 40. */
	width?: number;
}

/** The compact timeline. */
export function renderReportText(model: ReportModel, options: ReportTextOptions = {}): string {
	const width = Math.max(10, options.width ?? TEXT_BAR);
	const lines: string[] = [];
	const cost = costText(model);
	lines.push(
		`${safe(model.name)} · ${model.runId} · ${model.status} · ${model.durationMs !== undefined ? formatDuration(model.durationMs) : "duration unknown"} · ${countsText(model)} of ${model.counts.calls} calls${model.counts.replayed ? ` (${model.counts.replayed} replayed)` : ""} · ${formatTokens(model.tokens)} tokens${cost ? ` · ${cost}` : ""} · ${model.attempts} ${model.attempts === 1 ? "attempt" : "attempts"}`,
	);
	lines.push(scriptText(model.script));
	for (const note of [...model.missing, ...model.problems]) lines.push(`! ${safe(note)}`);
	if (model.error) lines.push(`Error: ${safe(model.error)}`);
	lines.push(
		`Bars: ${Object.entries(MARKS)
			.map(([outcome, mark]) => `${mark} ${outcome}`)
			.join("  ")}`,
	);
	const labelWidth = Math.min(
		32,
		Math.max(8, ...model.calls.map((call) => safe(`${callNumber(call.index)} ${call.label}`).length)),
	);
	for (const session of model.sessions) {
		const span = Math.max(1, session.end - session.start);
		lines.push(
			"",
			`${session.resumed ? `Resume ${session.session - 1}` : "First run"} · ${session.status} · ${formatDuration(span)} · ${session.calls.length} calls`,
		);
		if (session.error) lines.push(`  Error: ${clip(safe(session.error), 200)}`);
		let phase: string | undefined;
		for (const id of session.calls) {
			const call = model.calls[id];
			if (!call) continue;
			const name = call.phase ?? NO_PHASE;
			if (name !== phase) {
				phase = name;
				lines.push(`  ${safe(name)}`);
			}
			const bar = barOf(call, session.start, span, width);
			lines.push(`    ${pad(safe(`${callNumber(call.index)} ${call.label}`), labelWidth)} ${bar} ${callTail(call)}`);
		}
	}
	if (model.sessions.length === 0) {
		for (const call of model.calls)
			lines.push(`    ${pad(safe(`${callNumber(call.index)} ${call.label}`), labelWidth)} ${callTail(call)}`);
	}
	if (model.planned) {
		lines.push("", `Planned against actual: ${safe(plannedCostText(model.planned))}`);
		for (const row of model.planned.phases) lines.push(`  ${safe(row.phase)}: ${safe(plannedPhaseText(row))}`);
	}
	const explained = model.calls.filter((call) => call.why);
	if (explained.length > 0) {
		lines.push("", "Why it ran again:");
		for (const call of explained) {
			if (call.why) lines.push(`  ${callNumber(call.index)} ${safe(call.label)}: ${safe(whyText(call.why))}`);
		}
	}
	if (model.census.length > 0) {
		lines.push("", "Census:");
		for (const failure of model.census) {
			lines.push(`  ✗ ${safe(failure.label ?? `${failure.kind}[${failure.index}]`)}: ${safe(failure.cause)}`);
		}
	}
	return `${lines.join("\n")}\n`;
}

/** The call's bar: each cell takes the outcome of the bar that covers most of it. */
function barOf(call: ReportCall, start: number, span: number, width: number): string {
	const cells = Array.from({ length: width }, () => " ");
	for (const bar of call.bars) {
		const from = Math.floor(((bar.start - start) / span) * width);
		const to = Math.max(from + 1, Math.round(((bar.end - start) / span) * width));
		for (let i = Math.max(0, from); i < Math.min(width, to); i++) cells[i] = MARKS[bar.outcome];
	}
	return `|${cells.join("")}|`;
}

function callTail(call: ReportCall): string {
	const ran =
		call.startedAt !== undefined && call.endedAt !== undefined
			? ` ${formatDuration(call.endedAt - call.startedAt)}`
			: "";
	const attempts = call.attempts > 1 ? ` · ${call.attempts} attempts` : "";
	const tokens = call.tokens ? ` · ${formatTokens(call.tokens)} tokens` : "";
	const error = call.error ? ` · ${clip(safe(call.error), 80)}` : "";
	const continues = call.continues
		? ` · continues ${callNumber(call.continues.index)} ${clip(safe(call.continues.label), 40)}`
		: "";
	const again = call.interrupted
		? ` · ↻ continued after an interruption at turn ${call.interrupted.turns + 1} (${formatTokens(call.interrupted.savedTokens)} tokens not paid again)`
		: call.why
			? " · ↻ ran again"
			: "";
	return `${call.outcome}${continues}${ran}${attempts}${tokens}${again}${error}`;
}

/** One line, its control characters shown as `^[` and the like (an escape sequence in a label cannot reach the terminal). */
function safe(text: string): string {
	return visibleText(oneLine(text));
}

function pad(text: string, width: number): string {
	const cut = clip(text, width);
	return cut + " ".repeat(Math.max(0, width - cut.length));
}

/** "2 completed, 0 failed, 1 stopped, 0 skipped": stopped apart from failed, as the widget and \`runs\` count them. */
function countsText(model: ReportModel): string {
	const { completed, failed, skipped } = model.counts;
	const stopped = model.calls.filter((call) => call.outcome === "stopped").length;
	const stoppedText = stopped > 0 ? `, ${stopped} stopped` : "";
	return `${completed} completed, ${failed - stopped} failed${stoppedText}, ${skipped} skipped`;
}

/** "Script: sha256 3f2a9c0b71de · tier project": the text the run starts from (12 hex digits) and where it came from. */
export function scriptText(script: ReportModel["script"]): string {
	return `Script: sha256 ${script.sha256.slice(0, 12)}${script.tier ? ` · tier ${script.tier}` : ""}`;
}
