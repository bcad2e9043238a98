/**
 * One `agent()` call: check options, charge the budget, wait in the queue, ask the runner (re-asking with the
 * validation errors for schema calls), record the outcome. Child failures resolve to null and enter the census;
 * author errors and hard limits throw a `WorkflowError` into the script.
 */
import { errorMessage, unknownAgentTypeError, WorkflowError } from "../errors.ts";
import { watchAbort } from "./abort-watch.ts";
import { type AgentCallOptions, checkAgentOptions, checkPrompt } from "./agent-options.ts";
import { firstFrameIn } from "./call-site.ts";
import { readChildReport, readWorktree } from "./child-report.ts";
import type { WorkflowAgentCallRef } from "./events.ts";
import { assertJsonValue } from "./json-value.ts";
import { emitLog, type RunContext, type ScriptScope, trackInFlight } from "./run-context.ts";
import { type CompiledSchema, parseStructuredText, type SchemaValidation } from "./schema.ts";
import type {
	JsonValue,
	WorkflowAgentChild,
	WorkflowAgentRequest,
	WorkflowAgentResult,
	WorkflowJournalEntry,
	WorkflowTokenUsage,
	WorkflowWorktree,
} from "./types.ts";

/** Attempts a schema call gets in all before `agent()` throws `schema_unmet`. */
export const SCHEMA_ATTEMPTS = 5;
const PREVIEW_CHARS = 200;
/** Why a call the script did not wait for was stopped. */
const ORPHANED = "still running when the script returned";
/** Runner error codes that are the author's fault, so `agent()` throws them instead of resolving to null. */
const AUTHOR_CODES = new Set(["agent_type_unknown", "agent_options_invalid", "schema_invalid"]);

/** The outcome of one runner attempt, before the call decides what the script gets. */
type Attempt =
	| { kind: "answer"; value: JsonValue; result: WorkflowAgentResult }
	| { kind: "schema_miss"; errors: string; result: WorkflowAgentResult }
	| { kind: "failed"; cause: string; code?: string; result?: WorkflowAgentResult; final?: boolean };

