/**
 * The report as one self-contained HTML page: the header, each session's timeline and running children, tokens and
 * cost by phase, "why it ran again", the census and the log. Nothing is fetched (a Content-Security-Policy forbids
 * it too); every string from a script or a model is escaped text, and the detail box fills itself with
 * `textContent` from JSON data.
 */

import { callNumber } from "../errors.ts";
import { formatCost } from "../progress/cost-text.ts";
import { formatDuration, formatTokens, oneLine } from "../progress/format.ts";
import { changesSection } from "./changes-html.ts";
import { clip, esc, scriptJson } from "./escape.ts";
import { OUTCOME_COLOURS, pageScript, pageStyle } from "./page-assets.ts";
import { plannedCostText, plannedPhaseText } from "./planned.ts";
import { spendText } from "./spend.ts";
import { runningSvg, timelineSvg } from "./svg.ts";
import {
	OUTCOMES,
	type ReportCall,
	type ReportModel,
	type ReportOutcome,
	type ReportSessionStatus,
	type ReportWhy,
} from "./types.ts";

/** Log entries, and census rows, the page lists; the rest are counted. */
export const LOG_ROWS = 2000;

/** Characters of one log message, census cause, error or reason the page shows (the event log has all of it). */
export const TEXT_CHARS = 1000;

/** Characters of a label, agent type or model the page shows. */
const NAME_CHARS = 300;

/** `text` cut to `TEXT_CHARS`, saying how long it was. */
function long(text: string): string {
	return text.length > TEXT_CHARS ? `${text.slice(0, TEXT_CHARS - 1)}… (${text.length} characters)` : text;
}

/** The outcome whose colour a session's status takes. */
const SESSION_COLOURS: Record<ReportSessionStatus, ReportOutcome> = {
	completed: "completed",
	failed: "failed",
	stopped: "stopped",
	interrupted: "stopped",
	running: "running",
};

