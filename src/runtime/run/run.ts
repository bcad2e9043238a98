/**
 * `runWorkflowScript`: parse the header, check args, run the body in a sandbox with the workflow globals, then
 * wait for every child to settle and report an honest result. Resolves, never rejects, for script faults.
 */
import { hash } from "node:crypto";
import { cancelledError, toWorkflowError, WorkflowError } from "../../errors.ts";
import { createSandbox, resolveLimits, type SandboxLimits, warmSandboxPool } from "../../sandbox/index.ts";
import { startRunSpans, tracingRegistered } from "../../telemetry/spans.ts";
import { LabelledCalls } from "../agent/continuation.ts";
import { MAX_TIMEOUT_MS } from "../agent/options.ts";
import { warnSkippedLines } from "../agent/replay-miss.ts";
import { RunDeadline } from "../ask/ask.ts";
import { Budget } from "../core/budget.ts";
import { assembleRunResult, Census } from "../core/census.ts";
import type { WorkflowProgressEvent } from "../core/events.ts";
import { assertJsonValue } from "../core/json.ts";
import { CallKeys } from "../core/keys.ts";
import { PhaseState } from "../core/phases.ts";
import { RunProviderWaits } from "../core/provider-wait.ts";
import { createWorkflowQueue } from "../core/queue.ts";
import { CallIndexes, emitLog, type UnstampedEvent } from "../core/run-context.ts";
import { ScriptLifetime } from "../core/script-lifetime.ts";
import type {
	JsonValue,
	WorkflowAgentRunner,
	WorkflowLimits,
	WorkflowMeta,
	WorkflowRunOptions,
	WorkflowRunResult,
} from "../core/types.ts";
import { loadAcornApart } from "../meta/acorn.ts";
import { validateArgs } from "../meta/read.ts";
import { SchemaSession } from "../schema/session.ts";
import { CostCapGate } from "../spend/cost-cap.ts";
import { FanOutGate } from "../spend/fan-out.ts";
import { PhaseBudgets } from "../spend/phase-budget.ts";
import { resolveWorkflowPath, runNestedWorkflow } from "./nested.ts";
import { returnPosition } from "./return-sites.ts";
import type { WholeRun, WholeScope } from "./scope.ts";
import { prepareWorkflow } from "./script-check.ts";
import { endScript, runScriptBody, unawaitedWorkError } from "./script-run.ts";

/** Defaults of every limit (contract §3). */
export const DEFAULT_LIMITS: Readonly<WorkflowLimits> = Object.freeze({
	maxAgentCalls: 1000,
	maxItems: 4096,
	maxScriptBytes: 512 * 1024,
	maxLogEntries: 1000,
	memoryBytes: 256 * 1024 * 1024,
	stackBytes: 1024 * 1024,
	syncSliceMs: 5000,
	maxValueBytes: 8 * 1024 * 1024,
	// Enough for a nested workflow per item of a long list; each start leases a worker and parses a file (tens to
	// hundreds of ms of host work), so this also bounds what one run can spend on starting them.
	maxWorkflowCalls: 200,
	// Each running nested workflow holds a worker thread (10–20 MiB before its script allocates), and they mostly
	// wait on agents, which run 4 at once by default: more would cost threads without speeding anything up.
	maxWorkflowsRunning: 4,
	// A loop over files can make hundreds of tool steps; a thousand is far past any gate or listing a script needs.
	maxToolCalls: 1000,
	// Tool steps are mostly shell commands: a few at once keeps a fan-out of `npm test`s from starving the machine.
	maxToolsRunning: 4,
	// Each question waits on a person: a script asking more than a few is a loop gone wrong, not a conversation.
	maxAskCalls: 1000,
});

/** Default cap on the returned value, in bytes of JSON. */
export const DEFAULT_MAX_RESULT_BYTES = 4 * 1024 * 1024;
/** How long a finished run waits for runners that ignore abort before it reports them as abandoned. */
const SETTLE_GRACE_MS = 5000;

/**
 * Runs one workflow script.
 *
 * Contract: resolves, never rejects, for anything the script does (the result says `status: "failed"` and why);
 * throws a `TypeError` at once for misuse of the options. When it resolves, nothing it started is still alive (no
 * nested sandbox, sleep, timer or listener; what the script left running is stopped and named in `cutOff`), except
 * runner calls that ignored abort for the grace period, which the result counts in `error.details`.
 */
