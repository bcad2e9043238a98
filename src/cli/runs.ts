/** `pi-workflows runs [--json]`: this project's run records, newest first, as `/workflows` lists them. */

import { RunRegistry } from "../pi/runs/registry.ts";
import { listRuns } from "../pi/runs/views.ts";
import { createRunStore } from "../runs/index.ts";
import { type FlagSpec, parseArgs, usageError } from "./args.ts";
import type { CliContext } from "./context.ts";

const RUNS_FLAGS: readonly FlagSpec[] = [{ name: "json" }];

export async function runsCommand(argv: readonly string[], ctx: CliContext): Promise<number> {
	const args = parseArgs(argv, RUNS_FLAGS, "runs");
	if (args.positionals.length > 0) throw usageError("`runs` takes no arguments: pi-workflows runs [--json]");
	const store = createRunStore({ cwd: ctx.cwd, root: `${ctx.agentDir}/workflow-runs` });
	if (args.flags.has("json")) {
		ctx.stdout.write(`${JSON.stringify(await store.list(), null, 2)}\n`);
		return 0;
	}
	// No live runs in this process: every run is the store's, and one held by another process says so.
	const rows = await listRuns(store, new RunRegistry());
	if (rows.length === 0) {
		ctx.stdout.write("No workflow runs in this project yet.\n");
		return 0;
	}
	ctx.stdout.write(
		`${rows.map((row) => row.text).join("\n")}\nResume one that failed or stopped: pi-workflows resume <runId>\n`,
	);
	return 0;
}
