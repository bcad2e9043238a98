/** Blame in words: the one-line verdict (the eval's scorecard uses it too) and the per-call lines of the command. */

import { callNumber } from "../../errors.ts";
import type { BlamedCall, BlameReport } from "./blame.ts";

/** "failed because of `draft`: swapping its answer passes; `research`, `check` did not matter". */
export function blameSentence(report: BlameReport): string {
	if (report.problem) return `nothing blamed: ${report.problem}`;
	const decisive = report.calls.filter((call) => call.effect === "decisive");
	const untestable = report.calls.filter((call) => call.effect === "not testable");
	const others = report.calls.filter((call) => call.effect === "not decisive");
	const parts: string[] = [];
	if (decisive.length > 0 && report.dry) {
		parts.push(`a dry-run answer in place of ${names(decisive)} passes`);
	} else if (decisive.length > 0) {
		parts.push(
			`failed because of ${names(decisive)}: swapping ${decisive.length === 1 ? "its answer" : "any one's answer"} passes`,
		);
	} else if (report.pairs && report.pairs.decisive.length > 0) {
		const pairs = report.pairs.decisive.map(([a, b]) => `\`${a}\` + \`${b}\``).join(", ");
		parts.push(`no single call decided it; swapping the pair ${pairs} together passes`);
	} else {
		const tried = report.pairs ? `, nor any pair of ${names(report.pairs.among.map((label) => ({ label })))}` : "";
		parts.push(`no single swap passes${tried}`);
	}
	if (others.length > 0) parts.push(`${names(others)} did not matter`);
	if (untestable.length > 0) parts.push(`${names(untestable)} not testable`);
	return parts.join("; ");
}

/** The command's text: the verdict, then one line a call, the pair search, what it cost. */
export function blameText(report: BlameReport): string {
	const against = report.passingRunId
		? `against passing run ${report.passingRunId}`
		: "with a dry-run answer for each call (no passing run: this shows only whether a call's shape matters; --with a passing run says more)";
	const lines = [`Run ${report.failedRunId} ${against}: ${blameSentence(report)}`];
	for (const call of report.calls) lines.push(`  ${callLine(call)}`);
	if (report.pairs) {
		const found = report.pairs.decisive.map(([a, b]) => `${a} + ${b}`).join(", ") || "none passes";
		lines.push(
			`  pairs (no single swap passed): ${report.pairs.tried} tried among ${report.pairs.among.join(", ") || "no changed calls"}: ${found}`,
		);
	}
	const cost = report.gradeCostUsd > 0 ? `; grading cost $${report.gradeCostUsd.toFixed(4)}` : "";
	lines.push(`No child started and no tool ran${cost}.`);
	return `${lines.join("\n")}\n`;
}

const MARK: Record<BlamedCall["effect"], string> = { decisive: "✗", "not decisive": "·", "not testable": "?" };

function callLine(call: BlamedCall): string {
	const how = call.match ? `, matched by ${call.match}` : "";
	const change = call.change !== undefined ? `, answer ${Math.round(call.change * 100)}% changed` : "";
	return `${MARK[call.effect]} ${callNumber(call.index)} ${call.label}: ${call.effect}${how}${change}. ${call.why}`;
}

function names(calls: readonly Pick<BlamedCall, "label">[]): string {
	return [...new Set(calls.map((call) => `\`${call.label}\``))].join(", ");
}