/** The whole page. */
export function renderReportHtml(model: ReportModel): string {
	const title = `${model.name} · ${model.runId}`;
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${pageStyle()}</style></head>
<body><main>
${header(model)}
${decidedSection(model)}
${legend()}
${sessions(model)}
${phaseTable(model)}
${plannedSection(model)}
${whySection(model)}
${changesSection(model.changes)}
${censusSection(model)}
${logSection(model)}
</main><div id="detail" role="dialog" aria-live="polite"></div>
<script type="application/json" id="report-data">${scriptJson(details(model.calls, model.decided?.labels))}</script>
<script>${pageScript()}</script>
</body></html>
`;
}

const DECISIVE = "decisive: with the passing run's answer here instead, the run passes";

/** What decided a failed run (a blame's sentence) and its decisive calls, first thing under the header. */
function decidedSection(model: ReportModel): string {
	if (!model.decided) return "";
	const { text, labels } = model.decided;
	const calls = model.calls.filter((call) => labels.includes(call.label) && call.outcome !== "replayed");
	const rows = calls
		.map(
			(call) =>
				`<tr class="decisive" data-c="${call.id}"><td>${callNumber(call.index)} ${esc(clip(call.label, NAME_CHARS))}</td><td>${esc(DECISIVE)}</td></tr>`,
		)
		.join("");
	return `<h2>What decided it</h2><p class="sub">${esc(text)}</p>${rows ? `<table id="decided"><tr><th>call</th><th>blame</th></tr>${rows}</table>` : ""}`;
}

function header(model: ReportModel): string {
	const tally = new Map<string, number>();
	for (const call of model.calls) tally.set(call.outcome, (tally.get(call.outcome) ?? 0) + 1);
	const chips = OUTCOMES.filter((outcome) => tally.has(outcome))
		.map(
			(outcome) =>
				`<span class="chip o-${outcome}" data-outcome="${outcome}">${tally.get(outcome)} ${outcome}</span>`,
		)
		.join("");
	const stat = (name: string, value: string) => `<span>${name} <b>${value}</b></span>`;
	const notes = [
		...model.missing.map((text) => `<div class="note missing">${esc(text)}</div>`),
		...model.problems.map((text) => `<div class="note problem">Could not read: ${esc(text)}</div>`),
	].join("");
	return `<header><h1>${esc(model.name)}</h1>
<div class="sub">Run ${esc(model.runId)} · created ${esc(model.createdAt)}${model.endedAt ? ` · ended ${esc(model.endedAt)}` : ""} · script sha256 <code id="script-sha256" title="${esc(model.script.sha256)}">${esc(model.script.sha256.slice(0, 12))}</code>${model.script.tier ? ` · tier <span id="script-tier">${esc(model.script.tier)}</span>` : ""}</div>
<div class="stats">${stat("status", `<span id="status">${esc(model.status)}</span>`)}${stat("duration", model.durationMs !== undefined ? formatDuration(model.durationMs) : "unknown")}${stat("agents", `<span id="calls">${esc(callsText(model))}</span>`)}<span id="outcomes">${chips}</span>${stat("tokens", formatTokens(model.tokens))}${stat("cost", `<span id="cost">${esc(costText(model) ?? "—")}</span>`)}</div>
${model.error ? `<div class="note problem">Error: ${esc(model.error)}</div>` : ""}${notes}</header>`;
}

/**
 * "10 calls, 8 attempts in 2 sessions (1 resume)": every session's calls (a lane each; the phase table and each
 * session's heading count the same), and the agent attempts they made. For the header and `--text`.
 */
export function callsText(model: ReportModel): string {
	const calls = model.calls.length;
	const sessions = model.sessions.length;
	const resumes = Math.max(0, sessions - 1);
	const where =
		sessions > 0
			? ` in ${sessions} ${sessions === 1 ? "session" : "sessions"}${resumes > 0 ? ` (${resumes} ${resumes === 1 ? "resume" : "resumes"})` : ""}`
			: "";
	return `${calls} ${calls === 1 ? "call" : "calls"}, ${model.attempts} ${model.attempts === 1 ? "attempt" : "attempts"}${where}`;
}

/**
 * "$0.12 + unknown for 2 calls; replayed calls had cost $0.30": what the calls that ran cost (the phase rows add
 * up to it), then what the replays had cost when they ran, left out when they had cost nothing known or unknown.
 * Undefined when no call reported a cost at all (a runner that does not price).
 */
export function costText(model: ReportModel): string | undefined {
	if (!model.calls.some((call) => call.cost)) return undefined;
	const spent = spendText(model.cost, model.unknownCostCalls);
	const replayed =
		model.replayedCost.usd > 0 || model.replayedUnknownCostCalls > 0
			? `; replayed calls had cost ${spendText(model.replayedCost, model.replayedUnknownCostCalls)}`
			: "";
	return spent + replayed;
}

function legend(): string {
	const items = [...OUTCOMES, "queued" as const]
		.map((outcome) => `<span><i style="background:${OUTCOME_COLOURS[outcome]}"></i>${outcome}</span>`)
		.join("");
	return `<div class="legend">${items}<span>↻ ran again in a resume (see below)</span></div>`;
}

function sessions(model: ReportModel): string {
	if (model.sessions.length === 0) {
		const rows = model.calls
			.map(
				(call) =>
					`<tr class="call" data-c="${call.id}" data-outcome="${call.outcome}"><td>${callNumber(call.index)}</td><td>${esc(call.label)}</td><td>${esc(call.agentType)}</td><td><span class="chip o-${call.outcome}">${call.outcome}</span></td><td class="num">${formatTokens(call.tokens ?? 0)}</td></tr>`,
			)
			.join("");
		return `<h2>Calls</h2><table><tr><th>#</th><th>label</th><th>agent type</th><th>outcome</th><th>tokens</th></tr>${rows}</table>`;
	}
	return model.sessions
		.map((session) => {
			const name = session.resumed ? `Resume ${session.session - 1}` : `Session ${session.session}: the first run`;
			const error = session.error ? `<div class="note problem">Error: ${esc(long(session.error))}</div>` : "";
			return `<section class="session" data-session="${session.session}" data-status="${session.status}"><h2>${name} <span class="chip o-${SESSION_COLOURS[session.status]}">${session.status}</span></h2>
<div class="sub">${new Date(session.start).toISOString()} · ${formatDuration(session.end - session.start)} · ${session.calls.length} calls</div>${error}
${timelineSvg(session, model.calls, model.logs)}${runningSvg(session)}</section>`;
		})
		.join("\n");
}