/** Runs one `agent(prompt, opts)` call made at the guest stack `stack` (its line names it when it is cut off). */
export async function runAgentCall(
	scope: ScriptScope,
	rawPrompt: JsonValue,
	rawOptions: JsonValue,
	stack: string,
): Promise<JsonValue> {
	const { run } = scope;
	run.census.call();
	let prompt: string;
	let options: AgentCallOptions;
	let schema: CompiledSchema | undefined;
	let compiling: Promise<CompiledSchema> | undefined;
	try {
		prompt = checkPrompt(rawPrompt);
		options = checkAgentOptions(rawOptions);
		if (run.agentTypes && !run.agentTypes.includes(options.agentType)) {
			throw unknownAgentTypeError(options.agentType, run.agentTypes);
		}
		compiling = options.schema ? run.schemas.compileAgent(options.schema) : undefined;
	} catch (error) {
		// Refused before it was queued (author error, limit, cancelled run): it never started.
		run.census.refused();
		throw error;
	}

	// Taken before the schema compiles (in the schema worker), so calls keep the key and index of the order made.
	const site = firstFrameIn(stack, scope.filename);
	const ref: WorkflowAgentCallRef = {
		key: scope.keys.next(identityOf(prompt, options)),
		index: run.nextCallIndex++,
		label: options.label ?? shorten(prompt, 60),
		agentType: options.agentType,
		...((options.phase ?? scope.phases.current) ? { phase: options.phase ?? scope.phases.current } : {}),
		...(scope.workflowName ? { workflow: scope.workflowName } : {}),
	};
	// Until it ends, the call is among what its script would cut off by returning: from here, so a call still
	// compiling its schema when the script returns is named too.
	const untrack = scope.life.track({
		kind: "agent",
		name: ref.label,
		filename: scope.filename,
		...(site ?? {}),
		index: ref.index,
		...(scope.workflowName ? { workflow: scope.workflowName } : {}),
	});
	try {
		schema = await compiling;
		if (run.signal.aborted) throw run.signal.reason;
		run.budget.chargeAgentCall();
	} catch (error) {
		untrack();
		if (schema) run.schemas.release(schema);
		run.census.refused();
		throw error;
	}
	run.emit({
		type: "agent_queued",
		...ref,
		promptPreview: shorten(prompt, PREVIEW_CHARS),
		hasSchema: schema !== undefined,
		...(options.model ? { model: options.model } : {}),
	});
	const journaled = replayable(run, ref.key, schema !== undefined);
	if (journaled) {
		untrack();
		if (typeof journaled.value === "string") {
			run.census.note("text", { what: `agent \`${ref.label}\``, filename: scope.filename, ...site });
		}
		if (schema) run.schemas.release(schema);
		return replay(run, ref, journaled);
	}
	const started = Date.now();
	let attempts = 0;
	let usage: WorkflowTokenUsage | undefined;
	let reachedRunner = false;
	const fail = (
		cause: string,
		code: string | undefined,
		thrown: boolean,
		agentId?: string,
		worktree?: WorkflowWorktree,
	) => {
		run.census.failed(
			{
				kind: "agent",
				index: ref.index,
				key: ref.key,
				label: ref.label,
				agentType: ref.agentType,
				...(ref.phase ? { phase: ref.phase } : {}),
				cause,
				...(code ? { code } : {}),
				...(worktree ? { worktree } : {}),
			},
			{ skipped: !reachedRunner, ...(usage ? { usage } : {}) },
		);
		run.emit({
			type: "agent_failed",
			...ref,
			...(agentId ? { agentId } : {}),
			error: cause,
			...(code ? { code } : {}),
			thrown,
			skipped: !reachedRunner,
			...(usage ? { usage } : {}),
			durationMs: Date.now() - started,
			...(worktree ? { worktree } : {}),
		});
	};

	try {
		const outcome = await run.queue.run(async () => {
			reachedRunner = true;
			run.census.started();
			let feedback: string | undefined;
			const maxAttempts = schema ? SCHEMA_ATTEMPTS : 1 + options.retries;
			let last: Attempt = { kind: "failed", cause: "never ran" };
			for (let attempt = 1; attempt <= maxAttempts; attempt++) {
				if (scope.life.signal.aborted) throw scope.life.signal.reason;
				if (attempt === 1) run.emit({ type: "agent_started", ...ref, attempt });
				else
					run.emit({
						type: "agent_retry",
						...ref,
						attempt,
						reason: last.kind === "failed" ? last.cause : (feedback ?? ""),
					});
				last = await attemptOnce(scope, ref, buildRequest(scope, ref, prompt, options, attempt, feedback), schema);
				attempts = attempt;
				usage = addUsage(usage, last.result?.usage);
				if (last.kind === "answer") break;
				if (last.kind === "schema_miss") feedback = last.errors;
				// A failed child is tried again only when the script asked for retries, and never one the user skipped.
				else if (attempt > options.retries || last.final) break;
			}
			return last;
		}, scope.life.signal);

		if (outcome.kind === "answer") {
			// On disk before the script sees it: a crash after this point cannot lose the answer.
			await journal(run, ref, outcome.value, usage, outcome.result.id);
			run.census.completed(usage);
			if (typeof outcome.value === "string") {
				run.census.note("text", { what: `agent \`${ref.label}\``, filename: scope.filename, ...site });
			}
			run.emit({
				type: "agent_finished",
				...ref,
				agentId: outcome.result.id,
				resultPreview: preview(outcome.value),
				...(usage ? { usage } : {}),
				...(outcome.result.toolUses !== undefined ? { toolUses: outcome.result.toolUses } : {}),
				durationMs: Date.now() - started,
				attempts,
				...(outcome.result.worktree ? { worktree: outcome.result.worktree } : {}),
			});
			return outcome.value;
		}
		if (outcome.kind === "schema_miss") {
			const error = new WorkflowError(
				"schema_unmet",
				`\`agent()\` answer still does not match its schema after ${SCHEMA_ATTEMPTS} attempts: ${outcome.errors}`,
				{ details: { attempts: SCHEMA_ATTEMPTS, errors: outcome.errors, key: ref.key } },
			);
			fail(error.message, error.code, true, outcome.result.id, outcome.result.worktree);
			throw error;
		}
		fail(outcome.cause, outcome.code, false, outcome.result?.id, outcome.result?.worktree);
		run.census.note("null", {
			what: `agent \`${ref.label}\``,
			filename: scope.filename,
			...site,
			cause: outcome.cause,
		});
		return null;
	} catch (error) {
		if (error instanceof WorkflowError && error.code === "schema_unmet") throw error;
		const coded = error instanceof WorkflowError ? error : undefined;
		const orphaned = !run.signal.aborted && scope.life.signal.aborted;
		fail(orphaned ? ORPHANED : (coded?.message ?? errorMessage(error)), coded?.code, true);
		throw error;
	} finally {
		untrack();
		// Tokens count against the budget whatever became of the call.
		if (usage) run.budget.spendTokens(usage.total);
		if (schema) run.schemas.release(schema);
	}
}

