/**
 * One `agent()` call: check options, charge the budget, wait in the queue, ask the runner (re-asking with the
 * validation errors for schema calls), record the outcome. Child failures resolve to null and enter the census;
 * author errors and hard limits throw a `WorkflowError` into the script.
 */
import {
	errorMessage,
	namespacedAgentType,
	type SourceLocation,
	unknownAgentTypeError,
	WorkflowError,
} from "../../errors.ts";
import { firstFrameIn } from "../core/call-site.ts";
import { usdText } from "../core/cost.ts";
import type { WorkflowAgentCallRef } from "../core/events.ts";
import { StableText } from "../core/json.ts";
import { limitText } from "../core/provider-wait.ts";
import { emitLog, type RunContext, type ScriptScope } from "../core/run-context.ts";
import type {
	JsonValue,
	WorkflowAgentResult,
	WorkflowContinuation,
	WorkflowNameMatch,
	WorkflowProviderStop,
} from "../core/types.ts";
import type { CompiledSchema } from "../schema/session.ts";
import type { PhaseBudget } from "../spend/phase-budget.ts";
import { type Attempt, attemptOnce, buildRequest } from "./attempt.ts";
import { AgentCallRecord, noteText, type RecordedCall } from "./call-record.ts";
import type { CallEnding, ContinuedCall } from "./continuation.ts";
import { checkFork } from "./fork.ts";
import { type AgentCallOptions, checkAgentOptions, checkPrompt, DEFAULT_AGENT_TYPE } from "./options.ts";
import { PREVIEW_CHARS, shorten } from "./preview.ts";
import { fitsSchema, replay, replayable } from "./replay.ts";
import { callIdentity, explainMiss } from "./replay-miss.ts";
import type { AgentScope } from "./scope.ts";

/** Attempts a schema call gets in all before `agent()` throws `schema_unmet`. */
export const SCHEMA_ATTEMPTS = 5;
/** What to do about an answer that never matched: the call throws, unlike a failed child. */
const SCHEMA_UNMET_FIX =
	"Loosen the schema (fewer `required` fields, wider types) or say in the prompt what each field holds; the call throws, so wrap it in `try { … } catch (error) { … }` to go on without it";

/** What a call is, settled before it is queued: read-only from here on. */
interface AgentCallPlan extends RecordedCall {
	readonly prompt: string;
	readonly options: Readonly<AgentCallOptions>;
	/** The earlier call whose conversation it continues (`resume`). */
	readonly continues: WorkflowContinuation | undefined;
	/** Says how it ended to the script's labelled calls, which a later `resume` reads. */
	readonly end: (ending: CallEnding) => void;
	/** The budgets it counts against: its phase's and those of the phases enclosing it (the caller's too, when nested). */
	readonly budgets: readonly PhaseBudget[];
	/** Its schema, compiling in the schema worker; none for a text call. */
	readonly compiling: Promise<CompiledSchema> | undefined;
}

/** The attempt that settles a call: never a provider wait (tried again when it is over) nor a refusal (the run stops). */
type Settled = Exclude<Attempt, { kind: "limited" | "refused" }>;

/** Runs one `agent(prompt, opts)` call made at the guest stack `stack` (its line names it when it is cut off). */
export async function runAgentCall(
	scope: AgentScope,
	rawPrompt: JsonValue,
	rawOptions: JsonValue,
	stack: string,
): Promise<JsonValue> {
	const { run } = scope;
	const plan = planAgentCall(scope, rawPrompt, rawOptions, stack);
	const { schema, close } = await admit(scope, plan).catch((error: unknown) => {
		plan.end({ kind: "failed", cause: errorMessage(error), skipped: true });
		throw error;
	});
	const journaled = await fitsSchema(run, plan.ref, replayable(run, plan.ref.key, schema !== undefined), schema);
	if (journaled) {
		close();
		if (typeof journaled.value === "string") noteText(scope, plan);
		plan.end({ kind: "answered", ...pick(journaled, "model", "transcripts") });
		return replay(run, plan.ref, journaled, plan.budgets);
	}
	if (plan.identity) explainMiss(run, plan.ref, plan.identity);
	const record = new AgentCallRecord(scope, plan);
	// While the call is in the queue, a provider wait holds it (and counts against the run's bound).
	const leaveQueue = run.providerWaits.enter();
	// Counted against the run's deadline even while a question is open; past it, this ends the run (the queue sees it).
	const working = run.deadline.work();
	try {
		// After the journal: a replayed forked call needs no conversation (a resume from the command line replays it).
		checkFork(run, plan.ref, plan.options);
		const outcome = await runAttempts(scope, plan, schema, record);
		const value = await settle(plan, record, outcome);
		plan.end(ending(value, outcome, record));
		return value;
	} catch (error) {
		plan.end({ kind: "failed", cause: errorMessage(error), skipped: !record.started });
		// An unmet schema is in the record already.
		if (!(error instanceof WorkflowError && error.code === "schema_unmet")) record.threw(error);
		throw error;
	} finally {
		working();
		leaveQueue();
		close();
	}
}

