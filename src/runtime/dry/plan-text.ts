/** A dry run's plan as a person reads it: phases in order, totals, the returned shape, warnings. */
import { DEFAULT_MODEL, NO_PHASE, type WorkflowDryPhase, type WorkflowDryRunPlan } from "./plan.ts";

/** Said where a call names no model and the host has none to name (no credentials, or none was asked). */
export const DEFAULT_MODEL_TEXT = "(no model: would use pi's default)";

/** Said when `bash` ran for real: what it could and could not do. */
export const SANDBOXED_BASH_TEXT =
	"bash ran for real in a read-only sandbox (bubblewrap): it read the project; it wrote nothing outside a private /tmp and reached no network.";

export function dryRunPlanText(plan: WorkflowDryRunPlan): string {
	const lines = [`Dry run of ${plan.workflow}: no model was called, no file written, nothing recorded.`];
	if (plan.args === "sampled") {
		lines.push(
			"No args were given: the run used a sample value of the meta.args schema:",
			`  ${JSON.stringify(plan.sampledArgs).slice(0, 300)}`,
		);
	}
	if (plan.bash === "sandboxed" && plan.tools.some((step) => step.name === "bash" && step.ran)) {
		lines.push(SANDBOXED_BASH_TEXT);
	}
	lines.push("", "Phases:");
	plan.phases.forEach((phase, i) => {
		lines.push(`  ${i + 1}. ${phase.name}`, ...phaseLines(phase, plan));
	});
	if (plan.phases.length === 0) lines.push("  (none)");
	const t = plan.totals;
	const floor = plan.fencedBash ? "at least " : "";
	lines.push(
		"",
		`Totals: ${floor}${plural(t.agentCalls, "agent call")}, widest fan-out ${floor}${t.widestFanOut}, ${plural(t.toolsRun + t.toolsFenced, "tool step")} (${t.toolsRun} run, ${t.toolsFenced} fenced), ${plural(t.questions, "question")}`,
	);
	if (plan.fencedBash) lines.push(fencedBashText(plan.fencedBash));
	if (plan.draws) lines.push(...drawsText(plan.draws));
	if (t.worktreeCalls > 0) {
		lines.push(
			`${plural(t.worktreeCalls, "call")} with isolation "worktree": a real run gives each a git worktree and branch; this one made none`,
		);
	}
	for (const question of plan.questions) {
		lines.push(
			`Question #${question.index + 1}: ${question.question} → ${question.answer ?? "(no answer)"}${question.source ? ` (${question.source})` : ""}`,
		);
	}
	if (plan.returns !== undefined) lines.push(`Returns: ${plan.returns}`);
	if (t.agentCalls === 0 && !plan.fencedBash) lines.push(noCallText(plan));
	if (plan.status !== "completed") {
		lines.push(`The run ${plan.status}${plan.error ? ` (${plan.error.code}): ${plan.error.message}` : ""}`);
	}
	if (plan.warnings.length > 0) {
		lines.push("", "Warnings a real run would give:", ...plan.warnings.map((w) => `  - ${w}`));
	}
	return lines.join("\n");
}

/** Why a plan has no agent call: the value the script returned instead, and args it was given or made up. */
function noCallText(plan: WorkflowDryRunPlan): string {
	const returned =
		plan.returned !== undefined ? `the script returned ${plan.returned} before any` : "the script made none";
	const undeclared = plan.argsRead?.undeclared.map((name) => `args.${name}`).join(", ");
	const args = !plan.argsRead
		? ""
		: undeclared
			? `; it reads ${undeclared}, which its meta.args does not declare${plan.args === "given" ? "" : " (so a dry run cannot make them up)"}: pass them (--args, \`args\`) or declare them in meta.args`
			: plan.args === "sampled"
				? "; its args were a sample of meta.args (above): pass real ones if it chose its work from them"
				: plan.args === "none"
					? "; it reads args and was given none: pass them (--args, `args`)"
					: "";
	return `No agent call: ${returned}${args}`;
}

