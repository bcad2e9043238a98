/**
 * `pi-workflows eval <file>.eval.json`: every case through every arm, `trials` times, each trial a recorded run,
 * graded, then the scorecard (stderr for people, `--json` on stdout). `--dry-run` counts and prices the runs
 * starting nothing; `--resume <evalId>` runs only the trials an eval did not finish; `--regrade <evalId>` grades the
 * recorded outputs again with the eval file's grader as it is now; `--list` shows past evals. Exit 0 when no arm is
 * worse than the baseline (`--require better`: when every arm is better), 1 when one is or the eval did not finish,
 * 2 for a wrong command line.
 */
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { errorMessage } from "../../errors.ts";
import {
	blameFailingTrials,
	createEval,
	createGrader,
	createPairGrader,
	dryRunEval,
	type EvalFolder,
	type EvalProgress,
	type EvalRequirement,
	type EvalScorecard,
	type EvalSpec,
	evalDryRunText,
	evalsRoot,
	evaluate,
	exitCodeOf,
	findEvalFile,
	type GradePair,
	type GradeTrial,
	listEvals,
	narrowSpec,
	openEval,
	readArmScripts,
	readEvalFile,
	readGraderScript,
	regrade,
	renderScorecardHtml,
	scorecardOf,
	scorecardText,
	type TrialRecord,
} from "../../eval/index.ts";
import { recordedTrials } from "../../eval/recorded-trial.ts";
import { createWorkflowResolver } from "../../host/script-source.ts";
import type { ScriptFile } from "../../host/start-run.ts";
import { writeRunReport } from "../../report/index.ts";
import { createRunStore } from "../../runs/index.ts";
import { dollarsFlag, type FlagSpec, flagValue, integerFlag, type ParsedArgs, parseArgs, usageError } from "../args.ts";
import type { CliContext } from "../context.ts";
import { checkBeforeStart } from "../run.ts";
import { CLI_TOOL_NAMES } from "../tools.ts";
import { graderRunner, piTrialRunner, type TrialPiOptions } from "./trial-pi.ts";

const EVAL_FLAGS: readonly FlagSpec[] = [
	{ name: "trials", value: true },
	{ name: "cases", value: true },
	{ name: "arms", value: true },
	{ name: "max-cost", value: true },
	{ name: "json" },
	{ name: "report", value: true },
	{ name: "dry-run" },
	{ name: "resume", value: true },
	{ name: "regrade", value: true },
	{ name: "list" },
	{ name: "require", value: true },
	{ name: "model", value: true },
	{ name: "extension", short: "e", value: true, repeat: true },
	{ name: "approve", short: "a" },
	{ name: "no-approve", short: "na" },
];

export async function evalCommand(argv: readonly string[], ctx: CliContext): Promise<number> {
	const args = parseArgs(argv, EVAL_FLAGS, "eval");
	const [file, extra] = args.positionals;
	const root = evalsRoot(ctx.agentDir);
	const resumeId = flagValue(args, "resume");
	const regradeId = flagValue(args, "regrade");
	const modes = [file !== undefined, resumeId !== undefined, regradeId !== undefined, args.flags.has("list")];
	if (extra !== undefined || modes.filter(Boolean).length !== 1) {
		throw usageError(
			"`eval` takes one of: an eval file, --resume <evalId>, --regrade <evalId> or --list. See `pi-workflows eval --help`",
		);
	}
	if (file === undefined)
		onlyForNewEvals(args, resumeId !== undefined ? "--resume" : regradeId !== undefined ? "--regrade" : "--list");
	const require = requirement(args);
	const pi = piOptions(args, argv);
	if (args.flags.has("list")) return list(root, args.flags.has("json"), ctx);
	if (regradeId !== undefined) {
		const folder = await openEval(root, regradeId);
		try {
			// The grader as the eval file has it now: that is the point of regrading.
			const current = readEvalFile(folder.record.spec.file, ctx.cwd);
			const progress = await withGrader(current, pi, ctx, (grade, pair) => regrade(folder, grade, pair));
			return await finish(folder, progress, { args, require, graderSpec: current }, ctx);
		} finally {
			await folder.release();
		}
	}
	const cap = dollarsFlag(args, "max-cost");
	if (resumeId !== undefined) {
		const folder = await openEval(root, resumeId);
		ctx.stderr.write(`Resuming eval ${folder.id}: ${folder.trials.size} trials finished before\n`);
		return runEval(folder, cap, pi, args, require, ctx);
	}
	const spec = narrowSpec(readEvalFile(findEvalFile(file as string, ctx), ctx.cwd), {
		...listFlag(args, "cases"),
		...listFlag(args, "arms"),
		...(args.flags.has("trials") ? { trials: integerFlag(args, "trials", 1, 1000) as number } : {}),
	});
	const scripts = readArmScripts(spec, {
		cwd: ctx.cwd,
		agentDir: ctx.agentDir,
		warn: (w) => ctx.stderr.write(`Warning: ${w}\n`),
	});
	// A script that cannot start is a mistake in the eval, found before anything runs.
	for (const script of Object.values(scripts))
		await checkBeforeStart({ script: script.source, filename: script.filename }, true);
	if (args.flags.has("dry-run")) return dryRun(spec, scripts, pi, args.flags.has("json"), ctx);
	const folder = await createEval(root, spec, scripts);
	ctx.stderr.write(
		`Eval ${folder.id}: ${spec.cases.length} cases × ${Object.keys(spec.arms).length} arms × ${spec.trials} trials\n`,
	);
	return runEval(folder, cap, pi, args, require, ctx);
}

