/**
 * The timeline of one session as SVG, built as text in Node: a lane per agent call grouped by phase, time across;
 * each attempt a bar coloured by how it ended, the time in the queue drawn apart; phases, provider waits and
 * questions as bands, log entries as marks. A phase with more calls than `LANE_LIMIT` packs its calls into shared
 * rows (each row holds calls that did not overlap), so a 1,000-agent run stays a few hundred rows tall. The top rows
 * are bounded whatever the log holds: past `MARK_LIMIT` log entries in a session, entries close in time share one
 * mark (its title counts them), and phases, waits and questions past `BAND_LIMIT` are counted, not drawn. Every
 * string from a script or a model goes through `esc`.
 */

import { callNumber } from "../errors.ts";
import { formatDuration, oneLine } from "../progress/format.ts";
import { clip, esc } from "./escape.ts";
import { NO_PHASE } from "./model.ts";
import type { ReportCall, ReportLog, ReportSession } from "./types.ts";

/** Calls a phase draws one lane each for; more are packed. */
export const LANE_LIMIT = 60;

/** Log marks a session draws at most: up to this many entries get one each, more share one per slice of time. */
export const MARK_LIMIT = 200;

/** Phases, and waits and questions, a session draws at most (each row); the rest are counted in the row's name. */
export const BAND_LIMIT = 500;

/** Characters of a label, phase name or band text the drawing's titles keep. */
const TITLE_CHARS = 300;

const LABEL_W = 250;
const PLOT_W = 900;
const LANE_H = 16;
const BAR_H = 10;
const HEAD_H = 18;
const TOP_ROWS = 3;

/** Numbers as short as the drawing needs. */
function n(value: number): string {
	return String(Math.round(value * 10) / 10);
}

