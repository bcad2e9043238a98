/**
 * A dry run: the real script in the real sandbox with every `agent()` answered without a model, `ask()` answered as
 * a person who takes the defaults would, and only read-only tools run. Nothing is recorded (a dry run takes no
 * journal and hands back no run id), so it is never offered for resume. Gives the run's result and its plan.
 */
import { basename } from "node:path";
import { isWorkflowError, runResultError, WorkflowError } from "../../errors.ts";
import { answerInQuestionWarning } from "../ask/ask.ts";
import { zeroCost } from "../core/cost.ts";
import { stableJson } from "../core/json.ts";
import type {
	JsonSchema,
	JsonValue,
	WorkflowAgentRequest,
	WorkflowQuestion,
	WorkflowRunOptions,
	WorkflowRunResult,
	WorkflowTool,
	WorkflowToolOutput,
} from "../core/types.ts";
import { type DryDraw, dryAgentResult, TYPICAL_DRAW } from "../dry/answer.ts";
import { DryPlanRecorder, type WorkflowDryRunPlan } from "../dry/plan.ts";
import { sampleFromSchema } from "../dry/sample.ts";
import { sandboxedBash as bashInSandbox, findBashSandbox } from "../dry/sandboxed-bash.ts";
import { createDryAsk, createDryRunner, type DryAnswers, type DryRunnerCall, dryTools } from "../dry/stand-ins.ts";
import { argsRead, argsWithFallback } from "../meta/args-read.ts";
import { type AgentBranch, scriptPaths, unreachedBranches } from "../meta/branches.ts";
import { parseWorkflowSource } from "../meta/read.ts";
import { runWorkflowScript } from "./run.ts";

/** Options of `dryRunWorkflowScript`: those of a real run but the runner, the journal and the questions' handlers. */
export interface WorkflowDryRunOptions
	extends Omit<WorkflowRunOptions, "agentRunner" | "journal" | "ask" | "confirmFanOut" | "runId" | "tools"> {
	/**
	 * The tools the host would lend a real run. `read`, `ls`, `grep` and `find` run for real; every other one gives
	 * the script `[dry run] <name> was not run` (`details.dryRun: true`). Default: none.
	 */
	tools?: Readonly<Record<string, WorkflowTool>>;
	/** Names of `tools` to run for real even though they may change things. Default: none. */
	lendTools?: readonly string[];
	/** Tool names answered with the placeholder although the host has no such tool (e.g. `bash` on a CLI without `--allow-tools`). Default: none. */
	fenceTools?: readonly string[];
	/**
	 * Run `tool("bash", …)` (the host's, or one `fenceTools` names) for real in a read-only sandbox (bubblewrap: the file system read-only, a private `/tmp`,
	 * no network, the working directory kept), so a fan-out over a command's output is counted as the real run makes
	 * it. Where the machine has no such sandbox, `bash` is fenced and the plan says its counts may be short.
	 * Default: false (`bash` fenced like any tool that may write).
	 */
	sandboxedBash?: boolean;
	/**
	 * The longest a sandboxed `bash` command may take (its own `timeout`, if shorter, still holds): past it the command
	 * ends as timed out. A real run's background plan sets it, so a long command (a test suite) is not run a second
	 * time beside the real one. Default: none (the step's and the run's bounds).
	 */
	bashTimeoutMs?: number;
	/**
	 * Plan `context: "fork"` calls as forks though the host lends no conversation (the command line: pi runs the same
	 * script with one), with a warning that a run from here fails there. Default: false (they fail, as in a real run
	 * of this host).
	 */
	planForks?: boolean;
	/** Answers to `ask()`, by question text or in order; the rest get their default, first choice or a placeholder. Default: none. */
	answers?: DryAnswers;
	/** The model a call would run on (agent file, call, tier, `meta.model`, host default); undefined: pi's default. Default: the call's own `model`, `tier` or `meta.model`. */
	modelOf?: (request: WorkflowAgentRequest) => string | undefined;
}