/**
 * The journal's entry for `key`, when it can stand in for the call: a JSON value that fits the boundary (an object
 * for a schema call). Anything else, from a journal edited by hand, is ignored and the call runs.
 */
function replayable(run: RunContext, key: string, hasSchema: boolean): WorkflowJournalEntry | undefined {
	const entry = run.journal?.lookup(key);
	if (entry === undefined || entry === null || typeof entry !== "object") return undefined;
	try {
		const value = assertJsonValue(entry.value, "journal value");
		if (hasSchema && (value === null || typeof value !== "object" || Array.isArray(value))) return undefined;
		if (Buffer.byteLength(JSON.stringify(value)) > run.limits.maxValueBytes) return undefined;
		const usage = readUsage(entry.usage);
		return {
			key,
			value,
			...(usage ? { usage } : {}),
			...(typeof entry.agentId === "string" ? { agentId: entry.agentId } : {}),
		};
	} catch {
		return undefined;
	}
}

/** A call the journal holds: counted, charged and reported as it was in the run that made it, with no runner call. */
function replay(run: RunContext, ref: WorkflowAgentCallRef, entry: WorkflowJournalEntry): JsonValue {
	run.census.started();
	run.census.completed(entry.usage);
	if (entry.usage) run.budget.spendTokens(entry.usage.total);
	run.emit({
		type: "agent_finished",
		...ref,
		...(entry.agentId ? { agentId: entry.agentId } : {}),
		resultPreview: preview(entry.value),
		...(entry.usage ? { usage: entry.usage } : {}),
		durationMs: 0,
		attempts: 0,
		cached: true,
	});
	return entry.value;
}

/** Records a finished call. A journal that cannot write costs durability, not the answer: the run goes on, warned. */
async function journal(
	run: RunContext,
	ref: WorkflowAgentCallRef,
	value: JsonValue,
	usage: WorkflowTokenUsage | undefined,
	agentId: string | undefined,
): Promise<void> {
	if (!run.journal) return;
	try {
		await run.journal.record({
			key: ref.key,
			value,
			...(usage ? { usage } : {}),
			...(agentId !== undefined ? { agentId: String(agentId) } : {}),
			label: ref.label,
			agentType: ref.agentType,
		});
	} catch (error) {
		emitLog(run, {
			level: "warn",
			message: `Could not journal the answer of \`${ref.label}\` (${errorMessage(error)}); a resume will run this call again`,
			...(ref.phase ? { phase: ref.phase } : {}),
		});
	}
}