export async function runWorkflowScript(source: string, options: WorkflowRunOptions): Promise<WorkflowRunResult> {
	checkOptions(source, options);
	const started = Date.now();
	const limits: WorkflowLimits = { ...DEFAULT_LIMITS, ...options.limits };
	if (options.budget?.maxAgentCalls !== undefined) limits.maxAgentCalls = options.budget.maxAgentCalls;
	// The worker starts now, on another thread, while this one parses and checks the script: in a fresh process its
	// start is the longest part of the first run.
	warmSandboxPool({ limits: sandboxLimits(limits) });
	const filename = options.filename ?? "workflow.js";
	const cwd = options.cwd ?? process.cwd();
	const stops = startRunStops(options);
	const { emit, heard, runner } = await createEmitter(source, options, started);
	const run = createRunContext(options, { limits, cwd, emit, heard, runner, ...stops }, () => scope.name);
	const scope = createTopScope(run, filename, stops.controller.signal);

	const ending: ScriptEnding = {};
	/** Runner calls that had not settled when the run stopped waiting for them. */
	let pending = 0;
	try {
		await runScript(scope, source, options, ending);
	} catch (caught) {
		ending.error = toWorkflowError(caught);
	} finally {
		pending = await finishScript(scope, ending);
		stops.release();
	}

	const result = assembleRunResult({
		...ending,
		pending,
		census: run.census,
		droppedLogs: run.budget.droppedLogs,
		cutOff: run.cutOff,
		...(run.providerWaits.totals ? { providerWaits: run.providerWaits.totals } : {}),
		filename,
		cwd,
		durationMs: Date.now() - started,
	});
	emit(runEndEvent(result));
	return result;
}

/** What stops a run early: the caller's signal and the deadline, both aborting one controller. */
interface RunStops {
	controller: AbortController;
	deadline: RunDeadline;
	/** Clears the deadline and stops listening to the caller's signal, once the run is done. */
	release: () => void;
}

function startRunStops(options: WorkflowRunOptions): RunStops {
	const controller = new AbortController();
	const onCallerAbort = () => controller.abort(cancelledError(reasonText(options.signal?.reason)));
	if (options.signal?.aborted) onCallerAbort();
	else options.signal?.addEventListener("abort", onCallerAbort, { once: true });
	const deadline = new RunDeadline(options.timeoutMs, (whileAsking) => {
		const asking = whileAsking
			? " while a question was open: waiting on a person is not counted, but `agent()` and `tool()` calls running or started meanwhile are"
			: "";
		controller.abort(
			new WorkflowError(
				"timed_out",
				`The workflow ran past its deadline (limit: ${options.timeoutMs} ms)${asking}. Raise \`timeoutMs\``,
				{ details: { limit: options.timeoutMs } },
			),
		);
	});
	const release = () => {
		deadline.clear();
		options.signal?.removeEventListener("abort", onCallerAbort);
	};
	return { controller, deadline, release };
}

/**
 * The run's one emitter: stamps each event's time and hands it to the host's `onProgress` and to the spans; `heard`
 * when either is there. When the run is traced, its runner is the host's handed each attempt's trace context.
 */
async function createEmitter(
	source: string,
	options: WorkflowRunOptions,
	started: number,
): Promise<{ emit: (event: UnstampedEvent) => void; heard: boolean; runner: WorkflowAgentRunner }> {
	// Spans only when a host registered an OpenTelemetry SDK: otherwise no listener, and nothing to pay per event.
	const tracing =
		options.traced !== false && tracingRegistered()
			? await startRunSpans({
					startTime: started,
					...(options.runId !== undefined ? { runId: options.runId } : {}),
					script: { sha256: hash("sha256", source), ...(options.scriptTier ? { tier: options.scriptTier } : {}) },
					...(options.agentRunner.remote ? { remote: true } : {}),
				}).catch(() => undefined)
			: undefined;
	const spans = tracing?.listener;
	const onProgress = options.onProgress;
	// `run_end` is the last event: a runner that ignored abort and reports later must not reopen a finished run.
	let ended = false;
	const heard = onProgress !== undefined || spans !== undefined;
	const emit = (event: UnstampedEvent) => {
		if (!heard || ended) return;
		if (event.type === "run_end") ended = true;
		const stamped = { ...event, time: Date.now() } as WorkflowProgressEvent;
		// Telemetry never changes a run's outcome: what a listener throws is dropped, and the other still hears.
		try {
			onProgress?.(stamped);
		} catch {}
		try {
			spans?.(stamped);
		} catch {}
	};
	return { emit, heard, runner: tracing ? tracing.runner(options.agentRunner) : options.agentRunner };
}