/** Said when a dry run that would run `bash` in a sandbox had none and fenced it: what the plan cannot know. */
export const NO_SANDBOX_WARNING =
	'`tool("bash")` was fenced, not run: this machine has no read-only sandbox for it (bubblewrap\'s `bwrap` is not on PATH or cannot make one here), so the calls made over its output are not counted and the real run may make more. Install bubblewrap (`apt-get install bubblewrap`) to count them';

/** What a dry run gives: the run's result (zero tokens, zero cost) and the plan of what a real run would do. */
export interface WorkflowDryRun {
	result: WorkflowRunResult;
	plan: WorkflowDryRunPlan;
}

/** The draws after the first: the least each open array allows, then long ones, enums turned each time. */
const MORE_DRAWS: readonly DryDraw[] = [
	{ arrays: "fewest", shift: 1 },
	{ arrays: "most", shift: 2 },
];

/**
 * Runs `source` dry; never rejects for script faults (the plan says how the run ended). A script whose calls asked
 * for structured answers is run again on other draws of them (empty and long arrays, each enum value in turn), and
 * the plan gives each count as the range they span (`draws`); the plan itself and the events are the first draw's.
 */
export async function dryRunWorkflowScript(
	source: string,
	options: WorkflowDryRunOptions = {},
): Promise<WorkflowDryRun> {
	// A tool step with the same params answers every draw alike: each runs once (a slow `npm test -- --listTests`).
	const steps = new Map<string, Promise<WorkflowToolOutput>>();
	const first = await dryRunOnce(source, options, TYPICAL_DRAW, steps);
	if (first.plan.status !== "completed" || !first.plan.calls.some((call) => call.schema)) return first;
	const { onProgress: _first, ...quiet } = options;
	const plans = [first.plan];
	for (const draw of MORE_DRAWS) plans.push((await dryRunOnce(source, quiet, draw, steps)).plan);
	const paths = scriptPaths(source, options.filename);
	const declared = first.result.meta?.phases?.map((phase) => phase.title) ?? [];
	first.plan.draws = drawsOf(plans, [...new Set([...declared, ...(paths?.phases ?? [])])], paths?.branches ?? []);
	return first;
}

/** `tool` answering a call it answered in an earlier draw (same name and params) as it did then. */
function onceAcrossDraws(
	name: string,
	tool: WorkflowTool,
	steps: Map<string, Promise<WorkflowToolOutput>>,
): WorkflowTool {
	return (params, signal) => {
		const key = `${name}\0${stableJson(params)}`;
		let step = steps.get(key);
		if (!step) {
			step = tool(params, signal);
			steps.set(key, step);
		}
		return step;
	};
}

/** The counts each draw gave, as ranges, and the phases (declared or named) and branches no draw reached. */
function drawsOf(
	plans: readonly WorkflowDryRunPlan[],
	named: readonly string[],
	branches: readonly AgentBranch[],
): NonNullable<WorkflowDryRunPlan["draws"]> {
	const span = (values: number[]) => ({ low: Math.min(...values), high: Math.max(...values) });
	const names = [...new Set(plans.flatMap((plan) => plan.phases.map((phase) => phase.name)))];
	const phases = Object.fromEntries(
		names.map((name) => [
			name,
			span(plans.map((plan) => plan.phases.find((phase) => phase.name === name)?.agentCalls ?? 0)),
		]),
	);
	const reached = (name: string) => plans.some((plan) => plan.phases.some((phase) => phase.name === name));
	return {
		count: plans.length,
		agentCalls: span(plans.map((plan) => plan.totals.agentCalls)),
		widestFanOut: span(plans.map((plan) => plan.totals.widestFanOut)),
		phases,
		unreached: named.filter((name) => !reached(name)),
		branches: unreachedBranches(branches, sitesOf(plans)).map(({ kind, line, column, calls }) => ({
			kind,
			line,
			column,
			agentCalls: calls.length,
		})),
	};
}

/** Where the top-level script made its agent calls, over every draw ("line:column"; nested workflows' are elsewhere). */
function sitesOf(plans: readonly WorkflowDryRunPlan[]): Set<string> {
	const calls = plans.flatMap((plan) => plan.calls).filter((call) => call.workflow === undefined);
	return new Set(calls.map((call) => `${call.line}:${call.column}`));
}

