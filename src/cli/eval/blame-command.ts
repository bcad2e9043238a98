/**
 * `pi-workflows blame <failedRunId> --with <passingRunId|cassette> --grader <grade.js> [--json]`: which `agent()`
 * call of a failed run decided it, by replaying the run with each call's answer swapped for the passing run's.
 * Exit code 0 when a call (or a pair) is decisive, 1 when none is or nothing could be blamed.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { type BlameReport, blameRun, blameSentence, blameText } from "../../eval/index.ts";
import { type ReplayCassette, readCassette } from "../../host/cassette.ts";
import { visibleJson, visibleText } from "../../progress/visible-text.ts";
import { writeRunReport } from "../../report/index.ts";
import { createRunStore } from "../../runs/index.ts";
import { type FlagSpec, flagValue, parseArgs, usageError } from "../args.ts";
import type { CliContext } from "../context.ts";
import { readCase } from "../inputs.ts";

const BLAME_FLAGS: readonly FlagSpec[] = [
	{ name: "case", value: true },
	{ name: "with", value: true },
	{ name: "grader", value: true },
	{ name: "json" },
	{ name: "report", value: true },
];

export async function blameCommand(argv: readonly string[], ctx: CliContext): Promise<number> {
	const args = parseArgs(argv, BLAME_FLAGS, "blame");
	const [failedRunId, extra] = args.positionals;
	if (failedRunId === undefined || extra !== undefined) {
		throw usageError(
			"`blame` takes one failed run: pi-workflows blame <failedRunId> --with <passingRunId|cassette> --grader <grade.js>",
		);
	}
	// Without a passing run each call gets a dry run's answer: the report's first line says what that shows.
	const passing = flagValue(args, "with");
	const grader = flagValue(args, "grader");
	if (grader === undefined) {
		throw usageError(
			"--grader <grade.js> is needed: the script that says pass or fail, given { case, output, status, error, costUsd, durationMs, runId } as eval's grader is",
		);
	}
	if (!existsSync(resolve(ctx.cwd, grader))) throw usageError(`--grader: no file ${resolve(ctx.cwd, grader)}`);
	const caseText = flagValue(args, "case");
	const report = await blameRun({
		cwd: ctx.cwd,
		failedRunId,
		...(caseText !== undefined ? { evalCase: readCase(caseText, ctx.cwd) } : {}),
		...(passing !== undefined ? { with: await passingRun(passing, ctx.cwd) } : {}),
		grader,
		runsRoot: `${ctx.agentDir}/workflow-runs`,
	});
	// Labels and a grader's reasons are the script's and its models' words: shown as every CLI view shows them.
	if (args.flags.has("json")) ctx.stdout.write(`${visibleJson(JSON.stringify(report, null, 2))}\n`);
	else ctx.stdout.write(visibleText(blameText(report)));
	const out = flagValue(args, "report");
	if (out !== undefined) await writeDecided(out, report, ctx);
	return report.calls.some((call) => call.effect === "decisive") || (report.pairs?.decisive.length ?? 0) > 0 ? 0 : 1;
}

/** `--report <file.html>`: the failed run's report, saying what decided it and marking those calls. */
async function writeDecided(out: string, report: BlameReport, ctx: CliContext): Promise<void> {
	const store = createRunStore({ cwd: ctx.cwd, root: `${ctx.agentDir}/workflow-runs` });
	const labels = [
		...report.calls.filter((call) => call.effect === "decisive").map((call) => call.label),
		...(report.pairs?.decisive.flat() ?? []),
	];
	const written = await writeRunReport(store, report.failedRunId, {
		out,
		cwd: ctx.cwd,
		decided: { text: blameSentence(report), labels },
	});
	ctx.stderr.write(`Report: ${written.path}\n`);
}

/** `--with`: a cassette file, else a run id. */
async function passingRun(value: string, cwd: string): Promise<string | ReplayCassette> {
	const path = resolve(cwd, value);
	return value.endsWith(".json") || existsSync(path) ? readCassette(path) : value;
}
