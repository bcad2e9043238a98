/**
 * The timeline of one session as SVG, built as text in Node: a lane per agent call grouped by phase, time across;
 * each attempt a bar coloured by how it ended, the time in the queue drawn apart; phases, provider waits and
 * questions as bands, log entries as marks. A phase with more calls than `LANE_LIMIT` packs its calls into shared
 * rows (each row holds calls that did not overlap), so a 1,000-agent run stays a few hundred rows tall. Every
 * string from a script or a model goes through `esc`.
 */
import { formatDuration, oneLine } from "../progress/format.ts";
import { clip, esc } from "./escape.ts";
import { NO_PHASE } from "./model.ts";
import type { ReportCall, ReportLog, ReportSession } from "./types.ts";

/** Calls a phase draws one lane each for; more are packed. */
export const LANE_LIMIT = 60;

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
	out.push(`<text class="row" x="4" y="${y + 12}">phases</text>`);
	for (const phase of session.phases) {
		const w = Math.max(1, x(phase.end) - x(phase.start));
		out.push(
			`<rect class="phase" x="${n(x(phase.start))}" y="${y + 2}" width="${n(w)}" height="${LANE_H - 4}"><title>${esc(phase.name)} · ${formatDuration(phase.end - phase.start)}</title></rect>`,
			`<text class="pl" x="${n(x(phase.start) + 3)}" y="${y + 12}">${esc(clip(phase.name, Math.max(1, Math.floor(w / 7))))}</text>`,
		);
	}
	y += LANE_H;
	out.push(`<text class="row" x="4" y="${y + 12}">waits, questions</text>`);
	for (const band of session.bands) {
		const w = Math.max(2, x(band.end) - x(band.start));
		out.push(
			`<rect class="band ${band.kind}" x="${n(x(band.start))}" y="${y + 2}" width="${n(w)}" height="${LANE_H - 4}"><title>${band.kind === "wait" ? "provider wait" : "question"}: ${esc(band.label)} · ${formatDuration(band.end - band.start)}</title></rect>`,
		);
	}
	y += LANE_H;
	out.push(`<text class="row" x="4" y="${y + 12}">log</text>`);
	for (const log of logs) {
		if (log.session !== session.session || log.time === undefined) continue;
		const cx = x(log.time);
		out.push(
			`<path class="mark ${log.level}" d="M${n(cx)} ${y + 3}l4 9h-8z"><title>${log.level}: ${esc(clip(oneLine(log.message), 300))}</title></path>`,
		);
	}
	y += LANE_H;
	const bandsTop = TOP_ROWS * LANE_H;
	for (const [phase, ids] of groupByPhase(session, calls)) {
		const group = ids.map((id) => calls[id]).filter((call): call is ReportCall => call !== undefined);
		const packed = group.length > LANE_LIMIT;
		const rows = packed ? pack(group) : group.map((call) => [call]);
		out.push(
			`<g class="group" data-phase="${esc(phase)}"><rect class="gh" x="0" y="${y}" width="${LABEL_W + PLOT_W}" height="${HEAD_H}"/><text class="gt" x="4" y="${y + 13}">${esc(clip(phase, 60))} · ${group.length} ${group.length === 1 ? "call" : "calls"}${packed ? ` packed into ${rows.length} rows (hover a bar for its call)` : ""}</text></g>`,
		);
		y += HEAD_H;
		for (const row of rows) {
			const only = row.length === 1 && !packed ? row[0] : undefined;
			const attrs = only
				? ` class="lane${only.why ? " why" : ""}" data-c="${only.id}" data-key="${esc(only.key)}" data-outcome="${only.outcome}"`
				: ` class="lane packed"`;
			const label = only
				? `<text class="ll" x="4" y="${y + 12}"><title>${esc(only.label)} · ${esc(only.agentType)}</title>${only.why ? "↻ " : ""}#${only.index} ${esc(clip(only.label, 32))}</text>`
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
