/**
 * `--max-cost N --grant`: the command line's way to grant a saved workflow's text a dollar ceiling (src/host/grants.ts),
 * as a yes to pi's "Start anyway?" does. The ceiling is for runs in pi: there a run of the same text estimated over
 * its cap but within the ceiling takes it as its cap without asking. A command-line run keeps the `--max-cost` given.
 */
import type { GrantedScript } from "../host/grants.ts";
import { WorkflowGrants } from "../host/grants.ts";
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
		`Note: granted ${grants.describe()} a dollar ceiling of ${usdText(usd)}: its runs in pi estimated over their cap but within it take it as their cap without asking, until the file changes\n`,
	);
}
