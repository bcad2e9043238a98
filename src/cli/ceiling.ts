/**
 * A saved workflow's dollar ceiling (src/host/grants.ts) on the command line. `--max-cost N --grant` grants it to the
 * workflow's text, as a yes to pi's "Start anyway?" does. A later `run` of the same text given no `--max-cost` takes
 * the ceiling as its cap (a run given one keeps it); in pi, a run estimated over its cap but within the ceiling takes
 * it without asking. A changed byte has no ceiling: it was granted to the other text.
 */
import type { GrantedScript } from "../host/grants.ts";
import { WorkflowGrants } from "../host/grants.ts";
import { visibleText } from "../progress/visible-text.ts";
import { usdText } from "../runtime/core/cost.ts";
import { usageError } from "./args.ts";
import type { CliContext } from "./context.ts";

/** Refuses `--grant` without `--max-cost`, or on a file outside the saved folders (nothing is granted to it). */
export function checkCeilingGrant(source: GrantedScript, maxCostUsd: number | undefined): void {
	if (maxCostUsd === undefined) {
		throw usageError(
			"--grant grants the run's --max-cost as the workflow's dollar ceiling: give --max-cost too, like --max-cost 2 --grant",
		);
	}
	if (source.tier === undefined || source.tier === "inline") {
		throw usageError(
			`--grant grants to a saved workflow (in .pi/workflows or ~/.pi/agent/workflows, or installed): ${source.filename} is outside them, and nothing is granted to it`,
		);
	}
}

/** Grants `usd` to this version of the saved workflow, and says so on stderr. */
export function grantCliCeiling(
	source: GrantedScript,
	usd: number,
	ctx: Pick<CliContext, "cwd" | "agentDir" | "stderr"> & { projectTrusted: boolean },
): void {
	const grants = WorkflowGrants.of(source, ctx);
	if (!grants) return;
	grants.grantCeiling(usd);
	ctx.stderr.write(
		visibleText(
			`Note: granted ${grants.describe()} a dollar ceiling of ${usdText(usd)}: its runs without --max-cost take it as their cap, and its runs in pi estimated over their cap but within it take it without asking, until the file changes\n`,
		),
	);
}

/**
 * The cap of a new run given no `--max-cost`: the dollar ceiling granted to this very text, said on stderr; undefined
 * when there is none (after a changed byte, stderr says the ceiling was granted to the other text).
 */
export function grantedCliCeiling(
	source: GrantedScript,
	ctx: Pick<CliContext, "cwd" | "agentDir" | "stderr"> & { projectTrusted: boolean },
): number | undefined {
	const grants = WorkflowGrants.of(source, ctx);
	if (!grants) return undefined;
	const ceiling = grants.ceiling();
	if (ceiling !== undefined) {
		ctx.stderr.write(
			visibleText(
				`Note: capped at ${usdText(ceiling)}, the dollar ceiling granted to ${grants.describe()}; give --max-cost for another cap\n`,
			),
		);
		return ceiling;
	}
	const changed = grants.changedSince();
	const earlier = grants.stored()?.maxCostUsd;
	if (changed && earlier !== undefined) {
		ctx.stderr.write(
			visibleText(
				`Note: ${grants.describe()} changed since sha256 ${changed.sha256.slice(0, 12)} was granted a dollar ceiling of ${usdText(earlier)}; this run has no cap. Grant this version one with --max-cost <usd> --grant\n`,
			),
		);
	}
	return undefined;
}
