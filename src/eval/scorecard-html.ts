/**
 * The scorecard as one self-contained HTML file (`eval --report`), built as strings in Node like the run report: no
 * script, nothing fetched (a CSP forbids it), every text from a case, an arm or a grader escaped. The verdicts with
 * their intervals drawn on one axis, the arms' figures, cost against pass rate per arm, and a cases × arms grid where
 * each trial is a mark linking to its run's report, the cases where the arms disagree first.
 */
import { clip, esc } from "../report/escape.ts";
import { blameLines, type EvalScorecard } from "./scorecard.ts";
import type { TrialRecord } from "./trials.ts";

export interface ScorecardHtmlOptions {
	/** Where a trial's run report is, for its mark's link; absent, the mark links nowhere. */
	reportHref?: (runId: string) => string | undefined;
}

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";
const PASS = "#2e8540";
const FAIL = "#c0392b";
const NONE = "#999";

export function renderScorecardHtml(card: EvalScorecard, options: ScorecardHtmlOptions = {}): string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<title>${esc(`Eval ${card.name}`)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}
table{border-collapse:collapse;margin:8px 0 20px}
td,th{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left}
.mark{display:inline-block;width:12px;height:12px;margin:1px;border-radius:2px}
.note{color:#666}
</style></head><body>
<h1>${esc(`Eval ${card.name}`)}</h1>
<p class="note">${esc(card.evalId)}: ${card.finished} of ${card.planned} trials. Spent: arms $${card.armsCostUsd.toFixed(4)}, grading $${card.gradingCostUsd.toFixed(4)}.${card.unfinished !== undefined ? ` Unfinished: ${esc(card.unfinished)}.` : ""}</p>
<h2>Verdicts</h2>
${verdicts(card)}
${blameSection(card)}<h2>Arms</h2>
${armsTable(card)}
<h2>Cost against pass rate</h2>
${costChart(card)}
<h2>Cases</h2>
<p class="note">Each mark is a trial (green passed, red failed, grey not graded), linking to its run's report. Cases where the arms disagree come first.</p>
${casesGrid(card, options)}
</body></html>
`;
}

/** The scorecard's blame lines: per arm which calls decided, then each failing trial's (as notes). */
function blameSection(card: EvalScorecard): string {
	if (!card.blame || card.blame.trials.length === 0) return "";
	const lines = blameLines(card.blame).map((line) =>
		line.startsWith("  ") ? `<p class="note">${esc(line.trim())}</p>` : `<p>${esc(line)}</p>`,
	);
	return `<h2>Blame</h2>\n${lines.join("\n")}\n`;
}

/** Each comparison's sentence and its interval on a −100…+100 point axis, the difference a dot, 0 a line. */
function verdicts(card: EvalScorecard): string {
	if (card.comparisons.length === 0) return `<p class="note">Only the baseline ran: nothing to compare.</p>`;
	const width = 400;
	const x = (fraction: number) => ((Math.max(-1, Math.min(1, fraction)) + 1) / 2) * width;
	const rows = card.comparisons.map((comparison) => {
		const [lo, hi] = comparison.interval;
		const colour = comparison.verdict === "better" ? PASS : comparison.verdict === "worse" ? FAIL : NONE;
		const svg = `<svg width="${width}" height="20" role="img" aria-label="${esc(comparison.text)}"><line x1="${x(0)}" y1="0" x2="${x(0)}" y2="20" stroke="#888"/><rect class="interval" x="${x(lo)}" y="7" width="${Math.max(x(hi) - x(lo), 1)}" height="6" fill="${colour}"/><circle cx="${x(comparison.difference)}" cy="10" r="4" fill="#222"/></svg>`;
		return `<tr class="verdict" data-verdict="${esc(comparison.verdict)}"><td>${svg}</td><td>${esc(comparison.text)}</td></tr>`;
	});
	return `<table>${rows.join("\n")}</table>`;
}

function armsTable(card: EvalScorecard): string {
	const rows = Object.entries(card.arms).map(([arm, a]) => {
		const cells = [
			arm === card.baseline ? `${arm} (baseline)` : arm,
			`${percent(a.passRate)} (${percent(a.passInterval[0])}–${percent(a.passInterval[1])})`,
			`${percent(a.passHatK)} (k=${a.k})`,
			`$${a.costUsd.toFixed(4)}`,
			a.costPerPass === null ? "–" : `$${a.costPerPass.toFixed(4)}`,
			a.medianDurationMs === null ? "–" : `${(a.medianDurationMs / 1000).toFixed(1)} s`,
		];
		return `<tr>${cells.map((cell) => `<td>${esc(cell)}</td>`).join("")}</tr>`;
	});
	const head = ["arm", "pass rate (95 %)", "pass^k", "cost", "cost/pass", "median time"];
	return `<table><tr>${head.map((cell) => `<th>${esc(cell)}</th>`).join("")}</tr>${rows.join("\n")}</table>`;
}

/** One dot per arm: cost per trial across, pass rate up. */
function costChart(card: EvalScorecard): string {
	const arms = Object.entries(card.arms);
	const most = Math.max(...arms.map(([, a]) => a.costPerTrial), 0);
	const [width, height, pad] = [400, 200, 30];
	const dots = arms.map(([arm, a]) => {
		const cx = pad + (most > 0 ? (a.costPerTrial / most) * (width - 2 * pad) : 0);
		const cy = height - pad - a.passRate * (height - 2 * pad);
		return `<g class="arm-dot"><circle cx="${cx}" cy="${cy}" r="5" fill="#3366cc"/><text x="${cx + 8}" y="${cy + 4}">${esc(clip(arm, 24))}</text></g>`;
	});
	return `<svg width="${width}" height="${height}" role="img" aria-label="cost per trial against pass rate"><line x1="${pad}" y1="${height - pad}" x2="${width - pad}" y2="${height - pad}" stroke="#888"/><line x1="${pad}" y1="${pad}" x2="${pad}" y2="${height - pad}" stroke="#888"/><text x="${pad}" y="${height - 8}">$0</text><text x="${width - pad - 60}" y="${height - 8}">$${most.toFixed(4)}/trial</text><text x="2" y="${pad}">100 %</text>${dots.join("")}</svg>`;
}

function casesGrid(card: EvalScorecard, options: ScorecardHtmlOptions): string {
	const arms =
		Object.keys(card.arms).length > 0 ? Object.keys(card.arms) : [...new Set(card.trials.map((t) => t.arm))];
	const byCase = new Map<string, TrialRecord[]>();
	for (const trial of card.trials) byCase.set(trial.caseId, [...(byCase.get(trial.caseId) ?? []), trial]);
	const rate = (trials: TrialRecord[], arm: string) => {
		const mine = trials.filter((trial) => trial.arm === arm);
		return mine.length === 0 ? 0 : mine.filter((trial) => trial.grade?.pass).length / mine.length;
	};
	const disagreement = (trials: TrialRecord[]) => {
		const rates = arms.map((arm) => rate(trials, arm));
		return Math.max(...rates) - Math.min(...rates);
	};
	// Stable: cases that agree keep the file's order.
	const cases = [...byCase.entries()].sort((a, b) => disagreement(b[1]) - disagreement(a[1]));
	const head = `<tr><th>case</th>${arms.map((arm) => `<th>${esc(arm)}</th>`).join("")}</tr>`;
	const rows = cases.map(([caseId, trials]) => {
		const cells = arms.map(
			(arm) =>
				`<td>${trials
					.filter((trial) => trial.arm === arm)
					.map((trial) => mark(trial, options))
					.join("")}</td>`,
		);
		return `<tr class="case" data-case="${esc(caseId)}"><td>${esc(clip(caseId, 60))}</td>${cells.join("")}</tr>`;
	});
	return `<table>${head}${rows.join("\n")}</table>`;
}

function mark(trial: TrialRecord, options: ScorecardHtmlOptions): string {
	const colour = trial.grade === undefined ? NONE : trial.grade.pass ? PASS : FAIL;
	const outcome = trial.grade === undefined ? "not graded" : trial.grade.pass ? "passed" : "failed";
	const title = `${trial.arm} on ${trial.caseId} #${trial.trial}: ${trial.status}, ${outcome}${trial.grade?.reason ? `: ${clip(trial.grade.reason, 200)}` : ""}${trial.runId ? ` (${trial.runId})` : ""}`;
	const box = `<span class="mark" data-outcome="${outcome}" style="background:${colour}" title="${esc(title)}"></span>`;
	const href = trial.runId !== undefined ? options.reportHref?.(trial.runId) : undefined;
	return href !== undefined ? `<a href="${esc(href)}">${box}</a>` : box;
}

function percent(fraction: number): string {
	return `${Math.round(fraction * 100)} %`;
}