/** The session's timeline. */
export function timelineSvg(session: ReportSession, calls: readonly ReportCall[], logs: readonly ReportLog[]): string {
	const span = Math.max(1, session.end - session.start);
	const x = (time: number) =>
		LABEL_W + ((Math.min(Math.max(time, session.start), session.end) - session.start) / span) * PLOT_W;
	const out: string[] = [];
	let y = 0;
	// Row 1: phases; row 2: waits and questions; row 3: log marks.
	out.push(`<text class="row" x="4" y="${y + 12}">phases${notDrawn(session.phases.length)}</text>`);
	for (const phase of session.phases.slice(0, BAND_LIMIT)) {
		const w = Math.max(1, x(phase.end) - x(phase.start));
		out.push(
			`<rect class="phase" x="${n(x(phase.start))}" y="${y + 2}" width="${n(w)}" height="${LANE_H - 4}"><title>${esc(clip(phase.name, TITLE_CHARS))} · ${formatDuration(phase.end - phase.start)}</title></rect>`,
			`<text class="pl" x="${n(x(phase.start) + 3)}" y="${y + 12}">${esc(clip(phase.name, Math.max(1, Math.floor(w / 7))))}</text>`,
		);
	}
	y += LANE_H;
	out.push(`<text class="row" x="4" y="${y + 12}">waits, questions${notDrawn(session.bands.length)}</text>`);
	for (const band of session.bands.slice(0, BAND_LIMIT)) {
		const w = Math.max(2, x(band.end) - x(band.start));
		out.push(
			`<rect class="band ${band.kind}" x="${n(x(band.start))}" y="${y + 2}" width="${n(w)}" height="${LANE_H - 4}"><title>${band.kind === "wait" ? "provider wait" : "question"}: ${esc(clip(band.label, TITLE_CHARS))} · ${formatDuration(band.end - band.start)}</title></rect>`,
		);
	}
	y += LANE_H;
	const timed = logs.filter((log) => log.session === session.session && log.time !== undefined);
	out.push(
		`<text class="row" x="4" y="${y + 12}">log${timed.length > MARK_LIMIT ? ` (${timed.length} entries)` : ""}</text>`,
	);
	out.push(...logMarks(timed, x, y, session.start));
	y += LANE_H;
	const bandsTop = TOP_ROWS * LANE_H;
	for (const [phase, ids] of groupByPhase(session, calls)) {
		const group = ids.map((id) => calls[id]).filter((call): call is ReportCall => call !== undefined);
		const packed = group.length > LANE_LIMIT;
		const rows = packed ? pack(group) : group.map((call) => [call]);
		out.push(
			`<g class="group" data-phase="${esc(clip(phase, TITLE_CHARS))}"><rect class="gh" x="0" y="${y}" width="${LABEL_W + PLOT_W}" height="${HEAD_H}"/><text class="gt" x="4" y="${y + 13}">${esc(clip(phase, 60))} · ${group.length} ${group.length === 1 ? "call" : "calls"}${packed ? ` packed into ${rows.length} rows (hover a bar for its call)` : ""}</text></g>`,
		);
		y += HEAD_H;
		for (const row of rows) {
			const only = row.length === 1 && !packed ? row[0] : undefined;
			const attrs = only
				? ` class="lane${only.why ? " why" : ""}" data-c="${only.id}" data-key="${esc(clip(only.key, TITLE_CHARS))}" data-outcome="${only.outcome}"`
				: ` class="lane packed"`;
			const label = only
				? `<text class="ll" x="4" y="${y + 12}"><title>${esc(clip(only.label, TITLE_CHARS))} · ${esc(clip(only.agentType, TITLE_CHARS))}</title>${only.why ? "↻ " : ""}${callNumber(only.index)} ${esc(clip(only.label, 32))}</text>`
				: "";
			out.push(`<g${attrs}>${label}`);
			for (const call of row) {
				for (const bar of call.bars) {
					if (packed && bar.outcome === "queued") continue;
					const w = Math.max(bar.outcome === "replayed" ? 3 : 1.5, x(bar.end) - x(bar.start));
					const h = bar.outcome === "queued" ? BAR_H / 2 : BAR_H;
					const top = y + (LANE_H - h) / 2;
					out.push(
						`<rect class="b o-${bar.outcome}" x="${n(x(bar.start))}" y="${n(top)}" width="${n(w)}" height="${h}"${packed || !only ? ` data-c="${call.id}"` : ""}/>`,
					);
				}
			}
			out.push("</g>");
			y += LANE_H;
		}
	}
	const height = y + 22;
	const axis = ticks(span)
		.map((tick) => {
			const tx = LABEL_W + (tick / span) * PLOT_W;
			return `<line class="tick" x1="${n(tx)}" x2="${n(tx)}" y1="${bandsTop}" y2="${y}"/><text class="tt" x="${n(tx)}" y="${y + 14}">${formatDuration(tick)}</text>`;
		})
		.join("");
	return `<svg class="timeline" data-session="${session.session}" xmlns="http://www.w3.org/2000/svg" width="${LABEL_W + PLOT_W + 10}" height="${height}" viewBox="0 0 ${LABEL_W + PLOT_W + 10} ${height}">${axis}${out.join("")}</svg>`;
}

/** ` (N not drawn)` for a row of `count` items past `BAND_LIMIT`. */
function notDrawn(count: number): string {
	return count > BAND_LIMIT ? ` (${count - BAND_LIMIT} more not drawn)` : "";
}

const SEVERITY: readonly ReportLog["level"][] = ["info", "warn", "error"];

/**
 * The session's log marks: one per entry up to `MARK_LIMIT` entries; past it the plot is cut into `MARK_LIMIT`
 * slices of time and each slice with entries draws one mark, as severe as its most severe entry, whose title says
 * how many entries it stands for, their levels and span, and the first of the most severe (the table below lists
 * them). So a log of 100,000 lines draws at most `MARK_LIMIT` marks, not 100,000.
 */