async function runEval(
	folder: EvalFolder,
	cap: number | undefined,
	pi: TrialPiOptions,
	args: ParsedArgs,
	require: EvalRequirement,
	ctx: CliContext,
): Promise<number> {
	const controller = new AbortController();
	const stop = (): void => {
		ctx.stderr.write("Stopping the eval: the running trials end and are run again on resume…\n");
		controller.abort("Stopped with Ctrl-C");
	};
	process.on("SIGINT", stop);
	process.on("SIGTERM", stop);
	try {
		const progress = await withGrader(folder.record.spec, pi, ctx, (grade, gradePair) =>
			evaluate(folder, {
				...(gradePair ? { gradePair } : {}),
				runTrial: recordedTrials({ cwd: ctx.cwd, agentDir: ctx.agentDir, setUp: piTrialRunner(pi, ctx) }),
				grade,
				...(cap !== undefined ? { maxCostUsd: cap } : {}),
				signal: controller.signal,
				onTrial: (trial, finished, planned) => ctx.stderr.write(`[${finished}/${planned}] ${trialLine(trial)}\n`),
			}),
		);
		return await finish(folder, progress, { args, require, graderSpec: folder.record.spec }, ctx);
	} finally {
		process.off("SIGINT", stop);
		process.off("SIGTERM", stop);
		await folder.release();
	}
}

/** Runs `work` with the spec's grader (and a pi runner for its `agent()` calls, closed after). */
async function withGrader(
	spec: EvalSpec,
	pi: TrialPiOptions,
	ctx: CliContext,
	work: (grade: GradeTrial, gradePair?: GradePair) => Promise<EvalProgress>,
): Promise<EvalProgress> {
	const script = readGraderScript(spec, { cwd: ctx.cwd, agentDir: ctx.agentDir });
	if (script === undefined) return work(createGrader({ cwd: ctx.cwd }));
	await checkBeforeStart({ script: script.source, filename: script.filename }, true);
	const runner = graderRunner(pi, ctx);
	try {
		const grade = createGrader({ script, agentRunner: runner.runner, cwd: ctx.cwd });
		const pair = spec.pairwise ? createPairGrader({ script, agentRunner: runner.runner, cwd: ctx.cwd }) : undefined;
		return await work(grade, pair);
	} finally {
		await runner.close();
	}
}

/** How the eval ends: the flags that shape the scorecard, and the spec whose grader graded it (and blames with). */
interface FinishOptions {
	args: ParsedArgs;
	require: EvalRequirement;
	graderSpec: EvalSpec;
}

async function finish(
	folder: EvalFolder,
	progress: EvalProgress,
	{ args, require, graderSpec }: FinishOptions,
	ctx: CliContext,
): Promise<number> {
	const card = scorecardOf(folder.id, folder.record.spec, progress);
	const grader = readGraderScript(graderSpec, { cwd: ctx.cwd, agentDir: ctx.agentDir });
	// Each failing trial against a passing one of its case, by replay: no child starts, nothing is spent. A pairwise
	// grader judges two arms' runs together, so it cannot grade one replayed run.
	if (!graderSpec.pairwise)
		card.blame = await blameFailingTrials(card.trials, {
			cwd: ctx.cwd,
			runsRoot: `${ctx.agentDir}/workflow-runs`,
			cases: folder.record.spec.cases,
			...(grader ? { grader } : {}),
		});
	if (args.flags.has("json")) ctx.stdout.write(`${JSON.stringify(card, null, 2)}\n`);
	else ctx.stdout.write(`${scorecardText(card)}\n`);
	const report = flagValue(args, "report");
	if (report !== undefined) await writeScorecard(card, resolve(ctx.cwd, report), ctx);
	return exitCodeOf(card, require);
}