/**
 * Checks a call, names it (key, index, label, phase) and finds the budgets it counts against; of what it asks for,
 * only its schema starts (compiling).
 */
function planAgentCall(scope: AgentScope, rawPrompt: JsonValue, rawOptions: JsonValue, stack: string): AgentCallPlan {
	const { run } = scope;
	const site = firstFrameIn(stack, scope.filename);
	const { prompt, options, compiling, schemaKey, continued } = checkCall(scope, rawPrompt, rawOptions, site);
	// A continued call's key holds the key of the call it continues: an edit there runs this one again too.
	const identity = identityOf(prompt, options, schemaKey);
	// Taken before the schema compiles (in the schema worker), so calls keep the key and index of the order made.
	const ref: WorkflowAgentCallRef = {
		key: scope.keys.next(continued ? { ...identity, continues: continued.key } : identity),
		index: run.indexes.nextAgent(),
		label: options.label ?? shorten(prompt, 60),
		agentType: options.agentType,
		...((options.phase ?? scope.phases.current) ? { phase: options.phase ?? scope.phases.current } : {}),
		...(scope.workflowName ? { workflow: scope.workflowName } : {}),
		...(continued ? { continues: { index: continued.index, label: continued.label } } : {}),
	};
	const end = scope.labels.add(ref, options.label);
	const budgets = scope.phaseBudgets.chain(
		ref.phase !== undefined ? scope.phases.lineage(ref.phase) : [],
		scope.outerBudgets,
	);
	// Nothing to record without a journal.
	const explained = run.host.journal ? callIdentity({ prompt, ...options }, ref.index) : undefined;
	const continues = continued && {
		key: continued.key,
		index: continued.index,
		label: continued.label,
		...pick(continued, "transcripts"),
	};
	return { prompt, options, ref, site, budgets, compiling, identity: explained, continues, end };
}

/** The call's prompt and options, checked, with its agent type resolved and its schema set compiling. */
function checkCall(
	scope: AgentScope,
	rawPrompt: JsonValue,
	rawOptions: JsonValue,
	site: SourceLocation | undefined,
): {
	prompt: string;
	options: AgentCallOptions;
	compiling: Promise<CompiledSchema> | undefined;
	/** The schema's contents as `stableJson` writes them (its key in the session). */
	schemaKey: string | undefined;
	continued: ContinuedCall | undefined;
} {
	const { run } = scope;
	run.census.call();
	try {
		const prompt = checkPrompt(rawPrompt);
		const options = checkAgentOptions(rawOptions);
		const continued = options.resume === undefined ? undefined : continueFrom(scope, options, site);
		if (run.host.agentTypes && !run.host.agentTypes.includes(options.agentType)) {
			// A plugin-scoped name (`plugin:reviewer`, Claude Code's) runs as the type of its last part, said in the census.
			const bare = namespacedAgentType(options.agentType, run.host.agentTypes);
			if (!bare) throw unknownAgentTypeError(options.agentType, run.host.agentTypes, run.host.agentTypesNote);
			const written = options.agentType;
			options.agentType = bare;
			noteMatch(scope, options.label ?? shorten(prompt, 60), {
				kind: "agent",
				written,
				resolved: bare,
				how: "the type of that name; plugins are not loaded here",
			});
		}
		// `options.schema` is the sandbox's argument as parsed: the session knows it again by its JSON text.
		const schema = options.schema ? run.schemas.compileParsed(options.schema) : undefined;
		return { prompt, options, compiling: schema?.compiled, schemaKey: schema?.key, continued };
	} catch (error) {
		// Refused before it was queued (author error, limit, cancelled run): it never started.
		run.census.refused();
		throw error;
	}
}

