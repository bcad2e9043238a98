/**
 * One runner attempt of an `agent()` call: the request it sends, the runner call raced against the call's deadline
 * and its script's end, and what the answer is worth (text, a schema miss to send back, or a failure).
 */
import { errorMessage, errorStage, isWorkflowError, WorkflowError } from "../../errors.ts";
import { watchAbort } from "../core/abort-watch.ts";
import { readCost } from "../core/cost.ts";
import type { WorkflowAgentCallRef } from "../core/events.ts";
import { assertJsonValue } from "../core/json.ts";
import { emitLog, type ScriptScope, trackInFlight } from "../core/run-context.ts";
import type {
	JsonValue,
	WorkflowAgentChild,
	WorkflowAgentRequest,
	WorkflowAgentResult,
	WorkflowContinuation,
	WorkflowNameMatch,
	WorkflowProviderLimit,
	WorkflowProviderStop,
	WorkflowTokenUsage,
} from "../core/types.ts";
import { type CompiledSchema, parseStructuredText, type SchemaValidation } from "../schema/session.ts";
import { readAbandoned, readChildReport, readWorktree } from "./child-report.ts";
import { requestContext } from "./fork.ts";
import type { AgentCallOptions } from "./options.ts";

/** Why a call the script did not wait for was stopped. */
export const ORPHANED = "still running when the script returned";

/** The outcome of one runner attempt, before the call decides what the script gets. */
export type Attempt =
	| { kind: "answer"; value: JsonValue; result: WorkflowAgentResult }
	| { kind: "schema_miss"; errors: string; result: WorkflowAgentResult }
	/** The provider asked the child to wait: not a failure, and it does not count against the call's attempts. */
	| { kind: "limited"; limit: WorkflowProviderLimit; result: WorkflowAgentResult }
	/** The provider refused the account (quota, a key): no wait lifts it, so the run stops; not a failure either. */
	| { kind: "refused"; stop: WorkflowProviderStop; result: WorkflowAgentResult }
	| { kind: "failed"; cause: string; code?: string; result?: WorkflowAgentResult; final?: boolean };