/** The state the top-level script shares with its nested workflows, from the options and the run's own parts. */
function createRunContext(
	options: WorkflowRunOptions,
	parts: {
		limits: WorkflowLimits;
		cwd: string;
		emit: (event: UnstampedEvent) => void;
		heard: boolean;
		runner: WorkflowAgentRunner;
	} & RunStops,
	workflow: () => string,
): WholeRun {
	const { limits, cwd, emit, heard, runner, controller, deadline } = parts;
	const queue =
		options.queue ??
		createWorkflowQueue({
			concurrency: options.concurrency ?? 4,
			...(options.providerBackoff ? { providerBackoff: options.providerBackoff } : {}),
		});
	return {
		host: {
			runner,
			cwd,
			...(options.agentTypes ? { agentTypes: options.agentTypes } : {}),
			...(options.agentTypesNote ? { agentTypesNote: options.agentTypesNote } : {}),
			resolveWorkflow: options.resolveWorkflow ?? resolveWorkflowPath,
			...(options.journal ? { journal: options.journal } : {}),
			...(options.ask ? { ask: options.ask } : {}),
			...(options.tools ? { tools: options.tools } : {}),
			...(options.parentConversation ? { parentConversation: options.parentConversation } : {}),
			...(options.continueInterrupted === false ? { continueInterrupted: false as const } : {}),
		},
		indexes: new CallIndexes(),
		steps: { queue: createWorkflowQueue({ concurrency: limits.maxToolsRunning }), calls: 0 },
		nested: { queue: createWorkflowQueue({ concurrency: limits.maxWorkflowsRunning }), calls: 0 },
		askCalls: 0,
		queue,
		budget: new Budget({
			maxAgentCalls: limits.maxAgentCalls,
			maxLogEntries: limits.maxLogEntries,
			...(options.budget?.tokens !== undefined ? { tokens: options.budget.tokens } : {}),
			...(options.budget?.costUsd !== undefined ? { costUsd: options.budget.costUsd } : {}),
			...(options.budget?.priorCostUsd !== undefined ? { priorCostUsd: options.budget.priorCostUsd } : {}),
		}),
		census: new Census(),
		signal: controller.signal,
		emit,
		heard,
		limits,
		inFlight: new Set(),
		cutOff: [],
		deadline,
		schemas: new SchemaSession(),
		providerWaits: new RunProviderWaits({
			queue,
			emit,
			stop: (reason) => controller.abort(reason),
			signal: controller.signal,
			...(options.maxProviderWaitMs !== undefined ? { maxWaitMs: options.maxProviderWaitMs } : {}),
		}),
		runNested: runNestedWorkflow,
		fanOut: new FanOutGate(options.confirmFanOut, options.fanOutThreshold),
		costCap: new CostCapGate({
			...(options.onCostCap ? { ask: options.onCostCap } : {}),
			stop: (reason) => controller.abort(reason),
			workflow,
		}),
		newSandbox: () => createSandbox({ limits: sandboxLimits(limits) }),
	};
}

/** The limits the sandbox enforces itself, of a run's limits. */
function sandboxLimits(limits: WorkflowLimits): Partial<SandboxLimits> {
	const { memoryBytes, stackBytes, syncSliceMs, maxValueBytes } = limits;
	return { memoryBytes, stackBytes, syncSliceMs, maxValueBytes };
}

/** The top-level script's scope; its name and model are the header's once it is read. */
function createTopScope(run: WholeRun, filename: string, signal: AbortSignal): WholeScope {
	return {
		run,
		filename,
		keys: new CallKeys(),
		phases: new PhaseState((event) => run.emit(event)),
		depth: 0,
		life: new ScriptLifetime(signal),
		name: "workflow",
		phaseBudgets: new PhaseBudgets(),
		outerBudgets: [],
		labels: new LabelledCalls(),
	};
}

/** What the script ended with, filled in as it runs: the header as soon as it is read, then a value or an error. */
interface ScriptEnding {
	meta?: WorkflowMeta;
	value?: JsonValue;
	error?: WorkflowError;
}