/** One runner call, raced against the call's signal so a runner that ignores abort cannot hold the script. */
async function attemptOnce(
	scope: ScriptScope,
	ref: WorkflowAgentCallRef,
	request: WorkflowAgentRequest,
	schema: CompiledSchema | undefined,
): Promise<Attempt> {
	const { run } = scope;
	const deadline = request.timeoutMs === undefined ? undefined : callDeadline(scope.life.signal, request.timeoutMs);
	const signal = deadline?.signal ?? scope.life.signal;
	// A report after the runner's promise settled would bring a finished child back to life in the progress view,
	// so it is dropped, as is one that is not plain data (child-report.ts). A runner stopping after abort may report.
	let reporting = true;
	const reportChild = (raw: WorkflowAgentChild) => {
		const child = reporting ? readChildReport(raw) : undefined;
		if (!child) return;
		run.emit({ type: "agent_child", ...ref, child: { ...child, callKey: ref.key, callIndex: ref.index } });
	};
	const call = trackInFlight(
		run,
		Promise.resolve().then(() => run.runner(request, { signal, reportChild })),
	);
	const stopReporting = () => {
		reporting = false;
	};
	call.then(stopReporting, stopReporting);
	let result: WorkflowAgentResult;
	try {
		result = readResult(await raceSignal(call, signal));
	} catch (error) {
		if (error instanceof WorkflowError && AUTHOR_CODES.has(error.code)) throw error;
		if (run.signal.aborted) throw run.signal.reason;
		if (signal.aborted) return { kind: "failed", cause: abortCause(request, scope.life.signal.aborted) };
		return { kind: "failed", cause: `runner error: ${errorMessage(error)}` };
	} finally {
		deadline?.clear();
	}
	const malformed = checkResult(result);
	if (malformed) return { kind: "failed", cause: malformed };
	// What the runner noticed about the child (a tool it lacked, a cut-off answer) goes to the run's log.
	for (const warning of result.warnings ?? []) {
		emitLog(run, {
			level: "warn",
			message: `\`${ref.label}\`: ${warning}`,
			...(ref.phase ? { phase: ref.phase } : {}),
		});
	}
	// Ended on purpose (skipped by the user): its reason is the cause, as said.
	if (result.status !== "completed" && result.noRetry === true) {
		return { kind: "failed", cause: result.error ?? result.status, result, final: true };
	}
	if (result.status !== "completed") {
		const cause =
			result.status === "stopped" ? `stopped${result.error ? `: ${result.error}` : ""}` : (result.error ?? "failed");
		return { kind: "failed", cause, ...(result.code ? { code: result.code } : {}), result };
	}
	if (!schema) {
		const text = result.result ?? "";
		if (text.trim() === "") return { kind: "failed", cause: "empty answer", result };
		return checkAnswerSize(text, result, run.limits.maxValueBytes);
	}
	const candidate =
		result.structuredOutput !== undefined ? result.structuredOutput : parseStructuredText(result.result ?? "");
	if (candidate === undefined) {
		return {
			kind: "schema_miss",
			errors: "no structured output was submitted and the answer holds no JSON object",
			result,
		};
	}
	// Checked and copied in one pass: what the schema sees and the script gets is what was checked.
	let output: JsonValue;
	try {
		output = assertJsonValue(candidate, "structuredOutput");
	} catch (error) {
		const cause = `runner returned structured output that is not JSON data: ${errorMessage(error)}`;
		return { kind: "failed", cause, result };
	}
	let checked: SchemaValidation;
	try {
		checked = await schema.validate(output);
	} catch (error) {
		// The check was stopped (too slow, out of memory): this answer cannot be used, another attempt may be.
		return { kind: "failed", cause: errorMessage(error), result };
	}
	if (!checked.ok) return { kind: "schema_miss", errors: checked.errors, result };
	return checkAnswerSize(checked.value as JsonValue, result, run.limits.maxValueBytes);
}

/**
 * An answer too large to cross into the sandbox is the child's failure (null and a census entry), decided here
 * rather than by the boundary, which would throw into the script after the call was counted completed.
 */
function checkAnswerSize(value: JsonValue, result: WorkflowAgentResult, maxBytes: number): Attempt {
	const bytes = Buffer.byteLength(JSON.stringify(value));
	if (bytes <= maxBytes) return { kind: "answer", value, result };
	return {
		kind: "failed",
		cause: `answer is ${bytes} bytes of JSON (limit: ${maxBytes}); raise \`limits.maxValueBytes\` or ask for less`,
		result,
	};
}

function buildRequest(
	scope: ScriptScope,
	ref: WorkflowAgentCallRef,
	prompt: string,
	options: AgentCallOptions,
	attempt: number,
	feedback: string | undefined,
): WorkflowAgentRequest {
	return {
		key: ref.key,
		index: ref.index,
		attempt,
		prompt,
		agentType: options.agentType,
		label: ref.label,
		description: ref.label,
		cwd: scope.run.cwd,
		...(options.model ? { model: options.model } : {}),
		...(options.thinking ? { thinking: options.thinking } : {}),
		...(options.schema ? { schema: options.schema } : {}),
		...(feedback ? { schemaFeedback: feedback } : {}),
		...(options.tools ? { tools: options.tools } : {}),
		...(ref.phase ? { phase: ref.phase } : {}),
		...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
		...(options.stallMs !== undefined ? { stallMs: options.stallMs } : {}),
		...(options.isolation ? { isolation: options.isolation } : {}),
	};
}

/** What makes two calls the same call: not the label or phase, which are display. */
function identityOf(prompt: string, options: AgentCallOptions): unknown {
	return {
		prompt,
		agentType: options.agentType,
		schema: options.schema,
		model: options.model,
		thinking: options.thinking,
		tools: options.tools,
		isolation: options.isolation,
	};
}

/**
 * The fields we read, copied once into plain data: a runner's result may have getters that throw (a runner
 * error, caught by the caller) or values that change between reads.
 */