/** One dry run of `source` on one draw of the stand-ins. */
async function dryRunOnce(
	source: string,
	options: WorkflowDryRunOptions,
	draw: DryDraw,
	steps: Map<string, Promise<WorkflowToolOutput>>,
): Promise<WorkflowDryRun> {
	const {
		tools: hostTools,
		lendTools,
		fenceTools,
		answers,
		modelOf,
		onProgress,
		sandboxedBash,
		bashTimeoutMs,
		planForks,
		...runOptions
	} = options;
	// A stand-in conversation: forks are planned; the runner never reads it (a dry runner opens no session).
	const standIn = planForks === true && !options.parentConversation;
	if (standIn) runOptions.parentConversation = { entries: [], messages: 0, tokens: 0 };
	const dry = createDryRunner(modelOf, draw);
	const asker = createDryAsk(answers);
	const cwd = options.cwd ?? process.cwd();
	const sandbox = sandboxedBash ? await findBashSandbox() : undefined;
	const { tools, fenced } = dryTools(
		hostTools ?? {},
		lendTools ?? [],
		fenceTools ?? [],
		cwd,
		sandbox ? bashInSandbox(sandbox, cwd, bashTimeoutMs) : undefined,
	);
	for (const [name, tool] of Object.entries(tools))
		if (!fenced.has(name)) tools[name] = onceAcrossDraws(name, tool, steps);
	const recorder = new DryPlanRecorder(fenced);
	let sampled: JsonValue | undefined;
	try {
		sampled = options.args === undefined ? sampledArgs(source, options.filename) : undefined;
	} catch (error) {
		if (!isWorkflowError(error)) throw error;
		// Args it cannot make up: the run cannot start, as a real one without args could not.
		const result = notStarted(
			new WorkflowError(
				error.code,
				`\`meta.args\`: ${error.message}`,
				error.details ? { details: error.details } : {},
			),
		);
		const plan = recorder.finish(result, { runner: [], answers: asker.sources, args: "none" });
		if (options.filename) plan.workflow = basename(options.filename);
		return { result, plan };
	}
	const questionWarnings: string[] = [];
	const result = await runWorkflowScript(source, {
		...runOptions,
		// A plan is not a run: a trace of it would show a second run (a real run makes its plan beside it).
		traced: false,
		...(sampled !== undefined ? { args: sampled } : {}),
		agentRunner: dry.runner,
		ask: (question, context) => {
			questionWarnings.push(...answersIn(question, dry.calls));
			return asker.ask(question, context);
		},
		...(Object.keys(tools).length > 0 ? { tools } : {}),
		confirmFanOut: async (info) => {
			recorder.onFanOut(info);
			return true;
		},
		onProgress: (event) => {
			recorder.onEvent(event);
			onProgress?.(event);
		},
	});
	const args = options.args !== undefined ? "given" : sampled !== undefined ? "sampled" : "none";
	const plan = recorder.finish(result, {
		runner: dry.calls,
		answers: asker.sources,
		args,
		...(sampled !== undefined ? { sampledArgs: sampled } : {}),
	});
	plan.warnings = [...new Set([...plan.warnings, ...questionWarnings])];
	sayWhatItCannotSee(plan, source, options.filename, {
		...(sandboxedBash ? { bash: sandbox ? "sandboxed" : "fenced" } : {}),
		standInForks: standIn,
	});
	const forkTokens = options.parentConversation?.tokens;
	if (forkTokens !== undefined && plan.calls.some((call) => call.forks)) plan.forkTokens = forkTokens;
	// A script that never started has no meta: its file names it.
	if (!result.meta && options.filename) plan.workflow = basename(options.filename);
	return { result, plan };
}

/**
 * What the plan cannot see, said in it: a `bash` fenced for want of a sandbox, why a plan has no agent call (often a
 * script that returned early for want of args it reads), and forks planned on a stand-in conversation.
 */