/** The counts over every draw of the stand-ins, when they differ, and the phases none reached. */
function drawsText(draws: NonNullable<WorkflowDryRunPlan["draws"]>): string[] {
	const lines: string[] = [];
	const { agentCalls: calls, widestFanOut: wide } = draws;
	if (calls.low !== calls.high || wide.low !== wide.high) {
		lines.push(
			`Over ${draws.count} draws of the made-up answers (typical, empty and long arrays, each enum value in turn): ${range(calls)} agent calls, widest fan-out ${range(wide)}`,
		);
	}
	if (draws.unreached.length > 0) {
		lines.push(
			`No draw reached the ${draws.unreached.length === 1 ? "phase" : "phases"} ${draws.unreached.join(", ")}`,
		);
	}
	if (draws.branches.length > 0) {
		const named = draws.branches.map(
			(b) =>
				`the ${b.kind === "case" ? "`case`" : `\`${b.kind}\` branch`} at ${b.line}:${b.column} (${plural(b.agentCalls, "agent() call")})`,
		);
		lines.push(`No draw reached ${named.join(", ")}: what they cost is not in this plan`);
	}
	return lines;
}

/** Where a fenced `bash` is: " at 12:3", " at 12:3 of `nested`", or nothing when the stack did not say. */
export function fencedBashSite(fenced: NonNullable<WorkflowDryRunPlan["fencedBash"]>): string {
	if (fenced.line === undefined || fenced.column === undefined) return "";
	return ` at ${fenced.line}:${fenced.column}${fenced.workflow ? ` of \`${fenced.workflow}\`` : ""}`;
}

function range({ low, high }: { low: number; high: number }): string {
	return low === high ? `${low}` : `${low}–${high}`;
}

/** What a fenced `bash` leaves unknown: the counts after it are floors. */
function fencedBashText(fenced: NonNullable<WorkflowDryRunPlan["fencedBash"]>): string {
	return `"at least": \`bash\` step #${fenced.index + 1} (${fenced.label})${fencedBashSite(fenced)} was fenced, so what it would list is unknown and the calls made over it are not counted; ${plural(fenced.callsBefore, "agent call")} before it are exact`;
}

function phaseLines(phase: WorkflowDryPhase, plan: WorkflowDryRunPlan): string[] {
	const lines: string[] = [];
	const fenced = plan.fencedBash?.phases.includes(phase.name) ? plan.fencedBash : undefined;
	const floor = fenced !== undefined;
	if (phase.agentCalls > 0) {
		const models = phase.models.map((m) => (m === DEFAULT_MODEL ? DEFAULT_MODEL_TEXT : m)).join(", ");
		const at = floor ? "at least " : "";
		const drawn = plan.draws?.phases[phase.name];
		const over = drawn && drawn.low !== drawn.high ? ` (${range(drawn)} over the draws)` : "";
		lines.push(
			`     ${at}${plural(phase.agentCalls, "agent call")}${over}, widest fan-out ${at}${phase.widestFanOut}; ${phase.agentTypes.join(", ")} on ${models}`,
		);
	} else if (fenced) {
		lines.push(`     at least 0 agent calls after the fenced \`bash\`${fencedBashSite(fenced)}`);
	}
	if (phase.toolsRun + phase.toolsFenced > 0) {
		const steps = plan.tools.filter((step) => (step.phase ?? NO_PHASE) === phase.name);
		const names = (ran: boolean) => [...new Set(steps.filter((s) => s.ran === ran).map((s) => s.name))].join(", ");
		const run = `${phase.toolsRun} run${phase.toolsRun > 0 ? ` (${names(true)})` : ""}`;
		const fenced = `${phase.toolsFenced} fenced, not run${phase.toolsFenced > 0 ? ` (${names(false)})` : ""}`;
		lines.push(`     ${plural(phase.toolsRun + phase.toolsFenced, "tool step")}: ${run}, ${fenced}`);
	}
	if (phase.questions > 0) lines.push(`     ${plural(phase.questions, "question")}`);
	if (lines.length === 0) lines.push("     nothing to do");
	return lines;
}

function plural(n: number, word: string): string {
	return `${n} ${word}${n === 1 ? "" : "s"}`;
}