/** Reads the header and the args, announces the run, and runs the body; what it throws is the caller's to record. */
async function runScript(
	scope: WholeScope,
	source: string,
	options: WorkflowRunOptions,
	ending: ScriptEnding,
): Promise<void> {
	const { run, filename } = scope;
	await loadAcornApart();
	// The static pass runs here, before any agent: a script it finds wrong starts nothing.
	const parsed = prepareWorkflow(source, {
		filename,
		maxScriptBytes: run.limits.maxScriptBytes,
		...(options.agentTypes ? { agentTypes: options.agentTypes } : {}),
		...(options.agentTypesNote ? { agentTypesNote: options.agentTypesNote } : {}),
	});
	const meta = parsed.meta;
	ending.meta = meta;
	// The fan-out question says what forks cost: each forked agent reads the session's conversation first.
	if (parsed.forks && run.host.parentConversation) run.fanOut.forkTokens = run.host.parentConversation.tokens;
	scope.name = meta.name;
	if (meta.model !== undefined) scope.model = meta.model;
	const args = options.args === undefined ? undefined : assertJsonValue(options.args, "args");
	await validateArgs(meta, args, {
		session: run.schemas,
		...(parsed.argsLocation ? { location: parsed.argsLocation } : {}),
	});
	const costLimitUsd = options.budget?.costUsd;
	const priorCostUsd = options.budget?.priorCostUsd;
	run.emit({
		type: "run_start",
		meta,
		cwd: run.host.cwd,
		...(args !== undefined ? { args } : {}),
		...(costLimitUsd !== undefined ? { costLimitUsd } : {}),
		...(priorCostUsd ? { priorCostUsd } : {}),
	});
	// The static pass's warnings (a guarded name, a header key of another runtime): the run goes on and says each once.
	for (const warning of parsed.warnings) emitLog(run, { level: "warn", message: warning });
	warnSkippedLines(run);
	const outcome = await runScriptBody(scope, parsed, args);
	if (outcome.ok)
		ending.value = checkResultSize(
			outcome.value,
			options.budget?.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
			parsed.body,
		);
	else ending.error = outcome.error;
}

/**
 * Calls and nested workflows the script left running can no longer change its result: stops them (saying which, and
 * failing a script that returned before them), then waits for every runner and nested sandbox and releases the
 * run's parts. Returns how many runner calls were still pending after the grace period.
 */
async function finishScript(scope: WholeScope, ending: ScriptEnding): Promise<number> {
	const { run } = scope;
	scope.phases.finish();
	const cut = endScript(scope, ending.error ? "failed" : "returned");
	if (!ending.error && cut.length > 0) ending.error = unawaitedWorkError(scope, cut);
	const pending = await settle(run.inFlight);
	run.providerWaits.dispose();
	run.schemas.dispose();
	return pending;
}

/** The last event of a run: its result, less what only the result carries (meta, logs dropped, cut-off work). */
export function runEndEvent(result: WorkflowRunResult): UnstampedEvent {
	return {
		type: "run_end",
		status: result.status,
		...(result.value !== undefined ? { result: result.value } : {}),
		...(result.error ? { error: result.error } : {}),
		failures: result.failures,
		counts: result.counts,
		...(result.tools ? { tools: result.tools } : {}),
		usage: result.usage,
		cost: result.cost,
		...(result.replayedCost ? { replayedCost: result.replayedCost } : {}),
		...(result.continuedTokens !== undefined ? { continuedTokens: result.continuedTokens } : {}),
		durationMs: result.durationMs,
	};
}

/** Waits for in-flight runner calls; returns how many were still pending after the grace period. */
async function settle(inFlight: Set<Promise<unknown>>): Promise<number> {
	if (inFlight.size === 0) return 0;
	let timer: ReturnType<typeof setTimeout> | undefined;
	const grace = new Promise<void>((resolve) => {
		timer = setTimeout(resolve, SETTLE_GRACE_MS);
	});
	await Promise.race([Promise.allSettled([...inFlight]), grace]);
	clearTimeout(timer);
	return inFlight.size;
}

function checkResultSize(value: JsonValue, maxBytes: number, body: string): JsonValue {
	const bytes = Buffer.byteLength(JSON.stringify(value) ?? "null");
	if (bytes > maxBytes) {
		const { location, note } = returnPosition(body);
		throw new WorkflowError(
			"limit_value_size",
			`The script's return value is ${bytes} bytes of JSON (limit: ${maxBytes})${note}. Return less (a summary, or only the fields needed), or raise \`budget.maxResultBytes\``,
			{ ...(location ? { location } : {}), details: { limit: maxBytes, bytes } },
		);
	}
	return value;
}

function reasonText(reason: unknown): string | undefined {
	if (reason instanceof Error) return reason.name === "AbortError" ? undefined : reason.message;
	return typeof reason === "string" ? reason : undefined;
}