function sayWhatItCannotSee(
	plan: WorkflowDryRunPlan,
	source: string,
	filename: string | undefined,
	seen: { bash?: "sandboxed" | "fenced"; standInForks: boolean },
): void {
	if (seen.bash) {
		plan.bash = seen.bash;
		if (seen.bash === "fenced" && plan.tools.some((step) => step.name === "bash"))
			plan.warnings.push(NO_SANDBOX_WARNING);
	}
	if (plan.totals.agentCalls === 0) {
		const read = argsRead(source, filename, metaArgs(source, filename));
		if (read?.reads) plan.argsRead = { undeclared: read.undeclared };
	}
	if (seen.standInForks) plan.warnings.push(...forkWarnings(plan));
}

/**
 * A warning for each text answer of `calls` that `question` holds: a sample is a line, a real answer may not be, and
 * the question's limit would fail the real run there. (A schema answer's fields are bounded by its schema.)
 */
function answersIn(question: WorkflowQuestion, calls: readonly DryRunnerCall[]): string[] {
	return calls
		.filter(({ request }) => !request.schema && question.question.includes(dryAgentResult(request).result ?? "\0"))
		.map(({ request }) => answerInQuestionWarning(question, request));
}

/**
 * A value the script's `meta.args` schema accepts that keeps the script's own defaults: each property's `default`
 * where it has one, at any depth, and no made-up value for an optional property the script reads with a fallback
 * (`args.x ?? 2`, `const { x = 2 } = args`), so its 2 stands as in a real run without it. Undefined when the script
 * has no args schema or cannot be read.
 */
function sampledArgs(source: string, filename: string | undefined): JsonValue | undefined {
	const schema = metaArgs(source, filename);
	if (!schema) return undefined;
	const value = withDefaults(schema, sampleFromSchema(schema, { index: 0 }));
	if (!isObject(value)) return value;
	const required = Array.isArray(schema.required) ? schema.required : [];
	const properties = isObject(schema.properties) ? schema.properties : {};
	for (const name of argsWithFallback(source, filename)) {
		const property = properties[name];
		if (required.includes(name) || (isObject(property) && property.default !== undefined)) continue;
		delete value[name];
	}
	return value;
}

/** `value` with each property of `schema` that has a `default` taking it, in nested objects too. */
function withDefaults(schema: JsonSchema | JsonValue, value: JsonValue): JsonValue {
	if (!isObject(schema) || !isObject(value) || !isObject(schema.properties)) return value;
	for (const [name, property] of Object.entries(schema.properties)) {
		if (!isObject(property)) continue;
		if (property.default !== undefined) value[name] = property.default;
		else if (Object.hasOwn(value, name)) value[name] = withDefaults(property, value[name] as JsonValue);
	}
	return value;
}

/** What a stand-in conversation hides: one line for all the forked calls, which fail where there is no conversation. */
function forkWarnings(plan: WorkflowDryRunPlan): string[] {
	const forked = plan.calls.filter((call) => call.forks);
	if (forked.length === 0) return [];
	const first = forked[0]?.label ?? "";
	const which = forked.length === 1 ? `\`${first}\`` : `\`${first}\` and ${forked.length - 1} more calls`;
	return [
		`${which} with \`context: "fork"\` planned as forks: a real run from the command line has no conversation to fork and fails there with fork_unavailable; run it from pi (the workflow tool, /name), where each reads the session's conversation first, which this estimate does not count`,
	];
}

/** The script's `meta.args`; undefined when it has none or cannot be read (the run itself reports that, with its position). */
function metaArgs(source: string, filename: string | undefined): JsonSchema | undefined {
	try {
		return parseWorkflowSource(source, filename !== undefined ? { filename } : {}).meta.args;
	} catch {
		return undefined;
	}
}

/** The result of a dry run that could not start: failed with `error`, nothing done. */
function notStarted(error: WorkflowError): WorkflowRunResult {
	return {
		status: "failed",
		error: runResultError(error),
		failures: [],
		counts: { calls: 0, started: 0, completed: 0, failed: 0, skipped: 0 },
		usage: { input: 0, output: 0, total: 0 },
		cost: zeroCost(),
		droppedLogs: 0,
		durationMs: 0,
	};
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
	return value !== null && typeof value === "object" && !Array.isArray(value);
}