/** `--report`: each trial's run report in its run's folder, then the scorecard linking to them. */
async function writeScorecard(card: EvalScorecard, path: string, ctx: CliContext): Promise<void> {
	const store = createRunStore({ cwd: ctx.cwd, root: `${ctx.agentDir}/workflow-runs` });
	const reports = new Map<string, string>();
	for (const trial of card.trials) {
		if (trial.runId === undefined) continue;
		// A failing trial's report says what decided it (its blame) and marks those calls.
		const blamed = card.blame?.trials.find((blame) => blame.runId === trial.runId);
		const against = blamed?.against
			? ` (against run ${blamed.against.runId}: arm ${blamed.against.arm}, trial #${blamed.against.trial})`
			: "";
		const decided = blamed && {
			text: `${blamed.sentence}${against}`,
			labels: [...blamed.decisive, ...blamed.decisivePairs.flat()],
		};
		// A run pruned since is left unlinked: its mark still says how the trial went.
		const written = await writeRunReport(store, trial.runId, decided ? { decided } : {}).catch(() => undefined);
		if (written) reports.set(trial.runId, pathToFileURL(written.path).href);
	}
	try {
		await writeFile(path, renderScorecardHtml(card, { reportHref: (runId) => reports.get(runId) }));
	} catch (error) {
		throw usageError(
			`--report ${path}: cannot write it (${errorMessage(error)}). Name a file in a folder you can write to`,
		);
	}
	ctx.stderr.write(`Scorecard: ${path}\n`);
}

async function dryRun(
	spec: EvalSpec,
	scripts: Record<string, ScriptFile>,
	pi: TrialPiOptions,
	json: boolean,
	ctx: CliContext,
): Promise<number> {
	const host = await import("../pi-host.ts");
	const grader = readGraderScript(spec, { cwd: ctx.cwd, agentDir: ctx.agentDir });
	const dry = await dryRunEval(spec, scripts, {
		cwd: ctx.cwd,
		...(grader ? { grader } : {}),
		dryOptions: (arm) => {
			const model = arm.model ?? pi.model;
			const setup = host.setUpDryPi({
				cwd: ctx.cwd,
				agentDir: ctx.agentDir,
				...(model !== undefined ? { model } : {}),
				...(pi.approve !== undefined ? { approve: pi.approve } : {}),
			});
			return {
				agentTypes: setup.agentTypes,
				modelOf: setup.modelOf,
				tools: setup.readTools,
				fenceTools: CLI_TOOL_NAMES,
				resolveWorkflow: createWorkflowResolver({ agentDir: ctx.agentDir }),
			};
		},
		estimate: {
			cwd: ctx.cwd,
			runsRoot: `${ctx.agentDir}/workflow-runs`,
			priceOf: host.setUpDryPi({ cwd: ctx.cwd, agentDir: ctx.agentDir }).priceOf,
		},
	});
	ctx.stdout.write(json ? `${JSON.stringify(dry, null, 2)}\n` : `${evalDryRunText(spec, dry)}\n`);
	return 0;
}

async function list(root: string, json: boolean, ctx: CliContext): Promise<number> {
	const evals = await listEvals(root);
	if (json) ctx.stdout.write(`${JSON.stringify(evals, null, 2)}\n`);
	else if (evals.length === 0) ctx.stdout.write("No evals yet: pi-workflows eval <file>.eval.json runs one\n");
	else {
		for (const found of evals) {
			ctx.stdout.write(
				`${found.id}  ${found.name}  ${found.finished}/${found.planned} trials  ${found.createdAt}  ${found.file}\n`,
			);
		}
	}
	return 0;
}

function trialLine(trial: TrialRecord): string {
	const graded = trial.grade
		? trial.grade.pass
			? "pass"
			: "fail"
		: trial.gradeError
			? "not graded"
			: "graded with its pair";
	return `${trial.arm} on ${trial.caseId} #${trial.trial}: ${trial.status}, ${graded}${trial.runId ? ` (${trial.runId})` : ""}`;
}

/** The flags that shape a new eval, refused with a past one: a resume runs the eval as it was planned. */
function onlyForNewEvals(args: ParsedArgs, mode: string): void {
	const given = ["cases", "arms", "trials", "dry-run"].filter((name) => args.flags.has(name));
	if (given.length > 0) {
		throw usageError(
			`${given.map((name) => `--${name}`).join(", ")} shape a new eval, and ${mode} takes a past one as it was planned: give the eval file instead (pi-workflows eval <file> --${given[0]} …)`,
		);
	}
}

function requirement(args: ParsedArgs): EvalRequirement {
	const value = flagValue(args, "require");
	if (value === undefined || value === "not-worse") return "not-worse";
	if (value === "better") return "better";
	throw usageError(`--require takes better or not-worse, got "${value}"`);
}

function piOptions(args: ParsedArgs, argv: readonly string[]): TrialPiOptions {
	if (args.flags.has("approve") && args.flags.has("no-approve")) {
		throw usageError("--approve and --no-approve contradict each other; give one");
	}
	const model = flagValue(args, "model");
	return {
		extensions: args.flags.get("extension") ?? [],
		...(model !== undefined ? { model } : {}),
		...(args.flags.has("approve") ? { approve: true } : args.flags.has("no-approve") ? { approve: false } : {}),
		argv,
	};
}

function listFlag(args: ParsedArgs, name: "cases" | "arms"): { cases?: string[] } | { arms?: string[] } {
	const value = flagValue(args, name);
	if (value === undefined) return {};
	const items = value
		.split(",")
		.map((item) => item.trim())
		.filter((item) => item !== "");
	if (items.length === 0) throw usageError(`--${name} takes a comma-separated list, e.g. --${name} a,b`);
	return { [name]: items };
}