/** Misuse of the API is a programming error in the host: a TypeError at once, in one shape. */
function checkOptions(source: unknown, options: WorkflowRunOptions | undefined): void {
	if (typeof source !== "string") throw new TypeError(`Expected \`source\` to be a string, got ${typeof source}`);
	if (!options || typeof options !== "object")
		throw new TypeError(`Expected \`options\` to be an object, got ${typeof options}`);
	if (typeof options.agentRunner !== "function") {
		throw new TypeError(`Expected \`options.agentRunner\` to be a function, got ${typeof options.agentRunner}`);
	}
	const positive = (name: string, value: unknown, integer: boolean, max = Number.MAX_VALUE) => {
		if (value === undefined) return;
		if (typeof value !== "number" || !(value > 0) || !(value <= max) || (integer && !Number.isInteger(value))) {
			const range = max === Number.MAX_VALUE ? "" : ` at most ${max}`;
			throw new TypeError(
				`Expected \`${name}\` to be a positive ${integer ? "integer" : "number"}${range}, got \`${String(value)}\` (${typeof value})`,
			);
		}
	};
	positive("timeoutMs", options.timeoutMs, false, MAX_TIMEOUT_MS);
	positive("concurrency", options.concurrency, true);
	positive("budget.maxAgentCalls", options.budget?.maxAgentCalls, true);
	positive("budget.maxResultBytes", options.budget?.maxResultBytes, true);
	positive("budget.tokens", options.budget?.tokens, false);
	positive("budget.costUsd", options.budget?.costUsd, false);
	const prior = options.budget?.priorCostUsd;
	if (prior !== undefined && (typeof prior !== "number" || !(prior >= 0) || !Number.isFinite(prior))) {
		throw new TypeError(
			`Expected \`budget.priorCostUsd\` to be a number of dollars from 0, got \`${String(prior)}\` (${typeof prior})`,
		);
	}
	if (options.onCostCap !== undefined && typeof options.onCostCap !== "function") {
		throw new TypeError(`Expected \`onCostCap\` to be a function, got ${typeof options.onCostCap}`);
	}
	const threshold = options.fanOutThreshold;
	if (threshold !== undefined && (typeof threshold !== "number" || !Number.isInteger(threshold) || threshold < 0)) {
		throw new TypeError(
			`Expected \`fanOutThreshold\` to be a whole number, 0 or more, got \`${String(threshold)}\` (${typeof threshold})`,
		);
	}
	if (options.confirmFanOut !== undefined && typeof options.confirmFanOut !== "function") {
		throw new TypeError(`Expected \`confirmFanOut\` to be a function, got ${typeof options.confirmFanOut}`);
	}
	const wait = options.maxProviderWaitMs;
	if (wait !== undefined && (typeof wait !== "number" || !(wait >= 0) || !Number.isFinite(wait))) {
		throw new TypeError(
			`Expected \`maxProviderWaitMs\` to be a number of milliseconds from 0, got \`${String(wait)}\` (${typeof wait})`,
		);
	}
	const going = options.continueInterrupted;
	if (going !== undefined && typeof going !== "boolean") {
		throw new TypeError(
			`Expected \`continueInterrupted\` to be true or false, got \`${String(going)}\` (${typeof going})`,
		);
	}
	const { journal } = options;
	if (
		journal !== undefined &&
		(journal === null || typeof journal.lookup !== "function" || typeof journal.record !== "function")
	) {
		throw new TypeError(
			`Expected \`options.journal\` to be a WorkflowJournal (\`lookup\` and \`record\` functions), got ${journal === null ? "null" : typeof journal}`,
		);
	}
	if (options.ask !== undefined && typeof options.ask !== "function") {
		throw new TypeError(
			`Expected \`options.ask\` to be a function, got ${options.ask === null ? "null" : typeof options.ask}`,
		);
	}
	const tools = options.tools;
	if (tools !== undefined) {
		if (tools === null || typeof tools !== "object") {
			throw new TypeError(
				`Expected \`options.tools\` to be an object of name → function, got ${tools === null ? "null" : typeof tools}`,
			);
		}
		for (const [name, fn] of Object.entries(tools)) {
			if (typeof fn !== "function")
				throw new TypeError(`Expected \`options.tools.${name}\` to be a function, got ${typeof fn}`);
		}
	}
	const limits = options.limits;
	if (limits === undefined) return;
	if (limits === null || typeof limits !== "object") {
		throw new TypeError(`Expected \`limits\` to be an object, got ${limits === null ? "null" : typeof limits}`);
	}
	const known = Object.keys(DEFAULT_LIMITS);
	for (const [name, value] of Object.entries(limits)) {
		if (!known.includes(name))
			throw new TypeError(`Expected \`limits\` keys among ${known.join(", ")}, got \`${name}\``);
		positive(`limits.${name}`, value, true);
	}
	// The sandbox's own ranges (memory from 32 MiB to 2 GiB, …), checked now rather than when the sandbox starts.
	const { memoryBytes, stackBytes, syncSliceMs, maxValueBytes } = limits;
	resolveLimits({ memoryBytes, stackBytes, syncSliceMs, maxValueBytes });
}
