/**
 * `pi-workflows test <file|name> [--against <runId>] [--save]`: the script run against a recorded run, every call
 * answered from its journal (no child, no tool, no model). Exit code 0 when every call matched and the value is the
 * recorded one (any, with `--value`), 1 otherwise. Without `--against`, the cassette beside the script.
 */
import { existsSync } from "node:fs";
import { relative } from "node:path";
import { callNumber, isWorkflowError, WorkflowError } from "../errors.ts";
import { cassettePathFor, loadRunCassette, readCassette, writeCassette } from "../host/cassette.ts";
import { type ReplayTestReport, testWorkflowAgainstRun } from "../host/replay-test.ts";
import { BUNDLED_DIR, createWorkflowResolver } from "../host/script-source.ts";
import { visibleJson, visibleText } from "../progress/visible-text.ts";
import { type FlagSpec, flagValue, parseArgs, usageError } from "./args.ts";
import type { CliContext } from "./context.ts";
import { readArgs, readScript } from "./inputs.ts";
import { checkBeforeStart } from "./run.ts";

const TEST_FLAGS: readonly FlagSpec[] = [
	{ name: "against", value: true },
	{ name: "save" },
	{ name: "args", value: true },
	{ name: "value" },
	{ name: "json" },
];

export async function testCommand(argv: readonly string[], ctx: CliContext): Promise<number> {
	const args = parseArgs(argv, TEST_FLAGS, "test");
	const [target, extra] = args.positionals;
	if (target === undefined || extra !== undefined) {
		throw usageError("`test` takes one workflow: pi-workflows test <file|name> [--against <runId>] [--save]");
	}
	const against = flagValue(args, "against");
	const save = args.flags.has("save");
	if (save && against === undefined) {
		throw usageError("--save keeps a run as the script's cassette: name the run with --against <runId>");
	}
	const givenArgs = flagValue(args, "args");
	const scriptArgs = givenArgs !== undefined ? readArgs(givenArgs, ctx.cwd) : undefined;
	const script = readScript(target, ctx);
	const cassettePath = cassettePathFor(script.filename);
	if (save && script.filename.startsWith(BUNDLED_DIR)) {
		throw usageError(
			`\`${target}\` is a bundled workflow: copy it to .pi/workflows/ to keep a cassette beside it, or test it with --against <runId> alone`,
		);
	}
	const fromFile = against === undefined && existsSync(cassettePath);
	const cassette =
		against !== undefined
			? await loadAgainst(against, target, cassettePath, ctx)
			: fromFile
				? await readCassette(cassettePath)
				: undefined;
	if (!cassette) {
		throw usageError(
			`no run to test against: pass --against <runId> (pi-workflows runs lists them), or keep one beside the script with --against <runId> --save (it would be ${shown(ctx.cwd, cassettePath)})`,
		);
	}
	const runArgs = scriptArgs !== undefined ? scriptArgs : cassette.args;
	// A script that cannot start is a mistake in what was given (exit 2, file:line:column), as for `run`.
	await checkBeforeStart({
		script: script.source,
		filename: script.filename,
		...(runArgs !== undefined ? { args: runArgs } : {}),
	});
	if (save) {
		await writeCassette(cassettePath, cassette);
		ctx.stderr.write(`Saved run ${cassette.runId} as ${shown(ctx.cwd, cassettePath)}\n`);
		if (cassette.status !== "completed") {
			ctx.stderr.write(
				`Warning: run ${cassette.runId} ${cassette.status}: the cassette has no value to compare, so the test passes only with --value. Save a completed run to test the value too\n`,
			);
		}
	}
	const report = await testWorkflowAgainstRun({
		source: script.source,
		filename: script.filename,
		cassette,
		cwd: ctx.cwd,
		resolveWorkflow: createWorkflowResolver({ agentDir: ctx.agentDir }),
		anyValue: args.flags.has("value"),
		...(runArgs !== undefined ? { args: runArgs } : {}),
	});
	// A test from a cassette names it: the run it keeps may be long gone from the store.
	const named = fromFile ? { ...report, cassette: shown(ctx.cwd, cassettePath) } : report;
	// A cassette is a file in the repository: its words reach the terminal as every CLI view shows them.
	if (args.flags.has("json")) ctx.stdout.write(`${visibleJson(JSON.stringify(named, null, 2))}\n`);
	else ctx.stdout.write(visibleText(reportText(named, shown(ctx.cwd, script.filename))));
	return report.ok ? 0 : 1;
}