function readResult(raw: unknown): WorkflowAgentResult {
	if (raw === null || typeof raw !== "object") return raw as WorkflowAgentResult;
	const { id, status, result, structuredOutput, error, code, warnings, toolUses, usage, noRetry, worktree } =
		raw as WorkflowAgentResult;
	// `id`, `code`, `toolUses` and `worktree` go out in progress events, which carry JSON data only: anything else is left out.
	const tree = readWorktree(worktree);
	return {
		...(typeof id === "string" ? { id } : {}),
		status,
		result,
		structuredOutput,
		error: error === undefined ? undefined : errorMessage(error),
		...(typeof code === "string" ? { code } : {}),
		...(Array.isArray(warnings) ? { warnings: warnings.filter((w) => typeof w === "string") } : {}),
		...(noRetry === true ? { noRetry: true } : {}),
		...(typeof toolUses === "number" && Number.isFinite(toolUses) && toolUses >= 0 ? { toolUses } : {}),
		usage: readUsage(usage),
		...(tree ? { worktree: tree } : {}),
	} as WorkflowAgentResult;
}

/** Token counts as plain numbers: negative or non-finite ones (a runner's, a journal's) would corrupt the budget. */
function readUsage(usage: unknown): WorkflowTokenUsage | undefined {
	if (usage === null || typeof usage !== "object") return undefined;
	const { input, output, total } = usage as Partial<WorkflowTokenUsage>;
	const count = (x: unknown) => (typeof x === "number" && Number.isFinite(x) && x > 0 ? x : 0);
	return { input: count(input), output: count(output), total: count(total) };
}

/** A runner's result must at least have a status we know; anything else is a failed child, not a crash. */
function checkResult(result: unknown): string | undefined {
	if (result === null || typeof result !== "object")
		return `runner returned ${result === null ? "null" : typeof result} instead of a result`;
	const r = result as Partial<WorkflowAgentResult>;
	if (r.status !== "completed" && r.status !== "failed" && r.status !== "stopped") {
		return `runner returned a result with status ${JSON.stringify(r.status)}`;
	}
	if (r.result !== undefined && typeof r.result !== "string") return "runner returned a non-text `result`";
	return undefined;
}

/**
 * A signal that fires when `outer` does or `timeoutMs` has passed, whose timer and listener end with `clear()`.
 * (`AbortSignal.timeout` kept its timer alive for the whole timeout, however soon the call ended.)
 */
function callDeadline(outer: AbortSignal, timeoutMs: number): { signal: AbortSignal; clear: () => void } {
	const controller = new AbortController();
	if (outer.aborted) return { signal: outer, clear: () => {} };
	const timer = setTimeout(
		() => controller.abort(new WorkflowError("timed_out", `The agent call timed out after ${timeoutMs} ms`)),
		timeoutMs,
	);
	const unwatch = watchAbort(outer, () => controller.abort(outer.reason));
	return {
		signal: controller.signal,
		clear: () => {
			clearTimeout(timer);
			unwatch();
		},
	};
}

function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
	if (signal.aborted) return Promise.reject(signal.reason);
	return new Promise<T>((resolve, reject) => {
		const unwatch = watchAbort(signal, () => reject(signal.reason));
		promise.then(
			(value) => {
				unwatch();
				resolve(value);
			},
			(error) => {
				unwatch();
				reject(error);
			},
		);
	});
}

function abortCause(request: WorkflowAgentRequest, orphaned: boolean): string {
	if (orphaned) return ORPHANED;
	return `timed out after ${request.timeoutMs} ms`;
}

function addUsage(
	a: WorkflowTokenUsage | undefined,
	b: WorkflowTokenUsage | undefined,
): WorkflowTokenUsage | undefined {
	if (!b || typeof b !== "object") return a;
	const n = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : 0);
	return {
		input: (a?.input ?? 0) + n(b.input),
		output: (a?.output ?? 0) + n(b.output),
		total: (a?.total ?? 0) + n(b.total),
	};
}

/** Characters of a text read for a preview: a prompt may be megabytes, and a preview needs only its start. */
const PREVIEW_SCAN = 16 * 1024;

function preview(value: JsonValue): string {
	return shorten(typeof value === "string" ? value : JSON.stringify(value), PREVIEW_CHARS);
}

function shorten(text: string, max: number): string {
	// Collapsing whitespace in all of a multi-megabyte prompt blocked the host's event loop for seconds.
	const flat = text.slice(0, PREVIEW_SCAN).replace(/\s+/g, " ").trim();
	return flat.length <= max && text.length <= PREVIEW_SCAN ? flat : `${flat.slice(0, max - 1)}…`;
}