/** The plan against the run, per phase: as planned, outside the plan, never ran; the estimate against the cost. */
function plannedSection(model: ReportModel): string {
	const { planned } = model;
	if (!planned) return "";
	const rows = planned.phases
		.map(
			(row) =>
				`<tr data-phase="${esc(row.phase)}"><td>${esc(row.phase)}</td><td class="num">${row.planned}</td><td class="num">${row.ran}</td><td class="num">${row.asPlanned}</td><td class="num o-outside">${row.outside}</td><td class="num o-never">${row.neverRan}</td><td>${esc(plannedPhaseText(row))}</td></tr>`,
		)
		.join("");
	return `<h2>Planned against actual</h2><p class="sub" id="planned-cost">${esc(plannedCostText(planned))}</p><table id="planned"><tr><th>phase</th><th>planned</th><th>ran</th><th>as planned</th><th>outside the plan</th><th>planned, never ran</th><th>in words</th></tr>${rows}</table>`;
}

function phaseTable(model: ReportModel): string {
	const top = Math.max(1, ...model.phases.map((phase) => phase.tokens));
	const rows = model.phases
		.map(
			(phase) =>
				`<tr><td>${esc(phase.phase)}</td><td class="num">${phase.calls}</td><td class="num">${formatTokens(phase.tokens)} <span class="bar" style="width:${Math.round((phase.tokens / top) * 160)}px"></span></td><td class="num">${esc(spendText(phase.cost, phase.unknownCalls))}</td><td class="num">${phase.replayedCost.usd > 0 || phase.replayedUnknownCalls > 0 ? esc(spendText(phase.replayedCost, phase.replayedUnknownCalls)) : "—"}</td></tr>`,
		)
		.join("");
	return `<h2>Tokens and cost by phase</h2><table id="phases"><tr><th>phase</th><th>calls</th><th>tokens</th><th>cost</th><th>replayed calls had cost</th></tr>${rows}</table>`;
}

function whySection(model: ReportModel): string {
	const explained = model.calls.filter((call) => call.why);
	if (explained.length === 0) return "";
	const rows = explained
		.map((call) => {
			const why = call.why as ReportWhy;
			return `<tr class="why-row" data-c="${call.id}" data-key="${esc(call.key)}" data-kind="${why.kind}"><td>Resume ${call.session - 1}</td><td>${callNumber(call.index)} ${esc(clip(call.label, NAME_CHARS))}</td><td>${whyHtml(why)}</td></tr>`;
		})
		.join("");
	return `<h2>Why it ran again</h2><p class="sub">Each call a resume ran instead of replaying from the journal: the nearest recorded call it did not match, and what differs. A call replays only when its prompt, agent type, schema, model, thinking, tools and isolation are byte for byte the recorded ones.</p><table id="why"><tr><th>session</th><th>call</th><th>why</th></tr>${rows}</table>`;
}

function whyHtml(why: ReportWhy): string {
	if (why.kind === "new") return "new call: no recorded call is near it";
	const nearest = why.nearest
		? `nearest recorded call: <b>${esc(clip(why.nearest.label, NAME_CHARS))}</b>${why.nearest.index !== undefined ? ` (${callNumber(why.nearest.index)} then)` : ""}<br>`
		: "";
	const diff = why.diff
		? `<pre class="diff">${esc(why.diff.same)}<del>${esc(why.diff.recorded)}</del><ins>${esc(why.diff.now)}</ins></pre>`
		: "";
	return `${nearest}${why.differences.map((text) => esc(long(text))).join("<br>")}${diff}`;
}

/** The why as one line of text, for the detail box and `--text`. */
export function whyText(why: ReportWhy): string {
	if (why.kind === "new") return "new call: no recorded call is near it";
	const nearest = why.nearest
		? `nearest recorded call ${clip(why.nearest.label, NAME_CHARS)}${why.nearest.index !== undefined ? ` (${callNumber(why.nearest.index)} then)` : ""}: `
		: "";
	return `${nearest}${why.differences.map(long).join("; ")}`;
}

function censusSection(model: ReportModel): string {
	if (model.census.length === 0) return `<h2>Census</h2><p class="sub">No agent or slot gave null.</p>`;
	const rows = model.census
		.slice(0, LOG_ROWS)
		.map(
			(failure) =>
				`<tr><td>${failure.kind}[${failure.index}]</td><td>${esc(clip(failure.label ?? "", NAME_CHARS))}</td><td>${esc(clip(failure.phase ?? "", NAME_CHARS))}</td><td><pre>${esc(long(failure.cause))}</pre></td><td>${esc(failure.code ?? "")}</td><td>${failure.line !== undefined ? esc(clip(`${failure.filename ?? ""}:${failure.line}:${failure.column ?? 0}`, NAME_CHARS)) : ""}</td></tr>`,
		)
		.join("");
	const more =
		model.census.length > LOG_ROWS ? `<p class="sub">… and ${model.census.length - LOG_ROWS} more failures</p>` : "";
	return `<h2>Census</h2><table id="census"><tr><th>what</th><th>label</th><th>phase</th><th>cause</th><th>code</th><th>where</th></tr>${rows}</table>${more}`;
}