/**
 * The run `against` from the store; when it is gone (pruned, deleted) and a cassette sits beside the script, the
 * error points at it.
 */
async function loadAgainst(against: string, target: string, cassettePath: string, ctx: CliContext) {
	try {
		return await loadRunCassette({ cwd: ctx.cwd, runId: against, runsRoot: `${ctx.agentDir}/workflow-runs` });
	} catch (error) {
		if (!isWorkflowError(error) || error.code !== "run_not_found" || !existsSync(cassettePath)) throw error;
		const kept = await readCassette(cassettePath).catch(() => undefined);
		const keeps = kept ? `keeps run ${kept.runId}` : "is there";
		throw new WorkflowError(
			"run_not_found",
			`${error.message}. The cassette beside the script, ${shown(ctx.cwd, cassettePath)}, ${keeps}: test against it with \`pi-workflows test ${target}\` (no --against)`,
			{ ...(error.details ? { details: error.details } : {}) },
		);
	}
}

/** The verdict first, then each divergence and unmade recorded call, then the value. */
export function reportText(report: ReplayTestReport & { cassette?: string }, file: string): string {
	const lines: string[] = [];
	const problems = report.divergences.length + report.unusedRecorded.length;
	const from = report.cassette !== undefined ? ` (cassette ${report.cassette})` : "";
	lines.push(
		`${file} against run ${report.runId}${from}: ${report.ok ? "ok" : "FAILED"}, ${report.matched} recorded call${report.matched === 1 ? "" : "s"} matched, ${problems} divergence${problems === 1 ? "" : "s"}`,
	);
	for (const d of report.divergences) lines.push(`  ✗ ${d.explanation}`);
	for (const u of report.unusedRecorded) {
		const at = u.index !== undefined ? ` (${callNumber(u.index)} then)` : "";
		lines.push(`  ✗ the recorded ${u.kind}() call \`${u.label ?? u.key}\`${at} was not made by the script`);
	}
	for (const line of report.unreadable ?? []) lines.push(`  ! unreadable in the recorded journal: ${line}`);
	if (report.noReplaySteps > 0) {
		const n = report.noReplaySteps;
		lines.push(
			`  note: ${n} \`replay: false\` tool() step${n === 1 ? " was" : "s were"} answered from the recorded run, not run (a resume runs ${n === 1 ? "it" : "them"} again; a test runs nothing)`,
		);
	}
	lines.push(`  ${valueLine(report)}`);
	return `${lines.join("\n")}\n`;
}

function valueLine(report: ReplayTestReport): string {
	if (report.status !== "completed") {
		return `the script ${report.status}${report.error ? ` (${report.error.code}): ${report.error.message}` : ""}`;
	}
	const now = JSON.stringify(report.value ?? null);
	if (report.valueMatches) return "value: the recorded one";
	if (report.anyValue) return `value: ${cut(now)} (any value accepted: --value)`;
	if (report.recordedStatus !== "completed") {
		return `value: ${cut(now)}; the recorded run ${report.recordedStatus} and has no value to compare (--value accepts any)`;
	}
	return `value differs: recorded ${cut(JSON.stringify(report.recordedValue ?? null))}, now ${cut(now)} (--value accepts any)`;
}

function cut(text: string): string {
	return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

function shown(cwd: string, path: string): string {
	const rel = relative(cwd, path);
	return rel === "" || rel.startsWith("..") ? path : rel;
}
