/** `pi-workflows report <runId> [--out <file>] [--text]`: a run's timeline as one HTML file, or in the terminal. */
import { runReportText, writeRunReport } from "../report/index.ts";
import { createRunStore } from "../runs/index.ts";
import { type FlagSpec, flagValue, integerFlag, parseArgs, usageError } from "./args.ts";
import type { CliContext } from "./context.ts";

const REPORT_FLAGS: readonly FlagSpec[] = [
	{ name: "out", short: "o", value: true },
	{ name: "text" },
	{ name: "width", value: true },
];

export async function reportCommand(argv: readonly string[], ctx: CliContext): Promise<number> {
	const args = parseArgs(argv, REPORT_FLAGS, "report");
	const [runId, ...extra] = args.positionals;
	if (runId === undefined || extra.length > 0) {
		throw usageError(
			"`report` takes one run id: pi-workflows report <runId> [--out <file>] [--text] (pi-workflows runs lists them)",
		);
	}
	const store = createRunStore({ cwd: ctx.cwd, root: `${ctx.agentDir}/workflow-runs` });
	if (args.flags.has("text")) {
		if (args.flags.has("out")) throw usageError("--text prints the timeline; give --out only for the HTML file");

		ctx.stdout.write(await runReportText(store, runId, integerFlag(args, "width", 10, 400)));
		return 0;
	}
	const out = flagValue(args, "out");
	const written = await writeRunReport(store, runId, { cwd: ctx.cwd, ...(out !== undefined ? { out } : {}) });
	ctx.stdout.write(`${written.path}\n`);
	ctx.stderr.write(
		`Report of run ${runId} (${written.model.calls.length} calls, ${Math.ceil(written.bytes / 1024)} KiB): open it in a browser; it fetches nothing.\n`,
	);
	return 0;
}