function logSection(model: ReportModel): string {
	if (model.sessions.length === 0) return "";
	const rows = model.logs
		.slice(0, LOG_ROWS)
		.map((log) => {
			const session = model.sessions.find((candidate) => candidate.session === log.session);
			const at = log.time !== undefined && session ? formatDuration(log.time - session.start) : "";
			return `<tr class="log ${log.level}"><td>${log.session}</td><td class="num">${at}</td><td>${log.level}</td><td>${esc(clip(log.phase ?? "", NAME_CHARS))}</td><td><pre>${esc(long(log.message))}</pre></td></tr>`;
		})
		.join("");
	const more =
		model.logs.length > LOG_ROWS ? `<p class="sub">… and ${model.logs.length - LOG_ROWS} more entries</p>` : "";
	return `<h2>Log</h2><table id="log"><tr><th>session</th><th>at</th><th>level</th><th>phase</th><th>message</th></tr>${rows}</table>${more}`;
}

/**
 * Every call's detail; a replayed call names the call that ran (`ref`) instead of repeating its prompt and answer,
 * which keeps a resumed 1,000-agent run's file about half the size.
 */
function details(calls: readonly ReportCall[], decisive: readonly string[] = []): Record<string, string>[] {
	const ran = new Map<string, number>();
	return calls.map((call) => {
		const source = call.outcome === "replayed" ? ran.get(call.key) : undefined;
		if (call.outcome === "completed") ran.set(call.key, call.id);
		if (source === undefined) {
			const detail = detailOf(call);
			return decisive.includes(call.label) ? { ...detail, decided: DECISIVE } : detail;
		}
		const own = detailOf(call);
		return {
			ref: String(source),
			outcome: own.outcome ?? "replayed",
			attempts: "0",
			...(own.cost ? { cost: own.cost } : {}),
		};
	});
}

/** What the detail box shows of a call (all plain strings: the box writes them as text). */
function detailOf(call: ReportCall): Record<string, string> {
	const out: Record<string, string> = {
		label: `${callNumber(call.index)} ${clip(call.label, NAME_CHARS)}`,
		type: clip(call.agentType, NAME_CHARS),
		outcome: call.outcome,
		attempts: String(call.attempts),
	};
	if (call.model) out.model = clip(call.model, NAME_CHARS);
	if (call.continues) out.continues = `${callNumber(call.continues.index)} ${clip(call.continues.label, NAME_CHARS)}`;
	if (call.phase) out.phase = clip(call.phase, NAME_CHARS);
	if (call.startedAt !== undefined && call.endedAt !== undefined) {
		const queued = call.queuedAt !== undefined ? call.startedAt - call.queuedAt : 0;
		out.time = `${formatDuration(call.endedAt - call.startedAt)} running${queued > 0 ? `, ${formatDuration(queued)} queued` : ""}`;
	}
	if (call.tokens !== undefined) out.tokens = String(call.tokens);
	if (call.cost)
		out.cost = `${formatCost(call.cost)}${call.outcome === "replayed" ? " (when it ran; replayed for free)" : ""}`;
	if (call.toolUses !== undefined) out.tools = String(call.toolUses);
	if (call.prompt) out.prompt = clip(call.prompt.split("\n").slice(0, 6).join("\n"), 300);
	if (call.answer) out.answer = clip(call.answer, 300);
	const notes = call.bars
		.filter((bar) => bar.note && bar.note !== call.error)
		.map((bar) => `${bar.outcome}: ${long(oneLine(bar.note ?? ""))}`);
	if (call.error || notes.length > 0) out.error = [...notes, ...(call.error ? [long(call.error)] : [])].join("\n");
	if (call.branch) out.branch = clip(call.branch, NAME_CHARS);
	if (call.transcripts) {
		out.transcript = `${call.transcripts.join("\n")}\n(a pi session file: pi --session <path> opens it)`;
	}
	if (call.why) out.why = whyText(call.why);
	return out;
}