/**
 * The call `options.resume` names, whose agent type, label and (unless the call names a model or tier) model the
 * options take; an explicit other agent type cannot hold.
 */
function continueFrom(scope: AgentScope, options: AgentCallOptions, site: SourceLocation | undefined): ContinuedCall {
	const continued = scope.labels.take(options.resume as string, site);
	if (options.agentType !== DEFAULT_AGENT_TYPE && options.agentType !== continued.agentType) {
		throw new WorkflowError(
			"agent_options_invalid",
			`\`agent()\` option \`resume: ${JSON.stringify(continued.label)}\` continues a \`${continued.agentType}\` child, and \`agent: ${JSON.stringify(options.agentType)}\` asks for another type: a conversation keeps its agent type. Drop \`agent\`, or start a fresh call`,
			{ location: site, details: { option: "agent" } },
		);
	}
	options.agentType = continued.agentType;
	options.label ??= continued.label;
	if (continued.model && options.model === undefined && options.tier === undefined) options.model = continued.model;
	return continued;
}

/** How a settled call ended, for the script's labelled calls: null is a failed child. */
function ending(value: JsonValue, outcome: Settled, record: AgentCallRecord): CallEnding {
	if (value === null)
		return { kind: "failed", cause: outcome.kind === "failed" ? outcome.cause : "no answer", skipped: false };
	const branch = outcome.result?.worktree?.branch;
	return { kind: "answered", ...record.conversation(), ...(branch ? { branch } : {}) };
}

/** The fields of `from` named in `keys` that are set. */
function pick<T extends object, K extends keyof T>(from: T, ...keys: K[]): Partial<Pick<T, K>> {
	const picked: Partial<Pick<T, K>> = {};
	for (const key of keys) if (from[key] !== undefined) picked[key] = from[key];
	return picked;
}

/**
 * Lets a planned call into the queue: its schema compiled, its budgets checked and charged, then announced. Until
 * `close`, the call is among what its script would cut off by returning: from the start, so a call still compiling
 * its schema when the script returns is named too.
 */
async function admit(
	scope: AgentScope,
	plan: AgentCallPlan,
): Promise<{ schema: CompiledSchema | undefined; close: () => void }> {
	const { run } = scope;
	const { ref, budgets } = plan;
	const untrack = scope.life.track({
		kind: "agent",
		name: ref.label,
		filename: scope.filename,
		...(plan.site ?? {}),
		index: ref.index,
		...(scope.workflowName ? { workflow: scope.workflowName } : {}),
	});
	let schema: CompiledSchema | undefined;
	const close = () => {
		untrack();
		if (schema) run.schemas.release(schema);
	};
	try {
		schema = await plan.compiling;
		if (run.signal.aborted) throw run.signal.reason;
		for (const budget of budgets) budget.checkCall();
		run.budget.chargeAgentCall();
		for (const budget of budgets) budget.calls++;
	} catch (error) {
		close();
		// Stopped by a provider's refusal before it was let in: skipped with the run's reason and a failure entry, as
		// the calls queued behind the refusal are (only its timing differs from theirs).
		if (run.signal.aborted && run.providerWaits.refusing) new AgentCallRecord(scope, plan).threw(error);
		else run.census.refused();
		throw error;
	}
	if (run.heard) {
		run.emit({
			type: "agent_queued",
			...ref,
			promptPreview: shorten(plan.prompt, PREVIEW_CHARS),
			...(plan.site ?? {}),
			hasSchema: schema !== undefined,
			...(plan.options.model ? { model: plan.options.model } : {}),
		});
	}
	return { schema, close };
}

/**
 * Asks the runner, in the queue, until an attempt settles the call: again with the validation errors for a schema
 * call, again for a failed child when the script asked for retries, and after a provider wait without counting it.
 */