function logMarks(timed: readonly ReportLog[], x: (time: number) => number, y: number, start: number): string[] {
	const mark = (cx: number, level: ReportLog["level"], title: string) =>
		`<path class="mark ${level}" d="M${n(cx)} ${y + 3}l4 9h-8z"><title>${title}</title></path>`;
	const text = (log: ReportLog) => `${log.level}: ${esc(clip(oneLine(log.message), TITLE_CHARS))}`;
	if (timed.length <= MARK_LIMIT) return timed.map((log) => mark(x(log.time ?? start), log.level, text(log)));
	const slice = PLOT_W / MARK_LIMIT;
	const buckets = new Map<number, ReportLog[]>();
	for (const log of timed) {
		const at = Math.min(MARK_LIMIT - 1, Math.floor((x(log.time ?? start) - LABEL_W) / slice));
		const bucket = buckets.get(at);
		if (bucket) bucket.push(log);
		else buckets.set(at, [log]);
	}
	return [...buckets].map(([at, entries]) => {
		if (entries.length === 1 && entries[0])
			return mark(x(entries[0].time ?? start), entries[0].level, text(entries[0]));
		const counts = new Map<ReportLog["level"], number>();
		let from = Number.POSITIVE_INFINITY;
		let to = Number.NEGATIVE_INFINITY;
		for (const log of entries) {
			counts.set(log.level, (counts.get(log.level) ?? 0) + 1);
			from = Math.min(from, log.time ?? start);
			to = Math.max(to, log.time ?? start);
		}
		const level = SEVERITY.findLast((candidate) => counts.has(candidate)) ?? "info";
		const levels = SEVERITY.filter((candidate) => counts.has(candidate))
			.reverse()
			.map((candidate) => `${counts.get(candidate)} ${candidate}`)
			.join(", ");
		const first = entries.find((log) => log.level === level) ?? entries[0];
		return mark(
			LABEL_W + (at + 0.5) * slice,
			level,
			`${entries.length} log entries (${levels}) from ${formatDuration(from - start)} to ${formatDuration(to - start)}; the first ${first ? text(first) : ""}`,
		);
	});
}

/** Children running (solid) and calls queued (dashed) over the session. */
export function runningSvg(session: ReportSession): string {
	const span = Math.max(1, session.end - session.start);
	const H = 80;
	const top = Math.max(1, ...session.running.map(([, running, queued]) => Math.max(running, queued)));
	const x = (time: number) => LABEL_W + ((time - session.start) / span) * PLOT_W;
	const y = (count: number) => 8 + (1 - count / top) * (H - 16);
	const path = (pick: (step: [number, number, number]) => number) => {
		let d = "";
		let last = 0;
		for (const step of session.running) {
			const value = pick(step);
			d += d === "" ? `M${n(x(step[0]))} ${n(y(value))}` : `H${n(x(step[0]))}V${n(y(value))}`;
			last = value;
		}
		return `${d}H${n(x(session.end))}V${n(y(last))}`;
	};
	return `<svg class="running" xmlns="http://www.w3.org/2000/svg" width="${LABEL_W + PLOT_W + 10}" height="${H}" viewBox="0 0 ${LABEL_W + PLOT_W + 10} ${H}"><text class="row" x="4" y="20">running children (max ${top})</text><text class="row q" x="4" y="36">- - queued calls</text><line class="tick" x1="${LABEL_W}" x2="${LABEL_W + PLOT_W}" y1="${n(y(0))}" y2="${n(y(0))}"/><path class="run-line" d="${path((s) => s[1])}"/><path class="queue-line" d="${path((s) => s[2])}"/></svg>`;
}

/** The session's calls by phase, phases in the order their first call came. */
function groupByPhase(session: ReportSession, calls: readonly ReportCall[]): Map<string, number[]> {
	const groups = new Map<string, number[]>();
	for (const id of session.calls) {
		const phase = calls[id]?.phase ?? NO_PHASE;
		const group = groups.get(phase) ?? [];
		group.push(id);
		groups.set(phase, group);
	}
	return groups;
}

/** Calls into rows where none overlaps the next, by when they started running. */
function pack(calls: readonly ReportCall[]): ReportCall[][] {
	const rows: { end: number; calls: ReportCall[] }[] = [];
	const running = (call: ReportCall) => call.bars.filter((bar) => bar.outcome !== "queued");
	const sorted = [...calls].sort((a, b) => (running(a)[0]?.start ?? 0) - (running(b)[0]?.start ?? 0));
	for (const call of sorted) {
		const bars = running(call);
		const start = bars[0]?.start ?? 0;
		const end = bars.at(-1)?.end ?? start;
		const row = rows.find((candidate) => candidate.end <= start);
		if (row) {
			row.calls.push(call);
			row.end = end;
		} else rows.push({ end, calls: [call] });
	}
	return rows.map((row) => row.calls);
}

/** Round steps across a span: about eight of them. */
function ticks(span: number): number[] {
	const steps = [
		100, 250, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000,
	];
	const step = steps.find((candidate) => span / candidate <= 8) ?? 7_200_000;
	const out: number[] = [];
	for (let t = 0; t <= span; t += step) out.push(t);
	return out;
}