/** One runner call, raced against the call's signal so a runner that ignores abort cannot hold the script. */
export async function attemptOnce(
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
		Promise.resolve().then(() => run.host.runner(request, { signal, reportChild })),
	);
	const stopReporting = () => {
		reporting = false;
	};
	// Attempts the runner abandoned count whenever its result comes, even after the call stopped waiting for it (timed
	// out, cancelled): then the cause was given without it, and the log says it.
	let waiting = true;
	call.then((raw) => {
		stopReporting();
		const abandoned = readAbandoned(raw);
		run.census.abandoned(abandoned);
		const continued = readContinued(raw);
		if (continued) run.census.continued(continued.savedTokens);
		if (abandoned === 0 || waiting) return;
		const message = `\`${ref.label}\`: its child did not stop when asked and was abandoned; it may still be running`;
		emitLog(run, { level: "warn", message, ...(ref.phase ? { phase: ref.phase } : {}) });
	}, stopReporting);
	let result: WorkflowAgentResult;
	try {
		result = readResult(await raceSignal(call, signal));
	} catch (error) {
		waiting = false;
		if (isAuthorError(error)) throw error;
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
	if (result.status !== "completed" && result.providerLimit) {
		return { kind: "limited", limit: result.providerLimit, result };
	}
	if (result.status !== "completed" && result.providerStop) {
		return { kind: "refused", stop: result.providerStop, result };
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

/**
 * A runner's rejection the script must see as thrown (the author's fault, so `agent()` throws it instead of
 * resolving to null); false for anything else, a Proxy whose traps throw too.
 */
function isAuthorError(error: unknown): boolean {
	try {
		return isWorkflowError(error) && errorStage(error.code) === "author";
	} catch {
		return false;
	}
}

/** The runner request for attempt `attempt` of the call, with the last schema miss's errors as feedback. */
export function buildRequest(
	scope: ScriptScope,
	ref: WorkflowAgentCallRef,
	prompt: string,
	options: AgentCallOptions,
	attempt: number,
	feedback: string | undefined,
	continues?: WorkflowContinuation,
): WorkflowAgentRequest {
	const context = requestContext(scope.run, options);
	return {
		key: ref.key,
		index: ref.index,
		attempt,
		prompt,
		agentType: options.agentType,
		label: ref.label,
		description: ref.label,
		cwd: scope.run.host.cwd,
		...(options.model ? { model: options.model } : {}),
		...(scope.model ? { defaultModel: scope.model } : {}),
		...(options.fallbackModels ? { fallbackModels: options.fallbackModels } : {}),
		...(options.thinking ? { thinking: options.thinking } : {}),
		...(options.schema ? { schema: options.schema } : {}),
		...(feedback ? { schemaFeedback: feedback } : {}),
		...(options.tools ? { tools: options.tools } : {}),
		...(ref.phase ? { phase: ref.phase } : {}),
		...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
		...(options.stallMs !== undefined ? { stallMs: options.stallMs } : {}),
		...(options.isolation ? { isolation: options.isolation } : {}),
		...(options.tier ? { tier: options.tier } : {}),
		...(options.readOnly ? { readOnly: true } : {}),
		...(context ? { context } : {}),
		...(continues ? { continues } : {}),
		...(options.continueInterrupted === false || scope.run.host.continueInterrupted === false
			? { continueInterrupted: false as const }
			: {}),
		...(options.placement ? { placement: options.placement } : {}),
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
	const { providerLimit, providerStop, model, fallbackFrom, transcripts, matches } = raw as WorkflowAgentResult;
	const cost = readCost((raw as WorkflowAgentResult).cost);
	const errorText = error === undefined ? undefined : errorMessage(error);
	// `id`, `code`, `toolUses` and `worktree` go out in progress events, which carry JSON data only: anything else is left out.
	const tree = readWorktree(worktree);
	return {
		...(typeof id === "string" ? { id } : {}),
		status,
		result,
		structuredOutput,
		error: errorText,
		...(typeof code === "string" ? { code } : {}),
		...(Array.isArray(warnings) ? { warnings: warnings.filter((w) => typeof w === "string") } : {}),
		...(noRetry === true ? { noRetry: true } : {}),
		...(typeof toolUses === "number" && Number.isFinite(toolUses) && toolUses >= 0 ? { toolUses } : {}),
		usage: readUsage(usage),
		...(cost ? { cost } : {}),
		...(tree ? { worktree: tree } : {}),
		...readTranscripts(transcripts),
		...readModels(providerLimit, model, fallbackFrom, errorText),
		...readStop(providerStop, errorText),
		...readMatches(matches),
	} as WorkflowAgentResult;
}

/** A runner's `continued` (its child went on from an interrupted attempt): counts, else undefined. */
function readContinued(raw: unknown): { turns: number; savedTokens: number } | undefined {
	try {
		const value: unknown = (raw as WorkflowAgentResult | null)?.continued;
		if (typeof value !== "object" || value === null) return undefined;
		const { turns, savedTokens } = value as Record<string, unknown>;
		const count = (n: unknown) => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
		return count(turns) && count(savedTokens)
			? { turns: turns as number, savedTokens: savedTokens as number }
			: undefined;
	} catch {
		return undefined;
	}
}

/** Conversation files a runner named: strings only, a bounded number of bounded length (they go out in events). */
export function readTranscripts(value: unknown): { transcripts?: string[] } {
	if (!Array.isArray(value)) return {};
	const names = value.filter((name): name is string => typeof name === "string" && name !== "" && name.length <= 1024);
	return names.length > 0 ? { transcripts: names.slice(0, MAX_TRANSCRIPTS) } : {};
}

/** Conversation files one call keeps a record of: restarts, stall retries, fallbacks and schema retries included. */
const MAX_TRANSCRIPTS = 50;

const MATCH_KINDS: readonly string[] = ["model", "tier", "agent"];

/** The runner's name matches, as plain data: entries of the wrong shape are left out. */
function readMatches(matches: unknown): Pick<WorkflowAgentResult, "matches"> {
	if (!Array.isArray(matches)) return {};
	const kept = matches
		.filter(
			(m): m is WorkflowNameMatch =>
				m !== null &&
				typeof m === "object" &&
				MATCH_KINDS.includes(m.kind) &&
				typeof m.written === "string" &&
				typeof m.resolved === "string" &&
				typeof m.how === "string",
		)
		.map(({ kind, written, resolved, how }) => ({ kind, written, resolved, how, calls: 1 }));
	return kept.length > 0 ? { matches: kept } : {};
}

const LIMIT_KINDS: readonly string[] = ["rate_limit", "overloaded", "usage_limit"];

/**
 * A result's provider limit and models, as plain data: a limit of an unknown kind is no limit (the child failed),
 * and a retry-after that is not a finite wait from 0 is left out (the queue's backoff applies).
 */
function readModels(
	limit: unknown,
	model: unknown,
	fallbackFrom: unknown,
	error: string | undefined,
): Pick<WorkflowAgentResult, "providerLimit" | "model" | "fallbackFrom"> {
	const out: Pick<WorkflowAgentResult, "providerLimit" | "model" | "fallbackFrom"> = {};
	if (typeof model === "string" && model) out.model = model;
	if (Array.isArray(fallbackFrom)) {
		const names = fallbackFrom.filter((name): name is string => typeof name === "string" && name !== "");
		if (names.length > 0) out.fallbackFrom = names;
	}
	if (limit === null || typeof limit !== "object") return out;
	const { kind, retryAfterMs, message } = limit as Partial<WorkflowProviderLimit>;
	if (typeof kind !== "string" || !LIMIT_KINDS.includes(kind)) return out;
	out.providerLimit = {
		kind,
		message: typeof message === "string" && message ? message : (error ?? kind),
		...(typeof retryAfterMs === "number" && Number.isFinite(retryAfterMs) && retryAfterMs >= 0
			? { retryAfterMs }
			: {}),
	};
	return out;
}

const STOP_KINDS: readonly string[] = ["quota", "auth"];

/** A result's provider stop, as plain data: one of an unknown kind is none (the child failed). */
function readStop(stop: unknown, error: string | undefined): Pick<WorkflowAgentResult, "providerStop"> {
	if (stop === null || typeof stop !== "object") return {};
	const { kind, provider, message } = stop as Partial<WorkflowProviderStop>;
	if (typeof kind !== "string" || !STOP_KINDS.includes(kind)) return {};
	return {
		providerStop: {
			kind: kind as WorkflowProviderStop["kind"],
			...(typeof provider === "string" && provider ? { provider } : {}),
			message: typeof message === "string" && message ? message : (error ?? kind),
		},
	};
}

/** Token counts as plain numbers: negative or non-finite ones (a runner's, a journal's) would corrupt the budget. */
export function readUsage(usage: unknown): WorkflowTokenUsage | undefined {
	if (usage === null || typeof usage !== "object") return undefined;
	const { input, output, total, cacheRead, cacheWrite } = usage as Partial<WorkflowTokenUsage>;
	const count = (x: unknown) => (typeof x === "number" && Number.isFinite(x) && x > 0 ? x : 0);
	return { input: count(input), output: count(output), total: count(total), ...cacheCounts(cacheRead, cacheWrite) };
}

/** The cache's share of input, only when there was one: most runs' usage stays three numbers. */
function cacheCounts(read: unknown, write: unknown): Pick<WorkflowTokenUsage, "cacheRead" | "cacheWrite"> {
	const count = (x: unknown) => (typeof x === "number" && Number.isFinite(x) && x > 0 ? x : 0);
	return {
		...(count(read) > 0 ? { cacheRead: count(read) } : {}),
		...(count(write) > 0 ? { cacheWrite: count(write) } : {}),
	};
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

/** Token counts of two attempts added up. */
export function addUsage(
	a: WorkflowTokenUsage | undefined,
	b: WorkflowTokenUsage | undefined,
): WorkflowTokenUsage | undefined {
	if (!b || typeof b !== "object") return a;
	const n = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : 0);
	return {
		input: (a?.input ?? 0) + n(b.input),
		output: (a?.output ?? 0) + n(b.output),
		total: (a?.total ?? 0) + n(b.total),
		...cacheCounts((a?.cacheRead ?? 0) + n(b.cacheRead), (a?.cacheWrite ?? 0) + n(b.cacheWrite)),
	};
}