async function runAttempts(
	scope: AgentScope,
	plan: AgentCallPlan,
	schema: CompiledSchema | undefined,
	record: AgentCallRecord,
): Promise<Settled> {
	const { run } = scope;
	for (;;) {
		// At the run's cap the call waits outside the queue, so a queue other runs share keeps its slots.
		await run.costCap.pass(run);
		const settled = await run.queue.run(() => attemptsInSlot(scope, plan, schema, record), scope.life.signal);
		if (settled !== PARKED) return settled;
	}
}

/** What a call that got its slot after the run reached its dollar cap gives back: it waits again, outside. */
const PARKED = Symbol("parked");

/** `runAttempts` in its queue slot. */
async function attemptsInSlot(
	scope: AgentScope,
	plan: AgentCallPlan,
	schema: CompiledSchema | undefined,
	record: AgentCallRecord,
): Promise<Settled | typeof PARKED> {
	const { run } = scope;
	const { ref, budgets, options } = plan;
	// After a provider's refusal no call reaches its runner: it waits for the run to stop, never started.
	if (run.providerWaits.refusing) await run.providerWaits.ready(scope.life.signal);
	// The caps are checked again as the child is about to start: while it waited, others may have spent them.
	if (run.budget.costCapReached) return PARKED;
	checkSpend(run, budgets);
	record.reachRunner();
	let feedback: string | undefined;
	const maxAttempts = schema ? SCHEMA_ATTEMPTS : 1 + options.retries;
	let last: Attempt = { kind: "failed", cause: "never ran" };
	// Attempts that count against `retries` (or the schema's attempts): one lost to a provider limit does not.
	let counted = 0;
	for (let attempt = 1; ; attempt++) {
		if (scope.life.signal.aborted) throw scope.life.signal.reason;
		// No child starts during a provider wait or after a refusal, a retry of a running call included.
		if (run.providerWaits.holding) await run.providerWaits.ready(scope.life.signal);
		if (attempt === 1) {
			if (run.heard) run.emit({ type: "agent_started", ...ref, attempt });
		} else {
			// Each attempt is a new child: none starts past a cap (a retry waits for a raise in its slot).
			await run.costCap.pass(run);
			checkSpend(run, budgets);
			run.emit({ type: "agent_retry", ...ref, attempt, reason: retryReason(last, feedback) });
		}
		const capEnded = run.costCap.childStarted();
		const attemptEnded = run.providerWaits.attempting();
		try {
			last = await attemptOnce(
				scope,
				ref,
				buildRequest(scope, ref, plan.prompt, options, attempt, feedback, plan.continues),
				schema,
			);
		} finally {
			attemptEnded();
			capEnded();
		}
		for (const match of attempt === 1 ? (last.result?.matches ?? []) : []) noteMatch(scope, ref.label, match);
		record.add(attempt, last.result);
		// Counted as each attempt ends, whatever becomes of the call, so the next child to start sees it.
		spend(run, budgets, ref, last.result);
		if (last.kind === "limited") {
			// The queue waits (one wait for every child); this attempt is tried again when it is over.
			await run.providerWaits.wait(last.limit, ref, scope.life.signal);
			continue;
		}
		if (last.kind === "refused") {
			// Not a failure: the run stops once its running children end, and a resume asks the provider again.
			noteRefusal(run, ref, last.stop);
			await run.providerWaits.ready(scope.life.signal);
			continue;
		}
		run.queue.providerOk();
		counted++;
		if (last.kind === "answer" || counted >= maxAttempts) break;
		if (last.kind === "schema_miss") feedback = last.errors;
		// A failed child is tried again only when the script asked for retries, and never one the user skipped.
		else if (counted > options.retries || last.final) break;
	}
	return last;
}

/** The run's first refusal goes to its log at once: the run may go on for a while, finishing its running children. */
function noteRefusal(run: RunContext, ref: WorkflowAgentCallRef, stop: WorkflowProviderStop): void {
	const { first, running } = run.providerWaits.refuse(stop, ref.label);
	if (!first || running === 0) return;
	const provider = stop.provider ? `provider \`${stop.provider}\`` : "the provider";
	emitLog(run, {
		level: "warn",
		message: `\`${ref.label}\`: ${provider} refused it (${stop.kind === "quota" ? "quota or billing" : "API key"}); no other agent starts, and the run stops once the ${running} running finish`,
		...(ref.phase ? { phase: ref.phase } : {}),
	});
}

/** What the script gets of the attempt that settled its call: the answer, null for a failed child, or a throw. */
async function settle(plan: AgentCallPlan, record: AgentCallRecord, outcome: Settled): Promise<JsonValue> {
	if (outcome.kind === "answer") return record.answered(outcome.value, outcome.result);
	if (outcome.kind === "schema_miss") {
		const error = new WorkflowError(
			"schema_unmet",
			`\`agent()\` answer still does not match its schema after ${SCHEMA_ATTEMPTS} attempts: ${outcome.errors}. ${SCHEMA_UNMET_FIX}`,
			{ details: { attempts: SCHEMA_ATTEMPTS, errors: outcome.errors, key: plan.ref.key } },
		);
		record.failed(error.message, error.code, true, outcome.result);
		throw error;
	}
	return record.nulled(outcome.cause, outcome.code, outcome.result);
}

/** Throws `budget_exhausted` when the run or one of the call's phases spent its tokens or dollars. */
function checkSpend(run: RunContext, budgets: readonly PhaseBudget[]): void {
	run.budget.checkSpend();
	for (const budget of budgets) budget.checkSpend();
}

/** One attempt's tokens and dollars, charged to the run and the call's phases. */
function spend(
	run: RunContext,
	budgets: readonly PhaseBudget[],
	ref: WorkflowAgentCallRef,
	result: WorkflowAgentResult | undefined,
): void {
	if (!result) return;
	if (result.usage) run.budget.spendTokens(result.usage.total);
	run.budget.spendCost(result.cost);
	for (const budget of budgets) budget.spend(result.usage, result.cost);
	if (!result.cost?.unpriced) return;
	// A cap cannot count what has no price: said once per model, so a person does not trust a cap that cannot hold.
	const cap = run.budget.costLimitUsd ?? budgets.find((budget) => budget.limits.costUsd !== undefined)?.limits.costUsd;
	const model = result.model ?? "its model";
	if (cap === undefined || !run.budget.firstUnpriced(model)) return;
	emitLog(run, {
		level: "warn",
		message: `\`${ref.label}\` ran on ${model}, which has no known price: what it costs is unknown and does not count against the ${usdText(cap)} cap`,
		...(ref.phase ? { phase: ref.phase } : {}),
	});
}

/** What an `agent_retry` event says about why the call is tried again. */
function retryReason(last: Attempt, feedback: string | undefined): string {
	if (last.kind === "failed") return last.cause;
	if (last.kind === "limited") return `the provider wait is over (${limitText(last.limit.kind)})`;
	return feedback ?? "";
}

/**
 * What makes two calls the same call: not the label or phase, which are display. The schema goes in as its key,
 * which is the text `stableJson` would write of it.
 */
function identityOf(prompt: string, options: AgentCallOptions, schemaKey: string | undefined): Record<string, unknown> {
	return {
		prompt,
		agentType: options.agentType,
		schema: schemaKey === undefined ? undefined : new StableText(schemaKey),
		model: options.model,
		thinking: options.thinking,
		tools: options.tools,
		isolation: options.isolation,
		tier: options.tier,
		readOnly: options.readOnly,
		// That it forks, not which conversation: a resume (a later turn, the command line) has another or none, and
		// should still replay what the forked child answered.
		context: options.context,
	};
}

/** A name read as another, into the census; the first time in a run, a log line says so too. */
function noteMatch(scope: ScriptScope, label: string, match: Omit<WorkflowNameMatch, "calls">): void {
	if (!scope.run.census.match(match)) return;
	const what = match.kind === "agent" ? "agent type" : match.kind === "tier" ? "model tier" : "model";
	emitLog(scope.run, {
		level: "info",
		message: `\`${label}\`: ${what} \`${match.written}\` is ${match.resolved} (${match.how})`,
		...(scope.phases.current ? { phase: scope.phases.current } : {}),
	});
}
